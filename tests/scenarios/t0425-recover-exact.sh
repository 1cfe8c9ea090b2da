#!/bin/sh
# t0425-recover-exact.sh — after kill -9 the recovered engine is the
# engine that was, not just one with the same jobs: lazily preempted
# (downgraded) jobs, bad nodes inside bound cells (the bad marks, which
# depend on history), doomed cells, an opportunistic job, and the engine's
# history counters (binds, unbinds, splits, merges). The killed process
# prints status, cells, vcs and jobs as JSON just before it is killed; the
# next process, recovering from the store, must print the same documents.
. tests/scenarios/lib.sh
CELLAR_DB=$TMP/s.db
export CELLAR_DB

mkfifo "$TMP/in"
"$CELLAR" -f - <"$TMP/in" >"$TMP/out" 2>&1 &
pid=$!
exec 3>"$TMP/in"
printf '%s\n' 'alloc l1 --vc prod --gpus 8 --lazy' 'alloc l2 --vc prod --gpus 8 --lazy' \
    'alloc l3 --vc prod --gpus 8 --lazy' 'alloc l4 --vc prod --gpus 8 --lazy' \
    'alloc h --vc prod --gpus 8 --priority 10' 'alloc a --vc research --gpus 4' \
    'alloc b --vc research --gpus 2' 'node bad r0n00' 'release a' 'node bad r0n01' \
    'alloc o --vc dev --gpus 4 --opportunistic' 'node bad r1n04' 'node bad r1n05' \
    'node bad r1n06' 'alloc d --vc dev --gpus 2' 'release l2' \
    'status -o json' 'cells -o json' 'vcs -o json' 'jobs -o json' 'status' >&3
i=0
while ! grep -q '^store' "$TMP/out" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
exec 3>&-
grep '^{' "$TMP/out" >"$TMP/before"
[ "$(wc -l <"$TMP/before")" -eq 4 ] && ok before-dumped || not_ok before-dumped "$(cat "$TMP/out")"
grep -q '"downgraded":true\|"opportunistic"' "$TMP/before" && ok before-has-downgrade ||
    not_ok before-has-downgrade "no downgraded job in the scenario"
grep -q '"splits":[1-9]' "$TMP/before" && ok before-has-history ||
    not_ok before-has-history "$(head -1 "$TMP/before")"

run "$CELLAR" -c 'status -o json' -c 'cells -o json' -c 'vcs -o json' -c 'jobs -o json'
check_rc recovered-rc 0
check_err_empty recovered-quiet
printf '%s\n' "$OUT" >"$TMP/after"
if cmp -s "$TMP/before" "$TMP/after"; then
	ok recovered-same
else
	not_ok recovered-same "$(diff "$TMP/before" "$TMP/after" | tr "\n" "|" | cut -c1-3000)"
fi
run "$CELLAR" db check
check_rc db-check 0
# and both go on alike: the same next command from the recovered engine
run "$CELLAR" -c 'release l3' -c 'alloc n --vc prod --gpus 8' -c 'jobs -o csv --no-header'
check_rc goes-on 0
exit $FAILED
