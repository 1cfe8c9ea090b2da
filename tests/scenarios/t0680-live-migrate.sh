#!/bin/sh
# t0680-live-migrate — the operator's 'job migrate' with the process hook
# set's own migrate hook: the decision is committed (a migrate event)
# before any hook runs; the pod is stopped on its old node (the job's
# CELLAR_CHECKPOINT first, with CELLAR_TO_NODE/CELLAR_TO_GPUS), then the
# migrate hook starts it on the new GPUs (CELLAR_FROM_NODE/GPUS), where
# the trainer goes on from its checkpoint: every step once. A start on
# the old node waits for that stop. Default target, the pod's own node,
# the refusals. Every failure leaves the job in exactly one place and
# runs nothing twice: a failing checkpoint (the source stop), a failing
# migrate hook, the new node turning bad mid-migration, the cellar server
# SIGKILLed during either step. One pod of a gang moves (after a
# restart); a cancel mid-migration stops the pod at its source. A cellar
# server (cellar serve, lib-live.sh) runs each case's cluster on a store
# of its own; the commands are its clients.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
hooks=$(pwd)/specs/hooks/process
live_spec "$TMP/mig.yaml" 0.1

pstate() {
	s=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
	echo "${s:-gone}"
}
wait_for() {	# up to 60 s for a shell condition
	i=0
	while ! eval "$*" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	eval "$*"
}
# the checkpoint: the trainer's last step, where its next run goes on.
# CKPT_BAD (tests): the target node turns bad first; CKPT_SLEEP: slow.
cat >"$TMP/ckpt.sh" <<'EOF'
f=$TRAINER_DIR/$CELLAR_JOB.$CELLAR_POD
[ -n "$CKPT_BAD" ] && touch "$CELLAR_RUNDIR/$CELLAR_TO_NODE/unhealthy"
echo "$CELLAR_NODE:$CELLAR_GPUS -> $CELLAR_TO_NODE:$CELLAR_TO_GPUS" >>"$f.ckpts"
[ -n "$CKPT_SLEEP" ] && sleep "$CKPT_SLEEP"
sed -n 's/^step //p' "$f.progress" | tail -n 1 >"$f.ckpt.tmp" && mv "$f.ckpt.tmp" "$f.ckpt"
echo "checkpoint at step $(cat "$f.ckpt")"
EOF
ck="--env 'CELLAR_CHECKPOINT=sh $TMP/ckpt.sh'"
# once NAME.POD N: steps 1 and N of its progress each appear exactly once
once() {
	a=$(grep -c '^step 1$' "$TRAINER_DIR/$1.progress" 2>/dev/null)
	b=$(grep -c "^step $2\$" "$TRAINER_DIR/$1.progress" 2>/dev/null)
	[ "$a" = 1 ] && [ "$b" = 1 ]
}
count() { printf '%s\n' "$OUT" | grep -c "$1"; }
# rerun NAME.POD N: a first run stopped after steps 1..m (m < N; none when
# it was stopped before its first step: under load the stop can come
# first) and a second one from step 1, all N steps, in order
rerun() {
	awk -v n="$2" '/^step / { s = $2
		if (s == 1) { if (runs++ && prev >= n) bad = 1 }
		else if (s != prev + 1) bad = 1
		prev = s }
	    END { exit !(!bad && runs >= 1 && runs <= 2 && prev == n) }' \
	    "$TRAINER_DIR/$1.progress" 2>/dev/null
}

