#!/bin/sh
# t0430-replay-crash.sh — a replay recorded in a file store is killed with
# SIGKILL at random points and restarted on the same database until it
# finishes. The kills come from the store's test hook (CELLAR_STORE_KILL=N:
# SIGKILL at the N-th write step of the process), so they land inside
# checkpoint transactions, on their COMMIT, while the run is created, and
# in the final one; the step numbers are drawn from a fixed seed, so a
# failure reproduces. After every kill `db check` must find one row per job,
# no GPU held by two jobs and sound event chains. The run that finishes
# must print the very report an uninterrupted run prints, and the store
# must hold the very jobs, events and series an uninterrupted run stores.
# make check kills a few dozen times; make check-long (CELLAR_LONG) 60+
# times for each of three configurations; a small trace with priorities
# and weights, and one with classes, a few times in both.
. tests/scenarios/lib.sh
unset CELLAR_DB

# crash_case NAME KILLS SEED REPLAY-ARGS...
crash_case() {
	name=$1 kills_wanted=$2 seed=$3
	shift 3
	ref=$TMP/$name-ref.db db=$TMP/$name.db

	# The reference: uninterrupted, without and with a store.
	run "$CELLAR" replay "$@" -o json
	check_rc "$name-plain" 0
	cp "$TMP/out" "$TMP/$name-plain.json"
	CELLAR_STORE_KILL=1000000000 run "$CELLAR" --db "$ref" replay "$@" -o json
	check_rc "$name-stored" 0
	cmp -s "$TMP/out" "$TMP/$name-plain.json" && ok "$name-stored-report" ||
	    not_ok "$name-stored-report" "the report differs with a store"
	steps=$(sed -n 's/.*: \([0-9]*\) write steps.*/\1/p' "$TMP/err")
	if [ -z "$steps" ] || [ "$steps" -lt $((kills_wanted * 4)) ]; then
		not_ok "$name-steps" "the store hook counted '${steps}' write steps"
		return
	fi

	# Kill points: uniform in [1, 2 * steps / kills_wanted], so a process
	# gets about half as far as an even split and more than kills_wanted
	# kills are expected.
	awk -v s="$seed" -v n=$((kills_wanted * 20)) \
	    -v max=$((2 * steps / kills_wanted)) \
	    'BEGIN { srand(s); for (i = 0; i < n; i++) print int(rand() * max) + 1 }' \
	    >"$TMP/points"
	kills=0 bad=
	while read -r at; do
		CELLAR_STORE_KILL=$at run "$CELLAR" --db "$db" replay "$@" -o json
		[ "$RC" -eq 0 ] && break
		if [ "$RC" -ne 137 ]; then
			bad="exit $RC at step $at: $(cat "$TMP/err")"
			break
		fi
		kills=$((kills + 1))
		run "$CELLAR" --db "$db" db check
		if [ "$RC" -ne 0 ]; then
			bad="db check after kill $kills (step $at): $OUT $ERR"
			break
		fi
	done <"$TMP/points"
	if [ -n "$bad" ]; then
		not_ok "$name-kills" "$bad"
		return
	fi
	[ "$RC" -eq 0 ] && ok "$name-finished" ||
	    not_ok "$name-finished" "still not done after $kills kills"
	[ "$kills" -ge "$kills_wanted" ] && ok "$name-killed" ||
	    not_ok "$name-killed" "$kills kills, wanted $kills_wanted"
	cmp -s "$TMP/out" "$TMP/$name-plain.json" && ok "$name-report" ||
	    not_ok "$name-report" "the report after $kills kills differs: $(diff "$TMP/$name-plain.json" "$TMP/out" | head -5)"

	# The store holds what an uninterrupted run stores (without the wall
	# times: runs' created and updated columns, run show's lines).
	for what in runs jobs events run-show; do
		for d in "$ref" "$db"; do
			case $what in
			runs)	"$CELLAR" --db "$d" runs -o csv --sort run ;;
			jobs)	"$CELLAR" --db "$d" jobs --run 1 -o csv ;;
			events)	"$CELLAR" --db "$d" events --run 1 --limit 1000000000 -o csv ;;
			run-show) "$CELLAR" --db "$d" run show 1 ;;
			esac >"$TMP/$what-$(basename "$d")" 2>&1 || echo "exit $?" >>"$TMP/$what-$(basename "$d")"
		done
		a=$TMP/$what-$(basename "$ref") b=$TMP/$what-$(basename "$db")
		for f in "$a" "$b"; do
			if [ $what = runs ]; then
				cut -d, -f1-9,11,12,14 "$f"
			else
				grep -v -e '^created ' -e '^updated ' "$f"
			fi >"$f.x"
		done
		if grep -q '^exit ' "$a" "$b"; then
			not_ok "$name-same-$what" "$(cat "$a" "$b" | tail -3)"
		elif [ "$(wc -l <"$a.x")" -lt 2 ]; then
			not_ok "$name-same-$what" "nothing to compare: $(cat "$a")"
		elif cmp -s "$a.x" "$b.x"; then
			ok "$name-same-$what"
		else
			not_ok "$name-same-$what" "$(diff "$a.x" "$b.x" | head -6)"
		fi
	done
	echo "# $name: $kills kills, $(wc -l <"$TMP/events-$(basename "$db")") events"
	run "$CELLAR" --db "$db" db check
	check_rc "$name-db-check" 0
}

if [ -n "$CELLAR_LONG" ]; then
	crash_case las 60 11 synth:1000 --policy las --fault r0n01@2h-6h \
	    --checkpoint-every 16
	crash_case gittins-auto 60 12 synth:800 --policy gittins --class auto \
	    --fault r0n02@1h-20h --checkpoint-every 8
	crash_case gandiva 60 14 synth:400 --load 8 --policy gandiva \
	    --checkpoint-every 16
	crash_case philly 60 13 tests/fixtures/traces/philly-sample.csv \
	    --spec specs/philly.yaml --vc-map '*=-' --policy fifo --sharing quota \
	    --checkpoint-every 64
else
	crash_case las 25 11 synth:300 --policy las --fault r0n01@2h-6h \
	    --checkpoint-every 16
	crash_case srtf-auto 10 12 synth:200 --policy srtf --class auto \
	    --checkpoint-every 4
	# time-sliced and packed guests hold no cells of their own
	crash_case gandiva 10 14 synth:150 --load 8 --policy gandiva \
	    --checkpoint-every 16
fi
# packed guests without time-slicing (--no-slice), and evicted ones
# (unpacks), resume as they were
crash_case gandiva-noslice 10 14 synth:200 --load 8 --policy gandiva --no-slice \
    --checkpoint-every 16
# promotions (their reset lives in the job blob) survive a resume
crash_case las-promote 8 23 synth:200 --load 8 --policy las --promote 1 \
    --thresholds 600 --checkpoint-every 8
# a trace's priorities and weights survive a resume
ONE=tests/fixtures/specs/one-node.yaml
crash_case gandiva-priority 6 19 tests/fixtures/traces/itp-gandiva-priority.csv \
    --spec "$ONE" --policy gandiva --checkpoint-every 2
# a trace's own classes survive a resume (the job rows keep each job's);
# the others keep --class
crash_case antman-class 6 21 tests/fixtures/traces/itp-antman-class.csv \
    --spec "$ONE" --policy antman --class opportunistic --checkpoint-every 2
exit $FAILED
