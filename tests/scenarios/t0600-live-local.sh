#!/bin/sh
# t0600-live-local — real jobs through the `local` backend and the process
# hook set: a gang across two nodes starts and completes; a higher
# priority preempts a lower one (without a suspend hook its processes
# really end) and the lower
# one is requeued and finishes later; a hanging hook times out, is retried
# and fails the job with a clear event; names and environment entries
# with shell metacharacters are refused at submission. A cellar server
# (cellar serve) runs each case's cluster; the commands are its clients.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
live_spec "$TMP/two.yaml" 0.2

# 1. a gang of 2 pods x 4 GPUs across both nodes runs and completes
serve_start "$TMP/two.yaml"
run "$CELLAR" -c "submit g --vc a --gpus 4 --pods 2 -- $trainer 5 0.05; wait g --timeout 60s; events --run last -o csv --no-header"
check_rc gang-rc 0
check_out_has gang-completed "g completed"
check_out_has gang-start-both-nodes "n1:[0-3] n2:[0-3]"
[ "$(grep -c step "$TRAINER_DIR/g.0.progress" 2>/dev/null)" = 5 ] &&
    [ "$(grep -c step "$TRAINER_DIR/g.1.progress" 2>/dev/null)" = 5 ] &&
    ok gang-both-pods-ran || not_ok gang-both-pods-ran "progress: $(cat "$TRAINER_DIR"/g.*.progress 2>&1)"
grep -q "gpus=0,1,2,3 node=n1 nodes=n\[1-2\] pods=2" "$TRAINER_DIR/g.0.env" &&
    grep -q "node=n2" "$TRAINER_DIR/g.1.env" && ok gang-env ||
    not_ok gang-env "$(cat "$TRAINER_DIR"/g.*.env 2>&1)"

# 2. priority 5 preempts priority 1 (one session): with a set that has
# no suspend (null turns the process set's off), the low job's first
# run is killed before its end, it is requeued and runs again, to the end
# (t0670 has the suspending set)
live_spec "$TMP/nosusp.yaml" 0.2 "suspend: ~" "resume: ~"
serve_start "$TMP/nosusp.yaml"
run "$CELLAR" -c "submit low --vc a --gpus 4 --pods 2 --priority 1 -- $trainer 40 0.05; wait low --state running --timeout 30s; submit high --vc a --gpus 4 --priority 5 -- $trainer 3 0.05; wait high --timeout 60s; wait low --timeout 60s; events --run last -o csv --no-header; job log low"
check_rc preempt-rc 0
check_out_has preempt-high-done "high completed"
check_out_has preempt-low-done "low completed"
check_out_has preempt-event "preempt,low,a,high"
check_out_has preempt-requeue "requeue,low"
runs=$(grep -c '^step 1$' "$TRAINER_DIR/low.0.progress" 2>/dev/null)
ends=$(grep -c '^step 40$' "$TRAINER_DIR/low.0.progress" 2>/dev/null)
[ "$runs" = 2 ] && [ "$ends" = 1 ] && ok preempt-first-run-stopped ||
    not_ok preempt-first-run-stopped "runs $runs, ends $ends"

# 3. a start hook that hangs: killed at the timeout, retried once, then
# the job fails with an event that says so
live_spec "$TMP/hang.yaml" 0.2 "start: sleep 100" "timeout: 0.3" "retries: 1" "backoff: 0.1"
serve_start "$TMP/hang.yaml"
run "$CELLAR" -c "submit h --vc a --gpus 4 -- true; wait h --timeout 30s; events --run last -o csv --no-header; job log h"
check_rc hang-rc 0
check_out_has hang-failed "h failed"
check_out_has hang-event "start hook on 'n1' timed out after 0.3 s (2 tries)"
if pgrep -f "sleep 100" >/dev/null 2>&1 && ! pgrep -f "sleep 100" | xargs -r ps -o ppid= -p | grep -qv '^ *1$'; then
	not_ok hang-killed "a 'sleep 100' survives"
else ok hang-killed; fi

