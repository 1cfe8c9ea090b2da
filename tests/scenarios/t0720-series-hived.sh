#!/bin/sh
# t0720-series-hived — HiveD's measures in a replay (issue 20, item 1):
# its fragmentation (the share of nodes that cannot give a guaranteed job
# the whole node, OSDI'20 §5.2) beside the partially-free share, in the
# report and in --series; and in --series each VC's queuing delay
# (submission to first start) over a moving window of submissions, 12 h
# by default (--series-window), as HiveD's Fig. 5-6 plot it.
. tests/scenarios/lib.sh

# 2 nodes x 4 GPUs, one VC. A 1-GPU job from 00:00 for 20 h holds node A;
# at 00:30 three 4-GPU jobs of an hour: one starts at once on node B, the
# next when B frees (1 h later), the last 2 h later: delays 0, 3600, 7200.
cat >"$TMP/four.csv" <<'CSV'
timestamp,duration,num_gpus,gpu_time,cluster
2017-10-01 00:00:00,72000,1,72000,a
2017-10-01 00:30:00,3600,4,14400,a
2017-10-01 00:30:00,3600,4,14400,a
2017-10-01 00:30:00,3600,4,14400,a
CSV
SET="--spec specs/tiresias-n2g4.yaml --vc-map *=default --policy fifo --ideal"

# shellcheck disable=SC2086 # SET is a word list on purpose
run "$CELLAR" replay "$TMP/four.csv" $SET --series "$TMP/s.csv" -o json
check_rc rc 0
fa=$(json_get frag_avg)
fn=$(json_get frag_node_avg)
echo "# fragmentation: partially free $fa, HiveD's $fn"
# every partially free node is one that cannot give a whole node; node A
# is busy but partly free for all 20 h, node B full for 3 h
if awk -v a="$fa" -v n="$fn" 'BEGIN { exit !(n > a && a > 0.4 && n < 0.6) }'; then
	ok frag-node-above-partial
else not_ok frag-node-above-partial "partial [$fa], HiveD's [$fn]"; fi
check_out_has header-ok '"frag_node_avg"'
if [ "$(head -1 "$TMP/s.csv")" = \
    "time,pending,running,gpus_guaranteed,gpus_opportunistic,gpus_bad,frag,frag_node,queue_default" ]; then
	ok series-header
else not_ok series-header "$(head -1 "$TMP/s.csv")"; fi
# at 1 h: both nodes busy (HiveD's 1.0), node A partly free (0.5); the
# 12 h window holds all four jobs: (0 + 0 + 3600 + 7200) / 4 = 2700
if grep -qx '3600,2,2,5,0,0,0.5000,1.0000,2700' "$TMP/s.csv"; then ok series-1h
else not_ok series-1h "$(sed -n 2,4p "$TMP/s.csv")"; fi
# at 12 h the 00:00 job has left the window (mean 3600 of the others); at
# 13 h every job was submitted more than 12 h before: the cell is empty
if grep -qx '43200,0,1,1,0,0,0.5000,0.5000,3600' "$TMP/s.csv"; then ok series-12h
else not_ok series-12h "$(grep '^43200,' "$TMP/s.csv")"; fi
if grep -q '^46800,0,1,1,0,0,0.5000,0.5000,$' "$TMP/s.csv"; then ok series-window-moves
else not_ok series-window-moves "$(grep '^46800,' "$TMP/s.csv")"; fi

# a 1 h window: at 1 h the three 00:30 jobs (mean 3600); at 2 h none
# shellcheck disable=SC2086
run "$CELLAR" replay "$TMP/four.csv" $SET --series "$TMP/s1.csv" --series-window 1h
check_rc rc-1h 0
if grep -qx '3600,2,2,5,0,0,0.5000,1.0000,3600' "$TMP/s1.csv" &&
    grep -qx '7200,1,2,5,0,0,0.5000,1.0000,' "$TMP/s1.csv"; then ok series-window-option
else not_ok series-window-option "$(sed -n 2,4p "$TMP/s1.csv")"; fi
check_out_has text-legend "not wholly free for a guaranteed job (HiveD's"

