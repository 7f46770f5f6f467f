#!/bin/sh
# test-app-e2e.sh: the real `planar` binary on the demo session, driven with
# real key presses (xdotool, XTEST) on a virtual X server.
#
# The app saves its own screenshots (app.debug-screenshot, enabled by
# PLANAR_DEBUG_ACTIONS, called over D-Bus), so nothing grabs the screen. They
# are kept in $PLANAR_E2E_OUTPUT for a person to look at.
#
# Environment: PLANAR (the binary), PLANAR_GEN, PLANAR_E2E_OUTPUT, and
# optionally XDOTOOL and GDBUS. Run inside xvfb-run and dbus-run-session
# (tests/meson.build does).
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu

tmp_prefix=planar-e2e
show_logs() {
  echo "# planar's output:"
  sed 's/^/#   /' "$out/planar.log" || true
}
. "$(dirname "$0")/lib-app-script.sh"

alive() {
  kill -0 "$pid" 2>/dev/null || fail "planar is still running after $1"
}

# The state of the action $1 of window 1, as GVariant text.
state() {
  "$gdbus" call --session --dest dev.planar.Planar --object-path "$app_path/window/1" \
    --method org.gtk.Actions.Describe "$1" 2>/dev/null | sed -n 's/.*\[<\(.*\)>\]).*/\1/p'
}

# Waits until window ${1:-1} has loaded what it opened, or failed to.
wait_settled() {
  i=0
  until enabled reload "${1:-1}" && ! enabled cancel-load "${1:-1}"; do
    i=$((i + 1))
    [ $i -lt 300 ] || fail "window ${1:-1} loads"
    alive "loading"
    sleep 0.1
  done
}

# press KEY NAME: one key press, then a screenshot named NAME.
press() {
  "$xdotool" key "$1"
  # The key reaches the app over X and the screenshot request over D-Bus;
  # give the first a head start.
  sleep 0.3
  alive "key $1"
  shot "$2"
}

same() {
  cmp -s "$out/$1.png" "$out/$2.png"
}

# The folder is shared with test-app's screenshots, which a parallel run
# may be writing: only this script's own (NN-name.png) go.
mkdir -p "$out"
rm -f "$out"/[0-9][0-9]*.png
export HOME="$tmp/home" XDG_DATA_HOME="$tmp/home/data" XDG_CONFIG_HOME="$tmp/home/config" \
       XDG_CACHE_HOME="$tmp/home/cache"
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME/gtk-4.0" "$XDG_CACHE_HOME"
# Overlay scrollbars fade in and out on a timer, so two screenshots of the
# same view could differ; classic ones stay put.
printf '[Settings]\ngtk-overlay-scrolling=false\ngtk-enable-animations=false\n' \
  >"$XDG_CONFIG_HOME/gtk-4.0/settings.ini"
export PLANAR_DEBUG_ACTIONS=1

"$PLANAR_GEN" --demo "$tmp/logs" >/dev/null
# An older session beside the demo one, for the Sessions menu.
older="$tmp/logs/plugins/profile/2025_12_31_00_00_00"
mkdir -p "$older"
ln -s "$tmp/logs/plugins/profile/2026_01_01_00_00_00/host1.xplane.pb" "$older/host1.xplane.pb"
# A file that is no profile.
mkdir -p "$tmp/broken"
printf 'not a profile' >"$tmp/broken/bad.xplane.pb"
"$PLANAR" "$tmp/logs" >"$out/planar.log" 2>&1 &
pid=$!

wid=$(timeout 30 "$xdotool" search --sync --onlyvisible --name 'Planar' | head -n 1) || true
[ -n "$wid" ] || fail "the window appears"
ok "the window appears"

# Loaded once it can reload and has nothing to cancel.
wait_settled 1
ok "the demo session loads"
case $("$xdotool" getwindowname "$wid") in
  "logs — Planar") ok "the title names what was opened" ;;
  *) fail "the title names what was opened" ;;
esac

# The pointer waits outside the window, so that nothing is hovered.
"$xdotool" mousemove 1399 899
"$xdotool" windowfocus --sync "$wid"
shot 00-loaded

