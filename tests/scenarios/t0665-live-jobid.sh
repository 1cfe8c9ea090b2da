#!/bin/sh
# t0665-live-jobid — a live job's id, and a name used again. submit says
# the id; queue, jobs, job show, history, job log, cancel and wait take
# %ID. A name whose job has ended names a new job (a new id) while the old
# one keeps its record and events; one whose job has not ended is refused.
# The process hooks key a pod's files by the id, so a reused name never
# reads the older job's pid file (a stale pid once made start say
# "already running" and a later stop signal whatever group had that id).
# A newline in a `sh -c` script or an --env value goes through the
# client's socket line to the job intact ($'...' quoting), also from a
# batch file; job log escapes a hook's control bytes (JSON keeps them).
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
cat >"$TMP/noisy-start" <<EOF
#!/bin/sh
printf 'clear\033[2Jnul\000end\n'
exec $(pwd)/specs/hooks/process/start
EOF
chmod +x "$TMP/noisy-start"
live_spec "$TMP/two.yaml" 0.1
serve_start "$TMP/two.yaml"

# 1. ids: submit says it, a finished job's name names a new job
run "$CELLAR" submit a --vc a --gpus 4 -- true
check_out submit-id "submitted job 'a' (id 0)"
run "$CELLAR" wait a --timeout 60s
check_rc first-done-rc 0
# the first a's pod directory, as its start hook made it
first=$(cd "$TMP/run" && ls -d n*/a.* 2>/dev/null | head -n 1)
[ -n "$first" ] && [ -z "$(ls "$TMP"/run/n*/a.*/exit 2>/dev/null | sed 1d)" ] &&
    ok first-dir || not_ok first-dir "[$first] $(ls -R "$TMP/run")"