# 4. names and environment entries that could reach a shell are refused
serve_start "$TMP/two.yaml"
run "$CELLAR" -c "submit 'a;touch $TMP/pwned' --vc a -- true"
check_rc bad-name-rc 1
check_err_has bad-name-msg "bad job name 'a;touch"
run "$CELLAR" -c "submit '\$(touch $TMP/pwned)' --vc a -- true"
check_rc bad-name2-rc 1
run "$CELLAR" -c "submit ok1 --vc a --env 'A;B=1' -- true"
check_rc bad-env-rc 1
check_err_has bad-env-msg "bad environment entry 'A;B=1'"
run "$CELLAR" -c "submit ok2 --vc a --env CELLAR_JOB=x -- true"
check_rc reserved-env-rc 1
[ ! -e "$TMP/pwned" ] && ok nothing-ran || not_ok nothing-ran "$TMP/pwned exists"

# 5. a command with metacharacters reaches the job as words, unexpanded
run "$CELLAR" -c "submit w --vc a --env 'MSG=it'\''s \$HOME' -- sh -c 'printf \"%s|%s\\n\" \"\$1\" \"\$MSG\" >$TMP/words' x 'a b;\$(id)'; wait w --timeout 30s"
check_rc words-rc 0
[ "$(cat "$TMP/words" 2>/dev/null)" = "a b;\$(id)|it's \$HOME" ] && ok words-verbatim ||
    not_ok words-verbatim "got '$(cat "$TMP/words" 2>&1)'"

# 6. queue: the job holding cells first, then the queued ones in the
# priority policy's order (higher first, then arrival), numbered
run "$CELLAR" -c "submit big --vc a --gpus 4 --pods 2 -- $trainer 40 0.05; wait big --state running --timeout 30s; submit q1 --vc a --gpus 4 --priority 0 -- true; submit q2 --vc a --gpus 4 --priority 0 -- true; submit q3 --vc a --gpus 4 --priority 0 -- true; queue -o csv --no-header; queue --vc a -o json; cancel big; wait --timeout 60s"
check_rc queue-rc 0
me=$(id -un)
want="a,-,big,1,$me,R,running,0,8,2,n[1-2],-
a,1,q1,2,$me,PD,queued,0,4,1,-,VCFull
a,2,q2,3,$me,PD,queued,0,4,1,-,Priority
a,3,q3,4,$me,PD,queued,0,4,1,-,Priority"
got=$(printf '%s\n' "$OUT" | grep '^a,')
[ "$got" = "$want" ] && ok queue-order || not_ok queue-order "got [$got]"
line=$(printf '%s\n' "$OUT" | grep -n '"kind":"queue"' | cut -d: -f1)
check_json_field queue-json-pos jobs.1.pos 1 "$line"
check_json_field queue-json-first-null jobs.0.pos null "$line"
check_json_field queue-json-job jobs.3.job q3 "$line"
check_json_field queue-json-id jobs.3.id 4 "$line"
# a higher priority goes to the head of the queue (big's 10 keeps it
# from being preempted)
run "$CELLAR" -c "submit big --vc a --gpus 4 --pods 2 --priority 10 -- $trainer 40 0.05; wait big --state running --timeout 30s; submit p1 --vc a --gpus 4 --priority 1 -- true; submit p9 --vc a --gpus 4 --priority 9 -- true; submit p5 --vc a --gpus 4 --priority 5 -- true; queue -o csv --no-header; cancel big; wait --timeout 60s"
check_rc queue-prio-rc 0
got=$(printf '%s\n' "$OUT" | grep '^a,' | cut -d, -f2,3 | tr '\n' ' ')
[ "$got" = "-,big 1,p9 2,p5 3,p1 " ] && ok queue-priority-order ||
    not_ok queue-priority-order "got [$got]"

# 7. a status hook whose shell complains first (a login profile, ssh's
# own warnings share the output): the answer line still counts, the job
# runs to its end instead of looking gone
printf '%s\n' "echo 'rm: cannot remove x: No such file or directory' >&2" \
    "exec $(pwd)/specs/hooks/process/status" >"$TMP/noisy-status"
live_spec "$TMP/noisy.yaml" 0.1 "status: sh $TMP/noisy-status"
serve_start "$TMP/noisy.yaml"
run "$CELLAR" -c "submit noisy --vc a --gpus 4 -- $trainer 10 0.05; wait noisy --timeout 60s"
check_rc noisy-status-rc 0
check_out_has noisy-status-completed "noisy completed"

done_testing