# 1. j (4 GPUs, on n1: the first fit) moved to n2: checkpoint, stop,
# migrate; it goes on there and completes, every step once
serve_start "$TMP/mig.yaml"
run "$CELLAR" -c "submit j --vc a --gpus 4 $ck -- $trainer 40 0.05; wait j --state running --timeout 30s; job migrate j --node n2; queue -o csv --no-header; wait j --timeout 60s; events -o csv --no-header; job log j; db check"
check_rc migrate-rc 0
check_out_has migrate-cmd "migrating j"
check_out_has migrate-event ",migrate,j,a,-,pod 0: n1:[0-3] -> n2:[0-3],"
check_out_has migrate-queue "a,-,j,0,$(id -un),R,migrating,0,4,1,n2,-"
check_out_has migrate-completed "j completed"
check_out_has migrate-log-checkpoint "checkpoint at step"
check_out_has migrate-log-stopped "cellar: pod 0 stopped on 'n1'"
check_out_has migrate-log-migrated "cellar: migrated"
check_out_has migrate-db-check "no problems"
[ "$(cat "$TRAINER_DIR/j.0.ckpts" 2>/dev/null)" = "n1:0,1,2,3 -> n2:0,1,2,3" ] &&
    ok migrate-to-env || not_ok migrate-to-env "$(cat "$TRAINER_DIR/j.0.ckpts" 2>&1)"
grep -q "gpus=0,1,2,3 node=n2 nodes=n2 pods=1" "$TRAINER_DIR/j.0.env" 2>/dev/null &&
    ok migrate-new-node || not_ok migrate-new-node "$(cat "$TRAINER_DIR/j.0.env" 2>&1)"
once j.0 40 && ok migrate-steps-once || not_ok migrate-steps-once "$(sort "$TRAINER_DIR/j.0.progress" | uniq -c | sort -rn | head -3)"
# the decision came before the hooks' answers: start, migrate, complete
printf '%s\n' "$OUT" | grep -E ',(start|migrate|complete|preempt|requeue),j,' | cut -d, -f3 |
    tr '\n' ' ' | grep -qx 'start migrate complete ' && ok migrate-order ||
    not_ok migrate-order "$(printf '%s\n' "$OUT" | grep ',j,')"
ls "$TMP"/run/n1/j.*.0/pid >/dev/null 2>&1 && not_ok migrate-source-clean "n1 still has j's pid" ||
    ok migrate-source-clean

# 1b. a start on the node a pod migrates away from waits for its stop
# there (a slow checkpoint): q's command sees the checkpoint done
serve_start "$TMP/mig.yaml"
run "$CELLAR" -c "submit s --vc a --gpus 4 $ck --env CKPT_SLEEP=1 -- $trainer 60 0.05; wait s --state running --timeout 30s; job migrate s --node n2; submit q --vc a --gpus 4 -- sh -c 'test -s $TRAINER_DIR/s.0.ckpt && echo after >$TMP/qorder || echo before >$TMP/qorder'; wait --timeout 60s; events -o csv --no-header"
check_rc blocked-rc 0
check_out_has blocked-q-on-n1 ",start,q,a,-,n1:[0-3],"
[ "$(cat "$TMP/qorder" 2>/dev/null)" = after ] && ok blocked-start-waited ||
    not_ok blocked-start-waited "q started $(cat "$TMP/qorder" 2>&1) the source stop ended"

# 2. no --node: the first other node with room; then the pod's own node
# (other GPUs there)
# (k runs until cancelled: n2 must stay full for h's second move)
serve_start "$TMP/mig.yaml"
run "$CELLAR" -c "submit k --vc a --gpus 4 -- $trainer 2000 0.05; wait k --state running --timeout 30s; job migrate k; wait k --state running --timeout 30s; submit h --vc a --gpus 2 -- $trainer 40 0.05; wait h --state running --timeout 30s; job migrate h --node n1; wait h --state running --timeout 30s; job migrate h; wait h --timeout 60s; cancel k; wait --timeout 60s; events -o csv --no-header"
check_rc default-rc 0
check_out_has default-event ",migrate,k,a,-,pod 0: n1:[0-3] -> n2:[0-3],"
check_out_has default-cancelled "k cancelled"
check_out_has own-node-event ",migrate,h,a,-,pod 0: n1:[0-1] -> n1:[2-3],"
# k holds n2: no other node has room, so h moves on its own node again
check_out_has own-node-default-event ",migrate,h,a,-,pod 0: n1:[2-3] -> n1:[0-1],"
check_out_has own-node-completed "h completed"

