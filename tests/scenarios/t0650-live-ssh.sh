#!/bin/sh
# t0650-live-ssh — real jobs over real ssh: a private sshd on 127.0.0.2-9
# (tests/scenarios/lib-sshd.sh) plays eight nodes and cellar's ssh backend
# runs the process hook set on them through the OpenSSH client. A gang
# across two nodes starts and completes; command words and environment
# survive the remote shell verbatim; a higher priority preempts a lower
# one (without a suspend hook its process really ends: checked through
# its pid while the higher job runs; with one it is stopped, state T, and
# resumed on the same GPUs); a node whose health hook fails turns bad and its job lands
# on the other node; a hanging hook times out, is retried and fails the
# job; SIGKILL of the cellar server mid-run and a new server on the store
# reconcile (still running, started and counted once); shell
# metacharacters in a name are refused; a pod migrates from n1 to n2
# (checkpoint, stop, migrate hook; a failing checkpoint stops and requeues
# it); and ControlMaster really multiplexes (sshd accepts far fewer
# connections than hook runs; a second server opens none). The dashboard
# shows the ssh session. A cellar server (cellar serve, lib-live.sh) runs
# the ssh hooks; every other cellar here is its client.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
. tests/scenarios/lib-sshd.sh
sshd_start
TD="--env TRAINER_DIR=$TRAINER_DIR"
# wait_for COND...: up to 60 s (600 x 0.1 s) for a shell condition
wait_for() {
	i=0
	while ! eval "$*" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	eval "$*"
}
steps() { grep -c '^step' "$TRAINER_DIR/$1.progress" 2>/dev/null || echo 0; }

# 1. a gang of 2 pods x 4 GPUs across two of the eight nodes
ssh_spec "$TMP/eight.yaml" 0.1 8
c0=$(sshd_connections)
s0=$(grep -c 'Starting session: command' "$SSHD_LOG")
serve_start "$TMP/eight.yaml"
run "$CELLAR" -c "submit g --vc a --gpus 4 --pods 2 $TD -- $trainer 100 0.05; wait g --timeout 120s; events --run last -o csv --no-header; job log g"
check_rc gang-rc 0
check_out_has gang-completed "g completed"
check_out_has gang-two-nodes "n1:[0-3] n2:[0-3]"
[ "$(grep -c step "$TRAINER_DIR/g.0.progress" 2>/dev/null)" = 100 ] &&
    [ "$(grep -c step "$TRAINER_DIR/g.1.progress" 2>/dev/null)" = 100 ] &&
    ok gang-both-pods-ran || not_ok gang-both-pods-ran "progress: $(cat "$TRAINER_DIR"/g.*.progress 2>&1)"
grep -q "gpus=0,1,2,3 node=n1 nodes=n\[1-2\] pods=2" "$TRAINER_DIR/g.0.env" &&
    grep -q "node=n2" "$TRAINER_DIR/g.1.env" && ok gang-env ||
    not_ok gang-env "$(cat "$TRAINER_DIR"/g.*.env 2>&1)"
# each pod's start hook ran on its own address
grep -q "Starting session: command for .* from 127.0.0.1 port [0-9]* id" "$SSHD_LOG" &&
    ok gang-over-sshd || not_ok gang-over-sshd "no session in the sshd log"

# the dashboard on the ssh session: the backend in the status line and
# the JSON, the running job in the queues and on its node in the map
# (the dashboard of a client: the server runs the session)
serve_start "$TMP/eight.yaml"
run "$CELLAR" -c "submit dj --vc a --gpus 4 $TD -- $trainer 400 0.05; wait dj --state running --timeout 60s; dash --once --size 120x20 --panel queues; dash --once --size 120x14 --map; dash --once -o json; cancel dj"
check_rc dash-ssh-rc 0
printf '%s\n' "$OUT" | grep -Eq "  ssh  [0-9][0-9]:[0-9][0-9]:[0-9][0-9]  " &&
    ok dash-ssh-status || not_ok dash-ssh-status "no backend and time of day: [$OUT]"
check_out_has dash-ssh-json '"backend":"ssh"'
printf '%s\n' "$OUT" | grep -Eq " dj  *R  *4 " && ok dash-ssh-queue ||
    not_ok dash-ssh-queue "no running dj in the queues: [$OUT]"