previous=00-loaded
# Each key changes what is shown: the view (w a d s) or the tool (1-4).
for step in w:01-zoom-in a:02-pan-left d:03-pan-right s:04-zoom-out w:05-zoom-in-again \
            2:06-tool-pan 3:07-tool-zoom 4:08-tool-timing 1:09-tool-select; do
  key=${step%%:*}
  name=${step#*:}
  press "$key" "$name"
  same "$previous" "$name" && fail "key $key changes the window ($name)"
  ok "key $key changes the window ($name)"
  previous=$name
done

# Nothing is selected, so "zoom to the selection" does nothing.
press f 10-f-no-selection
same "$previous" 10-f-no-selection || fail "key f without a selection leaves the view"
ok "key f without a selection leaves the view"

# 0 shows the whole profile again: the window as it first was.
press 0 11-show-all
same 10-f-no-selection 11-show-all && fail "key 0 changes the window"
ok "key 0 changes the window"
same 00-loaded 11-show-all || fail "key 0 shows the profile as it was first shown"
ok "key 0 shows the profile as it was first shown"

# Find: Control+F opens the bar with the focus in its entry; typing
# searches the whole profile, Return selects the first hit (the details
# pane shows it), Return again the next, Shift+Return goes back, and
# Escape closes the bar and gives the keys back to the timeline.
"$xdotool" key ctrl+f
sleep 0.3
"$xdotool" type --delay 30 "fusion"
sleep 1.5
alive "typing in the find bar"
shot 30-find-typed
same 11-show-all 30-find-typed && fail "Control+F and typing show the find bar"
ok "Control+F and typing show the find bar"
press Return 31-find-first
same 30-find-typed 31-find-first && fail "Return selects the first hit"
ok "Return selects the first hit"
press Return 32-find-second
same 31-find-first 32-find-second && fail "Return again selects the next hit"
ok "Return again selects the next hit"
# The view stays where it is when the first hit is on screen at a readable
# width, so the screenshot need not be 31's; test-find checks which hit is
# selected.
press shift+Return 33-find-back
same 32-find-second 33-find-back && fail "Shift+Return goes back to the first hit"
ok "Shift+Return goes back to the first hit"
press Escape 34-find-closed
same 33-find-back 34-find-closed && fail "Escape closes the find bar"
ok "Escape closes the find bar"
# The timeline has the keys again: w zooms.
press w 35-after-find
same 34-find-closed 35-after-find && fail "after Escape the timeline takes the keys"
ok "after Escape the timeline takes the keys"
# "/" on the timeline opens the bar again, its text kept and selected.
press slash 36-slash
same 35-after-find 36-slash && fail "/ opens the find bar"
ok "/ opens the find bar"
"$xdotool" key Escape
sleep 0.3
press 0 37-show-all-again

# Control+G goes to a time typed in its popover, keeping the zoom: zoomed
# in, the view moves; a typo and Escape leave it.
press w 11a-zoomed
press shift+w 11b-zoomed-more
"$xdotool" key ctrl+g
sleep 0.3
"$xdotool" type --delay 20 "2.5 s"
sleep 0.2
shot 11c-go-to-time-typed
"$xdotool" key Return
sleep 0.3
alive "Control+G"
shot 11d-went-to-time
same 11b-zoomed-more 11d-went-to-time && fail "Control+G moves the view to the time typed"
ok "Control+G moves the view to the time typed"
"$xdotool" key ctrl+g
sleep 0.3
"$xdotool" type --delay 20 '2 parsecs'
"$xdotool" key Return Escape
sleep 0.3
shot 11e-go-to-time-typo
same 11d-went-to-time 11e-go-to-time-typo || fail "a time that is not one leaves the view"
ok "a time that is not one leaves the view"
press 0 11f-show-all-again

# Keyboard only: Control+Shift+H opens the Hosts menu with the focus on
# "All Hosts"; Tab goes to the first host, Space unticks it.
"$xdotool" key ctrl+shift+h
sleep 0.3
"$xdotool" key Tab space
sleep 0.3
"$xdotool" key Escape
wait_settled 1
[ "$(state hosts)" = "['host1']" ] || fail "the Hosts menu works from the keyboard (hosts: $(state hosts))"
ok "the Hosts menu works from the keyboard"
shot 12-one-host

# Control+Shift+S opens the Sessions menu; the older session is one down.
"$xdotool" key ctrl+shift+s
sleep 0.3
"$xdotool" key Down Return
sleep 0.3
wait_settled 1
[ "$(state session)" = "'2025_12_31_00_00_00'" ] || fail "the Sessions menu works from the keyboard (session: $(state session))"
ok "the Sessions menu works from the keyboard"
shot 13-older-session

# A capture adds a session to the run: the Sessions menu gets it and a
# toast offers it, and the session shown stays.
newer="$tmp/logs/plugins/profile/2026_02_01_00_00_00"
mkdir -p "$newer"
ln -s "$tmp/logs/plugins/profile/2026_01_01_00_00_00/host0.xplane.pb" "$newer/host0.xplane.pb"
sleep 1.5
alive "a new session"
shot 14-new-session
[ "$(state session)" = "'2025_12_31_00_00_00'" ] || fail "a new session leaves the session shown"
ok "a new session leaves the session shown"

# A new window shows the welcome page, with the demo among the recent.
"$gdbus" call --session --dest dev.planar.Planar --object-path "$app_path" \
  --method org.gtk.Actions.Activate new-window '[]' '{}' >/dev/null
sleep 0.5
alive "a new window"
shot 20-welcome
ok "a new window shows the welcome page"

# Opening from the file manager: a second `planar` hands the file to this
# one, which opens it in the window that shows nothing yet (the welcome
# page's) and says in a dialog what is wrong with it.
"$PLANAR" "$tmp/broken/bad.xplane.pb" >>"$out/planar.log" 2>&1 || fail "a second planar hands the file over"
timeout 30 "$xdotool" search --sync --onlyvisible --name 'bad.xplane.pb' >/dev/null || fail "the broken file opens"
ok "a second planar hands the file to the first"
wait_settled 2
sleep 0.5
alive "a broken file"
shot 21-error
ok "a broken file is reported"

# Escape closes the dialog; Control+Q in a window closes every window and
# the application ends.
"$xdotool" key Escape
sleep 0.3
"$xdotool" search --onlyvisible --name 'Could Not' >/dev/null 2>&1 && fail "Escape closes the dialog"
ok "Escape closes the dialog"
"$xdotool" windowfocus --sync "$wid"
"$xdotool" key ctrl+q
i=0
while kill -0 "$pid" 2>/dev/null; do
  i=$((i + 1))
  if [ $i -ge 100 ]; then
    for w in $("$xdotool" search --onlyvisible --class planar); do
      echo "# still open: $("$xdotool" getwindowname "$w")"
    done
    echo "# focus: $("$xdotool" getwindowfocus getwindowname)"
    fail "Control+Q quits"
  fi
  sleep 0.1
done
status=0
wait "$pid" || status=$?
pid=
[ "$status" -eq 0 ] || fail "planar exits with status 0 (got $status)"
ok "Control+Q quits with status 0"

echo "# screenshots in $out"
echo "1..$n"
