#!/usr/bin/env bash
# bench/planar-bench-python.sh: Planar's full load (derived lines and flows,
# no cached index: `planar-cli info --json --no-cache`) against a
# python3-protobuf parse (its C++ backend) of the same planar-gen file, in
# the same run, with the peak RSS of each. The Python module is generated
# from the project's own model/proto/xplane.proto here, at bench time.
#
#   bench/planar-bench-python.sh PLANAR_CLI PLANAR_GEN [SIZES] [RUNS]
#
# SIZES defaults to "1e6 1e7 1e8"; python3-protobuf cannot parse a message
# past 2 GiB, so the 1e8 row has Planar alone. The profiles are made once
# in $PLANAR_BENCH_DIR (default $XDG_CACHE_HOME/planar-bench), as
# bench/open makes them. Each figure is the median of RUNS runs (default
# 3; one for files past 1 GB). Needs python3-protobuf and protobuf-compiler
# (./dev deps).
set -euo pipefail

cli=$1
gen=$2
sizes=${3:-1e6 1e7 1e8}
runs=${4:-3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${PLANAR_BENCH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/planar-bench}
# Debian's python3, whose python3-protobuf has the C++ backend (not one a
# version manager put first on PATH).
python=/usr/bin/python3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
protoc -I "$here/model/proto" --python_out="$work" "$here/model/proto/xplane.proto"
backend=$(PYTHONPATH=$work "$python" -c 'from google.protobuf.internal import api_implementation as a; print(a.Type())')

cat >"$work/parse.py" <<'PY'
import resource, sys, time
import xplane_pb2
data = open(sys.argv[1], "rb").read()
t0 = time.monotonic()
space = xplane_pb2.XSpace()
space.ParseFromString(data)
t1 = time.monotonic()
events = sum(len(line.events) for plane in space.planes for line in plane.lines)
print("%.6f %d %d" % (t1 - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, events))
PY

median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "python3-protobuf backend: $backend"
echo
echo "| events | file MB | runs | Planar full load s | Planar peak RSS MB | RSS / file | python3-protobuf parse s | python peak RSS MB | Planar / python |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $sizes; do
  file=$dir/gen-seed1-$n.xplane.pb
  mkdir -p "$dir"
  [ -f "$file" ] || "$gen" --seed 1 --events "$n" --output "$file" >/dev/null
  size=$(stat -c %s "$file")
  k=$runs
  [ "$size" -lt $((1 << 30)) ] || k=1
  : >"$work/planar" ; : >"$work/planar-rss" ; : >"$work/python" ; : >"$work/python-rss"
  for ((r = 0; r < k; r++)); do
    # Alternating, so that a busy machine slows both alike.
    /usr/bin/time -f "%e %M" -o "$work/t" env PLANAR_CACHE=0 "$cli" info --json --no-cache "$file" >/dev/null
    read -r s rss <"$work/t"
    echo "$s" >>"$work/planar"; echo "$rss" >>"$work/planar-rss"
    if [ "$size" -lt $((2 << 30)) ]; then
      read -r s rss _ < <(PYTHONPATH=$work "$python" "$work/parse.py" "$file")
      echo "$s" >>"$work/python"; echo "$rss" >>"$work/python-rss"
    fi
  done
  p=$(median <"$work/planar"); prss=$(median <"$work/planar-rss")
  if [ -s "$work/python" ]; then
    y=$(median <"$work/python"); yrss=$(median <"$work/python-rss")
    awk -v n="$n" -v mb="$size" -v k="$k" -v p="$p" -v prss="$prss" -v y="$y" -v yrss="$yrss" 'BEGIN {
      printf "| %s | %.1f | %d | %.3f | %.0f | %.2fx | %.3f | %.0f | %.3fx |\n",
             n, mb / 1e6, k, p, prss / 1024, prss * 1024 / mb, y, yrss / 1024, p / y }'
  else
    awk -v n="$n" -v mb="$size" -v k="$k" -v p="$p" -v prss="$prss" 'BEGIN {
      printf "| %s | %.1f | %d | %.3f | %.0f | %.2fx | n/a (> 2 GiB) | | |\n",
             n, mb / 1e6, k, p, prss / 1024, prss * 1024 / mb }'
  fi
done
