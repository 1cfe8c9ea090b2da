#!/bin/sh
# t0432-replay-two-writers.sh — one recorded replay run has one writer
# (issue 23, F4 and F9). A process writing a run holds a lease on it
# (STORE.runs.lock); the same replay started beside it is refused with
# the holder's pid instead of resuming the run a second time; a kill -9
# leaves no stale lease (the run resumes); two replays started at once
# leave one run with the uninterrupted run's events; a finished replay
# run again says "already done" (exit 0) instead of recording a second
# run; and `db check` finds a run that two writers wrote anyway (its lock
# file removed under them): jobs with two submits and histories that go
# back in time. No sleeps: each step waits on what the store says, and
# the first writer is held still with SIGSTOP where timing would matter.
. tests/scenarios/lib.sh
unset CELLAR_DB

args="replay synth:8000 --policy las --checkpoint-every 2000"

# The reference: the same replay, uninterrupted, on a store of its own.
run "$CELLAR" --db "$TMP/ref.db" $args
check_rc ref 0
ref_events=$("$CELLAR" --db "$TMP/ref.db" events --run 1 -o csv | wc -l)
ref_jobs=$("$CELLAR" --db "$TMP/ref.db" events --run 1 --kind submit -o csv | wc -l)

# run_state DB: the state of run 1 ("" while there is none)
run_state() {
	"$CELLAR" --db "$1" runs -o csv 2>/dev/null | awk -F, 'NR == 2 { print $7 }'
}

# stop_unlocked DB PID: stop PID outside a write transaction (0), or let
# it go on (1): stopped inside one, it would hold the store's write lock
# and the second writer would time out instead of writing (seen under load).
SQLEXEC=$(dirname "$CELLAR")/tests/helpers/sqlexec
stop_unlocked() {
	kill -STOP "$2"
	"$SQLEXEC" "$1" "BEGIN IMMEDIATE; ROLLBACK" >/dev/null 2>&1 && return 0
	kill -CONT "$2"
	return 1
}

# wait_running_stop DB PID: until run 1 has a checkpoint (its clock
# moved) while PID still runs; then stop PID (stop_unlocked). 0: stopped
# mid-run; 1: PID ended first.
wait_running_stop() {
	i=0
	while [ $i -lt 6000 ]; do
		kill -0 "$2" 2>/dev/null || return 1
		now=$("$CELLAR" --db "$1" runs -o csv 2>/dev/null | awk -F, 'NR == 2 { print $8 }')
		case $now in
		''|0|0.000) ;;
		*)	if stop_unlocked "$1" "$2"; then
				[ "$(run_state "$1")" = running ] && return 0
				kill -CONT "$2"
				return 1
			fi ;;
		esac
		i=$((i + 1))
	done
	return 1
}

# counts DB: "EVENTS SUBMITS" of run 1
counts() {
	echo "$("$CELLAR" --db "$1" events --run 1 -o csv | wc -l)" \
	    "$("$CELLAR" --db "$1" events --run 1 --kind submit -o csv | wc -l)"
}

# 1. A run being written is not resumed by a second process: it is
# refused with the writer's pid and writes nothing.
db=$TMP/lease.db
"$CELLAR" --db "$db" $args >"$TMP/a.out" 2>"$TMP/a.err" &
a=$!
if wait_running_stop "$db" $a; then
	run "$CELLAR" --db "$db" $args
	check_rc busy-refused 1
	check_err_has busy-names-holder "is being written by another cellar process (pid $a)"
	check_out busy-prints-nothing ""
	# 2. kill -9: the kernel drops the lease, the run resumes and ends
	# with the events of an uninterrupted run.
	kill -KILL $a
	wait $a 2>/dev/null
	run "$CELLAR" --db "$db" $args
	check_rc kill9-resumes 0
	check_err_has kill9-resume-note "resuming run 1"
	set -- $(counts "$db")
	[ "$1" = "$ref_events" ] && [ "$2" = "$ref_jobs" ] && ok kill9-events ||
	    not_ok kill9-events "$1 events, $2 submits; want $ref_events, $ref_jobs"
else
	wait $a
	not_ok busy-refused "the first replay ended before it could be held mid-run"
fi

