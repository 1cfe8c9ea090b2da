#!/bin/sh
# t0660-live-log — job logs live in the state store (job_logs): what a
# job's hooks printed before the cellar server (cellar serve, the one
# process that runs hooks for the store) was killed with SIGKILL is in
# `job log` after the restart (a new server on the same store), a job that
# finished is still readable through a later server, and the stored log
# keeps the newest 64 KiB only. The commands are the servers' clients.
. tests/scenarios/lib.sh
SQLEXEC=$(dirname "$CELLAR")/tests/helpers/sqlexec
[ -x "$SQLEXEC" ] || not_ok helper "'$SQLEXEC' is missing (make variant-tests builds it)"
. tests/scenarios/lib-live.sh
live_spec "$TMP/two.yaml" 0.1
serve_start "$TMP/two.yaml"
"$CELLAR" -c "submit a --vc a --gpus 4 -- $trainer 30 0.05" >"$TMP/out1" 2>&1
# the server killed once the start hook's answer is in the store (nobody
# reads the log back from the first server: this is the store's copy)
i=0
while ! "$SQLEXEC" "$CELLAR_DB" "SELECT text FROM job_logs" 2>/dev/null |
    grep -q 'started pod 0 on n' && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
serve_kill
pidline=$("$SQLEXEC" "$CELLAR_DB" "SELECT text FROM job_logs" | grep 'started pod 0 on n')
[ -n "$pidline" ] && ok stored-before-kill || not_ok stored-before-kill "$(cat "$TMP/out1" "$SERVE_LOG")"

# the next server takes a over: its log goes on from the stored one
serve_again
run "$CELLAR" -c "job log a"
check_rc restart-rc 0
check_out_has restart-has-start "$pidline"
check_out_has restart-has-submit "cellar: submitted to VC 'a', 1 x 4 GPUs"
check_out_has restart-taken-over "cellar: taken over after a restart"
run "$CELLAR" -c "wait --timeout 120s; job log a -o json"
check_rc wait-rc 0
check_out_has json-kind '"kind":"job-log"'
check_out_has json-completed 'cellar: completed'
# a third server: a is done, so no console holds it; the store does (a
# job log needs a server, as every live command)
serve_again
run "$CELLAR" -c "job log a"
check_rc done-rc 0
check_out_has done-has-start "$pidline"
check_out_has done-completed "cellar: completed"
check_out_has done-taken-over "cellar: taken over after a restart"
run "$CELLAR" -c "job log nosuch"
check_rc missing-rc 1
check_err_has missing "no job 'nosuch' in this session"

# the cap: eight pods whose start hooks print 15,000 bytes each (120,000
# in all) keep the newest 64 KiB, the end of the log included
live_spec "$TMP/loud.yaml" 0.1 "start: 'head -c 15000 /dev/zero | tr \"\\\\0\" x; echo; exec $(pwd)/specs/hooks/process/start'"
serve_start "$TMP/loud.yaml"
run "$CELLAR" -c "submit big --vc a --gpus 1 --pods 8 -- $trainer 2 0.05; wait --timeout 120s"
check_rc loud-rc 0
# read back through a new server: the store's copy
serve_again
run "$CELLAR" -c "job log big"
check_rc loud-log-rc 0
len=$(printf '%s\n' "$OUT" | wc -c)
xs=$(printf '%s\n' "$OUT" | grep -c '^x\{15000\}$')
[ "$len" -le 65537 ] && [ "$len" -gt 32768 ] && ok loud-capped ||
    not_ok loud-capped "$len bytes"
[ "$xs" -ge 2 ] && [ "$xs" -lt 8 ] && ok loud-newest || not_ok loud-newest "$xs full lines of x"
check_out_has loud-end "cellar: completed"
stored=$("$SQLEXEC" "$CELLAR_DB" "SELECT max(length(text)) FROM job_logs")
[ "$stored" -le 65536 ] && ok loud-stored-capped || not_ok loud-stored-capped "$stored"

done_testing
