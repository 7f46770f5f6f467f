#!/bin/sh
# gpu-record-check.sh: the check of `planar-cli record` on a real NVIDIA GPU
# (docs/record.md). Builds a small CUDA program with nvcc (100 launches of
# one kernel, two copies in, one out), records it, checks that the profile
# holds those kernels and copies on the device and their launches on the
# host, and measures the run time with and without recording (median of
# RUNS). Prints a table for docs/record.md. On a machine without nvcc or a
# GPU it says so and exits 2.
#
#   bench/gpu-record-check.sh PLANAR_CLI [RUNS]
#
# With PLANAR_GPU_CHECK_KEEP=DIR the recorded profile is copied into DIR.
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cli=${1:?usage: gpu-record-check.sh PLANAR_CLI [RUNS]}
runs=${2:-5}

nvcc=$(command -v nvcc || true)
for root in "${CUDA_HOME:-}" /usr/local/cuda /usr/local/cuda-*; do
  [ -n "$nvcc" ] && break
  [ -n "$root" ] && [ -x "$root/bin/nvcc" ] && nvcc=$root/bin/nvcc
done
if [ -z "$nvcc" ]; then
  echo "gpu-record-check: needs nvcc (the CUDA toolkit); set CUDA_HOME" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/planar-gpu-check-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

cat > "$work/saxpy.cu" <<'EOF'
#include <cstdio>
__global__ void saxpy (int n, float a, const float *x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
int main ()
{
  const int n = 1 << 24;
  float *x, *y, *dx, *dy;
  if (cudaMallocHost (&x, n * 4) != cudaSuccess) { fprintf (stderr, "no usable GPU\n"); return 3; }
  cudaMallocHost (&y, n * 4);
  cudaMalloc (&dx, n * 4);
  cudaMalloc (&dy, n * 4);
  for (int i = 0; i < n; i++) { x[i] = 1; y[i] = 2; }
  cudaMemcpy (dx, x, n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy (dy, y, n * 4, cudaMemcpyHostToDevice);
  for (int r = 0; r < 100; r++)
    saxpy<<<(n + 255) / 256, 256>>> (n, 2.0f, dx, dy);
  cudaMemcpy (y, dy, n * 4, cudaMemcpyDeviceToHost);
  printf ("%f\n", y[0]);
  return y[0] == 202.0f ? 0 : 4;
}
EOF
"$nvcc" -O2 -o "$work/saxpy" "$work/saxpy.cu"

if ! "$work/saxpy" > /dev/null 2>&1; then
  echo "gpu-record-check: the CUDA program does not run here: this machine has no usable NVIDIA GPU" >&2
  exit 2
fi

# Median wall time in seconds of RUNS runs of "$@".
median() {
  i=0
  : > "$work/times"
  while [ $i -lt "$runs" ]; do
    t0=$(date +%s.%N)
    "$@" > /dev/null 2>>"$work/stderr"
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >> "$work/times"
    i=$((i + 1))
  done
  sort -g "$work/times" | sed -n "$(( (runs + 1) / 2 ))p"
}

plain=$(median "$work/saxpy")
recorded=$(median "$cli" record --logdir "$work/logs" -- "$work/saxpy")
path=$("$cli" record --logdir "$work/logs" -- "$work/saxpy" | tail -n 1)

count() {
  "$cli" find "$path" "$1" --limit 0 | awk -F '\t' -v plane="$2" '$2 ~ plane' | wc -l
}
kernels=$(count saxpy '^/device:GPU')
launches=$(count saxpy '^/host:CPU')
h2d=$(count MemcpyH2D '^/device:GPU')
d2h=$(count MemcpyD2H '^/device:GPU')

echo "| GPU | run s | recorded s | overhead | kernels (100) | launches (100) | H2D copies (2) | D2H copies (1) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || echo unknown)
printf '| %s | %.3f | %.3f | %.2fx | %s | %s | %s | %s |\n' "$gpu" "$plain" "$recorded" \
  "$(awk -v a="$recorded" -v b="$plain" 'BEGIN { print a / b }')" "$kernels" "$launches" "$h2d" "$d2h"
"$cli" health "$path" | sed -n '1,12p'
if [ "$kernels" -ne 100 ] || [ "$launches" -ne 100 ] || [ "$h2d" -ne 2 ] || [ "$d2h" -ne 1 ]; then
  echo "gpu-record-check: the profile does not hold what the program did" >&2
  exit 1
fi
if [ -n "${PLANAR_GPU_CHECK_KEEP:-}" ]; then
  mkdir -p "$PLANAR_GPU_CHECK_KEEP"
  cp "$path" "$PLANAR_GPU_CHECK_KEEP/record-saxpy.xplane.pb"
fi
echo "gpu-record-check: ok ($path kept only while this script runs)"