# compare shows it wide
run "$CELLAR" compare "$TMP/four.csv" $SET -o wide
check_out_has compare-wide "NODEFRAG%"

# a recorded run keeps HiveD's fragmentation in its series (store
# version 10); a dump of version 9, whose series lack it, imports as 0
# shellcheck disable=SC2086
run "$CELLAR" --db "$TMP/x.db" replay "$TMP/four.csv" $SET -o json
check_json_field recorded-frag-node frag_node_avg "$fn"
run "$CELLAR" --db "$TMP/x.db" export "$TMP/d.json"
check_rc export-rc 0
if grep -q '^\[1,3600.0,2,2,5,0,0,0.5,1.0\],$' "$TMP/d.json"; then ok dump-has-frag-node
else not_ok dump-has-frag-node "$(grep -A2 '^"series"' "$TMP/d.json")"; fi
awk '/^"series":/ { s = 1; sub(/,"frag_node"\]/, "]") }
    s && /^\[.*\],$/ { sub(/,[0-9.]+\],$/, "],") }
    s && /^\[.*\]\]},$/ { sub(/,[0-9.]+\]\]},$/, "]]},") }
    /^"audit":/ { s = 0 }
    { sub(/"store_version":11,/, "\"store_version\":9,"); print }' \
    "$TMP/d.json" >"$TMP/d9.json"
if grep -q '"store_version":9,' "$TMP/d9.json" && grep -q '^\[1,3600.0,2,2,5,0,0,0.5\],$' "$TMP/d9.json"; then
	ok v9-dump-made
else not_ok v9-dump-made "$(grep -A2 '^"series"' "$TMP/d9.json")"; fi
run "$CELLAR" --db "$TMP/y.db" import "$TMP/d9.json"
check_rc import-v9-rc 0
run "$CELLAR" --db "$TMP/y.db" db check
check_rc import-v9-check 0

# A row per class in every replay report: all guaranteed by default (one
# row, every job); under --class auto at load 4 some jobs run as
# opportunistic, get preempted when their cells are taken back, and the
# two rows add up to all.
run "$CELLAR" replay synth:300 --policy fifo --load 4 -o json
check_json_field class-one-row groups.5.group "(guaranteed)"
check_json_field class-one-row-all groups.5.jobs "$(json_get groups.0.jobs)"
if printf '%s' "$OUT" | grep -q '"(opportunistic)"'; then
	not_ok class-no-empty-row "an (opportunistic) row without jobs"
else ok class-no-empty-row; fi
run "$CELLAR" replay synth:300 --policy fifo --load 4 --class auto -o json
check_json_field class-auto-g groups.5.group "(guaranteed)"
check_json_field class-auto-o groups.6.group "(opportunistic)"
all=$(json_get groups.0.jobs)
g=$(json_get groups.5.jobs)
o=$(json_get groups.6.jobs)
op=$(json_get groups.6.preemptions)
gp=$(json_get groups.5.preemptions)
echo "# --class auto: $g guaranteed ($gp preemptions), $o opportunistic ($op)"
if [ "$((g + o))" -eq "$all" ] && [ "$o" -gt 0 ] && [ "$op" -gt 0 ] && [ "$gp" -eq 0 ]; then
	ok class-rows-add-up
else not_ok class-rows-add-up "all $all = $g + $o? preemptions $gp / $op"; fi
run "$CELLAR" replay synth:300 --policy fifo --load 4 --class auto
check_out_has class-text-row "(opportunistic)"

# bad input: a clear error, nothing written
expect_exit bad-window 2 "$CELLAR" replay "$TMP/four.csv" $SET --series "$TMP/no.csv" --series-window 0
check_err_has bad-window-msg "--series-window '0' must be longer than 0"
expect_exit bad-window-word 2 "$CELLAR" replay "$TMP/four.csv" $SET --series "$TMP/no.csv" --series-window soon
check_err_has bad-window-word-msg "--series-window 'soon'"
if [ ! -e "$TMP/no.csv" ]; then ok bad-window-nothing-written
else not_ok bad-window-nothing-written "a series was written"; fi

done_testing