# 3. The same replay once more: already done, no second run.
run "$CELLAR" --db "$db" $args
check_rc done-rc 0
check_err_has done-note "replay already done: run 1 in '$db'"
check_out done-no-report-twice ""
n=$("$CELLAR" --db "$db" runs -o csv | tail -n +2 | wc -l)
[ "$n" -eq 1 ] && ok done-one-run || not_ok done-one-run "$n runs in the store"
run "$CELLAR" --db "$db" $args --fresh
check_rc fresh-records-another 0
check_err_has fresh-run-2 "recorded as run 2"

# 4. Stress: two replays of the same run started at once, three times.
# Whoever comes second is refused (exit 1) or finds the run done (0);
# either way the store holds one run with exactly the reference's events.
for round in 1 2 3; do
	db=$TMP/race$round.db
	"$CELLAR" --db "$db" $args >/dev/null 2>"$TMP/r1.err" &
	p1=$!
	"$CELLAR" --db "$db" $args >/dev/null 2>"$TMP/r2.err" &
	p2=$!
	wait $p1; rc1=$?
	wait $p2; rc2=$?
	bad=
	case "$rc1 $rc2" in
	"0 0"|"0 1"|"1 0") ;;
	*) bad="exit statuses $rc1 $rc2: $(cat "$TMP/r1.err" "$TMP/r2.err")" ;;
	esac
	[ "$rc1" -eq 1 ] && ! grep -q "being written by another cellar process (pid $p2)" "$TMP/r1.err" &&
	    bad="$bad; refused without the holder: $(cat "$TMP/r1.err")"
	[ "$rc2" -eq 1 ] && ! grep -q "being written by another cellar process (pid $p1)" "$TMP/r2.err" &&
	    bad="$bad; refused without the holder: $(cat "$TMP/r2.err")"
	run "$CELLAR" --db "$db" db check
	[ "$RC" -ne 0 ] && bad="$bad; db check: $OUT $ERR"
	set -- $(counts "$db")
	[ "$1" = "$ref_events" ] && [ "$2" = "$ref_jobs" ] ||
	    bad="$bad; $1 events, $2 submits, want $ref_events, $ref_jobs"
	n=$("$CELLAR" --db "$db" runs -o csv | tail -n +2 | wc -l)
	[ "$n" -eq 1 ] || bad="$bad; $n runs"
	[ -z "$bad" ] && ok "race-$round" || not_ok "race-$round" "$bad"
done

# 5. db check finds a run two writers wrote anyway, its lock file
# removed under the first while it is held still: (a) mid-run, the second
# resumes from the first's checkpoint and writes the run to its end, then
# the first writes its own rest: histories that go back in time; (b)
# before its first checkpoint (one checkpoint per run), the second starts
# over: every job submitted twice.
forced() {   # forced NAME WAIT-FN CHECKPOINT-EVERY WANT-TEXT
	db=$TMP/forced-$1.db
	"$CELLAR" --db "$db" $args --checkpoint-every $3 >/dev/null 2>"$TMP/a.err" &
	a=$!
	if $2 "$db" $a; then
		rm -f "$db.runs.lock"
		run "$CELLAR" --db "$db" $args --checkpoint-every $3
		check_rc "forced-$1-second-writer" 0
		kill -CONT $a
		wait $a
		run "$CELLAR" --db "$db" db check
		check_rc "check-$1" 1
		check_out_has "check-$1-says" "$4"
	else
		wait $a
		not_ok "forced-$1-second-writer" "the first replay ended before it could be held"
	fi
}

# wait_created_stop DB PID: until run 1 exists, then stop PID (0), or 1
# if it ended first.
wait_created_stop() {
	i=0
	while [ $i -lt 6000 ]; do
		kill -0 "$2" 2>/dev/null || return 1
		if [ "$(run_state "$1")" = running ] && stop_unlocked "$1" "$2"; then
			[ "$(run_state "$1")" = running ] && return 0
			kill -CONT "$2"
			return 1
		fi
		i=$((i + 1))
	done
	return 1
}
forced overlap wait_running_stop 2000 "has overlapping histories"
forced submits wait_created_stop 1000000 "has 2 submit events"

done_testing
