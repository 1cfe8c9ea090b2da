#!/bin/sh
# t0716-trace-span.sh — traces with extreme time spans (issue 23, F5). A
# row far from the others (a Philly row dated 9999-12-31) is refused with
# an error naming it, before anything runs. Rows within every limit can
# still make a replay's clock run for centuries (jobs that wait for each
# other): the emulator's time series, in memory and in the store, must
# grow with the jobs, not with the clock. Four times the clock must not
# give anywhere near four times the samples (it gave exactly that when
# every hour was sampled: 3.3 million samples, 160 MB, for 40 jobs).
. tests/scenarios/lib.sh
unset CELLAR_DB

# 1. The 9999 row: refused, the row and the first one named.
cat >"$TMP/philly.csv" <<'EOF'
timestamp,duration,num_gpus,gpu_time,cluster
2017-10-09 06:08:26,2740.0,1,2740.0,a
9999-12-31 00:00:00,100.0,1,100.0,a
2017-10-07 01:11:39,1932.0,8,1546048.0,b
EOF
run "$CELLAR" replay "$TMP/philly.csv" --vc-map '*=research'
check_rc philly-9999-rc 1
check_err_has philly-9999-row "philly.csv:3:1: the trace would span 7982.1 years, from its first submission (line 4)"
check_out philly-9999-no-report ""
run "$CELLAR" --db "$TMP/p.db" replay "$TMP/philly.csv" --vc-map '*=research'
check_rc philly-9999-db-rc 1
[ ! -e "$TMP/p.db" ] && ok philly-9999-no-store || not_ok philly-9999-no-store "a store was made"

# 2. Jobs within every limit that run one after another for a century
# (N jobs of all of research's 64 GPUs, 9.5 years each): N=10 and N=40.
mk() {   # mk N FILE
	i=0
	echo "job_id,submission_time,duration,num_gpu" >"$2"
	while [ $i -lt "$1" ]; do
		echo "j$i,$i,300000000,64" >>"$2"
		i=$((i + 1))
	done
}
samples() {   # samples CSV: data lines of a --series file
	tail -n +2 "$1" | wc -l
}
mk 10 "$TMP/a.csv"
mk 40 "$TMP/b.csv"
run "$CELLAR" replay "$TMP/a.csv" --vc-map '*=research' --policy fifo --series "$TMP/a.series"
check_rc long-a-rc 0
run "$CELLAR" replay "$TMP/b.csv" --vc-map '*=research' --policy fifo --series "$TMP/b.series" -o json
check_rc long-b-rc 0
check_json_field long-b-all-done groups.0.done 40
na=$(samples "$TMP/a.series") nb=$(samples "$TMP/b.series")
# the makespans: 95 and 380 years
ma=$(tail -1 "$TMP/a.series" | cut -d, -f1) mb=$(tail -1 "$TMP/b.series" | cut -d, -f1)
awk -v a="$ma" -v b="$mb" 'BEGIN { exit !(b > 3.9 * a && a > 2.9e9) }' &&
    ok long-clock-x4 || not_ok long-clock-x4 "makespans $ma and $mb s"
# Hourly, these would be 833,333 and 3,333,333 samples.
[ "$na" -gt 0 ] && [ $((nb * 10)) -lt $((na * 15)) ] && ok long-samples-sublinear ||
    not_ok long-samples-sublinear "$na samples for 10 jobs, $nb for 40 (clock x4)"
[ "$nb" -le 100000 ] && ok long-samples-bounded ||
    not_ok long-samples-bounded "$nb samples for 40 jobs"
# The samples stay in time order and cover the whole run.
tail -n +2 "$TMP/b.series" | sort -t, -k1,1g -c && ok long-samples-ordered ||
    not_ok long-samples-ordered "out of order"

# 3. The same with a store: its series has the samples the replay kept.
run "$CELLAR" --db "$TMP/b.db" replay "$TMP/b.csv" --vc-map '*=research' --policy fifo
check_rc long-db-rc 0
run "$CELLAR" --db "$TMP/b.db" run show 1 -o json
check_json_field long-db-series series.samples "$nb"

done_testing
