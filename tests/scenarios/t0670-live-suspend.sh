#!/bin/sh
# t0670-live-suspend — priority preemption with a hook set that has
# suspend and resume (the process set: SIGSTOP/SIGCONT of the pod's
# process group): the low job is suspended, not killed (its processes in
# state T, its progress frozen), the preemptor runs on the same GPUs, and
# the low job is resumed on exactly those GPUs when they are free and
# completes, run and counted once. Also: the cellar server SIGKILLed
# while a job is suspended (the next server on the store keeps it
# suspended, then resumes it); cancel of a suspended job kills its
# processes; a failing suspend hook falls back to stopping the job
# (requeued, run again), with an event; a suspended job whose GPUs' node
# goes bad is stopped and requeued at once (even while its other GPUs are
# busy). A cellar server (cellar serve, lib-live.sh) runs each case's
# cluster on a store of its own; the commands are its clients.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
live_spec "$TMP/two.yaml" 0.1

# the state letter of a process (R, S, T, ...), or "gone"
pstate() {
	s=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
	echo "${s:-gone}"
}
# stopped: T, or D (a shell in vfork(2) whose child was stopped before
# its exec waits in D until SIGCONT; the suspend hook counts it too)
stopped() { case $(pstate "$1") in T|D) return 0 ;; esac; return 1; }
steps() { grep -c '^step' "$TRAINER_DIR/$1.progress" 2>/dev/null || echo 0; }
# wait_for COND...: up to 60 s (600 x 0.1 s) for a shell condition
wait_for() {
	i=0
	while ! eval "$*" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	eval "$*"
}

# 1. low (2 pods x 4 GPUs) is suspended for high (4 GPUs), then resumed
serve_start "$TMP/two.yaml"
"$CELLAR" -c "submit low --vc a --gpus 4 --pods 2 --priority 1 -- $trainer 120 0.05; wait low --state running --timeout 30s; submit high --vc a --gpus 4 --priority 5 -- $trainer 30 0.1; wait low --state suspended --timeout 30s; queue -o csv --no-header; job show low; wait high --timeout 60s; wait low --timeout 60s; events -o csv --no-header; job log low; db check" >"$TMP/out1" 2>&1 &
pid=$!
wait_for '[ -s "$TRAINER_DIR/high.0.progress" ]' &&
    ok preemptor-runs || not_ok preemptor-runs "$(cat "$TMP/out1")"
p0=$(cat "$TRAINER_DIR/low.0.pid" 2>/dev/null)
p1=$(cat "$TRAINER_DIR/low.1.pid" 2>/dev/null)
s0=$(pstate "$p0") s1=$(pstate "$p1")
stopped "$p0" && stopped "$p1" && ok low-stopped-T || not_ok low-stopped-T "states $s0 $s1"
# frozen while high (0.1 s a step) takes 6 steps: a running low (0.05 s
# a step) would have taken about 12 meanwhile
n1=$(steps low.0)
h1=$(steps high.0)
wait_for '[ "$(steps high.0)" -ge $((h1 + 6)) ]'
n2=$(steps low.0)
[ "$n1" = "$n2" ] && [ "$n1" -lt 120 ] && [ "$(steps high.0)" -ge $((h1 + 6)) ] &&
    ok low-progress-frozen ||
    not_ok low-progress-frozen "steps $n1 then $n2 while high went $h1 -> $(steps high.0)"
# the preemptor was given the GPUs low holds on its node
g_low=$(sed -n 's/^gpus=\([^ ]*\) node=\([^ ]*\).*/\2:\1/p' "$TRAINER_DIR/low.0.env" "$TRAINER_DIR/low.1.env")
g_high=$(sed -n 's/^gpus=\([^ ]*\) node=\([^ ]*\).*/\2:\1/p' "$TRAINER_DIR/high.0.env")
printf '%s\n' "$g_low" | grep -qx "$g_high" && ok same-gpus ||
    not_ok same-gpus "high on $g_high, low on $g_low"
# once high is done, low goes on: running again, progress growing
wait_for '[ "$(steps low.0)" -gt "$n2" ]' && ok low-progress-again ||
    not_ok low-progress-again "steps stay $(steps low.0)"
s0=$(pstate "$p0")
case $s0 in S|R|D) ok low-resumed-state ;; *) not_ok low-resumed-state "state $s0" ;; esac
wait "$pid"
rc=$?
OUT=$(cat "$TMP/out1")
[ $rc = 0 ] && ok session-rc || not_ok session-rc "exit $rc: $OUT"
printf '%s\n' "$OUT" | grep -qx "a,-,low,[0-9]*,$(id -un),S,suspended,1,8,2,n\[1-2\],-" &&
    ok queue-suspended || not_ok queue-suspended "$OUT"
