#!/bin/sh
# jax-capture-check.sh: the check of `planar-cli capture` against a real
# jax.profiler.start_server (docs/capture.md), and of Planar reading a
# profile that JAX wrote itself. Runs a small JAX program that serves the
# ProfilerService on 127.0.0.1:PORT while it runs a jitted step in a loop,
# captures DURATION ms from it, checks what came back, interrupts a long
# capture (SIGINT) and captures again at once, then has JAX write a
# profile of the same step with jax.profiler.trace and reads that one too.
# With a GPU (JAX's CUDA plugin) the step's kernels must be on a
# /device:GPU plane; on a CPU-only JAX the host plane must hold the step.
# On a machine without JAX it says so and exits 2.
#
#   bench/jax-capture-check.sh PLANAR_CLI [PYTHON] [KEEP_DIR]
#
# KEEP_DIR, when given, receives both profiles and the CLI's outputs.
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cli=${1:?usage: jax-capture-check.sh PLANAR_CLI [PYTHON] [KEEP_DIR]}
python=${2:-python3}
keep=${3:-}
port=${PLANAR_JAX_PORT:-9731}
duration=${PLANAR_JAX_DURATION_MS:-2000}

if ! "$python" -c 'import jax' 2>/dev/null; then
  echo "jax-capture-check: $python cannot import jax" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/planar-jax-check-XXXXXX")
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

cat > "$work/step.py" <<'PY'
import sys, time
import jax, jax.numpy as jnp

mode, arg, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])

@jax.jit
def step(x, w):
    y = jnp.tanh(x @ w)
    return y / (1.0 + jnp.abs(y).sum(axis=1, keepdims=True))

key = jax.random.PRNGKey(0)
x = jax.random.normal(key, (2048, 2048), jnp.float32)
w = jax.random.normal(key, (2048, 2048), jnp.float32) * 0.01
x = step(x, w).block_until_ready()
print("devices", [d.platform + ":" + str(d.id) for d in jax.devices()], flush=True)
if mode == "serve":
    jax.profiler.start_server(int(arg))
    print("ready", flush=True)
    end = time.time() + secs
    i = 0
    while time.time() < end:
        with jax.profiler.StepTraceAnnotation("train", step_num=i):
            x = step(x, w).block_until_ready()
        i += 1
else:
    # create_perfetto_trace: JAX writes XProf's trace viewer JSON of the
    # same events beside the xplane too (<host>.trace.json.gz).
    with jax.profiler.trace(arg, create_perfetto_trace=True):
        for _ in range(int(secs)):
            with jax.profiler.StepTraceAnnotation("train", step_num=_):
                x = step(x, w).block_until_ready()
print("done", flush=True)
PY

export XLA_PYTHON_CLIENT_PREALLOCATE=false
"$python" "$work/step.py" serve "$port" 120 > "$work/server.log" 2>&1 &
server_pid=$!
i=0
while ! grep -q '^ready' "$work/server.log"; do
  i=$((i + 1))
  if [ $i -gt 240 ] || ! kill -0 "$server_pid" 2>/dev/null; then
    echo "jax-capture-check: the JAX program did not start its server:" >&2
    cat "$work/server.log" >&2
    exit 1
  fi
  sleep 0.5
done
grep '^devices' "$work/server.log"
gpu=0
grep -q "gpu:\|cuda:" "$work/server.log" && gpu=1

status=0
t0=$(date +%s.%N)
"$cli" capture --service "127.0.0.1:$port" --logdir "$work/logs" --duration-ms "$duration" \
  > "$work/capture.out" 2> "$work/capture.err" || status=$?
t1=$(date +%s.%N)
echo "capture: exit $status in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
cat "$work/capture.out" "$work/capture.err"

# An interrupted capture must leave the server free: SIGINT a 20 s capture
# once its call is in flight, then capture again at once. Before Planar
# sent Terminate on the way out, the server refused it ("Another profiling
# session active.") for the rest of the 20 s.
"$cli" capture --service "127.0.0.1:$port" --logdir "$work/logs-int" --duration-ms 20000 \
  > "$work/int.out" 2> "$work/int.err" &
int_pid=$!
sleep 3
kill -INT "$int_pid"
int_status=0
wait "$int_pid" || int_status=$?
again=0
"$cli" capture --service "127.0.0.1:$port" --logdir "$work/logs-again" --duration-ms 500 \
  > "$work/again.out" 2> "$work/again.err" || again=$?
echo "interrupted capture: exit $int_status; capture right after it: exit $again"
cat "$work/int.err" "$work/again.out" "$work/again.err"
kill "$server_pid" 2>/dev/null || true
wait "$server_pid" 2>/dev/null || true
server_pid=

