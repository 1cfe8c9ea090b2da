#!/bin/sh
# t0502-dash-demo.sh — the demo `make run` shows (issue 21): deterministic,
# so frames at fixed emulated times pin it. The cluster stays busy (60 to
# 90%-odd of 128 GPUs, some moments full), opportunistic jobs run on idle
# GPUs and are preempted, a node fails and comes back, queued jobs show
# why they wait, and the demo ends with a summary and 'r' to play again.
. tests/scenarios/lib.sh

# utilization (JSON's util, 0..1) in [lo, hi] percent at emulated time t
util_in() {	# NAME T LO HI
	run "$CELLAR" -o json dash --once --at "$2"
	u=$(json_get util | awk '{ printf "%d", $1 * 100 + 0.5 }')
	if [ -n "$u" ] && [ "$u" -ge "$3" ] && [ "$u" -le "$4" ]; then
		ok "$1"
	else
		not_ok "$1" "utilization at $2 is [$u]%, not $3 to $4%"
	fi
}
util_in util-30m 30m 60 100
util_in util-2h 2h 60 100
util_in util-12h 12h 60 100
util_in util-20h 20h 60 100
util_in util-30h 30h 60 100
util_in util-38h 38h 60 100
# ... not pinned to one moment: the hours in between, on average
sum=0
for h in 3 6 9 15 18 24 27 33 36; do
	run "$CELLAR" -o json dash --once --at ${h}h
	sum=$(json_get util | awk -v s="$sum" '{ printf "%d", s + $1 * 100 }')
done
avg=$((sum / 9))
[ "$avg" -ge 60 ] && [ "$avg" -le 95 ] && ok util-average ||
    not_ok util-average "average utilization $avg%"

# opportunistic jobs hold idle GPUs of other VCs ...
run "$CELLAR" dash --once --at 30m --size 120x40 --panel queues --keys '/class=opportunistic<Enter>'
check_out_has opp-running " R "
check_out_lacks opp-any "(no rows match the filter)"
# ... and are preempted when the owners come back
run "$CELLAR" dash --once --at 1h --size 120x40 --panel events --keys '/kind=preempt<Enter>'
check_out_has preempt-event "preempted by open-4"
# a node fails, its job is requeued, the node comes back
run "$CELLAR" dash --once --at 3h --size 120x40 --panel events --keys '/node-|fail|NodeFail<Enter>'
check_out_has node-bad "node-bad              r0n05"
check_out_has node-fail " fail "
check_out_has node-ok "node-ok               r0n05"
run "$CELLAR" dash --once --at 61m --size 120x40 --panel queues --keys '/state=PD<Enter>'
check_out_has reason-nodefail "NodeFail"
# queues show real pending reasons
run "$CELLAR" dash --once --at 8h --size 120x40 --panel queues --keys '/state=PD<Enter>'
check_out_has reason-shown " PD "
printf '%s\n' "$OUT" | grep ' PD ' | grep -qE 'VcFull|Resources|Priority|Fragmented|NodeFail|BadNodes|Gang' &&
    ok reason-named || not_ok reason-named "no pending job with a reason: $OUT"

# the same time, the same frame
run "$CELLAR" dash --once --at 20h --size 120x40 --panel queues
first=$OUT
run "$CELLAR" dash --once --at 20h --size 120x40 --panel queues
[ "$OUT" = "$first" ] && ok deterministic || not_ok deterministic "frames differ"

# the end: a summary, and 'r' plays it again from the start
run "$CELLAR" dash --once --at 39h --size 100x30
check_out_has end-summary "The demo is over: 1d15h played."
check_out_has end-jobs " jobs arrived: "
check_out_has end-util "GPUs busy "
check_out_has end-failures " preemptions, 2 node failures"
check_out_has end-keys "r: play it again   q: quit   Esc: look around"
run "$CELLAR" dash --once --at 60h --size 100x30
check_out_has end-stops "t=1d15h"
run "$CELLAR" dash --once --at 39h --size 100x30 --keys '<Esc>'
check_out_lacks end-esc "The demo is over"
run "$CELLAR" dash --once --at 39h --size 100x30 --keys r
check_out_has restart-clock " t=0s "
check_out_has restart-msg "playing again from the start"
check_out_lacks restart-no-summary "The demo is over"
again=$(printf '%s\n' "$OUT" | sed '$d')
run "$CELLAR" dash --once --size 100x30
[ "$(printf '%s\n' "$OUT" | sed '$d')" = "$again" ] && ok restart-fresh ||
    not_ok restart-fresh "the restarted demo differs from a new one"
# a replay of another trace has no demo end, and 'r' restarts it too
run "$CELLAR" dash --once --trace specs/demo-opening.csv --at 3d --size 100x30
check_out_has trace-end "The workload is over"

done_testing
