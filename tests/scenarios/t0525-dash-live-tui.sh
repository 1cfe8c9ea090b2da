#!/bin/sh
# t0525-dash-live-tui.sh — the dashboard on a live session, on a terminal
# (tmux): a spec with a local backend opens the session's console; a job
# submitted on the ':' line (admin mode, confirmed) shows in the queues
# running on the backend's real processes, and its completion reaches the
# event log and the queues by the refreshes alone (no key pressed).
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
. tests/scenarios/lib-tmux.sh
live_spec "$TMP/two.yaml" 0.2
db=$TMP/live.db

term_start d -- --db "$db" --spec "$TMP/two.yaml" dash --panel queues
expect_screen live-status d "policy priority  local  t="
# submit on the ':' line: refused until admin, then asked, then done
type_text d ":admin"
type_keys d Enter
expect_screen live-admin d "ADMIN"
type_text d ":submit j1 --vc a --gpus 2 --priority 2 -- $trainer 30 0.1"
type_keys d Enter
expect_screen live-confirm d "submit j1"
type_keys d y
# poll (a cap on looks) for a screen line matching an ERE
expect_re() {
	i=0
	while [ "$i" -lt "$POLL_MAX" ]; do
		screen "$2" | grep -Eq -- "$3" && { ok "$1"; return 0; }
		sleep 0.05
		i=$((i + 1))
	done
	not_ok "$1" "screen lacks /$3/: [$(screen "$2")]"
}
expect_re live-j1-running d ' j1  *R  *2 prio 2 '
# the events panel shows its start on the session's node, then (the
# refreshes ticking the console) its completion
type_keys d 4
expect_re live-start-event d 'start  *A a  *j1 n[12]:'
expect_re live-complete-event d 'complete  *A a  *j1'
type_keys d 3
expect_gone live-queue-empty d " j1 "
type_keys d q
wait_exit d
[ "$RC" = 0 ] && ok quit-status || not_ok quit-status "exit $RC: $(screen d)"
# what the session stored: submit, start, complete of j1
run "$CELLAR" --db "$db" --spec "$TMP/two.yaml" events --run last -o csv --no-header
check_out_has store-start "start,j1"
check_out_has store-complete "complete,j1"
done_testing