failed=0
check() {
  # check LABEL PROFILE: prints what Planar reads from PROFILE and counts
  # the step's work on the device (GPU) or host (CPU) planes.
  label=$1 profile=$2
  echo "== $label: $profile ($(wc -c < "$profile") bytes)"
  "$cli" info "$profile" 2>&1 | sed -n '1,40p'
  "$cli" health "$profile" 2>&1 | sed -n '1,20p'
  "$cli" summary "$profile" 2>&1 | sed -n '1,25p'
  if [ $gpu -eq 1 ]; then plane='^/device:GPU'; else plane='^/host:CPU'; fi
  n=$("$cli" find "$profile" dot --limit 0 2>/dev/null | awk -F '\t' -v p="$plane" '$2 ~ p' | wc -l)
  echo "$label: $n events named like 'dot' on $plane planes"
  [ "$n" -gt 0 ] || { echo "jax-capture-check: $label holds no step on $plane" >&2; failed=1; }
  if [ $gpu -eq 1 ]; then
    # The kernels' HLO is found: their framework op (jit(step)/dot_general)
    # and its FLOPs, as XProf shows them.
    "$cli" summary --by framework-op "$profile" 2>&1 | sed -n '1,8p'
    if ! "$cli" summary --by framework-op "$profile" 2>/dev/null | grep -q 'dot_general'; then
      echo "jax-capture-check: $label: no framework op from the HLO for the step's kernels" >&2
      failed=1
    fi
    # The steps StepTraceAnnotation marks (no group_id in the file): the
    # GPU's Steps and Launch Stats lines, worked out as XProf does.
    steps=$("$cli" info "$profile" 2>/dev/null | awk '$1 == "Steps" && /derived/ { print $(NF - 2); exit }')
    echo "$label: ${steps:-no} derived Steps events on the GPU"
    [ -n "$steps" ] && [ "$steps" -gt 0 ] || { echo "jax-capture-check: $label: no Steps line" >&2; failed=1; }
  fi
  if [ -n "$keep" ]; then
    mkdir -p "$keep"
    cp "$profile" "$keep/$label.xplane.pb"
  fi
}

captured=$(grep 'xplane.pb$' "$work/capture.out" | head -n 1 || true)
if [ "$status" -ne 0 ] || [ -z "$captured" ] || [ ! -f "$captured" ]; then
  echo "jax-capture-check: the capture failed" >&2
  failed=1
else
  check captured "$captured"
fi

"$python" "$work/step.py" trace "$work/jaxlogs" 20 > "$work/trace.log" 2>&1 || {
  echo "jax-capture-check: jax.profiler.trace failed:" >&2
  cat "$work/trace.log" >&2
  failed=1
}
written=$(find "$work/jaxlogs" -name '*.xplane.pb' | head -n 1)
if [ -n "$written" ]; then
  check jax-written "$written"
else
  echo "jax-capture-check: jax.profiler.trace wrote no .xplane.pb" >&2
  failed=1
fi

# JAX's JSON export of the same profile writes every arg as text: its XLA
# Modules line must have one event per module run, as the xplane's has
# (before 2026-11-28 it had one across all the steps).
exported=$(find "$work/jaxlogs" -name '*.trace.json.gz' ! -name 'perfetto_trace.json.gz' | head -n 1)
if [ $gpu -eq 1 ] && [ -n "$written" ] && [ -n "$exported" ]; then
  modules() {
    "$cli" info "$1" 2>/dev/null | awk '$1 == "XLA" && $2 == "Modules" { print $(NF - 2); exit }'
  }
  in_xplane=$(modules "$written")
  in_json=$(modules "$exported")
  echo "XLA Modules events: ${in_xplane:-none} in the xplane, ${in_json:-none} in $(basename "$exported")"
  if [ -z "$in_json" ] || [ "$in_json" != "$in_xplane" ]; then
    echo "jax-capture-check: the JSON export's XLA Modules line differs from the xplane's" >&2
    failed=1
  fi
  if [ -n "$keep" ]; then
    cp "$exported" "$keep/"
  fi
elif [ $gpu -eq 1 ]; then
  echo "jax-capture-check: jax.profiler.trace wrote no .trace.json.gz beside the xplane" >&2
  failed=1
fi

if [ "$int_status" -ne 130 ] || [ "$again" -ne 0 ]; then
  echo "jax-capture-check: no capture right after an interrupted one" >&2
  failed=1
fi

[ $failed -eq 0 ] && echo "jax-capture-check: ok"
exit $failed
