#!/bin/sh
# t0435-replay-store-fail.sh — a recorded replay whose store write fails
# (CELLAR_STORE_FAIL=N: the N-th write step fails as a full disk would
# make it). Checkpoints are written by a thread of their own, so the
# replay learns of a failure at its next checkpoint (or at the final one,
# or when the run is finished); wherever the failure lands — creating
# the run, any checkpoint, its COMMIT, the final one, the report — the
# replay stops with status 4 and the store's own message once, `db check`
# finds the store sound, and a rerun resumes from the last committed
# checkpoint to the very report an unrecorded run prints.
. tests/scenarios/lib.sh
unset CELLAR_DB

set -- synth:300 --policy las --fault r0n01@2h-6h --checkpoint-every 16
run "$CELLAR" replay "$@" -o json
check_rc plain 0
cp "$TMP/out" "$TMP/plain.json"
CELLAR_STORE_KILL=1000000000 run "$CELLAR" --db "$TMP/count.db" replay "$@" -o json
check_rc counted 0
steps=$(sed -n 's/.*: \([0-9]*\) write steps.*/\1/p' "$TMP/err")
if [ -z "$steps" ] || [ "$steps" -lt 100 ]; then
	not_ok steps "the store hook counted '${steps}' write steps"
	exit $FAILED
fi

# Fail points: the first steps, twelve spread over the run, the last ones.
points="1 2 3 $(awk -v s="$steps" 'BEGIN { for (i = 1; i <= 12; i++) print int(s * i / 13) }') $((steps - 2)) $((steps - 1)) $steps"
bad= n=0
for at in $points; do
	db=$TMP/f$at.db
	CELLAR_STORE_FAIL=$at run "$CELLAR" --db "$db" replay "$@" -o json
	msg="write failed (CELLAR_STORE_FAIL=$at) (the replay stopped; its last checkpoint is kept)"
	# the first steps make the store itself: none is left, and the
	# replay never started
	[ -f "$db" ] || msg="state store '$db': write failed (CELLAR_STORE_FAIL=$at)"
	if [ "$RC" -ne 4 ]; then
		bad="$bad; step $at: exit $RC ($(head -c 300 "$TMP/err"))"
		continue
	fi
	if [ "$(grep -c -F "$msg" "$TMP/err")" -ne 1 ]; then
		bad="$bad; step $at: stderr $(head -c 300 "$TMP/err")"
		continue
	fi
	if [ -f "$db" ]; then
		run "$CELLAR" --db "$db" db check
		if [ "$RC" -ne 0 ]; then
			bad="$bad; step $at: db check $OUT $ERR"
			continue
		fi
	fi
	run "$CELLAR" --db "$db" replay "$@" -o json
	if [ "$RC" -ne 0 ] || ! cmp -s "$TMP/out" "$TMP/plain.json"; then
		bad="$bad; step $at: the rerun exits $RC or reports otherwise"
		continue
	fi
	n=$((n + 1))
done
[ -z "$bad" ] && ok "fail-anywhere" || not_ok "fail-anywhere" "$bad"
[ "$n" -eq 18 ] && ok "fail-points" || not_ok "fail-points" "$n of 18 points passed"
exit $FAILED
