#!/bin/sh
# run-fuzzer.sh HARNESS CORPUS SECONDS ARTIFACTS [EXTRA_CORPUS...]
# Fuzzes HARNESS for SECONDS with a fixed seed, starting from a copy of
# CORPUS (libFuzzer adds what it finds to its first corpus folder, and the
# committed one stays as it is) and any EXTRA_CORPUS folders, read-only.
# A crash, leak or timeout leaves its input in ARTIFACTS and fails.
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
harness=$1 corpus=$2 seconds=$3 artifacts=$4
shift 4
work=$(mktemp -d "${TMPDIR:-/tmp}/planar-fuzz-corpus-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cp -R "$corpus"/. "$work"/
mkdir -p "$artifacts"
# Any failure is a failure: libFuzzer's own statuses (77 among them, which
# meson would read as "skipped") all become 1.
"$harness" -seed="${PLANAR_FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
  -max_len=1048576 -print_final_stats=1 -artifact_prefix="$artifacts/" "$work" "$@" || {
  echo "run-fuzzer: $harness failed; inputs in $artifacts" >&2
  exit 1
}