printf '%s\n' "$OUT" | grep -Eq "^ *n[1-8]  *A" && ok dash-ssh-map ||
    not_ok dash-ssh-map "no node of VC a in the map: [$OUT]"

# 2. multiplexing: every hook run is a session; with ControlMaster a node
# costs one connection (two when its first hooks race for the master)
conns=$(($(sshd_connections) - c0))
sess=$(($(grep -c 'Starting session: command' "$SSHD_LOG") - s0))
echo "# t0650: sshd accepted $conns connections for $sess hook runs (8 nodes)"
# sessions name their connection by its client port: the busiest one
# carried many hook runs (a node's status polls through its master)
most=$(sed -n 's/.*Starting session: command for .* port \([0-9]*\) id .*/\1/p' "$SSHD_LOG" |
    sort | uniq -c | sort -rn | awk 'NR == 1 { print $1 }')
echo "# t0650: at most $most hook runs over one connection"
[ "$conns" -ge 1 ] && [ "$conns" -le 16 ] && [ "$sess" -gt "$conns" ] &&
    [ "${most:-0}" -ge 3 ] && ok multiplexed ||
    not_ok multiplexed "$conns connections for $sess hook runs, at most $most on one"
# the masters persist: a second cellar server (a new process, a new
# store) opens no connection at all
c1=$(sshd_connections)
serve_start "$TMP/eight.yaml"
run "$CELLAR" -c "submit g2 --vc a --gpus 4 $TD -- $trainer 2 0.05; wait g2 --timeout 60s"
check_rc reuse-rc 0
[ "$(sshd_connections)" = "$c1" ] && ok masters-reused ||
    not_ok masters-reused "$(($(sshd_connections) - c1)) new connections"

# 3. command words and environment cross the remote shell unexpanded
serve_start "$TMP/eight.yaml"
run "$CELLAR" -c "submit w --vc a --env 'MSG=it'\''s \$HOME' -- sh -c 'printf \"%s|%s\\n\" \"\$1\" \"\$MSG\" >$TMP/words' x 'a b;\$(id)'; wait w --timeout 60s"
check_rc words-rc 0
[ "$(cat "$TMP/words" 2>/dev/null)" = "a b;\$(id)|it's \$HOME" ] && ok words-verbatim ||
    not_ok words-verbatim "got '$(cat "$TMP/words" 2>&1)'"

# 4. a name with shell metacharacters is refused before anything runs
# (by the server of 3)
run "$CELLAR" -c "submit 'x;touch $TMP/pwned' --vc a -- true"
check_rc bad-name-rc 1
check_err_has bad-name-msg "bad job name 'x;touch"
[ ! -e "$TMP/pwned" ] && ok bad-name-nothing-ran || not_ok bad-name-nothing-ran "$TMP/pwned exists"

# 5. priority 5 preempts priority 1 on two nodes, with a set without
# suspend: while high runs, the process of low's first run (its recorded
# pid) is gone, not paused (5b suspends)
ssh_spec "$TMP/two.yaml" 0.1 2 "suspend: ~" "resume: ~"
cat >"$TMP/gone.sh" <<EOF
p=\$(cat $TRAINER_DIR/low.0.pid)
s=\$(ps -o stat= -p "\$p" 2>/dev/null)
case \$s in ""|Z*) echo gone ;; *) echo "alive \$s" ;; esac >$TMP/lowpid
exec $trainer 3 0.05
EOF
serve_start "$TMP/two.yaml"
run "$CELLAR" -c "submit low --vc a --gpus 4 --pods 2 --priority 1 $TD -- $trainer 100 0.05; wait low --state running --timeout 60s; submit high --vc a --gpus 4 --priority 5 $TD -- sh $TMP/gone.sh; wait high --timeout 60s; wait low --timeout 120s; events --run last -o csv --no-header"
check_rc preempt-rc 0
check_out_has preempt-event "preempt,low,a,high"
check_out_has preempt-requeue "requeue,low"
check_out_has preempt-high-done "high completed"
check_out_has preempt-low-done "low completed"
[ "$(cat "$TMP/lowpid" 2>/dev/null)" = gone ] && ok preempt-process-ended ||
    not_ok preempt-process-ended "low's first process: $(cat "$TMP/lowpid" 2>&1)"
