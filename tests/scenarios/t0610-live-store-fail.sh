#!/bin/sh
# t0610-live-store-fail — write-ahead in the live loop (console.h invariant
# 4): every write step of a live session fails in turn (the
# CELLAR_STORE_FAIL=N test hook), and after each run no job has run that
# the store does not say was started. A failure after a scheduler pass
# acted on the engine halts the loop: the next wait is refused instead of
# starting the job the store lacks. The store stays consistent (db check).
. tests/scenarios/lib.sh
unset CELLAR_DB
. tests/scenarios/lib-live.sh
live_spec "$TMP/two.yaml" 0.1
# a runs; b waits for a's cells and starts in the pass after a completes
script="submit a --vc a --gpus 4 --pods 2 -- $trainer 1 0.01; submit b --vc a --gpus 4 --pods 2 -- $trainer 1 0.01; wait b --timeout 30s; wait b --timeout 5s"

fresh() { rm -rf "$TMP/db" "$TMP/run" "$TRAINER_DIR"; mkdir -p "$TRAINER_DIR"; }

# How many write steps a whole run takes.
fresh
CELLAR_STORE_KILL=1000000 "$CELLAR" -k --db "$TMP/db" --spec "$TMP/two.yaml" \
    -c "$script" >"$TMP/out" 2>"$TMP/err"
steps=$(sed -n 's/.*: \([0-9]*\) write steps.*/\1/p' "$TMP/err")
if [ -n "$steps" ] && grep -q "b completed" "$TMP/out"; then ok calibrate
else not_ok calibrate "no step count or b did not complete: $(cat "$TMP/out" "$TMP/err")"
	done_testing; fi

n=1 bad= pass_hit=0
while [ "$n" -le "$steps" ]; do
	fresh
	CELLAR_STORE_FAIL=$n "$CELLAR" -k --db "$TMP/db" --spec "$TMP/two.yaml" \
	    -c "$script" >"$TMP/o1" 2>"$TMP/e1"
	rc=$?
	run "$CELLAR" --db "$TMP/db" events -o csv --no-header
	ev=$OUT
	case $rc in
	4) grep -q "CELLAR_STORE_FAIL=$n" "$TMP/e1" ||
	       bad="$bad [$n: exit 4 without the injected failure: $(cat "$TMP/e1")]" ;;
	0) # the step was a ROLLBACK and no write came after it
	   [ "$(grep -c 'b completed' "$TMP/o1")" = 2 ] ||
	       bad="$bad [$n: exit 0 but b did not complete: $(cat "$TMP/o1")]" ;;
	*) bad="$bad [$n: exit $rc]" ;;
	esac
	for j in a b; do
		if ! printf '%s\n' "$ev" | grep -q ",start,$j,"; then
			[ -e "$TRAINER_DIR/$j.0.progress" ] &&
			    bad="$bad [$n: $j ran, the store has no start]"
		fi
	done
	# the failure hit the pass that started b: halted, b never ran
	if printf '%s\n' "$ev" | grep -q ",complete,a," &&
	    ! printf '%s\n' "$ev" | grep -q ",start,b,"; then
		pass_hit=$((pass_hit + 1))
		grep -q "live session is halted" "$TMP/e1" ||
		    bad="$bad [$n: the second wait was not refused: $(cat "$TMP/e1")]"
	fi
	run "$CELLAR" --db "$TMP/db" db check
	[ "$RC" -eq 0 ] || bad="$bad [$n: db check: $OUT $ERR]"
	n=$((n + 1))
done
if [ -z "$bad" ]; then ok "every-step-$steps"
else not_ok "every-step-$steps" "$bad"; fi
[ "$pass_hit" -gt 0 ] && ok "pass-failures-$pass_hit" ||
    not_ok pass-failures "no injected failure hit the pass that starts b"

done_testing
