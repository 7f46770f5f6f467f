#!/bin/sh
# test-app-early-load.sh: `planar PATH` begins PATH's load in main(), before
# GTK starts, and the window that opens PATH adopts it (one load); a second
# `planar PATH2` hands PATH2 to the first instance, cancels its own early
# load and ends, and the first instance opens PATH2 with a load of its own.
#
# The real binary, with G_MESSAGES_DEBUG=Planar: the early load says when it
# started, was adopted or was cancelled (app/planar-early-load.c). A
# screenshot of the window opened this way is kept in $PLANAR_E2E_OUTPUT.
#
# Environment: PLANAR, PLANAR_GEN, PLANAR_E2E_OUTPUT, optionally XDOTOOL and
# GDBUS. Run inside xvfb-run and dbus-run-session (tests/meson.build does).
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu

tmp_prefix=planar-early
show_logs() {
  for log in "$tmp/first.log" "$tmp/second.log"; do
    [ -f "$log" ] || continue
    echo "# $log:"
    sed 's/^/#   /' "$log"
  done
}
. "$(dirname "$0")/lib-app-script.sh"

# Waits until window ${1:-1} has loaded what it opened, or failed to.
wait_settled() {
  i=0
  until enabled reload "${1:-1}" && ! enabled cancel-load "${1:-1}"; do
    i=$((i + 1))
    [ $i -lt 300 ] || fail "window ${1:-1} loads"
    kill -0 "$pid" 2>/dev/null || fail "planar is still running while window ${1:-1} loads"
    sleep 0.1
  done
}

# How many lines of $1 match the fixed string $2.
count() {
  grep -cF -- "$2" "$1" || true
}

mkdir -p "$out"
export HOME="$tmp/home" XDG_DATA_HOME="$tmp/home/data" XDG_CONFIG_HOME="$tmp/home/config" \
       XDG_CACHE_HOME="$tmp/home/cache"
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME/gtk-4.0" "$XDG_CACHE_HOME"
printf '[Settings]\ngtk-overlay-scrolling=false\ngtk-enable-animations=false\n' \
  >"$XDG_CONFIG_HOME/gtk-4.0/settings.ini"
export PLANAR_DEBUG_ACTIONS=1 G_MESSAGES_DEBUG=Planar

"$PLANAR_GEN" --demo "$tmp/logs" >/dev/null
"$PLANAR_GEN" --events 200000 -o "$tmp/second.xplane.pb" >/dev/null

"$PLANAR" "$tmp/logs" >"$tmp/first.log" 2>&1 &
pid=$!
timeout 30 "$xdotool" search --sync --onlyvisible --name 'Planar' >/dev/null || fail "the window appears"
wait_settled 1
ok "planar PATH opens PATH"

[ "$(count "$tmp/first.log" "Early load of $tmp/logs started: 2 hosts")" -eq 1 ] \
  || fail "the load of PATH began before GTK started"
ok "the load of PATH began before GTK started"
[ "$(count "$tmp/first.log" "Early load of $tmp/logs adopted")" -eq 1 ] \
  || fail "the window adopted the early load"
[ "$(count "$tmp/first.log" "not adopted")" -eq 0 ] || fail "the window adopted the early load"
ok "the window adopted the early load: one load"

shot early-load-window
ok "a screenshot of the window is saved"

# A second instance hands its path over, cancels its own early load and
# ends at once; the first opens the path in a window with its own load.
status=0
timeout 30 "$PLANAR" "$tmp/second.xplane.pb" >"$tmp/second.log" 2>&1 || status=$?
[ "$status" -eq 0 ] || fail "a second planar PATH ends with status 0 (got $status)"
ok "a second planar PATH ends with status 0"
[ "$(count "$tmp/second.log" "Early load of $tmp/second.xplane.pb cancelled")" -eq 1 ] \
  || fail "the second instance cancels its early load"
[ "$(count "$tmp/second.log" "adopted")" -eq 0 ] || fail "the second instance cancels its early load"
ok "the second instance cancels its early load"
timeout 30 "$xdotool" search --sync --onlyvisible --name 'second.xplane.pb' >/dev/null \
  || fail "the first instance opens the second path"
wait_settled 2
[ "$(count "$tmp/first.log" "Early load of $tmp/second.xplane.pb")" -eq 0 ] \
  || fail "the first instance loads the second path itself"
ok "the first instance opens the second path with a load of its own"

"$gdbus" call --session --dest dev.planar.Planar --object-path "$app_path" \
  --method org.gtk.Actions.Activate quit '[]' '{}' >/dev/null
i=0
while kill -0 "$pid" 2>/dev/null; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "app.quit ends planar"
  sleep 0.1
done
status=0
wait "$pid" || status=$?
pid=
[ "$status" -eq 0 ] || fail "planar exits with status 0 (got $status)"
ok "planar exits with status 0"

echo "# screenshot in $out/early-load-window.png"
echo "1..$n"
