#!/bin/sh
# t0691-serve-flood — clients that pipeline requests and never read their
# replies cost the server a bounded share (serve.h invariant 3): 40 such
# clients flood `queue -o json` (tests/helpers/sockpeer flood) while a
# well-behaved client's round trips are timed (sockpeer rtt) against an
# idle control server's, in alternating batches of the same run (a ratio,
# no wall-clock limit, the same load on both); the
# server's resident memory (VmRSS, VmHWM) stays under a bound, and a
# server given a small budget (CELLAR_SERVE_BUDGET) drops the biggest
# offenders with a line in its log while the well-behaved client is
# answered. Before the per-client and global caps, 20 such clients took
# the server to 1.2 GB and everyone's latency to seconds.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
PEER=$(dirname "$CELLAR")/tests/helpers/sockpeer
live_spec "$TMP/two.yaml" 1

rss() { awk "/^$2:/{print \$2}" "/proc/$1/status"; }
# flood_start N: N flooders, returns once they are connected
flood_start() {
	rm -f "$TMP/hold"
	mkfifo "$TMP/hold"
	"$PEER" "$CELLAR_DB.sock" flood "$1" "queue -o json" <"$TMP/hold" >"$TMP/flood.out" 2>&1 &
	FLOOD=$!
	exec 7>"$TMP/hold"
	flood_wait connected
}
# flood_wait WORD: until the flooders say WORD (flooding: none of them
# could send for a second, the server reads none of them)
flood_wait() {
	i=0
	while [ "$i" -lt 1200 ] && ! grep -q "^$1" "$TMP/flood.out"; do
		sleep 0.05
		i=$((i + 1))
	done
}
flood_stop() { exec 7>&-; wait "$FLOOD"; }

# two servers with the same 40 queued jobs (each reply a few kB of
# JSON): the flooded one, and an idle control beside it, so that both
# are timed under whatever else loads the machine at that moment
jobs40() {
	i=0 cmds=
	while [ "$i" -lt 40 ]; do
		cmds="$cmds -c 'submit j$i --vc a --gpus 4 -- sleep 600'"
		i=$((i + 1))
	done
	eval "\"\$CELLAR\" $cmds" >/dev/null
}
serve_start "$TMP/two.yaml"
jobs40
CTL=$TMP/control.db
CELLAR_DB=$CTL "$CELLAR" serve --spec "$TMP/two.yaml" >"$TMP/control.log" 2>&1 </dev/null &
CTL_PID=$!
i=0
while [ "$i" -lt 400 ] && ! grep -q 'cellar serve: pid' "$TMP/control.log"; do sleep 0.05; i=$((i + 1)); done
CELLAR_DB=$CTL jobs40
"$PEER" "$CELLAR_DB.sock" rtt 10 "queue -o json" >/dev/null	# warm
"$PEER" "$CTL.sock" rtt 10 "queue -o json" >/dev/null
# alternate: 5 batches of 40 round trips each, control then flooded; the
# median over batches of each batch's p50 and p90
timed() {
	: >"$TMP/t.ctl"
	: >"$TMP/t.fl"
	for b in 1 2 3 4 5; do
		"$PEER" "$CTL.sock" rtt 40 "queue -o json" >>"$TMP/t.ctl"
		"$PEER" "$CELLAR_DB.sock" rtt 40 "queue -o json" >>"$TMP/t.fl"
	done
	c50=$(awk '{print $2}' "$TMP/t.ctl" | sort -n | sed -n 3p)
	c90=$(awk '{print $3}' "$TMP/t.ctl" | sort -n | sed -n 3p)
	f50=$(awk '{print $2}' "$TMP/t.fl" | sort -n | sed -n 3p)
	f90=$(awk '{print $3}' "$TMP/t.fl" | sort -n | sed -n 3p)
	fmax=$(awk '{print $4}' "$TMP/t.fl" | sort -n | tail -1)
}
timed
echo "# both idle: p50 ${f50} us (control ${c50}), p90 ${f90} us (control ${c90})"
rss0=$(rss "$SERVE_PID" VmRSS)
flood_start 40
# while they fill their buffers: printed, not judged (the well-behaved
# client has a 41st of the server then)
timed
echo "# 40 flooders filling: p50 ${f50} us (control ${c50}), p90 ${f90} us (control ${c90}), max ${fmax} us"
flood_wait flooding
grep -q '^flooding 40' "$TMP/flood.out" && ok flood-blocked ||
    not_ok flood-blocked "$(cat "$TMP/flood.out")"
timed
rss1=$(rss "$SERVE_PID" VmRSS) hwm=$(rss "$SERVE_PID" VmHWM)
flood_stop
kill "$CTL_PID"
wait "$CTL_PID"
# under the default budget nobody is dropped: they are only not read
grep -q '^dropped 0$' "$TMP/flood.out" && ok none-dropped ||
    not_ok none-dropped "$(cat "$TMP/flood.out") $(grep -v 'submit\|request' "$SERVE_LOG" | tail -3)"
echo "# 40 flooders blocked: p50 ${f50} us (control ${c50}), p90 ${f90} us (control ${c90}); RSS idle ${rss0} kB, flooded ${rss1} kB, peak ${hwm} kB"
# the well-behaved client: within 5x (p50) and 10x (p90) of the control
if [ -n "$f50" ] && [ -n "$c50" ] && [ "$f50" -le $((c50 * 5)) ] &&
    [ "$f90" -le $((c90 * 10)) ]; then
	ok latency-bounded
else
	not_ok latency-bounded "control p50 $c50 p90 $c90 us, flooded p50 $f50 p90 $f90 us"
fi
# 40 x (128 kB unsent + a reply + 80 kB input) is ~10 MB: 128 MB is room
if [ -n "$hwm" ] && [ "$hwm" -lt 131072 ]; then ok rss-bounded
else not_ok rss-bounded "VmHWM ${hwm} kB (idle ${rss0} kB)"; fi
kill -0 "$SERVE_PID" 2>/dev/null && ok alive || not_ok alive "the server died"

# a budget of 2 MB for all: the biggest offenders go, one a second, said
# in the log; the others and the well-behaved client are still served
CELLAR_SERVE_BUDGET=2000000
export CELLAR_SERVE_BUDGET
serve_again
unset CELLAR_SERVE_BUDGET
flood_start 40
i=0
while [ "$i" -lt 600 ] && ! grep -q 'dropped a client of user' "$SERVE_LOG"; do
	sleep 0.05
	i=$((i + 1))
done
grep -q "cellar serve: dropped a client of user $(id -un): [0-9]* bytes of replies unread while the server's buffers held [0-9]* bytes for [0-9]* s (budget 2000000)" "$SERVE_LOG" &&
    ok budget-drop-logged || not_ok budget-drop-logged "$(tail -3 "$SERVE_LOG")"
run "$CELLAR" -o csv --no-header queue
check_rc budget-still-serves 0
flood_stop
n=$(sed -n 's/^dropped //p' "$TMP/flood.out")
[ "${n:-0}" -ge 1 ] && ok budget-dropped-seen || not_ok budget-dropped-seen "$(cat "$TMP/flood.out")"

done_testing
