#!/bin/sh
# t0680-live-migrate — the operator's 'job migrate' with a fake migrate
# hook (it records its environment and links the pod's process-set state
# into the new node's directory, so the process runs on and status finds
# it there): the decision is committed (a migrate event) before the hook
# runs, the hook sees the new node and GPUs and where the pod came from,
# the job completes run once; the default node is the first other one
# with room; a failing migrate hook stops and requeues the job; the
# errors (no hook, no room, same node, not running, unknown node).
. tests/scenarios/lib.sh
CELLAR_DB=$TMP/s.db
export CELLAR_DB
. tests/scenarios/lib-live.sh
cat >"$TMP/migrate.sh" <<'EOF'
echo "$CELLAR_JOB pod $CELLAR_POD $CELLAR_FROM_NODE:$CELLAR_FROM_GPUS -> $CELLAR_NODE:$CUDA_VISIBLE_DEVICES" >>"$CELLAR_RUNDIR/migrations"
mkdir -p "$CELLAR_RUNDIR/$CELLAR_NODE" &&
    ln -sfn "$CELLAR_RUNDIR/$CELLAR_FROM_NODE/$CELLAR_JOB.$CELLAR_POD" \
    "$CELLAR_RUNDIR/$CELLAR_NODE/$CELLAR_JOB.$CELLAR_POD"
EOF
live_spec "$TMP/mig.yaml" 0.1 "migrate: sh $TMP/migrate.sh"

# 1. j (4 GPUs, on n1: the first fit) moved to n2 and completes there
run "$CELLAR" --spec "$TMP/mig.yaml" -c "submit j --vc a --gpus 4 -- $trainer 40 0.05; wait j --state running --timeout 30s; job migrate j --node n2; queue -o csv --no-header; wait j --timeout 60s; events -o csv --no-header; job log j; db check"
check_rc migrate-rc 0
check_out_has migrate-cmd "migrating j"
check_out_has migrate-event ",migrate,j,a,-,pod 0: n1:[0-3] -> n2:[0-3],"
check_out_has migrate-queue "a,-,j,R,migrating,0,4,1,n2,-"
check_out_has migrate-completed "j completed"
check_out_has migrate-log "cellar: migrated"
check_out_has migrate-db-check "no problems"
[ "$(cat "$TMP/run/migrations" 2>/dev/null)" = "j pod 0 n1:0,1,2,3 -> n2:0,1,2,3" ] &&
    ok migrate-hook-env || not_ok migrate-hook-env "$(cat "$TMP/run/migrations" 2>&1)"
runs=$(grep -c '^step 1$' "$TRAINER_DIR/j.0.progress" 2>/dev/null)
ends=$(grep -c '^step 40$' "$TRAINER_DIR/j.0.progress" 2>/dev/null)
[ "$runs" = 1 ] && [ "$ends" = 1 ] && ok migrate-ran-once || not_ok migrate-ran-once "runs $runs, ends $ends"
# the event came before the hook's answer: migrate, then complete
printf '%s\n' "$OUT" | grep -E ',(start|migrate|complete),j,' | cut -d, -f3 | tr '\n' ' ' |
    grep -qx 'start migrate complete ' && ok migrate-order ||
    not_ok migrate-order "$(printf '%s\n' "$OUT" | grep ',j,')"

# 1b. a start on the node a pod migrates away from waits for the migrate
# hook (the process may still be there): q's command sees its record
cat >"$TMP/slowmig.sh" <<'EOF'
sleep 1
echo "$CELLAR_JOB moved" >>"$CELLAR_RUNDIR/migrations"
mkdir -p "$CELLAR_RUNDIR/$CELLAR_NODE" &&
    ln -sfn "$CELLAR_RUNDIR/$CELLAR_FROM_NODE/$CELLAR_JOB.$CELLAR_POD" \
    "$CELLAR_RUNDIR/$CELLAR_NODE/$CELLAR_JOB.$CELLAR_POD"
