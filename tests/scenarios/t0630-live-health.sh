#!/bin/sh
# t0630-live-health — node health through the health hook (process set:
# a file $CELLAR_RUNDIR/NODE/unhealthy makes it fail): a job whose node
# turns bad is stopped (its process really ends), requeued and lands on
# the healthy node; the node is marked bad in the engine and the store;
# when its health hook passes again, the node comes back and a gang that
# needs both nodes runs. A cellar server (cellar serve) runs each case's
# cluster and its health hooks; the commands are its clients.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
live_spec "$TMP/two.yaml" 0.1 "healthInterval: 0.2" "retries: 1" "backoff: 0.1"
# j's first run marks its own node unhealthy, then trains on; k (which
# can only run on the healthy node) heals every node; m needs both.
first="[ -e $TMP/once ] || { touch $TMP/once; touch $TMP/run/\$CELLAR_NODE/unhealthy; }; exec $trainer 30 0.05"
serve_start "$TMP/two.yaml"
run "$CELLAR" -c "submit j --vc a --gpus 4 -- sh -c '$first'; wait j --timeout 120s; cells n1 --depth 0 -o csv --no-header; submit k --vc a --gpus 4 -- sh -c 'rm -f $TMP/run/*/unhealthy'; wait k --timeout 60s; submit m --vc a --gpus 4 --pods 2 -- $trainer 2 0.05; wait m --timeout 120s; events -o csv --no-header; job log j"
check_rc health-rc 0
check_out_has j-completed "j completed"
check_out_has node-bad-event "node-bad,-,-,-,n1"
check_out_has j-failed-event "fail,j,a,-,node 'n1': health hook failed: marked unhealthy"
check_out_has j-requeued "requeue,j"
check_out_has j-restarted-on-n2 "start,j,a,-,n2:[0-3]"
check_out_has node-ok-event "node-ok,-,-,-,n1"
check_out_has m-both-nodes "start,m,a,-,n1:[0-3] n2:[0-3]"
check_out_has m-completed "m completed"
# the first run on n1 really ended: two runs started, one reached its end
runs=$(grep -c '^step 1$' "$TRAINER_DIR/j.0.progress" 2>/dev/null)
ends=$(grep -c '^step 30$' "$TRAINER_DIR/j.0.progress" 2>/dev/null)
[ "$runs" = 2 ] && [ "$ends" = 1 ] && ok first-run-stopped ||
    not_ok first-run-stopped "runs $runs, ends $ends"

# a node this server marked bad stays bad after a restart (the server
# stopped, a new one on the same store), even when its health hook passes
# again, until an operator says 'node ok'
serve_stop
rm -f "$TMP/once" "$TMP"/run/*/unhealthy
live_spec "$TMP/r.yaml" 0.1 "healthInterval: 0.2" "retries: 0"
serve_start "$TMP/r.yaml"
run "$CELLAR" -c "submit r1 --vc a --gpus 4 -- sh -c '$first'; wait r1 --timeout 120s; events -o csv --no-header"
check_rc restart-first-rc 0
check_out_has restart-first-node-bad "node-bad,-,-,-,n1"
# the first server goes before the node heals (as the first cellar did:
# it never saw the hook pass), then the second server (no --spec: the
# store's running run) runs health hooks (all passing) for a while
serve_stop
rm -f "$TMP"/run/*/unhealthy
serve_again
run "$CELLAR" -c "submit r2 --vc a --gpus 4 -- sleep 2; wait r2 --timeout 60s; cells n1 --depth 0 -o csv --no-header; events -o csv --no-header"
check_rc restart-second-rc 0
check_out_has restart-r2-completed "r2 completed"
check_out_has restart-r2-on-n2 "start,r2,a,-,n2:[0-3]"
check_out_lacks restart-no-node-ok "node-ok"
# the BAD column: all 4 GPUs of n1 (the second server's cells)
[ "$(printf '%s\n' "$OUT" | grep '^n1,' | cut -d, -f9)" = 4 ] &&
    ok restart-n1-still-bad ||
    not_ok restart-n1-still-bad "$(printf '%s\n' "$OUT" | grep '^n1,')"
# the operator's 'node ok', sent to the second server
run "$CELLAR" -c "node ok n1; submit r3 --vc a --gpus 4 --pods 2 -- sleep 0.2; wait r3 --timeout 60s; events -o csv --no-header"
check_rc restart-node-ok-rc 0
check_out_has restart-r3-both-nodes "start,r3,a,-,n1:[0-3] n2:[0-3]"
check_out_has restart-r3-completed "r3 completed"

# healthConcurrency: a health hook that fails when another one runs
# beside it (a lock directory) never fails with a cap of 1; with the
# default cap both nodes' hooks start together and one of them fails
# (the check can see an overlap)
overlap="mkdir $TMP/hlock 2>/dev/null || { echo overlap; exit 1; }; sleep 0.5; rmdir $TMP/hlock"
live_spec "$TMP/cap1.yaml" 0.1 "healthInterval: 0.1" "retries: 0" "health: $overlap" "healthConcurrency: 1"
serve_start "$TMP/cap1.yaml"
run "$CELLAR" -c "submit x --vc a --gpus 4 -- sleep 3; wait x --timeout 60s; events --run last -o csv --no-header"
check_rc cap1-rc 0
check_out_has cap1-completed "x completed"
check_out_lacks cap1-no-overlap "node-bad"
# its health hooks go on until it stops (one killed in flight may leave
# the lock behind)
serve_stop
rmdir "$TMP/hlock" 2>/dev/null
live_spec "$TMP/cap2.yaml" 0.1 "healthInterval: 0.1" "retries: 0" "health: $overlap"
serve_start "$TMP/cap2.yaml"
run "$CELLAR" -c "submit y --vc a --gpus 4 -- sleep 3; wait y --timeout 60s; events --run last -o csv --no-header"
check_rc cap2-rc 0
check_out_has cap2-overlap-seen "node-bad"

done_testing
