#!/bin/sh
# torch-profile-check.sh: the check of Planar reading a trace that
# PyTorch's profiler wrote (Kineto's *.pt.trace.json.gz) on a real machine
# (docs/interop.md). Runs a small training loop under torch.profiler with
# Python stacks, a record_function around each iteration and STEPS active
# steps, then checks what planar-cli reads from the trace: every
# ProfilerStep#N at one depth of its thread (each begins inside the Python
# calls of profiler.step(), which return after it begins; before
# 2026-11-28 each sat three rows below the one before), the iterations'
# kernels on a GPU plane where there is a GPU, and flows from launches to
# kernels. On a machine without PyTorch it says so and exits 2.
#
#   bench/torch-profile-check.sh PLANAR_CLI [PYTHON] [KEEP_DIR]
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cli=${1:?usage: torch-profile-check.sh PLANAR_CLI [PYTHON] [KEEP_DIR]}
python=${2:-python3}
keep=${3:-}
steps=${PLANAR_TORCH_STEPS:-20}

if ! "$python" -c 'import torch' 2>/dev/null; then
  echo "torch-profile-check: $python cannot import torch" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/planar-torch-check-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

cat > "$work/train.py" <<'PY'
import sys, torch, torch.nn as nn
from torch.profiler import profile, ProfilerActivity, schedule, tensorboard_trace_handler, record_function
out, steps = sys.argv[1], int(sys.argv[2])
dev = "cuda" if torch.cuda.is_available() else "cpu"
m = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)).to(dev)
opt = torch.optim.Adam(m.parameters())
x = torch.randn(128, 256, device=dev); y = torch.randint(0, 10, (128,), device=dev)
acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev == "cuda" else [])
with profile(activities=acts, with_stack=True, schedule=schedule(wait=0, warmup=1, active=steps, repeat=1),
             on_trace_ready=tensorboard_trace_handler(out, worker_name="check", use_gzip=True)) as p:
    for i in range(steps + 2):
        with record_function("iteration"):
            opt.zero_grad()
            nn.functional.cross_entropy(m(x), y).backward()
            opt.step()
        p.step()
print("device", dev, flush=True)
PY

"$python" "$work/train.py" "$work/trace" "$steps" > "$work/train.log" 2>&1 || {
  echo "torch-profile-check: the PyTorch program failed:" >&2
  cat "$work/train.log" >&2
  exit 1
}
trace=$(find "$work/trace" -name '*.pt.trace.json.gz' | head -n 1)
[ -n "$trace" ] || { echo "torch-profile-check: PyTorch wrote no trace" >&2; exit 1; }
cat "$work/train.log"
"$cli" info "$trace" | sed -n '1,30p'
"$cli" health "$trace" | sed -n '1,12p'

failed=0
# The thread that holds the steps: the line with the most ProfilerStep events.
plane_line=$("$cli" find "$trace" 'ProfilerStep#' --limit 0 | awk -F '\t' '{ n[$2 "\t" $3]++ } END { for (k in n) print n[k] "\t" k }' | sort -rn | head -n 1 | cut -f 2-)
plane=$(printf '%s' "$plane_line" | cut -f 1)
line=$(printf '%s' "$plane_line" | cut -f 2)
depths=$("$cli" events "$trace" --plane "$plane" --line "$line" --format tsv |
  awk -F '\t' 'NR > 1 && $4 ~ /^ProfilerStep#/ { print $3 }' | sort -n | uniq -c)
echo "ProfilerStep events on $plane / $line, by depth (count depth):"
echo "$depths"
n_depths=$(printf '%s\n' "$depths" | grep -c . || true)
n_steps=$(printf '%s\n' "$depths" | awk '{ s += $1 } END { print s + 0 }')
[ "$n_steps" -ge "$steps" ] || { echo "torch-profile-check: $n_steps ProfilerStep events, expected $steps" >&2; failed=1; }
[ "$n_depths" -eq 1 ] || { echo "torch-profile-check: the steps are at $n_depths depths, expected one" >&2; failed=1; }
if grep -q '^device cuda' "$work/train.log"; then
  kernels=$("$cli" find "$trace" --regex 'gemm|elementwise|reduce' --limit 0 | awk -F '\t' '$2 ~ /GPU/' | wc -l)
  echo "kernels found on a GPU plane: $kernels"
  [ "$kernels" -gt 0 ] || { echo "torch-profile-check: no kernel on a GPU plane" >&2; failed=1; }
fi
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  cp "$trace" "$keep/"
fi
[ $failed -eq 0 ] && echo "torch-profile-check: ok"
exit $failed
