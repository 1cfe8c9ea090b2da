#!/bin/sh
# t0503-dash-overview.sh — the first screen shows the whole cluster at
# once (issue 21 item 2): a meter per VC (and one for the cluster) above
# the cell tree or node map, the newest events below, in any terminal
# from 80x24 to 250x70, every row used; the full panels stay tabs.
. tests/scenarios/lib.sh

for size in 80x24 120x40 250x70; do
	w=${size%x*} h=${size#*x}
	run "$CELLAR" dash --once --at 6h --size "$size"
	check_rc "rc-$size" 0
	# every VC of the default spec by name, with its guarantee
	for vc in "A research" "B prod" "C dev" "D infer"; do
		check_out_has "vc-$size-${vc#? }" "$vc"
	done
	for g in /64 /32 /12 /10 /128; do
		printf '%s\n' "$OUT" | sed -n '3,6p' | grep -q "[0-9]$g" &&
		    ok "meter-$size$(echo $g | tr / -)" ||
		    not_ok "meter-$size$(echo $g | tr / -)" "no meter of $g GPUs: $OUT"
	done
	check_out_has "tree-$size" "- r0                    V100-RACK"
	check_out_has "tail-$size" " TIME     KIND       VC         WHAT"
	check_out_has "tabs-$size" " 1 Overview   2 VCs   3 Queues   4 Events   5 Detail"
	lines=$(printf '%s\n' "$OUT" | wc -l)
	[ "$lines" -eq "$h" ] && ok "height-$size" || not_ok "height-$size" "$lines lines"
	wide=$(printf '%s\n' "$OUT" | awk -v w="$w" 'length($0) > w' | wc -l)
	[ "$wide" -eq 0 ] && ok "width-$size" || not_ok "width-$size" "$wide lines wider"
	# the whole terminal: the event tail reaches the key hints
	row=$(printf '%s\n' "$OUT" | sed -n "$((h - 1))p")
	[ -n "$row" ] && ok "filled-$size" || not_ok "filled-$size" "row $((h - 1)) is empty"
done

# the meters say what they hold: used/guaranteed, opportunistic elsewhere
run "$CELLAR" dash --once --at 30m --size 120x40
out=$(printf '%s\n' "$OUT" | sed -n '3,4p')
case $out in
*"opp"*) ok meter-opp ;;
*) not_ok meter-opp "no opportunistic figure in [$out]" ;;
esac
# a bad node shows in its VC's meter and the cluster's
run "$CELLAR" dash --once --at 61m --size 120x40
printf '%s\n' "$OUT" | sed -n '3,4p' | grep -q 'A research .*8 bad' &&
    ok meter-bad || not_ok meter-bad "$OUT"

# the node map takes the tree's place; Enter still needs the tree
run "$CELLAR" dash --once --at 6h --size 80x24 --map
check_out_has map-in-overview "node map: letter = VC"
check_out_has map-meters "A research"
check_out_has map-tail " TIME     KIND"

# the full panels are still tabs, without the meters
run "$CELLAR" dash --once --at 6h --size 120x40 --keys 4
check_out_has events-full " TIME     KIND       VC         WHAT"
check_out_lacks events-no-meters "  cluster  ["
# an old --panel cells (and a saved "panel cells") is the overview
run "$CELLAR" dash --once --size 120x40 --panel cells
check_out_has panel-cells-alias "  cluster  ["

# Enter on a cell lists the jobs on it (it showed only counts), as
# `cells NODE` does; a rack lists those of all its nodes
run "$CELLAR" dash --once --at 2h --size 100x30 --keys 'j<Enter>'
check_out_has cell-detail " cell r0n00 (V100-NODE, level 4)"
check_out_has cell-jobs-count " 8 jobs on it:"
printf '%s\n' "$OUT" | grep -Eq '^   open-[0-9]+ +vc research +1 of its 1 GPUs here +guaranteed' &&
    ok cell-job-row || not_ok cell-job-row "$OUT"
run "$CELLAR" dash --once --at 2h --size 100x40 --keys '<Enter>'
check_out_has rack-detail " cell r0 (V100-RACK"
check_out_has rack-jobs " jobs on it:"
run "$CELLAR" dash --once --size 100x30 --keys 'j<Enter>'
check_out_has cell-no-job "no job on it"

done_testing