# 3. refusals: nothing changes
serve_start "$TMP/mig.yaml"
run "$CELLAR" -c "submit f1 --vc a --gpus 4 -- $trainer 200 0.05; submit f2 --vc a --gpus 4 -- $trainer 200 0.05; wait f1 f2 --state running --timeout 30s; job migrate f1 --node n2"
check_rc full-rc 1
check_err_has full-msg "node 'n2' has no 4 free healthy GPUs for pod 0 of job 'f1'"
run "$CELLAR" -c "job migrate f1"
check_rc no-room-rc 1
check_err_has no-room-msg "no node has 4 other free healthy GPUs for pod 0 of job 'f1'"
run "$CELLAR" -c "job migrate f1 --node n1"
check_err_has own-full-msg "node 'n1' has no 4 free healthy GPUs for pod 0 of job 'f1'"
run "$CELLAR" -c "job migrate nosuch"
check_err_has no-job-msg "no job 'nosuch'"
run "$CELLAR" -c "job migrate f1 --node n9"
check_err_has unknown-node-msg "unknown node 'n9'"
run "$CELLAR" -c "job migrate f1 --pod 3"
check_err_has no-pod-msg "job 'f1' has no pod 3 (0 to 0)"
run "$CELLAR" -c "cancel f1; cancel f2; wait --timeout 30s; events -o csv --no-header; db check"
check_rc refusals-cleanup-rc 0
[ "$(count ',migrate,')" = 0 ] && ok refusals-no-event || not_ok refusals-no-event "$(count ',migrate,') migrate events"
check_out_has refusals-db-check "no problems"
# an opportunistic job holds no cells of its VC to move: refused
serve_start "$TMP/mig.yaml"
run "$CELLAR" -c "submit op --vc a --gpus 2 --priority -1 -- $trainer 200 0.05; wait op --state running --timeout 30s; job migrate op --node n2"
check_rc opp-rc 1
check_err_has opp-msg "job 'op' is opportunistic: only guaranteed jobs migrate"
run "$CELLAR" -c "queue -o csv --no-header; cancel op; wait --timeout 30s; events -o csv --no-header"
check_out_has opp-unmoved "a,-,op,0,$(id -un),R,running,-1,2,1,n1,-"
[ "$(count ',migrate,')" = 0 ] && ok opp-no-event || not_ok opp-no-event "$(count ',migrate,') migrate events"
# migrate turned off in the spec: refused with a clear error
live_spec "$TMP/nomig.yaml" 0.1 "migrate: ~"
serve_start "$TMP/nomig.yaml"
run "$CELLAR" -c "submit m --vc a --gpus 4 -- $trainer 20 0.05; wait m --state running --timeout 30s; job migrate m --node n2"
check_rc no-hook-rc 1
check_err_has no-hook-msg "the backend has no 'migrate' hook: job 'm' cannot be migrated"
run "$CELLAR" -c "wait --timeout 30s"
check_rc no-hook-cleanup-rc 0

# 4. the checkpoint fails (the source's stop hook): the job is stopped
# there plainly and requeued; it runs again from the start, once more
live_spec "$TMP/r0.yaml" 0.1 "retries: 0"
serve_start "$TMP/r0.yaml"
run "$CELLAR" -c "submit c --vc a --gpus 4 --env CELLAR_CHECKPOINT=false -- $trainer 30 0.05; wait c --state running --timeout 30s; job migrate c --node n2; wait c --timeout 60s; events -o csv --no-header; job log c"
check_rc ckptfail-rc 0
p0=$(head -n 1 "$TRAINER_DIR/c.0.pid" 2>/dev/null)
check_out_has ckptfail-event ",preempt,c,a,-,\"stop hook on 'n1' failed with status 1 (1 tries); stopped, requeued\","
check_out_has ckptfail-log "checkpoint failed: not moved"
check_out_has ckptfail-completed "c completed"
rerun c.0 30 && ok ckptfail-ran-again-once ||
    not_ok ckptfail-ran-again-once "$(tr '\n' ' ' <"$TRAINER_DIR/c.0.progress")"
[ "$(count ',start,c,')" = 2 ] && ok ckptfail-two-starts || not_ok ckptfail-two-starts "$(count ',start,c,')"