check_out_has show-suspended "S (suspended)"
check_out_has show-no-cells "none (holds no cells)"
check_out_has low-completed "low completed"
check_out_has suspend-event ",suspend,low,a,high,n1:[0-3] n2:[0-3],"
check_out_has resume-event ",resume,low,a,-,n1:[0-3] n2:[0-3],"
check_out_has log-suspended "cellar: suspended"
check_out_has log-resumed "cellar: resumed"
check_out_has db-check "no problems"
for k in start suspend resume complete; do
	n=$(printf '%s\n' "$OUT" | grep -c ",$k,low,")
	[ "$n" = 1 ] && ok "low-$k-once" || not_ok "low-$k-once" "$n $k events"
done
n=$(printf '%s\n' "$OUT" | grep -c ',\(preempt\|requeue\),low,')
[ "$n" = 0 ] && ok low-not-stopped || not_ok low-not-stopped "$n preempt/requeue events"
for p in 0 1; do
	runs=$(grep -c '^step 1$' "$TRAINER_DIR/low.$p.progress" 2>/dev/null)
	ends=$(grep -c '^step 120$' "$TRAINER_DIR/low.$p.progress" 2>/dev/null)
	[ "$runs" = 1 ] && [ "$ends" = 1 ] && ok "low-pod$p-ran-once" ||
	    not_ok "low-pod$p-ran-once" "runs $runs, ends $ends"
done

# 2. the cellar server (the one process that runs hooks: what was "cellar
# SIGKILLed" before the server) SIGKILLed while a job is suspended: its
# client's wait fails (exit 5: the server went away); the next server on
# the same store (no --spec) takes the job over still suspended (its
# process still in T while the preemptor runs), then resumes it;
# everything counted once
serve_start "$TMP/two.yaml"
"$CELLAR" -c "submit low2 --vc a --gpus 4 --pods 2 --priority 1 -- $trainer 80 0.05; wait low2 --state running --timeout 30s; submit high2 --vc a --gpus 4 --priority 5 -- $trainer 40 0.1; wait --timeout 120s" >"$TMP/out2" 2>&1 &
pid=$!
wait_for '[ -s "$TRAINER_DIR/high2.0.progress" ] && stopped "$(cat "$TRAINER_DIR/low2.0.pid")"'
serve_kill
wait "$pid"
rc=$?
[ $rc = 5 ] && ok killed-client-server-gone ||
    not_ok killed-client-server-gone "the client's exit $rc, want 5: $(cat "$TMP/out2")"
p0=$(cat "$TRAINER_DIR/low2.0.pid" 2>/dev/null)
stopped "$p0" && ok killed-while-suspended ||
    not_ok killed-while-suspended "state $(pstate "$p0"): $(cat "$TMP/out2")"
serve_again	# returns once it serves: the jobs are taken over by then
"$CELLAR" -c "wait low2 --state suspended --timeout 30s; job show low2; wait --timeout 120s; events -o csv --no-header; job log low2; db check" >"$TMP/out3" 2>&1 &
pid=$!
# still suspended while high2 trains on: 5 more of its steps (0.1 s
# each), time for the new server's status polls (every 0.1 s) to see it
h1=$(steps high2.0)
wait_for '[ "$(steps high2.0)" -ge $((h1 + 5)) ]'
if [ "$(steps high2.0)" -lt 40 ]; then
	stopped "$p0" && ok still-suspended-after-restart ||
	    not_ok still-suspended-after-restart "state $(pstate "$p0")"
else
	not_ok still-suspended-after-restart "high2 ended too early to tell"
fi
wait "$pid"
rc=$?
OUT=$(cat "$TMP/out3")
[ $rc = 0 ] && ok restart-rc || not_ok restart-rc "exit $rc: $OUT"
check_out_has restart-taken-over "cellar: taken over after a restart (suspended)"
check_out_has restart-show "S (suspended)"
check_out_has restart-low2-completed "low2 completed"
check_out_has restart-high2-completed "high2 completed"
check_out_has restart-db-check "no problems"
for k in start suspend resume complete; do
	n=$(printf '%s\n' "$OUT" | grep -c ",$k,low2,")
	[ "$n" = 1 ] && ok "low2-$k-once" || not_ok "low2-$k-once" "$n $k events"
