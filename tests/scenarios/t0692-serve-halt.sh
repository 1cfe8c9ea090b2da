#!/bin/sh
# t0692-serve-halt — a server halted by a store that cannot be written
# (a full disk; here CELLAR_STORE_FAIL_FILE: every write fails while the
# file exists, and removing it is freeing the space). While halted it
# does not spin (its CPU time over a stretch of wall time, from
# /proc/PID/stat, is a small fraction) and logs the failure once, not at
# every round; reads (queue, jobs) are answered, changes refused saying
# why; once the store takes writes again it resumes by itself (the live
# jobs taken over from the store, as after a restart) and runs jobs
# again; SIGTERM stops it about as fast as an idle server, halted or not.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
live_spec "$TMP/two.yaml" 0.1
FULL=$TMP/full

# cpu PID: its user+system time in clock ticks
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# stop_ms: SIGTERM the server, wait (bounded) until it has exited; the
# milliseconds that took in $STOP_MS (9999 if it did not exit in 10 s)
stop_ms() {
	t0=$(now_ms)
	kill "$SERVE_PID"
	i=0
	while [ "$i" -lt 1000 ]; do
		st=$(awk '{print $3}' "/proc/$SERVE_PID/stat" 2>/dev/null)
		[ -z "$st" ] || [ "$st" = Z ] && break
		sleep 0.01
		i=$((i + 1))
	done
	STOP_MS=$(($(now_ms) - t0))
	[ "$i" -lt 1000 ] || STOP_MS=9999
	wait "$SERVE_PID" 2>/dev/null
	SERVE_PID=
}
# wait_log TEXT: until the server's log has TEXT (bounded)
wait_log() {
	i=0
	while [ "$i" -lt 600 ]; do
		grep -q "$1" "$SERVE_LOG" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}
# halt_now: the store fails from now on; a job that ends makes the
# loop write, and the write halts it
halt_now() {
	"$CELLAR" submit "$1" --vc a --gpus 4 -- "$trainer" 5 0.1 >/dev/null
	: >"$FULL"
	wait_log "cellar serve: halted: .*CELLAR_STORE_FAIL_FILE"
}

# the idle case first: how long a SIGTERM takes here, now
serve_start "$TMP/two.yaml"
stop_ms
idle_ms=$STOP_MS

SERVE_ENV="CELLAR_STORE_FAIL_FILE=$FULL"
serve_again
"$CELLAR" submit long --vc a --gpus 4 -- "$trainer" 600 0.1 >/dev/null
if halt_now short1; then ok halted
else not_ok halted "$(tail -5 "$SERVE_LOG")"; fi

# no busy loop, no log storm: 3 s of wall time while halted
lines0=$(wc -l <"$SERVE_LOG") c0=$(cpu "$SERVE_PID") t0=$(now_ms)
while [ $(($(now_ms) - t0)) -lt 3000 ]; do sleep 0.2; done
c1=$(cpu "$SERVE_PID") t1=$(now_ms) lines1=$(wc -l <"$SERVE_LOG")
ticks=$(getconf CLK_TCK)
# CPU ms = ticks * 1000 / CLK_TCK; a spinning server is ~1000 ms per s
cpu_ms=$(( (c1 - c0) * 1000 / ticks )) wall_ms=$((t1 - t0))
echo "# halted: ${cpu_ms} ms of CPU in ${wall_ms} ms, $((lines1 - lines0)) log lines"
[ $((cpu_ms * 20)) -lt "$wall_ms" ] && ok halted-idle-cpu ||
    not_ok halted-idle-cpu "${cpu_ms} ms of CPU in ${wall_ms} ms"
[ $((lines1 - lines0)) -le 1 ] && ok halted-log-once ||
    not_ok halted-log-once "$(tail -5 "$SERVE_LOG")"
[ "$(grep -c 'cellar serve: halted: ' "$SERVE_LOG")" = 1 ] && ok halted-said-once ||
    not_ok halted-said-once "$(grep halted "$SERVE_LOG")"

# reads go on; changes are refused, saying why
run "$CELLAR" -o csv --no-header queue
check_rc halted-queue-rc 0
check_out_has halted-queue "long,"
run "$CELLAR" -o csv --no-header jobs
check_rc halted-jobs-rc 0
check_out_has halted-jobs "long,"
run "$CELLAR" submit refused --vc a --gpus 4 -- true
check_rc halted-submit-rc 4
check_err_has halted-submit-msg "the live session is halted after a store failure"
check_err_has halted-submit-resumes "resumes by itself once it takes writes"

# the space comes back: it resumes by itself, and runs jobs again
rm -f "$FULL"
if wait_log "cellar serve: resumed: the store takes writes again"; then ok resumed
else not_ok resumed "$(tail -5 "$SERVE_LOG")"; fi
run "$CELLAR" submit after --vc a --gpus 4 -- "$trainer" 1 0.01
check_rc resumed-submit 0
run "$CELLAR" wait after --timeout 60s
check_out resumed-job-ran "after completed"
run "$CELLAR" -o csv --no-header queue
check_out_has resumed-long-kept "long,"
run "$CELLAR" db check
check_rc resumed-db-check 0

# SIGTERM while halted: about as fast as idle (within 10x + 1 s: never
# a retry timer's 1..10 s)
halt_now short2 || not_ok halted-again "$(tail -3 "$SERVE_LOG")"
stop_ms
echo "# SIGTERM: idle ${idle_ms} ms, halted ${STOP_MS} ms"
[ "$STOP_MS" -le $((idle_ms * 10 + 1000)) ] && ok halted-sigterm ||
    not_ok halted-sigterm "idle ${idle_ms} ms, halted ${STOP_MS} ms"
rm -f "$FULL"
pkill_trainers() { for f in "$TRAINER_DIR"/*.pid; do kill "$(cat "$f")" 2>/dev/null; done; }
pkill_trainers

done_testing