# 4b. the pod ends on its own while its stop is retried (a failing
# checkpoint, a long backoff): the retry finds it ended ('completed'),
# nothing is started on n2, the job completes, run once
live_spec "$TMP/r1.yaml" 0.1 "retries: 1" "backoff: 3"
serve_start "$TMP/r1.yaml"
run "$CELLAR" -c "submit o --vc a --gpus 4 --env CELLAR_CHECKPOINT=false -- $trainer 10 0.05; wait o --state running --timeout 30s; job migrate o --node n2; wait o --timeout 60s; events -o csv --no-header; job log o; db check"
check_rc ended-rc 0
check_out_has ended-log "cellar: pod 0 ended on its own before it moved"
check_out_has ended-completed "o completed"
check_out_has ended-db-check "no problems"
[ "$(count ',requeue,o,')" = 0 ] && [ "$(count ',start,o,')" = 1 ] && ok ended-no-rerun ||
    not_ok ended-no-rerun "$(printf '%s\n' "$OUT" | grep ',o,')"
once o.0 10 && ok ended-ran-once || not_ok ended-ran-once "$(cat "$TRAINER_DIR/o.0.progress")"
ls -d "$TMP"/run/n2/o.*.0 >/dev/null 2>&1 && not_ok ended-nothing-on-n2 "n2 has o.0" || ok ended-nothing-on-n2

# 5. the migrate hook fails on the new node: stopped there (the source
# is stopped already), requeued, run again once
live_spec "$TMP/badmig.yaml" 0.1 "migrate: exit 3" "retries: 0"
serve_start "$TMP/badmig.yaml"
run "$CELLAR" -c "submit b --vc a --gpus 4 -- $trainer 30 0.05; wait b --state running --timeout 30s; job migrate b --node n2; wait b --timeout 60s; events -o csv --no-header"
check_rc badmig-rc 0
check_out_has badmig-event ",preempt,b,a,-,\"migrate hook on 'n2' failed with status 3 (1 tries); stopped, requeued\","
check_out_has badmig-requeue ",requeue,b,"
check_out_has badmig-completed "b completed"
rerun b.0 30 && ok badmig-ran-again-once ||
    not_ok badmig-ran-again-once "$(tr '\n' ' ' <"$TRAINER_DIR/b.0.progress")"
[ "$(count ',start,b,')" = 2 ] && ok badmig-two-starts || not_ok badmig-two-starts "$(count ',start,b,')"

# 6. the new node turns bad while the pod is still being checkpointed on
# the old one (the checkpoint marks it, then takes 3 s): failed for the
# node, stopped at the source, requeued, started afresh on n1 (n2 is
# bad); it never ran on n2
mkdir -p "$TMP/run/n2"
live_spec "$TMP/health.yaml" 0.1 "healthInterval: 0.2" "retries: 0"
serve_start "$TMP/health.yaml"
run "$CELLAR" -c "submit d --vc a --gpus 4 $ck --env CKPT_SLEEP=3 --env CKPT_BAD=1 -- $trainer 40 0.05; wait d --state running --timeout 30s; job migrate d --node n2; wait d --timeout 60s; events -o csv --no-header; job log d; db check"
rm -f "$TMP/run/n2/unhealthy"
check_rc badnode-rc 0
check_out_has badnode-fail ",fail,d,a,-,node 'n2': health hook failed: marked unhealthy"
check_out_lacks badnode-not-migrated "cellar: migrated"
printf '%s\n' "$OUT" | grep -E ',(start|migrate|fail|requeue|complete),d,' | cut -d, -f3 |
    tr '\n' ' ' | grep -qx 'start migrate fail requeue start complete ' && ok badnode-order ||
    not_ok badnode-order "$(printf '%s\n' "$OUT" | grep ',d,')"
grep -q "node=n2" "$TRAINER_DIR/d.0.env" && not_ok badnode-never-on-n2 "$(cat "$TRAINER_DIR/d.0.env")" ||
    ok badnode-never-on-n2
check_out_has badnode-completed "d completed"
check_out_has badnode-db-check "no problems"
printf '%s\n' "$OUT" | grep -E ',start,d,' | tail -n 1 | grep -q 'n1:\[0-3\]' && ok badnode-restarted-on-n1 ||
    not_ok badnode-restarted-on-n1 "$(printf '%s\n' "$OUT" | grep ',d,')"
