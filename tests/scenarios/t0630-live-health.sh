#!/bin/sh
# t0630-live-health — node health through the health hook (process set:
# a file $CELLAR_RUNDIR/NODE/unhealthy makes it fail): a job whose node
# turns bad is stopped (its process really ends), requeued and lands on
# the healthy node; the node is marked bad in the engine and the store;
# when its health hook passes again, the node comes back and a gang that
# needs both nodes runs.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
live_spec "$TMP/two.yaml" 0.1 "healthInterval: 0.2" "retries: 1" "backoff: 0.1"
# j's first run marks its own node unhealthy, then trains on; k (which
# can only run on the healthy node) heals every node; m needs both.
first="[ -e $TMP/once ] || { touch $TMP/once; touch $TMP/run/\$CELLAR_NODE/unhealthy; }; exec $trainer 30 0.05"
run "$CELLAR" --spec "$TMP/two.yaml" -c "submit j --vc a --gpus 4 -- sh -c '$first'; wait j --timeout 120s; cells n1 --depth 0 -o csv --no-header; submit k --vc a --gpus 4 -- sh -c 'rm -f $TMP/run/*/unhealthy'; wait k --timeout 60s; submit m --vc a --gpus 4 --pods 2 -- $trainer 2 0.05; wait m --timeout 120s; events -o csv --no-header; job log j"
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

done_testing
