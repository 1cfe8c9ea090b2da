#!/bin/sh
# t0510-dash-tui.sh — the dashboard on a terminal (tmux, 120x40): bare
# `cellar` opens it on the demo; the tree, the selection marker, colours
# (capture-pane -e) and their absence under NO_COLOR; '?', Tab and digits,
# '/' filter, ':vcs' in the output pane (the emulated cluster on screen),
# Tab completion on the ':' line, Enter and Esc, Space and '+', admin mode
# with its banner and a confirmation that cancels by default, a mouse
# click on a tab (and no mouse mode with --no-mouse), resize to too small and back, SIGTSTP/SIGCONT, q with
# status 0, the UI state restored by the next start, the ASCII fallback
# outside UTF-8, and Ctrl-C (status 130).
. tests/scenarios/lib.sh
. tests/scenarios/lib-tmux.sh

ST=$TMP/state
term_start a "XDG_STATE_HOME=$ST" "NO_COLOR=" --
expect_screen start a " 1 Overview   2 VCs   3 Queues   4 Events   5 Detail"
expect_screen tree a "r0n00               V100-NODE"
expect_screen status a "hived  policy las  t="
expect_screen marker a "▶▾ r0"
# the status line white on blue, the column header yellow, the selected
# row black on white
expect_screen_e color-status a "[44mcellar  default.yaml (embedded)"
# (after the meters' last cell, the background is reset first)
expect_screen_e color-header a "$(printf '[33m\033[49m   CELL')"
expect_screen_e color-select a "[47m▶"

type_keys a '?'
expect_screen help a "keys (any key closes this)"
expect_screen help-quit a "q       quit"
type_keys a Escape
expect_gone help-closed a "keys (any key closes this)"

type_keys a Tab
expect_screen tab-vcs a "VC           GPUS: used/bad/free"
type_keys a 3
expect_screen queues a "VC         JOB                      ST GPUS PRIO"
type_text a '/state=R'
expect_screen filter-typing a "/state=R"
type_keys a Enter
expect_screen filter a "filter: state=R"
# the demo has just started: wait for a running job to select
expect_screen filter-row a "▶A "

# ':' runs the REPL's commands on the cluster on screen, output in a pane
type_text a ':vc'
type_keys a Tab
expect_screen complete a ":vcs"
type_keys a Enter
expect_screen colon-vcs a "cluster: 128 GPUs, of which"
type_keys a Escape
expect_gone colon-closed a "cluster: 128 GPUs, of which"

type_keys a Enter
expect_screen detail a " job open-"
expect_screen detail-state a "state R (running)"
type_keys a Escape
expect_screen detail-back a "filter: state=R"

type_keys a Space
expect_screen paused a " paused x600"
type_keys a +
expect_screen faster a " paused x1200"

type_text a ':admin'
type_keys a Enter
expect_screen admin-msg a "admin mode on"
expect_screen_e admin-banner a "[41m ADMIN"
type_text a ':node bad r0n00'
type_keys a Enter
# the emulated cluster changes only by its workload: refused at once,
# no y/N first (a live cluster's confirmation is t0525's)
expect_screen refused a "error: the cluster on screen is the emulator's"
type_keys a Escape
expect_gone refused-closed a "error: the cluster on screen is the emulator's"

# the dashboard asked the terminal for mouse reports (tmux's view of the
# pane); --no-mouse, further down, does not
[ "$(tmux -L "$SOCK" display-message -p -t a '#{mouse_any_flag}')" = 1 ] &&
    ok mouse-on || not_ok mouse-on "the pane has no mouse mode"
# a click on the second tab (X10 mouse report: button 1 at column 16,
# row 2, then the release)
tmux -L "$SOCK" send-keys -t a -H 1b 5b 4d 20 30 22 1b 5b 4d 23 30 22
expect_screen click-tab a "VC           GPUS: used/bad/free"

resize a 50 10
expect_screen too-small a "terminal too small (need 60x12)"
resize a 100 30
expect_screen resized a " 1 Overview   2 VCs"
expect_gone resized-clean a "terminal too small"

# stopped and continued: curses gives the terminal back and repaints
pid=$(pane_pid a)
if [ -n "$pid" ]; then
	kill -TSTP "$pid"
	kill -CONT "$pid"
	type_keys a 4
	expect_screen after-cont a "TIME     KIND       VC         WHAT"
else
	not_ok after-cont "no pid for the pane's program"
fi

term_start m "XDG_STATE_HOME=$TMP/state-m" -- dash --no-mouse
expect_screen no-mouse-start m " 1 Overview   2 VCs"
[ "$(tmux -L "$SOCK" display-message -p -t m '#{mouse_any_flag}')" = 0 ] &&
    ok no-mouse || not_ok no-mouse "the pane is in a mouse mode"
type_keys m q
wait_exit m
[ "$RC" = 0 ] && ok no-mouse-quit || not_ok no-mouse-quit "status $RC: [$ERR]"

type_keys a 2 q
wait_exit a
[ "$RC" = 0 ] && ok quit-status || not_ok quit-status "status $RC: [$ERR]"
if grep -q '^panel vcs$' "$ST/cellar/ui" 2>/dev/null &&
    grep -q '^speed 1200$' "$ST/cellar/ui"; then
	ok state-saved
else
	not_ok state-saved "[$(cat "$ST/cellar/ui" 2>&1)]"
fi
mode=$(stat -c %a "$ST/cellar/ui" 2>/dev/null)
[ "$mode" = 600 ] && ok state-mode || not_ok state-mode "mode $mode"

# the next start comes back to the VCs panel, monochrome under NO_COLOR
# and in ASCII outside UTF-8
term_start b "XDG_STATE_HOME=$ST" LC_ALL=C -- dash
expect_screen restored b "VC           GPUS: used/bad/free"
expect_screen restored-filter b "filter: state=R"
expect_screen ascii-marker b ">A research"
case $(screen_e b) in
*'[44m'* | *'[33m'*) not_ok no-color "colour escapes under NO_COLOR" ;;
*) ok no-color ;;
esac
# monochrome: the selected row in reverse video (SGR 7)
i=0
until screen_e b | grep '>A research' | grep -q '\[\(0;\)\{0,1\}7m' ||
    [ "$i" -ge "$POLL_MAX" ]; do
	sleep 0.05
	i=$((i + 1))
done
[ "$i" -lt "$POLL_MAX" ] && ok mono-select ||
    not_ok mono-select "[$(screen_e b | grep '>A research' | od -c | head -5)]"
type_keys b C-c
wait_exit b
[ "$RC" = 130 ] && ok ctrl-c-status || not_ok ctrl-c-status "status $RC: [$ERR]"

done_testing