[ "$(grep -c "^step 40\$" "$TRAINER_DIR/d.0.progress")" = 1 ] && ok badnode-ends-once || not_ok badnode-ends-once

# 7. the cellar server (the one process that runs hooks: what was "cellar
# SIGKILLed" before the server) SIGKILLed during the source's stop (a
# slow checkpoint): its client fails (exit 5: the server went away); the
# next server on the same store (no --spec) stops it there again
# (idempotent), then migrates; every step once, one start and one
# migrate event
rm -f "$TRAINER_DIR"/e.0.*
serve_start "$TMP/mig.yaml"
"$CELLAR" -c "submit e --vc a --gpus 4 $ck --env CKPT_SLEEP=1 -- $trainer 60 0.05; wait e --state running --timeout 30s; job migrate e --node n2; wait e --timeout 60s" >"$TMP/out7" 2>&1 &
pid=$!
wait_for '[ -s "$TRAINER_DIR/e.0.ckpts" ]'
serve_kill
wait "$pid"
rc=$?
[ $rc = 5 ] && ok kill-stop-client-server-gone ||
    not_ok kill-stop-client-server-gone "the client's exit $rc, want 5: $(cat "$TMP/out7")"
serve_again
run "$CELLAR" -c "wait e --timeout 60s; events -o csv --no-header; job log e; db check"
check_rc kill-stop-rc 0
check_out_has kill-stop-taken-over "cellar: taken over after a restart (migrating)"
check_out_has kill-stop-completed "e completed"
check_out_has kill-stop-db-check "no problems"
once e.0 60 && ok kill-stop-steps-once || not_ok kill-stop-steps-once "$(sort "$TRAINER_DIR/e.0.progress" | uniq -c | sort -rn | head -3)"
[ "$(count ',start,e,')" = 1 ] && [ "$(count ',migrate,e,')" = 1 ] && ok kill-stop-events-once ||
    not_ok kill-stop-events-once "$(printf '%s\n' "$OUT" | grep ',e,')"
grep -q "node=n2" "$TRAINER_DIR/e.0.env" && ok kill-stop-on-n2 || not_ok kill-stop-on-n2 "$(cat "$TRAINER_DIR/e.0.env")"

# 8. the cellar server SIGKILLed during the migrate hook: its client
# fails (exit 5); the next server on the same store runs the hook again,
# which finds the pod running and leaves it alone. (A hook now dies with
# the server that ran it, so the hook here is slow after its work, not
# before it: it has started the pod on n2, which lives on in a session
# of its own, and is still running when the server is killed; only its
# first run waits.)
cat >"$TMP/slowmig.sh" <<EOF
$hooks/migrate || exit
[ -e "$TMP/mig-started" ] && exit 0
touch "$TMP/mig-started"
sleep 20
EOF
live_spec "$TMP/slow.yaml" 0.1 "migrate: sh $TMP/slowmig.sh"
rm -f "$TRAINER_DIR"/g.0.* "$TMP/mig-started"
serve_start "$TMP/slow.yaml"
"$CELLAR" -c "submit g --vc a --gpus 4 $ck -- $trainer 60 0.05; wait g --state running --timeout 30s; job migrate g --node n2; wait g --timeout 60s" >"$TMP/out8" 2>&1 &
pid=$!
wait_for '[ -e "$TMP/mig-started" ]'
serve_kill
wait "$pid"
rc=$?
[ $rc = 5 ] && ok kill-mig-client-server-gone ||
    not_ok kill-mig-client-server-gone "the client's exit $rc, want 5: $(cat "$TMP/out8")"
