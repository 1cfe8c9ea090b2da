#!/bin/sh
# t0305-promote — Tiresias' PROMOTEKNOB: a starving job goes back to the
# first queue with its service and wait reset (policy.h). A larger knob
# waits longer before promoting, so it must preempt less, and no knob may
# make jobs flip between queues (before the reset, 480 jobs saw 5,710
# preemptions at knob 1 and 113,797 at knob 16; without promotion ~300).
# The same for gittins. (t0430 kills a replay with promotions in flight.)
. tests/scenarios/lib.sh

N=480
for pol in las gittins; do
	prev=
	for k in 0 1 2 4 16; do
		run "$CELLAR" --spec specs/tiresias-n32g4.yaml replay synth:$N \
		    --load 8 --policy $pol --promote $k -o json
		check_rc "$pol-knob$k-rc" 0
		p=$(json_get groups.0.preemptions)
		done_=$(json_get groups.0.done)
		echo "# $pol knob $k: $p preemptions, $done_ of $N done"
		if [ "$done_" = "$N" ]; then ok "$pol-knob$k-all-done"
		else not_ok "$pol-knob$k-all-done" "$done_ of $N"; fi
		if [ "$k" = 0 ]; then off=$p; continue; fi
		# bounded: a few preemptions a job at most, never a flip-flop
		if [ "$p" -le $((3 * N)) ]; then ok "$pol-knob$k-bounded"
		else not_ok "$pol-knob$k-bounded" "$p preemptions for $N jobs"; fi
		# a larger knob preempts no more than a smaller one
		if [ -z "$prev" ] || [ "$p" -le "$prev" ]; then ok "$pol-knob$k-monotone"
		else not_ok "$pol-knob$k-monotone" "$p preemptions, $prev at the knob below"; fi
		prev=$p
	done
	# a knob as large as 16 is close to no promotion at all
	if [ "$prev" -le $((2 * off + 50)) ]; then ok "$pol-knob16-near-off"
	else not_ok "$pol-knob16-near-off" "$prev preemptions, $off without promotion"; fi
done