# A stale pid: another process group that came to hold the pid the old
# pod recorded (its exit file gone, as when a stop killed it first),
# planted where a job of that name on either node would look
setsid sleep 300 </dev/null >/dev/null 2>&1 &
sleeper=$!
i=0
while [ "$(ps -o pgid= -p "$sleeper" 2>/dev/null | tr -d ' ')" != "$sleeper" ] &&
    [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
for n in n1 n2; do
	d=$TMP/run/$n/${first#*/}
	mkdir -p "$d" && rm -f "$d/exit" && echo "$sleeper" >"$d/pid"
done
run "$CELLAR" submit a --vc a --gpus 4 -- "$trainer" 200 0.05
check_out reuse-new-id "submitted job 'a' (id 1)"
run "$CELLAR" wait %1 --state running --timeout 30s
check_rc reuse-running-rc 0
run "$CELLAR" job log a
check_out_lacks reuse-not-stale "already running"
check_out_has reuse-started "started pod 0 on"
# a name whose job has not ended is refused
run "$CELLAR" submit a --vc a --gpus 1 -- true
check_rc running-name-rc 1
check_err_has running-name "job 'a' already exists"
run "$CELLAR" queue -o json
check_json_field queue-id jobs.0.id 1
check_json_field queue-name jobs.0.job a
run "$CELLAR" jobs -o csv --no-header
check_out jobs-id-live "$(printf '%s\n' "$OUT" | grep '^a,1,')"
[ -n "$OUT" ] && ok jobs-has-row || not_ok jobs-has-row "empty"
run "$CELLAR" cancel %1
check_out cancel-by-id "cancelled a"
run "$CELLAR" wait a --timeout 60s
check_rc cancel-done-rc 0
kill -0 "$sleeper" 2>/dev/null && ok stale-pid-untouched ||
    not_ok stale-pid-untouched "the stop of the new 'a' killed an unrelated group"
kill "$sleeper" 2>/dev/null

# 2. both jobs keep their records and events
run "$CELLAR" jobs --all -o csv --no-header
got=$(printf '%s\n' "$OUT" | cut -d, -f1,2,4 | tr '\n' ' ')
[ "$got" = "a,0,CD a,1,CA " ] && ok both-kept || not_ok both-kept "$got"
run "$CELLAR" history a -o csv --no-header
got=$(printf '%s\n' "$OUT" | cut -d, -f3 | tr '\n' ' ')
[ "$got" = "submit start cancel " ] && ok history-newest || not_ok history-newest "$got"
check_err_has history-older "older jobs of the name: %0"
run "$CELLAR" history %0 -o csv --no-header
got=$(printf '%s\n' "$OUT" | cut -d, -f3 | tr '\n' ' ')
[ "$got" = "submit start complete " ] && ok history-by-id || not_ok history-by-id "$got"
run "$CELLAR" job show %0 -o json
check_json_field show-id job.id 0
check_json_field show-state job.state completed
run "$CELLAR" job log %0
check_out_has log-by-id "cellar: completed"
run "$CELLAR" job log %7
check_rc log-no-id-rc 1
check_err_has log-no-id "no job '%7'"
# a name of digits is a name, never an id
run "$CELLAR" submit 0 --vc a --gpus 1 -- true
check_out digits-name "submitted job '0' (id 2)"
run "$CELLAR" wait 0 --timeout 60s -o json
check_json_field digits-wait jobs.0.id 2

# 3. newlines through the client's one-line request, and from a file
nl='
'
run "$CELLAR" submit nl --vc a --gpus 1 --env "X=a${nl}b" -- \
    sh -c "echo one${nl}echo two >\"\$TRAINER_DIR/nl.out\"; printf %s \"\$X\" >\"\$TRAINER_DIR/nl.env\""
check_rc nl-submit-rc 0
run "$CELLAR" wait nl --timeout 60s
check_out nl-done "nl completed"
[ "$(cat "$TRAINER_DIR/nl.out" 2>&1)" = two ] && ok nl-script ||
    not_ok nl-script "[$(cat "$TRAINER_DIR/nl.out" 2>&1)]"
[ "$(cat "$TRAINER_DIR/nl.env" 2>&1)" = "a${nl}b" ] && ok nl-env ||
    not_ok nl-env "[$(cat "$TRAINER_DIR/nl.env" 2>&1)]"
cat >"$TMP/batch" <<EOF
submit nf --vc a --gpus 1 --env 'Y=c
d' -- sh -c 'echo three >"\$TRAINER_DIR/nf.out"
echo four >>"\$TRAINER_DIR/nf.out"; printf %s "\$Y" >"\$TRAINER_DIR/nf.env"'
wait nf --timeout 60s
EOF
run "$CELLAR" -f "$TMP/batch"
check_rc nl-batch-rc 0
[ "$(cat "$TRAINER_DIR/nf.out" 2>&1 | tr '\n' ' ')" = "three four " ] && ok nl-batch-script ||
    not_ok nl-batch-script "[$(cat "$TRAINER_DIR/nf.out" 2>&1)] $ERR"
[ "$(cat "$TRAINER_DIR/nf.env" 2>&1)" = "c${nl}d" ] && ok nl-batch-env ||
    not_ok nl-batch-env "[$(cat "$TRAINER_DIR/nf.env" 2>&1)]"

# 4. job log: a hook's control bytes escaped in text, exact in JSON
live_spec "$TMP/noisy.yaml" 0.1 "start: $TMP/noisy-start"
serve_start "$TMP/noisy.yaml"
run "$CELLAR" -c "submit z --vc a --gpus 1 -- true; wait z --timeout 60s"
check_rc noisy-rc 0
"$CELLAR" job log z >"$TMP/zlog" 2>&1
grep -q 'clear\\x1b\[2Jnul\\x00end' "$TMP/zlog" && ok log-escaped ||
    not_ok log-escaped "$(od -c "$TMP/zlog" | head -5)"
[ "$(tr -d '\033\000' <"$TMP/zlog" | wc -c)" = "$(wc -c <"$TMP/zlog")" ] &&
    ok log-no-control || not_ok log-no-control "$(od -c "$TMP/zlog" | head -5)"
run "$CELLAR" job log z -o json
check_out_has log-json-exact 'clear\u001b[2Jnul\u0000end\n'
done_testing
