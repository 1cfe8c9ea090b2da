#!/bin/sh
# t0696-serve-flood — clients that pipeline requests and never read their
# replies cost the server a bounded share (serve.h invariant 3): 40 such
# clients flood `queue -o json` (tests/helpers/sockpeer flood) while a
# well-behaved client's round trips are timed (sockpeer rtt) against its
# own idle baseline in the same run (a ratio, no wall-clock limit); the
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

# 40 queued jobs: each reply is a few kB of JSON
serve_start "$TMP/two.yaml"
i=0 cmds=
while [ "$i" -lt 40 ]; do
	cmds="$cmds -c 'submit j$i --vc a --gpus 4 -- sleep 600'"
	i=$((i + 1))
done
eval "\"\$CELLAR\" $cmds" >/dev/null
"$PEER" "$CELLAR_DB.sock" rtt 10 "queue -o json" >/dev/null	# warm
set -- $("$PEER" "$CELLAR_DB.sock" rtt 200 "queue -o json")
b50=$2 b90=$3
rss0=$(rss "$SERVE_PID" VmRSS)
flood_start 40
# while they fill their buffers (printed, not judged: the well-behaved
# client has 1/41 of the server then), and once the server reads none
set -- $("$PEER" "$CELLAR_DB.sock" rtt 200 "queue -o json")
f50=$2 f90=$3 fmax=$4
flood_wait flooding
grep -q '^flooding 40' "$TMP/flood.out" && ok flood-blocked ||
    not_ok flood-blocked "$(cat "$TMP/flood.out")"
set -- $("$PEER" "$CELLAR_DB.sock" rtt 200 "queue -o json")
l50=$2 l90=$3
rss1=$(rss "$SERVE_PID" VmRSS) hwm=$(rss "$SERVE_PID" VmHWM)
flood_stop
# under the default budget nobody is dropped: they are only not read
grep -q '^dropped 0$' "$TMP/flood.out" && ok none-dropped ||
    not_ok none-dropped "$(cat "$TMP/flood.out") $(grep -v 'submit\|request' "$SERVE_LOG" | tail -3)"
echo "# idle: rtt p50 ${b50} us p90 ${b90} us, RSS ${rss0} kB; 40 flooders filling: p50 ${f50} p90 ${f90} max ${fmax} us; blocked: p50 ${l50} us p90 ${l90} us, RSS ${rss1} kB, peak ${hwm} kB"
# the well-behaved client: within 10x (p50) and 20x (p90) of its idle self
if [ -n "$l50" ] && [ "$l50" -le $((b50 * 10)) ] && [ "$l90" -le $((b90 * 20)) ]; then
	ok latency-bounded
else
	not_ok latency-bounded "idle p50 $b50 p90 $b90 us, flooded p50 $l50 p90 $l90 us"
fi
# 40 x (256 kB unsent + a reply + 80 kB input) is ~20 MB: 128 MB is room
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
