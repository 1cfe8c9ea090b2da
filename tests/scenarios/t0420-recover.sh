#!/bin/sh
# t0420-recover.sh — a session recorded in a file store comes back after
# kill -9: the next process rebuilds the engine from the stored placements
# (same GPUs, same bad node), goes on in the same run, and db check agrees.
. tests/scenarios/lib.sh
CELLAR_DB=$TMP/s.db
export CELLAR_DB

# A batch session fed through a fifo, killed with SIGKILL while it waits.
mkfifo "$TMP/in"
"$CELLAR" -f - <"$TMP/in" >"$TMP/out" 2>&1 &
pid=$!
exec 3>"$TMP/in"
printf '%s\n' 'alloc a --vc research --gpus 8' 'alloc b --vc prod --gpus 4' \
    'alloc o --vc dev --gpus 2 --opportunistic' 'node bad r0n03' 'status' >&3
i=0
while ! grep -q '^store' "$TMP/out" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
exec 3>&-

run "$CELLAR" jobs -o name
check_out recovered-jobs "a
b
o"
run "$CELLAR" jobs --filter job=a -o csv --no-header
check_out_has recovered-where "r0n00"
run "$CELLAR" status
check_out_has recovered-bad "bad            8 GPUs"
check_out_has recovered-run "(session run 1)"
run "$CELLAR" db check
check_rc db-check 0
# the recovered engine refuses what the stored state forbids
run "$CELLAR" alloc a --vc research --gpus 1
check_rc name-taken 1
check_err_has name-taken-msg "job 'a' already exists"
# 7 healthy nodes of research's rack are free only once a is released
run "$CELLAR" alloc c --vc research --gpus 8 --pods 7
check_rc research-full 1
# and goes on in the same run
run "$CELLAR" -c 'release a' -c 'alloc c --vc research --gpus 8 --pods 7'
check_rc reuse 0
run "$CELLAR" runs -o name
check_out one-run "1"
run "$CELLAR" history a --run 1 -o csv --no-header
[ "$(printf '%s\n' "$OUT" | cut -d, -f3 | tr '\n' ' ')" = "submit start release " ] &&
    ok history-a || not_ok history-a "$OUT"
exit $FAILED