runs=$(grep -c '^step 1$' "$TRAINER_DIR/low.0.progress" 2>/dev/null)
ends=$(grep -c '^step 100$' "$TRAINER_DIR/low.0.progress" 2>/dev/null)
[ "$runs" = 2 ] && [ "$ends" = 1 ] && ok preempt-rerun ||
    not_ok preempt-rerun "runs $runs, ends $ends"

# 5b. the same with the process set's suspend and resume: while high
# runs (on low's GPUs), low's processes are stopped (state T), not gone;
# then low is resumed there and completes, run once
ssh_spec "$TMP/susp.yaml" 0.1 2
rm -f "$TRAINER_DIR"/low.* "$TMP/lowpid"
cat >"$TMP/stopped.sh" <<EOF
p=\$(cat $TRAINER_DIR/low.0.pid)
echo "\$(ps -o stat= -p "\$p" 2>/dev/null | cut -c1) \$CELLAR_NODE:\$CUDA_VISIBLE_DEVICES" >$TMP/lowpid
exec $trainer 3 0.05
EOF
serve_start "$TMP/susp.yaml"
run "$CELLAR" -c "submit low --vc a --gpus 4 --pods 2 --priority 1 $TD -- $trainer 100 0.05; wait low --state running --timeout 60s; submit high --vc a --gpus 4 --priority 5 $TD -- sh $TMP/stopped.sh; wait high --timeout 60s; wait low --timeout 120s; events --run last -o csv --no-header"
check_rc suspend-rc 0
check_out_has suspend-event ",suspend,low,a,high,n1:[0-3] n2:[0-3],"
check_out_has suspend-resume-event ",resume,low,a,-,n1:[0-3] n2:[0-3],"
check_out_has suspend-low-done "low completed"
got=$(cat "$TMP/lowpid" 2>/dev/null)
case $got in
# (D: a shell in vfork(2) whose child was stopped before its exec)
[TD]" n1:0,1,2,3"|[TD]" n2:0,1,2,3") ok suspend-process-stopped ;;
*) not_ok suspend-process-stopped "low's process and high's GPUs: [$got]" ;;
esac
runs=$(grep -c '^step 1$' "$TRAINER_DIR/low.0.progress" 2>/dev/null)
ends=$(grep -c '^step 100$' "$TRAINER_DIR/low.0.progress" 2>/dev/null)
[ "$runs" = 1 ] && [ "$ends" = 1 ] && ok suspend-ran-once ||
    not_ok suspend-ran-once "runs $runs, ends $ends"
n=$(printf '%s\n' "$OUT" | grep -c ',\(preempt\|requeue\),low,')
[ "$n" = 0 ] && ok suspend-not-stopped || not_ok suspend-not-stopped "$n preempt/requeue events"

