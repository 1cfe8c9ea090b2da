#!/bin/sh
# t0520-dash-live — the dashboard on a live spec (a local backend) is a
# client of the store's server (cellar serve): the server's real jobs in
# the queues with the priority policy's order and pending reasons, their
# starts in the event log, the node map from the stored placements, the
# JSON figures, and a ':' command in admin mode that goes to the server
# (cancel, confirmed), after which the waiting job runs. A dashboard that
# exits leaves the jobs running. Without a server it still opens, on what
# the store holds (or the spec, empty), its status line says that no
# server runs, and ':' commands that change state are refused.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
live_spec "$TMP/two.yaml" 0.2
out_matches() {	# out_matches NAME ERE
	if printf '%s\n' "$OUT" | grep -Eq -- "$2"; then ok "$1"
	else not_ok "$1" "stdout lacks /$2/: [$OUT]; stderr: $ERR"; fi
}
# poll_out NAME ERE CMD...: run CMD (a cap on tries) until stdout matches
poll_out() {
	name=$1 re=$2
	shift 2
	i=0
	while [ "$i" -lt 400 ]; do
		run "$@"
		printf '%s\n' "$OUT" | grep -Eq -- "$re" && { ok "$name"; return 0; }
		sleep 0.05
		i=$((i + 1))
	done
	not_ok "$name" "stdout lacks /$re/: [$OUT]; stderr: $ERR"
}
# the steps of a trainer's progress file (0 when there is none)
steps() { grep -c step "$TRAINER_DIR/$1.0.progress" 2>/dev/null || echo 0; }

# 1. no server, no store yet: the spec's cluster, empty; the status line
# says so, and nothing is created
run "$CELLAR" --db "$TMP/none.db" --spec "$TMP/two.yaml" dash --once --size 120x20
check_rc none-rc 0
check_out_has none-status "no cellar server is running for $TMP/none.db"
[ ! -e "$TMP/none.db" ] && ok none-no-store || not_ok none-no-store "the store was created"

# 2. through a server: a gang on both nodes runs; a second job waits for
# its GPUs. (Before, the dashboard ticked its own console in the batch;
# now the server runs the jobs and each dashboard below is a client.)
serve_start "$TMP/two.yaml"
run "$CELLAR" -c "submit big --vc a --gpus 4 --pods 2 --priority 3 -- $trainer 400 0.05; wait big --state running --timeout 30s; submit small --vc a --gpus 2 -- $trainer 3 0.05; dash --once --size 120x20 --panel queues; dash --once --size 120x20 --panel events; dash --once --size 120x12 --map; dash --once -o json"
check_rc live-rc 0
out_matches live-status "policy priority  local  [0-9][0-9]:[0-9][0-9]:[0-9][0-9]  util"
check_out_lacks live-status-no-offset "  t="
check_out_has live-status-util "util 100% of 8 GPUs"
out_matches live-big-running " big  *R  *8 prio 3 "
# the reason is the server's (its pass's): the store has it only as of
# the job's last decision
out_matches live-small-pending " small  *PD  *2 prio 0 .*VCFull"
out_matches live-event-start "start *A a *big n1:\[0-3\] n2:\[0-3\]"
# events at their time of day, not as offsets from the session's start
out_matches live-event-wall "^ [0-9][0-9]:[0-9][0-9]:[0-9][0-9]  *start "
# nothing to play on a live cluster: no Space, + or - in the key hints
check_out_lacks live-no-play "Space:pause"
check_out_lacks live-no-speed "+/-:speed"
out_matches live-map "n1  *A"
check_out_has live-json '"backend":"local"'
check_out_has live-json-counts '"running":1,"pending":1'
check_out_has live-json-server "\"server\":\"cellar server pid $SERVE_PID\""
# the spec of the store's running session run (no --spec) is live too
run "$CELLAR" dash --once --size 120x20 --panel queues
out_matches live-run-spec " big  *R  *8 prio 3 "

# closing those dashboards touched no job: big still runs, and trains on
before=$(steps big)
poll_out live-big-kept '^a +- +big .* R +running ' "$CELLAR" queue
i=0
while [ "$(steps big)" -le "$before" ] && [ "$i" -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
[ "$(steps big)" -gt "$before" ] && ok live-big-trains ||
    not_ok live-big-trains "progress stuck at $before steps"

# the ':' line goes to the server: big is cancelled, small then runs
run "$CELLAR" -c "dash --once --size 120x20 --keys ':admin<Enter>:cancel big<Enter>y' --panel queues; wait small --timeout 60s"
check_rc live-cancel-rc 0
check_out_lacks live-refused "changes only by its workload"
check_out_has live-cancelled "cancelled big"
check_out_has live-small-done "small completed"
run "$CELLAR" events --run last -o csv --no-header
check_out_has live-cancel-event "cancel,big"
# the server's log names the request (it ran there)
grep -Eq "request [^ ]+: cancel (-- )?big \(exit 0\)" "$SERVE_LOG" && ok live-cancel-served ||
    not_ok live-cancel-served "$(grep request "$SERVE_LOG")"

# 3. the server stops while a job runs: the dashboard shows what the store
# holds (the job running), says no server runs, and refuses a change
run "$CELLAR" -c "submit long --vc a --gpus 2 --priority 1 -- $trainer 400 0.05; wait long --state running --timeout 30s"
check_rc long-rc 0
serve_stop
run "$CELLAR" dash --once --size 120x20 --panel queues --keys ':admin<Enter>:cancel long<Enter>y'
check_rc nosrv-rc 0
check_out_has nosrv-status "no cellar server is running for $CELLAR_DB"
out_matches nosrv-long " long  *R  *2 prio 1 "
check_out_has nosrv-refused "error: no cellar server runs for this store (start one with 'cellar serve')"
run "$CELLAR" dash --once -o json
check_out_has nosrv-json "\"server\":\"no cellar server is running for $CELLAR_DB\""
# a server again takes the job over; it was never cancelled
serve_again
run "$CELLAR" -c "queue; cancel long; wait long --timeout 60s"
check_rc nosrv-kept-rc 0
out_matches nosrv-kept "^a +- +long .* R +running "
check_out_has nosrv-cancelled "long cancelled"
run "$CELLAR" events --run last -o csv --no-header
[ "$(printf '%s\n' "$OUT" | grep -c ',cancel,long,')" = 1 ] && ok nosrv-one-cancel ||
    not_ok nosrv-one-cancel "$OUT"
done_testing
