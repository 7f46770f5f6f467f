#!/bin/sh
# fake-planar-cli-record.sh: stands in for `planar-cli record` in the GUI
# tests (they run where no GPU is). It checks the arguments the app passes,
# runs the command as the recorder would, writes a profile with planar-gen
# into the session layout and prints its path, or fails like the recorder
# when the command fails.
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
[ "$1" = record ] || { echo "planar-cli: expected record, got $1" >&2; exit 2; }
shift
logdir=
while [ $# -gt 0 ]; do
  case $1 in
    --logdir) logdir=$2; shift 2 ;;
    --duration-ms=*|--nvtx) shift ;;
    --) shift; break ;;
    *) echo "planar-cli: unexpected option $1" >&2; exit 2 ;;
  esac
done
[ -n "$logdir" ] || { echo "planar-cli: --logdir is missing" >&2; exit 2; }
echo "running $*"
status=0
"$@" || status=$?
if [ "$status" -ne 0 ]; then
  echo "planar-cli: the command exited with status $status" >&2
  exit "$status"
fi
session="$logdir/plugins/profile/2026_03_01_00_00_00"
mkdir -p "$session"
"${PLANAR_GEN:?}" --events 2000 -o "$session/recorder.xplane.pb" >/dev/null
echo "$session/recorder.xplane.pb"
