#!/bin/sh
# t0635-live-hook-fail — hooks that fail must not leave a job running on
# GPUs cellar gives away, nor a job R forever (issue 23, F7). The process
# set's stop and status hooks are wrapped so that a flag file makes them
# hang (killed at the timeout, a failure):
#  1. a cancelled job whose stop hook times out keeps its GPUs: the next
#     job on its nodes does not start while the first one's trainer may
#     still run; the stop is tried again, its nodes are marked bad after
#     two failed rounds, and once a stop succeeds the nodes come back and
#     the next job runs (never beside the first one's trainer);
#  2. the same for a preempted job;
#  3. a status hook that hangs: after three failures in a row its node
#     is marked bad and the job is failed and requeued (it stayed R
#     forever); when the node's health hook passes again it runs to its
#     end;
#  4. status answers written after their hook exited are read, or, too
#     late, count as no answer: never as the pod gone (F10).
# No sleeps to wait: each step polls for what it waits for.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh

hooks=$(pwd)/specs/hooks/process
printf '%s\n' "[ -e $TMP/stop-hangs ] && exec sleep 100" "exec $hooks/stop" >"$TMP/stop-hook"
printf '%s\n' "[ -e $TMP/status-hangs ] && exec sleep 100" "exec $hooks/status" >"$TMP/status-hook"
# The next job's command: note whether a trainer of job $1 still runs.
cat >"$TMP/next.sh" <<EOF
for f in $TRAINER_DIR/\$1.*.pid; do
	[ -s "\$f" ] && kill -0 "\$(cat "\$f")" 2>/dev/null && echo "\$CELLAR_JOB" >>$TMP/overlap
done
exec $trainer 3 0.05
EOF
# 3 s, not less: the timeout is every hook's, and on a loaded machine a
# start hook took over 0.5 s (the job failed instead of its status hook)
live_spec "$TMP/f.yaml" 0.1 "stop: sh $TMP/stop-hook" "status: sh $TMP/status-hook" \
    "timeout: 3" "retries: 0" "healthInterval: 0.2" "suspend: ~" "resume: ~"

