#!/bin/sh
# t0640-live-restart — the cellar server (cellar serve: the one process
# that runs hooks for the store) killed with SIGKILL while real jobs run:
# the next server on the same store recovers the session's run from the
# store, asks every pod (status) about the jobs the store says are
# starting or running, and takes them over: the jobs that were running
# are still running, each started once and counted once; a queued job is
# still queued and runs after them; nothing is lost. A client waiting on
# the killed server is told it went away.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
live_spec "$TMP/two.yaml" 0.1
# a and b fill both nodes; q waits for them. A client waits for
# everything; the server is killed once a and b are training.
serve_start "$TMP/two.yaml"
"$CELLAR" -c "submit a --vc a --gpus 4 -- $trainer 40 0.05; submit b --vc a --gpus 4 -- $trainer 40 0.05; submit q --vc a --gpus 4 -- $trainer 2 0.05; wait --timeout 120s" >"$TMP/out1" 2>&1 &
pid=$!
# the client's wait is in when q's submit is answered and the client is
# blocked in poll(2) for the next reply (where /proc has no wchan, the
# answer alone is the sign)
waiting() {
	grep -q "^submitted job 'q' " "$TMP/out1" || return 1
	w=$(cat "/proc/$pid/wchan" 2>/dev/null)
	case $w in *poll*|''|0) return 0 ;; esac
	return 1
}
i=0
while { [ ! -s "$TRAINER_DIR/a.0.progress" ] || [ ! -s "$TRAINER_DIR/b.0.progress" ] ||
    ! waiting; } && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
serve_kill
[ -s "$TRAINER_DIR/a.0.progress" ] && [ -s "$TRAINER_DIR/b.0.progress" ] &&
    ok killed-while-training || not_ok killed-while-training "$(cat "$TMP/out1" "$SERVE_LOG")"
# the waiting client outlives the server: its wait ends, unanswered
wait "$pid"
rc=$?
[ "$rc" = 5 ] && grep -q "cellar server closed the connection before it answered" "$TMP/out1" &&
    ok client-told || not_ok client-told "exit $rc: $(cat "$TMP/out1")"
ends=$(grep -c '^step 40$' "$TRAINER_DIR/a.0.progress" "$TRAINER_DIR/b.0.progress" |
    grep -c ':1$')
[ "$ends" -lt 2 ] && ok killed-mid-run || not_ok killed-mid-run "both had finished"

# the next server (no --spec: the store's running run comes back), and a
# client of it
serve_again
run "$CELLAR" -c "wait --timeout 120s; events -o csv --no-header; jobs --run last -o csv --no-header; job log a; job log b; db check"
check_rc restart-rc 0
check_out_has a-completed "a completed"
check_out_has b-completed "b completed"
check_out_has q-completed "q completed"
# killed after a's and b's start was decided: their start hooks may or
# may not have been answered, so the store says starting or running
n=$(printf '%s\n' "$OUT" | grep -c 'cellar: taken over after a restart (\(starting\|running\))')
[ "$n" = 2 ] && ok taken-over || not_ok taken-over "$n of a, b taken over"
for j in a b q; do
	n=$(printf '%s\n' "$OUT" | grep -c ",start,$j,")
	[ "$n" = 1 ] && ok "$j-started-once" || not_ok "$j-started-once" "$n start events"
	n=$(printf '%s\n' "$OUT" | grep -c ",submit,$j,")
	[ "$n" = 1 ] && ok "$j-submitted-once" || not_ok "$j-submitted-once" "$n submit events"
done
# each trainer ran once, to its end: not started twice, not lost
for j in a b; do
	runs=$(grep -c '^step 1$' "$TRAINER_DIR/$j.0.progress" 2>/dev/null)
	ends=$(grep -c '^step 40$' "$TRAINER_DIR/$j.0.progress" 2>/dev/null)
	[ "$runs" = 1 ] && [ "$ends" = 1 ] && ok "$j-ran-once" ||
	    not_ok "$j-ran-once" "runs $runs, ends $ends"
done
n=$(printf '%s\n' "$OUT" | grep -c '^[abq],')
[ "$n" = 3 ] && ok counted-once || not_ok counted-once "$n job rows"

done_testing