# 6. node health over ssh: j's first run marks its node unhealthy; the
# node turns bad, j is stopped, requeued and lands on n2. The first run
# trains for a minute, ended by the health check whenever it comes (on a
# loaded machine the 1.5 s run ended first and the node turned bad
# after); the run on n2 is short
ssh_spec "$TMP/health.yaml" 0.1 2 "healthInterval: 0.2" "retries: 1" "backoff: 0.1"
first="[ -e $TMP/once ] && exec $trainer 30 0.05; touch $TMP/once $TMP/run/\$CELLAR_NODE/unhealthy; exec $trainer 1200 0.05"
serve_start "$TMP/health.yaml"
run "$CELLAR" -c "submit j --vc a --gpus 4 $TD -- sh -c '$first'; wait j --timeout 120s; events --run last -o csv --no-header"
check_rc health-rc 0
check_out_has health-node-bad "node-bad,-,-,-,n1"
check_out_has health-j-failed "fail,j,a,-,node 'n1': health hook failed: marked unhealthy"
check_out_has health-j-requeued "requeue,j"
check_out_has health-j-on-n2 "start,j,a,-,n2:[0-3]"
check_out_has health-j-completed "j completed"
rm -f "$TMP"/run/*/unhealthy

# 7. a start hook that hangs on the node: the ssh client is killed at the
# timeout, retried once, and the job fails with an event that says so
# (the sleep's argument is this script's own, 97.PID seconds: another
# copy of this test running on the machine has hooks of its own)
hang="sleep 97.$$"
ssh_spec "$TMP/hang.yaml" 0.1 2 "start: $hang" "timeout: 1" "retries: 1" "backoff: 0.1"
serve_start "$TMP/hang.yaml"
run "$CELLAR" -c "submit h --vc a --gpus 4 -- true; wait h --timeout 60s; events --run last -o csv --no-header"
check_rc hang-rc 0
check_out_has hang-failed "h failed"
check_out_has hang-event "start hook on 'n1' timed out after 1 s (2 tries)"
# the hook itself did not outlive its killed ssh client on the node (the
# watchdog there kills it once the client's stdin ends: waited for)
wait_for '! pgrep -f "$hang" >/dev/null'
if pgrep -f "$hang" >/dev/null; then
	not_ok hang-remote-killed "a '$hang' survives: $(pgrep -af "$hang" | tr '\n' ' ')"
else ok hang-remote-killed; fi

# 8. SIGKILL of the cellar server (the one process that runs the hooks:
# what was "cellar SIGKILLed" before the server) while two jobs train and
# one waits: its client's wait fails (exit 5, the server went away); the
# next server (same store, no --spec) asks the nodes and takes the jobs
# over
serve_start "$TMP/two.yaml"
"$CELLAR" -c "submit ra --vc a --gpus 4 $TD -- $trainer 60 0.05; submit rb --vc a --gpus 4 $TD -- $trainer 60 0.05; submit rq --vc a --gpus 4 $TD -- $trainer 2 0.05; wait --timeout 120s" >"$TMP/out1" 2>&1 &
pid=$!
wait_for '[ -s "$TRAINER_DIR/ra.0.progress" ] && [ -s "$TRAINER_DIR/rb.0.progress" ]'
serve_kill
wait "$pid"
rc=$?
[ -s "$TRAINER_DIR/ra.0.progress" ] && [ -s "$TRAINER_DIR/rb.0.progress" ] &&
    ok restart-killed-while-training || not_ok restart-killed-while-training "$(cat "$TMP/out1")"
[ $rc = 5 ] && ok restart-client-server-gone ||
    not_ok restart-client-server-gone "the client's exit $rc, want 5: $(cat "$TMP/out1")"
# the trainers go on without the server: ssh started them on the node;
# ra takes 3 more steps after the kill, and its process is still there
n=$(steps ra.0)
wait_for '[ "$(steps ra.0)" -ge $((n + 3)) ] || [ "$(steps ra.0)" -ge 60 ]'
ra_pid=$(cat "$TRAINER_DIR/ra.0.pid" 2>/dev/null)
[ "$(steps ra.0)" -ge $((n + 3)) ] && [ "$(steps ra.0)" -lt 60 ] &&
    [ -n "$ra_pid" ] && kill -0 "$ra_pid" 2>/dev/null && ok restart-job-outlives-cellar ||
    not_ok restart-job-outlives-cellar "ra's trainer (pid $ra_pid): steps $n then $(steps ra.0)"
serve_again
run "$CELLAR" -c "wait --timeout 120s; events -o csv --no-header; jobs --run last -o csv --no-header; job log ra; job log rb; db check"
check_rc restart-rc 0
n=$(printf '%s\n' "$OUT" | grep -c 'cellar: taken over after a restart (\(starting\|running\))')
[ "$n" = 2 ] && ok restart-taken-over || not_ok restart-taken-over "$n of ra, rb taken over"
for j in ra rb rq; do
	n=$(printf '%s\n' "$OUT" | grep -c ",start,$j,")
	[ "$n" = 1 ] && ok "restart-$j-started-once" || not_ok "restart-$j-started-once" "$n start events"
	check_out_has "restart-$j-completed" "$j completed"
done
for j in ra rb; do
	runs=$(grep -c '^step 1$' "$TRAINER_DIR/$j.0.progress" 2>/dev/null)
	ends=$(grep -c '^step 60$' "$TRAINER_DIR/$j.0.progress" 2>/dev/null)
	[ "$runs" = 1 ] && [ "$ends" = 1 ] && ok "restart-$j-ran-once" ||
	    not_ok "restart-$j-ran-once" "runs $runs, ends $ends"
done
n=$(printf '%s\n' "$OUT" | grep -c '^r[abq],')
[ "$n" = 3 ] && ok restart-counted-once || not_ok restart-counted-once "$n job rows"


# 9. migration over ssh: the pod's stop on n1 runs its checkpoint (with
# CELLAR_TO_NODE), then the process set's migrate hook starts it on n2,
# where it goes on from the checkpoint: every step once
cat >"$TMP/ckpt.sh" <<'EOF'
f=$TRAINER_DIR/$CELLAR_JOB.$CELLAR_POD
echo "$CELLAR_NODE:$CELLAR_GPUS -> $CELLAR_TO_NODE:$CELLAR_TO_GPUS" >>"$f.ckpts"
sed -n 's/^step //p' "$f.progress" | tail -n 1 >"$f.ckpt.tmp" && mv "$f.ckpt.tmp" "$f.ckpt"
EOF
serve_start "$TMP/susp.yaml"
run "$CELLAR" -c "submit mg --vc a --gpus 4 $TD --env 'CELLAR_CHECKPOINT=sh $TMP/ckpt.sh' -- $trainer 60 0.05; wait mg --state running --timeout 60s; job migrate mg --node n2; wait mg --timeout 120s; events --run last -o csv --no-header; job log mg"
check_rc ssh-migrate-rc 0
check_out_has ssh-migrate-event ",migrate,mg,a,-,pod 0: n1:[0-3] -> n2:[0-3],"
check_out_has ssh-migrate-stopped "cellar: pod 0 stopped on 'n1'"
check_out_has ssh-migrate-migrated "cellar: migrated"
check_out_has ssh-migrate-completed "mg completed"
[ "$(cat "$TRAINER_DIR/mg.0.ckpts" 2>/dev/null)" = "n1:0,1,2,3 -> n2:0,1,2,3" ] &&
    ok ssh-migrate-checkpoint || not_ok ssh-migrate-checkpoint "$(cat "$TRAINER_DIR/mg.0.ckpts" 2>&1)"
grep -q "node=n2" "$TRAINER_DIR/mg.0.env" && ok ssh-migrate-on-n2 || not_ok ssh-migrate-on-n2 "$(cat "$TRAINER_DIR/mg.0.env" 2>&1)"
runs=$(grep -c '^step 1$' "$TRAINER_DIR/mg.0.progress" 2>/dev/null)
ends=$(grep -c '^step 60$' "$TRAINER_DIR/mg.0.progress" 2>/dev/null)
[ "$runs" = 1 ] && [ "$ends" = 1 ] && ok ssh-migrate-steps-once ||
    not_ok ssh-migrate-steps-once "runs $runs, ends $ends"
# 9b. a failing checkpoint over ssh: stopped on n1, requeued, run again
# (long enough to outlast the stop's retries: one that ended by then is
# not moved, t0680 4b)
serve_start "$TMP/susp.yaml"
run "$CELLAR" -c "submit mf --vc a --gpus 4 $TD --env CELLAR_CHECKPOINT=false -- $trainer 200 0.05; wait mf --state running --timeout 60s; job migrate mf --node n2; wait mf --timeout 120s; events --run last -o csv --no-header"
check_rc ssh-migrate-fail-rc 0
check_out_has ssh-migrate-fail-event ",preempt,mf,a,-,\"stop hook on 'n1' failed with status 1"
check_out_has ssh-migrate-fail-completed "mf completed"
runs=$(grep -c '^step 1$' "$TRAINER_DIR/mf.0.progress" 2>/dev/null)
ends=$(grep -c '^step 200$' "$TRAINER_DIR/mf.0.progress" 2>/dev/null)
[ "$runs" = 2 ] && [ "$ends" = 1 ] && ok ssh-migrate-fail-ran-again-once ||
    not_ok ssh-migrate-fail-ran-again-once "runs $runs, ends $ends"

done_testing
