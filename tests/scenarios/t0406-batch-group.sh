#!/bin/sh
# t0406-batch-group — group commit in batch mode (cmd/group.h): the
# commands of `cellar -f FILE` share commits, and what a command printed
# is in the store. The same commands run as one-shot commands print the
# same. Then every write step of the batch is failed in turn
# (CELLAR_STORE_FAIL=N) and killed at in turn (CELLAR_STORE_KILL=N):
# whatever the step, every job the output says started or was released is
# so in the store, a failure exits 4, a group whose commit failed says
# its commands were not recorded, and db check stays clean.
. tests/scenarios/lib.sh
unset CELLAR_DB

cat >"$TMP/batch" <<'EOF'
alloc a1 --vc prod --gpus 8
alloc a2 --vc prod --gpus 4
alloc a3 --vc dev --gpus 1
release a2
alloc a4 --vc prod --gang 2x8
vcs
alloc a5 --vc dev --gpus 2
release a1
alloc a6 --vc prod --gpus 1
EOF

# the same output as one command at a time (each its own commit)
"$CELLAR" --db "$TMP/g.db" -f "$TMP/batch" >"$TMP/g.out" 2>"$TMP/g.err"
rc=$?
: >"$TMP/o.out"
while read -r line; do
	# shellcheck disable=SC2086
	"$CELLAR" --db "$TMP/o.db" $line >>"$TMP/o.out" 2>>"$TMP/o.err"
done <"$TMP/batch"
if [ "$rc" = 0 ] && cmp -s "$TMP/g.out" "$TMP/o.out" && [ -s "$TMP/g.out" ]; then
	ok same-output
else
	not_ok same-output "rc $rc: $(diff "$TMP/g.out" "$TMP/o.out" | head -20) $(cat "$TMP/g.err")"
fi
run "$CELLAR" --db "$TMP/g.db" jobs -o csv --no-header
jobs_g=$OUT
run "$CELLAR" --db "$TMP/o.db" jobs -o csv --no-header
[ "$jobs_g" = "$OUT" ] && ok same-jobs || not_ok same-jobs "$jobs_g vs $OUT"

# the write steps of the batch
rm -f "$TMP"/s.db*
CELLAR_STORE_KILL=1000000 "$CELLAR" --db "$TMP/s.db" -f "$TMP/batch" >/dev/null 2>"$TMP/s.err"
steps=$(sed -n 's/.*: \([0-9]*\) write steps.*/\1/p' "$TMP/s.err" | tail -1)
[ -n "$steps" ] && [ "$steps" -gt 20 ] && ok steps || not_ok steps "$(cat "$TMP/s.err")"

# judge DB OUT: what the output says happened is in the store
judge() {
	db=$1 out=$2 at=$3
	evs=$("$CELLAR" --db "$db" events -o csv --no-header 2>/dev/null)
	for j in $(sed -n "s/^job '\([a-z0-9]*\)' started.*/\1/p" "$out"); do
		printf '%s\n' "$evs" | grep -q ",start,$j," ||
		    bad="$bad [$at: $j printed as started, not stored]"
	done
	if grep -q '^released 1 job' "$out"; then
		nrel=$(grep -c '^released 1 job' "$out")
		[ "$(printf '%s\n' "$evs" | grep -c ',release,')" -ge "$nrel" ] ||
		    bad="$bad [$at: $nrel releases printed, fewer stored]"
	fi
	"$CELLAR" --db "$db" db check >/dev/null 2>"$TMP/chk" ||
	    bad="$bad [$at: db check: $(cat "$TMP/chk")]"
}

n=1 bad= lost=0
while [ "$n" -le "$steps" ]; do
	rm -f "$TMP"/f.db*
	CELLAR_STORE_FAIL=$n "$CELLAR" --db "$TMP/f.db" -f "$TMP/batch" >"$TMP/f.out" 2>"$TMP/f.err"
	rc=$?
	if grep -q "CELLAR_STORE_FAIL=$n" "$TMP/f.err"; then
		[ "$rc" = 4 ] || bad="$bad [$n: failed with exit $rc]"
		grep -q "not recorded: the commands since the last commit are lost" "$TMP/f.err" &&
		    lost=$((lost + 1))
	fi
	[ -f "$TMP/f.db" ] && judge "$TMP/f.db" "$TMP/f.out" "fail $n"
	n=$((n + 1))
done
[ -z "$bad" ] && ok "fail-every-step-$steps" || not_ok "fail-every-step-$steps" "$bad"
[ "$lost" -gt 0 ] && ok "group-commit-failures-$lost" ||
    not_ok group-commit-failures "no injected failure hit a group's commit"

n=1 bad=
while [ "$n" -le "$steps" ]; do
	rm -f "$TMP"/k.db*
	CELLAR_STORE_KILL=$n "$CELLAR" --db "$TMP/k.db" -f "$TMP/batch" >"$TMP/k.out" 2>/dev/null
	[ -f "$TMP/k.db" ] && judge "$TMP/k.db" "$TMP/k.out" "kill $n"
	n=$((n + 1))
done
[ -z "$bad" ] && ok "kill-every-step-$steps" || not_ok "kill-every-step-$steps" "$bad"

done_testing