done
runs=$(grep -c '^step 1$' "$TRAINER_DIR/low2.0.progress" 2>/dev/null)
ends=$(grep -c '^step 80$' "$TRAINER_DIR/low2.0.progress" 2>/dev/null)
[ "$runs" = 1 ] && [ "$ends" = 1 ] && ok low2-ran-once || not_ok low2-ran-once "runs $runs, ends $ends"

# 3. cancel of a suspended job: its (stopped) processes die
serve_start "$TMP/two.yaml"
run "$CELLAR" -c "submit low3 --vc a --gpus 4 --pods 2 --priority 1 -- $trainer 200 0.05; wait low3 --state running --timeout 30s; submit high3 --vc a --gpus 4 --priority 5 -- $trainer 200 0.05; wait low3 --state suspended --timeout 30s; cancel low3; wait low3 --timeout 30s; cancel high3; wait --timeout 30s; events -o csv --no-header"
check_rc cancel-rc 0
check_out_has cancel-event ",cancel,low3,"
for p in 0 1; do
	s=$(pstate "$(cat "$TRAINER_DIR/low3.$p.pid")")
	[ "$s" = gone ] && ok "cancelled-pod$p-gone" || not_ok "cancelled-pod$p-gone" "state $s"
done
n=$(printf '%s\n' "$OUT" | grep -c ',resume,low3,')
[ "$n" = 0 ] && ok cancelled-not-resumed || not_ok cancelled-not-resumed "$n resume events"

# 4. a suspend hook that fails: the job is stopped instead (its first
# run killed), requeued with an event saying why, and runs again
live_spec "$TMP/badsusp.yaml" 0.1 "suspend: exit 3" "retries: 0"
serve_start "$TMP/badsusp.yaml"
run "$CELLAR" -c "submit low4 --vc a --gpus 4 --pods 2 --priority 1 -- $trainer 40 0.05; wait low4 --state running --timeout 30s; submit high4 --vc a --gpus 4 --priority 5 -- $trainer 3 0.05; wait --timeout 60s; events -o csv --no-header"
check_rc badsusp-rc 0
check_out_has badsusp-event ",preempt,low4,a,-,\"suspend hook on 'n"
check_out_has badsusp-why "failed with status 3 (1 tries); stopped, requeued"
check_out_has badsusp-requeue ",requeue,low4,"
check_out_has badsusp-completed "low4 completed"
runs=$(grep -c '^step 1$' "$TRAINER_DIR/low4.0.progress" 2>/dev/null)
ends=$(grep -c '^step 40$' "$TRAINER_DIR/low4.0.progress" 2>/dev/null)
[ "$runs" = 2 ] && [ "$ends" = 1 ] && ok badsusp-ran-again ||
    not_ok badsusp-ran-again "runs $runs, ends $ends"

# 5. the node of a suspended job's GPUs goes bad: it cannot resume there,
# so it is stopped (its processes die) and requeued, with an event
live_spec "$TMP/health.yaml" 0.1 "healthInterval: 0.2" "retries: 0"
serve_start "$TMP/health.yaml"
"$CELLAR" -c "submit low5 --vc a --gpus 4 --pods 2 --priority 1 -- $trainer 400 0.05; wait low5 --state running --timeout 30s; submit high5 --vc a --gpus 4 --priority 5 -- $trainer 400 0.05; wait low5 --state suspended --timeout 30s; wait low5 --state pending --timeout 30s; events -o csv --no-header; job log low5; cancel low5; cancel high5; wait --timeout 30s" >"$TMP/out5" 2>&1 &
pid=$!
wait_for '[ -s "$TRAINER_DIR/high5.0.env" ] && stopped "$(cat "$TRAINER_DIR/low5.0.pid")"'
hn=$(sed -n 's/.* node=\([^ ]*\) .*/\1/p' "$TRAINER_DIR/high5.0.env")
other=n1; [ "$hn" = n1 ] && other=n2
mkdir -p "$TMP/run/$other" && touch "$TMP/run/$other/unhealthy"
wait "$pid"
rc=$?
OUT=$(cat "$TMP/out5")
[ $rc = 0 ] && ok lost-rc || not_ok lost-rc "exit $rc"
check_out_has lost-event "node '$other' of its GPUs is bad; it cannot resume there; stopped, requeued"
check_out_has lost-requeue ",requeue,low5,"
for p in 0 1; do
	s=$(pstate "$(cat "$TRAINER_DIR/low5.$p.pid")")
	[ "$s" = gone ] && ok "lost-pod$p-gone" || not_ok "lost-pod$p-gone" "state $s"
done

done_testing
