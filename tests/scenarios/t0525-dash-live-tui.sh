#!/bin/sh
# t0525-dash-live-tui.sh — the dashboard on a live spec, on a terminal
# (tmux), as a client of the store's server: opened before any server
# runs, its status line says so and a ':' change is refused; once a server
# starts it finds it by the refreshes alone. A job submitted on the ':'
# line (admin mode, confirmed) goes to the server and shows in the queues
# running on the backend's real processes, and its completion reaches the
# event log and the queues by the refreshes alone (no key pressed).
# Quitting the dashboard stops no job: one it submitted trains on.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
. tests/scenarios/lib-tmux.sh
# both libraries set an EXIT trap: stop the server and tmux's
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; live_cleanup' EXIT
live_spec "$TMP/two.yaml" 0.2
db=$TMP/live1.db	# serve_start's first store

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
# the steps of a trainer's progress file (0 when there is none)
steps() { grep -c step "$TRAINER_DIR/$1.0.progress" 2>/dev/null || echo 0; }

term_start d -- --db "$db" --spec "$TMP/two.yaml" dash --panel queues
expect_screen nosrv-status d "no cellar server is running for $db"
type_text d ":admin"
type_keys d Enter
expect_screen live-admin d "ADMIN"
# a change with no server: refused at once, not asked (cellar(1)), and
# nothing is created
type_text d ":submit j0 --vc a --gpus 2 -- $trainer 3 0.1"
type_keys d Enter
expect_screen nosrv-refused d "no cellar server runs for this store"
screen d | grep -q 'submit j0.*?' && not_ok nosrv-not-asked "$(screen d)" ||
    ok nosrv-not-asked
[ ! -e "$db" ] && ok nosrv-no-store || not_ok nosrv-no-store "$db exists"

# a server starts: the next refreshes find it (the status line has room
# for the policy and backend again)
serve_start "$TMP/two.yaml"
expect_gone srv-found d "no cellar server is running"
expect_screen live-status d "policy priority  local  "
# submit on the ':' line: asked, then done by the server
type_text d ":submit j1 --vc a --gpus 2 --priority 2 -- $trainer 30 0.1"
type_keys d Enter
expect_screen live-confirm d "submit j1"
type_keys d y
expect_re live-j1-running d ' j1  *R  *2 prio 2 '
# the events panel shows its start on the server's node, then (the
# refreshes reading what the server committed) its completion
type_keys d 4
expect_re live-start-event d 'start  *A a  *j1 n[12]:'
expect_re live-complete-event d 'complete  *A a  *j1'
type_keys d 3
# (the output pane still says "submitted j1": the queue, not the screen,
# is empty)
expect_screen live-queue-empty d "(nothing yet)"
# a long job, then quit: it runs on
type_text d ":submit j2 --vc a --gpus 2 -- $trainer 600 0.05"
type_keys d Enter
expect_screen j2-confirm d "submit j2"
type_keys d y
expect_re j2-running d ' j2  *R  *2 prio 0 '
type_keys d q
wait_exit d
[ "$RC" = 0 ] && ok quit-status || not_ok quit-status "exit $RC: $(screen d)"
before=$(steps j2)
i=0
while [ "$(steps j2)" -le "$before" ] && [ "$i" -lt "$POLL_MAX" ]; do
	sleep 0.05
	i=$((i + 1))
done
[ "$(steps j2)" -gt "$before" ] && ok quit-j2-trains ||
    not_ok quit-j2-trains "progress stuck at $before steps"
run "$CELLAR" queue -o csv --no-header
check_out_has quit-j2-running ",j2,"
printf '%s\n' "$OUT" | grep -q '^a,-,j2,[0-9]*,[^,]*,R,running,' && ok quit-j2-served ||
    not_ok quit-j2-served "$OUT"
# what the server stored: submit, start, complete of j1; no j0
run "$CELLAR" -c "cancel j2; events --run last -o csv --no-header"
check_out_has store-start "start,j1"
check_out_has store-complete "complete,j1"
check_out_has store-j2-cancel "cancel,j2"
check_out_lacks store-no-j0 ",j0,"

# the server restarts under an open dashboard (issue 21): it lives on (it
# freed the dead connection's error twice, an abort) and its events name
# the jobs the store's events name, before and after the restart
term_start e -- --db "$db" dash --panel events
expect_re restart-before e 'cancel  *A a  *j2'
serve_again
run "$CELLAR" -c "submit k1 --vc a --gpus 1 -- $trainer 2 0.05; submit k2 --vc a --gpus 2 -- $trainer 2 0.05; wait"
check_rc restart-jobs-rc 0
expect_re restart-k1 e 'start  *A a  *k1 n[12]:'
expect_re restart-k2 e 'complete  *A a  *k2'
expect_re restart-j2-kept e 'cancel  *A a  *j2'
run "$CELLAR" events -o csv --no-header
for k in k1 k2; do
	n_store=$(printf '%s\n' "$OUT" | grep -c ",$k,")
	# the dashboard shows them at its next refreshes: poll (a cap on looks)
	i=0
	while :; do
		n_dash=$(screen e | grep -Ec "  $k( |\$)")
		[ "$n_dash" -ge "$n_store" ] || [ "$i" -ge "$POLL_MAX" ] && break
		sleep 0.05
		i=$((i + 1))
	done
	[ "$n_store" -gt 0 ] && [ "$n_dash" -eq "$n_store" ] && ok "restart-count-$k" ||
	    not_ok "restart-count-$k" "store $n_store events of $k, dashboard $n_dash: $(screen e)"
done
type_keys e q
wait_exit e
[ "$RC" = 0 ] && ok restart-quit || not_ok restart-quit "exit $RC: $(screen e)"
done_testing
