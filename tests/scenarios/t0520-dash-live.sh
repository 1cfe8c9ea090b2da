#!/bin/sh
# t0520-dash-live — the dashboard on a live session (a spec with a local
# backend): the console's real jobs in the queues with the priority
# policy's order and pending reasons, their starts in the event log, the
# node map from the session's engine, the JSON figures, and a ':' command
# in admin mode that acts on the session (cancel, confirmed), after which
# the waiting job runs.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
live_spec "$TMP/two.yaml" 0.2
db="$TMP/live.db"
out_matches() {	# out_matches NAME ERE
	if printf '%s\n' "$OUT" | grep -Eq -- "$2"; then ok "$1"
	else not_ok "$1" "stdout lacks /$2/: [$OUT]; stderr: $ERR"; fi
}

# a gang on both nodes runs; a second job waits for its GPUs
run "$CELLAR" --db "$db" --spec "$TMP/two.yaml" -c "submit big --vc a --gpus 4 --pods 2 --priority 3 -- $trainer 400 0.05; wait big --state running --timeout 30s; submit small --vc a --gpus 2 -- $trainer 3 0.05; dash --once --size 120x20 --panel queues; dash --once --size 120x20 --panel events; dash --once --size 120x12 --map; dash --once -o json; dash --once --size 120x20 --keys ':admin<Enter>:cancel big<Enter>y' --panel queues; wait small --timeout 60s"
check_rc live-rc 0
check_out_has live-status "policy priority  local  t="
check_out_has live-status-util "util 100% of 8 GPUs"
out_matches live-big-running " big  *R  *8 prio 3 "
out_matches live-small-pending " small  *PD  *2 prio 0 .*VCFull"
out_matches live-event-start "start *A a *big n1:\[0-3\] n2:\[0-3\]"
out_matches live-map "n1  *A"
check_out_has live-json '"backend":"local"'
check_out_has live-json-counts '"running":1,"pending":1'
# the ':' line acted on the session: big is cancelled, small then runs
check_out_lacks live-refused "changes only by its workload"
check_out_has live-small-done "small completed"
run "$CELLAR" --db "$db" --spec "$TMP/two.yaml" events --run last -o csv --no-header
check_out_has live-cancel-event "cancel,big"
