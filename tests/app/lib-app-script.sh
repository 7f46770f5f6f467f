# lib-app-script.sh: what the shell tests of the application share. Sourced
# by tests/app/test-app-*.sh after they set $tmp_prefix and define
# show_logs(), which prints what to read when a check fails.
#
# SPDX-License-Identifier: GPL-3.0-or-later

: "${PLANAR:?}" "${PLANAR_GEN:?}" "${PLANAR_E2E_OUTPUT:?}"
xdotool=${XDOTOOL:-xdotool}
gdbus=${GDBUS:-gdbus}
out=$PLANAR_E2E_OUTPUT
app_path=/dev/planar/Planar

tmp=$(mktemp -d "${TMPDIR:-/tmp}/$tmp_prefix-XXXXXX")
pid=
n=0

cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

ok() {
  n=$((n + 1))
  echo "ok $n - $*"
}

fail() {
  n=$((n + 1))
  echo "not ok $n - $*"
  show_logs
  echo "1..$n"
  exit 1
}

# Whether the action $1 of window ${2:-1} is enabled, asked over
# org.gtk.Actions.
enabled() {
  "$gdbus" call --session --dest dev.planar.Planar --object-path "$app_path/window/${2:-1}" \
    --method org.gtk.Actions.Describe "$1" 2>/dev/null | grep -q '^((true,'
}

# shot NAME: the app's own screenshot of its newest window, saved as
# $out/NAME.png (app.debug-screenshot, enabled by PLANAR_DEBUG_ACTIONS).
# Between two frames (a window just shown, a relayout queued after a
# session switch, slower under ASan) the window can have no drawing to give
# ("The window drew nothing" in the app's log); a later frame has one.
# Asked again every 0.2 s, 25 times at most. A file of an earlier run is
# removed first, so that it cannot pass for this one.
shot() {
  rm -f "$out/$1.png"
  tries=0
  while [ $tries -lt 25 ]; do
    "$gdbus" call --session --dest dev.planar.Planar --object-path "$app_path" \
      --method org.gtk.Actions.Activate debug-screenshot "[<'$out/$1.png'>]" '{}' >/dev/null
    [ -s "$out/$1.png" ] && return 0
    tries=$((tries + 1))
    sleep 0.2
  done
  fail "screenshot $1 was saved"
}