EOF
live_spec "$TMP/slow.yaml" 0.1 "migrate: sh $TMP/slowmig.sh"
rm -f "$CELLAR_DB" "$TMP/run/migrations"
run "$CELLAR" --spec "$TMP/slow.yaml" -c "submit s --vc a --gpus 4 -- $trainer 60 0.05; wait s --state running --timeout 30s; job migrate s --node n2; submit q --vc a --gpus 4 -- sh -c 'test -s $TMP/run/migrations && echo after >$TMP/qorder || echo before >$TMP/qorder'; wait --timeout 60s; events -o csv --no-header"
check_rc blocked-rc 0
check_out_has blocked-q-on-n1 ",start,q,a,-,n1:[0-3],"
[ "$(cat "$TMP/qorder" 2>/dev/null)" = after ] && ok blocked-start-waited ||
    not_ok blocked-start-waited "q started $(cat "$TMP/qorder" 2>&1) the migrate hook ended"

# 2. no --node: the first other node with room
rm -f "$CELLAR_DB" "$TMP/run/migrations"
run "$CELLAR" --spec "$TMP/mig.yaml" -c "submit k --vc a --gpus 4 -- $trainer 40 0.05; wait k --state running --timeout 30s; job migrate k; wait k --timeout 60s; events -o csv --no-header"
check_rc default-rc 0
check_out_has default-event ",migrate,k,a,-,pod 0: n1:[0-3] -> n2:[0-3],"
check_out_has default-completed "k completed"

# 3. refusals: nothing changes
rm -f "$CELLAR_DB"
run "$CELLAR" --spec "$TMP/mig.yaml" -c "submit f1 --vc a --gpus 4 -- $trainer 200 0.05; submit f2 --vc a --gpus 4 -- $trainer 200 0.05; wait f1 f2 --state running --timeout 30s; job migrate f1 --node n2"
check_rc full-rc 1
check_err_has full-msg "node 'n2' has no 4 free healthy GPUs for pod 0 of job 'f1'"
run "$CELLAR" -c "job migrate f1"
check_rc no-room-rc 1
check_err_has no-room-msg "no other node has 4 free healthy GPUs for pod 0 of job 'f1'"
run "$CELLAR" -c "job migrate f1 --node n1"
check_err_has same-node-msg "pod 0 of job 'f1' is on node 'n1' already"
run "$CELLAR" -c "job migrate nosuch"
check_err_has no-job-msg "no job 'nosuch'"
run "$CELLAR" -c "job migrate f1 --node n9"
check_err_has unknown-node-msg "unknown node 'n9'"
run "$CELLAR" -c "job migrate f1 --pod 3"
check_err_has no-pod-msg "job 'f1' has no pod 3 (0 to 0)"
run "$CELLAR" -c "cancel f1; cancel f2; wait --timeout 30s; events -o csv --no-header; db check"
check_rc refusals-cleanup-rc 0
n=$(printf '%s\n' "$OUT" | grep -c ',migrate,')
[ "$n" = 0 ] && ok refusals-no-event || not_ok refusals-no-event "$n migrate events"
check_out_has refusals-db-check "no problems"
# the process set has no migrate file: no migrate hook
live_spec "$TMP/nomig.yaml" 0.1
rm -f "$CELLAR_DB"
run "$CELLAR" --spec "$TMP/nomig.yaml" -c "submit m --vc a --gpus 4 -- $trainer 20 0.05; wait m --state running --timeout 30s; job migrate m --node n2"
check_rc no-hook-rc 1
check_err_has no-hook-msg "the backend has no 'migrate' hook: job 'm' cannot be migrated"
run "$CELLAR" -c "wait --timeout 30s"
check_rc no-hook-cleanup-rc 0

# 4. a migrate hook that fails: stopped, requeued with an event, run again
rm -f "$CELLAR_DB"
live_spec "$TMP/badmig.yaml" 0.1 "migrate: exit 3" "retries: 0"
run "$CELLAR" --spec "$TMP/badmig.yaml" -c "submit b --vc a --gpus 4 -- $trainer 30 0.05; wait b --state running --timeout 30s; job migrate b --node n2; wait b --timeout 60s; events -o csv --no-header"
check_rc badmig-rc 0
check_out_has badmig-event ",preempt,b,a,-,\"migrate hook on 'n2' failed with status 3 (1 tries); stopped, requeued\","
check_out_has badmig-requeue ",requeue,b,"
check_out_has badmig-completed "b completed"
runs=$(grep -c '^step 1$' "$TRAINER_DIR/b.0.progress" 2>/dev/null)
[ "$runs" = 2 ] && ok badmig-ran-again || not_ok badmig-ran-again "runs $runs"

done_testing