# the pod the killed hook started goes on on n2
wait_for 'grep -q node=n2 "$TRAINER_DIR/g.0.env" 2>/dev/null'
serve_again
run "$CELLAR" -c "wait g --timeout 60s; events -o csv --no-header; job log g; db check"
check_rc kill-mig-rc 0
check_out_has kill-mig-taken-over "cellar: taken over after a restart (migrating)"
check_out_has kill-mig-already "already running"
check_out_has kill-mig-completed "g completed"
check_out_has kill-mig-db-check "no problems"
once g.0 60 && ok kill-mig-steps-once || not_ok kill-mig-steps-once "$(sort "$TRAINER_DIR/g.0.progress" | uniq -c | sort -rn | head -3)"
[ "$(count ',start,g,')" = 1 ] && [ "$(count ',migrate,g,')" = 1 ] && ok kill-mig-events-once ||
    not_ok kill-mig-events-once "$(printf '%s\n' "$OUT" | grep ',g,')"

# 9. one pod of a gang moves, in a cellar server that took the job over
# after a restart (the first server stopped with SIGTERM, as the first
# cellar used to exit; the next one on the same store, no --spec): pod 1
# to n2, pod 0 runs on untouched (same process), every step of both
# once, CELLAR_NODES names both nodes for the moved pod
serve_start "$TMP/mig.yaml"
run "$CELLAR" -c "submit gg --vc a --gpus 2 --pods 2 $ck -- $trainer 80 0.05; wait gg --state running --timeout 30s"
check_rc gang-rc 0
p0=$(cat "$TRAINER_DIR/gg.0.pid" 2>/dev/null)
serve_again
run "$CELLAR" -c "job migrate gg --pod 1 --node n2; wait gg --timeout 60s; events -o csv --no-header; job log gg; db check"
check_rc gang-migrate-rc 0
check_out_has gang-start ",start,gg,a,-,n1:[0-3],"
check_out_has gang-event ",migrate,gg,a,-,pod 1: n1:[2-3] -> n2:[0-1],"
check_out_has gang-taken-over "cellar: taken over after a restart (running)"
check_out_has gang-completed "gg completed"
check_out_has gang-db-check "no problems"
[ "$(cat "$TRAINER_DIR/gg.0.pid" 2>/dev/null)" = "$p0" ] && ok gang-pod0-untouched ||
    not_ok gang-pod0-untouched "pid $p0, now $(cat "$TRAINER_DIR/gg.0.pid" 2>&1)"
grep -q "gpus=0,1 node=n2 nodes=n\[1-2\] pods=2" "$TRAINER_DIR/gg.1.env" && ok gang-pod1-env ||
    not_ok gang-pod1-env "$(cat "$TRAINER_DIR/gg.1.env" 2>&1)"
once gg.0 80 && once gg.1 80 && ok gang-steps-once ||
    not_ok gang-steps-once "$(sort "$TRAINER_DIR"/gg.*.progress | uniq -c | sort -rn | head -3)"

# 10. a cancel while the source's stop runs (a slow checkpoint): the pod
# is stopped there, nothing starts on n2, the job is cancelled
serve_start "$TMP/mig.yaml"
run "$CELLAR" -c "submit cx --vc a --gpus 4 $ck --env CKPT_SLEEP=2 -- $trainer 400 0.05; wait cx --state running --timeout 30s; job migrate cx --node n2; cancel cx; wait cx --timeout 60s; events -o csv --no-header; job log cx; db check"
check_rc cancel-rc 0
check_out_has cancel-cancelled "cx cancelled"
check_out_lacks cancel-not-migrated "cellar: migrated"
check_out_has cancel-db-check "no problems"
[ "$(count ',requeue,cx,')" = 0 ] && ok cancel-no-requeue || not_ok cancel-no-requeue "$(printf '%s\n' "$OUT" | grep ',cx,')"
ls -d "$TMP"/run/n2/cx.*.0 >/dev/null 2>&1 && not_ok cancel-nothing-on-n2 "n2 has cx.0" || ok cancel-nothing-on-n2
p=$(cat "$TRAINER_DIR/cx.0.pid" 2>/dev/null)
[ -n "$p" ] && ! kill -0 "$p" 2>/dev/null && ok cancel-process-gone || not_ok cancel-process-gone "pid $p"
grep -q '^step 400$' "$TRAINER_DIR/cx.0.progress" && not_ok cancel-stopped-early "it ran to its end" ||
    ok cancel-stopped-early

done_testing