# until_log JOB TEXT: poll the job's log until it holds TEXT (60 s at most)
until_log() {
	i=0
	while [ $i -lt 600 ]; do
		"$CELLAR" job log "$1" 2>/dev/null | grep -qF "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# until_file FILE TEXT
until_file() {
	i=0
	while [ $i -lt 600 ]; do
		grep -qF "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# until_event TEXT: poll the run's events until one holds TEXT
until_event() {
	i=0
	while [ $i -lt 600 ]; do
		"$CELLAR" events -o csv --no-header 2>/dev/null | grep -qF "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

serve_start "$TMP/f.yaml"

# 1. cancel, the stop hook hanging
run "$CELLAR" submit c --vc a --gpus 4 --pods 2 -- $trainer 100000 0.05
check_rc c-submit 0
until_file "$TRAINER_DIR/c.1.progress" "step 2" && until_file "$TRAINER_DIR/c.0.progress" "step 2" &&
    ok c-runs || not_ok c-runs "c's trainers did not start"
touch "$TMP/stop-hangs"
run "$CELLAR" cancel c
check_rc c-cancel 0
run "$CELLAR" submit d --vc a --gpus 4 -- sh "$TMP/next.sh" c
check_rc d-submit 0
until_log c "stop failed (2 times in a row)" && ok c-stop-retried ||
    not_ok c-stop-retried "$("$CELLAR" job log c 2>&1 | tail -5)"
until_event "may still run there: its stop hooks failed" && ok c-nodes-bad ||
    not_ok c-nodes-bad "$("$CELLAR" events -o csv --no-header 2>&1 | tail -5)"
# c's trainers still run (the stop never got to them), d has not started
alive=0
for f in "$TRAINER_DIR"/c.*.pid; do kill -0 "$(cat "$f")" 2>/dev/null && alive=$((alive + 1)); done
[ "$alive" = 2 ] && ok c-still-runs || not_ok c-still-runs "$alive of c's trainers alive"
[ ! -e "$TRAINER_DIR/d.0.progress" ] && ok d-waits || not_ok d-waits "d started beside c"
rm -f "$TMP/stop-hangs"
run "$CELLAR" wait d --timeout 60s
check_rc d-done 0
check_out_has d-completed "d completed"
run "$CELLAR" job log c
check_out_has c-stopped "cellar: stopped"
check_out_has c-stop-succeeded "stop succeeded after"
[ ! -e "$TMP/overlap" ] && ok d-never-beside-c || not_ok d-never-beside-c "$(cat "$TMP/overlap")"
run "$CELLAR" events -o csv --no-header
check_out_has nodes-back "node-ok"

# 2. preemption, the stop hook hanging: the preemptor waits for the stop
run "$CELLAR" submit low --vc a --gpus 4 --pods 2 --priority 1 -- $trainer 100000 0.05
check_rc low-submit 0
until_file "$TRAINER_DIR/low.1.progress" "step 2" && until_file "$TRAINER_DIR/low.0.progress" "step 2" &&
    ok low-runs || not_ok low-runs "low's trainers did not start"
touch "$TMP/stop-hangs"
run "$CELLAR" submit high --vc a --gpus 4 --pods 2 --priority 10 -- sh "$TMP/next.sh" low
check_rc high-submit 0
until_log low "stop failed (1 time in a row)" && ok low-stop-failed ||
    not_ok low-stop-failed "$("$CELLAR" job log low 2>&1 | tail -5)"
[ ! -e "$TRAINER_DIR/high.0.progress" ] && ok high-waits || not_ok high-waits "high started beside low"
rm -f "$TMP/stop-hangs"
run "$CELLAR" wait high --timeout 60s
check_rc high-done 0
[ ! -e "$TMP/overlap" ] && ok high-never-beside-low || not_ok high-never-beside-low "$(cat "$TMP/overlap")"
run "$CELLAR" cancel low
run "$CELLAR" wait low --timeout 60s

# 3. a status hook that hangs: the node goes bad, the job is requeued;
# healthy again (the health hook passes), the job runs to its end
touch "$TMP/status-hangs"
run "$CELLAR" submit s --vc a --gpus 4 --pods 2 -- $trainer 20 0.05
check_rc s-submit 0
until_event "status hooks failed 3 times in a row" && ok s-node-bad ||
    not_ok s-node-bad "$("$CELLAR" events -o csv --no-header 2>&1 | tail -5)"
until_event "fail,s,a" && ok s-failed || not_ok s-failed "no fail event for s"
rm -f "$TMP/status-hangs"
run "$CELLAR" wait s --timeout 60s
check_rc s-done 0
check_out_has s-completed "s completed"

# 4. status answers that come after their hook exited (issue 23, F10: ssh's
# ControlMaster writes the remote output after its client exits; under
# load a restarted cellar read an empty answer and failed a running job):
# the first two answers come 0.3 s late, read until the pipe's EOF; the
# third 3 s late, past the grace: no answer, asked again; never "gone".
cat >"$TMP/late-status" <<EOF
n=\$(cat $TMP/late.count 2>/dev/null || echo 0)
echo \$((n + 1)) >$TMP/late.count
case \$n in
0|1) ( sleep 0.3; exec $hooks/status ) & exit 0 ;;
2) ( sleep 3; exec $hooks/status ) & exit 0 ;;
esac
exec $hooks/status
EOF
live_spec "$TMP/late.yaml" 0.1 "status: sh $TMP/late-status" "timeout: 10" "retries: 0"
serve_start "$TMP/late.yaml"
run "$CELLAR" -c "submit late --vc a --gpus 4 -- $trainer 100 0.05; wait late --timeout 60s; job log late"
check_rc late-rc 0
check_out_has late-completed "late completed"
check_out_lacks late-not-gone "is gone"
check_out_has late-no-answer "gave no answer"
[ "$(cat "$TMP/late.count")" -gt 3 ] && ok late-asked-again ||
    not_ok late-asked-again "$(cat "$TMP/late.count") status runs"
runs=$(grep -c '^step 1$' "$TRAINER_DIR/late.0.progress" 2>/dev/null)
ends=$(grep -c '^step 100$' "$TRAINER_DIR/late.0.progress" 2>/dev/null)
[ "$runs" = 1 ] && [ "$ends" = 1 ] && ok late-ran-once || not_ok late-ran-once "runs $runs, ends $ends"

done_testing
