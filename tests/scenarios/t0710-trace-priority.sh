#!/bin/sh
# t0710-trace-priority — the trace columns priority and weight on a replay
# under gandiva (tests/fixtures/traces/itp-gandiva-priority.csv: three
# priority-0 jobs, a of weight 2, b and c of weight 1, share one 2-GPU node
# from 0 s; h of priority 5 joins at 600 s for 3600 s). With the columns, h
# is never suspended and ends at 4200 s, and a (weight 2) ends before b and
# c; the same rows without the columns give another report: h is
# suspended and ends later, a does not end first. Bad values are errors
# naming file, line and column. The store keeps both (schema 8; a dump
# of version 7 imports with 0 and 1). --max-height and --gpu-mem act, are
# recorded in the run's params and refuse bad values.
. tests/scenarios/lib.sh
unset CELLAR_DB

PRIO=tests/fixtures/traces/itp-gandiva-priority.csv
ONE=tests/fixtures/specs/one-node.yaml
cut -d, -f1-4 "$PRIO" >"$TMP/plain.csv"

# field NAME JOB: a field of `job show` on $db ("end", "restarts"...)
field() {
	"$CELLAR" --db "$db" job show "$2" | sed -n "s/^$1  *//p"
}
# $1 < $2 (floating point)
lt() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'
}

db=$TMP/prio.db
run "$CELLAR" --db "$db" replay "$PRIO" --spec "$ONE" --policy gandiva -o json
check_rc prio-rc 0
cp "$TMP/out" "$TMP/prio.json"
end_h=$(field end h) restarts_h=$(field restarts h)
end_a=$(field end a) end_b=$(field end b) end_c=$(field end c)
echo "# with the columns: h ends $end_h ($restarts_h), a $end_a, b $end_b, c $end_c"
if awk -v e="$end_h" 'BEGIN { exit !(e + 0 == 4200) }'; then ok h-not-slowed
else not_ok h-not-slowed "h ends at [$end_h]"; fi
case $restarts_h in
"0 (preemptions 0, suspensions 0)") ok h-never-suspended ;;
*) not_ok h-never-suspended "h: $restarts_h" ;;
esac
if lt "$end_a" "$end_b" && lt "$end_a" "$end_c"; then ok weight-2-ends-first
else not_ok weight-2-ends-first "a $end_a, b $end_b, c $end_c"; fi

db=$TMP/plain.db
run "$CELLAR" --db "$db" replay "$TMP/plain.csv" --spec "$ONE" --policy gandiva -o json
check_rc plain-rc 0
end_h=$(field end h) restarts_h=$(field restarts h)
end_a=$(field end a) end_b=$(field end b)
echo "# without: h ends $end_h ($restarts_h), a $end_a, b $end_b"
if lt 4300 "$end_h"; then ok plain-h-slowed
else not_ok plain-h-slowed "h ends at [$end_h] without its priority"; fi
case $restarts_h in
*"suspensions 0)") not_ok plain-h-suspended "h: $restarts_h" ;;
*) ok plain-h-suspended ;;
esac
if lt "$end_a" "$end_b"; then not_ok plain-no-weights "a $end_a before b $end_b"
else ok plain-no-weights; fi
# the reports differ beyond the trace's name
sed 's/"trace":"[^"]*"//' "$TMP/prio.json" >"$TMP/a"
sed 's/"trace":"[^"]*"//' "$TMP/out" >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b" && not_ok reports-differ "the same report without the columns" ||
    ok reports-differ

# the store keeps both (schema 8): job show, jobs --run (h holds no cells
# at the end: its own priority), job show's JSON
db=$TMP/prio.db
run "$CELLAR" --db "$db" job show a
check_out_has show-requested "requested       priority 0, weight 2"
run "$CELLAR" --db "$db" job show h -o json
check_json_field show-json-priority job.priority 5
check_json_field show-json-weight job.weight 1
run "$CELLAR" --db "$db" jobs --run 1 -o csv --no-header
check_out_has jobs-prio-h "h,3,A,CD,guaranteed,5,-,"
# a dump keeps them; one of version 7 (no such columns) imports with 0 and 1
run "$CELLAR" --db "$db" export "$TMP/d8.json"
check_rc export-rc 0
run "$CELLAR" --db "$TMP/i8.db" import "$TMP/d8.json"
check_rc import-rc 0
run "$CELLAR" --db "$TMP/i8.db" job show a
check_out_has import-keeps "requested       priority 0, weight 2"
awk '/^"jobs":/ { j = 1; sub(/,"priority","weight"\]/, "]") }
    /^"placements":/ { j = 0 }
    j && /^\[/ { sub(/,-?[0-9]+,[0-9]+\]/, "]") }
    { sub(/"store_version":11,/, "\"store_version\":7,"); print }' \
    "$TMP/d8.json" >"$TMP/d7.json"
grep -q '"store_version":7,' "$TMP/d7.json" && ! grep -q '"weight"' "$TMP/d7.json" &&
    ok v7-dump-made || not_ok v7-dump-made "$(head -c 300 "$TMP/d7.json")"
run "$CELLAR" --db "$TMP/i7.db" import "$TMP/d7.json"
check_rc import-v7-rc 0
run "$CELLAR" --db "$TMP/i7.db" job show a
check_out_has import-v7-defaults "requested       priority 0, weight 1"
run "$CELLAR" --db "$TMP/i7.db" db check
check_rc import-v7-check 0

# bad values: file, line and column
printf 'job_id,submission_time,duration,num_gpu,priority,weight\na,0,10,1,3,1\nb,0,10,1,1001,1\n' \
    >"$TMP/bad.csv"
run "$CELLAR" replay "$TMP/bad.csv" --spec "$ONE" --policy gandiva
check_rc bad-priority-rc 1
check_err_has bad-priority "$TMP/bad.csv:3:10: priority must be a whole number from 0 to 1000, not '1001'"
printf 'job_id,submission_time,duration,num_gpu,weight\na,0,10,1,0.5\n' >"$TMP/bad.csv"
run "$CELLAR" replay "$TMP/bad.csv" --spec "$ONE" --policy gandiva
check_rc bad-weight-rc 1
check_err_has bad-weight "$TMP/bad.csv:2:10: weight must be a whole number from 1 to 1000, not '0.5'"

# --max-height 1: no time-slicing, the jobs wait; recorded in the params
db=$TMP/h1.db
run "$CELLAR" --db "$db" replay "$PRIO" --spec "$ONE" --policy gandiva \
    --max-height 1 --gpu-mem 32 -o json
check_rc height1-rc 0
check_json_field height1-no-sliced time_sliced_starts 0
check_json_field height1-no-suspensions groups.0.suspensions 0
run "$CELLAR" --db "$db" run show 1
printf '%s\n' "$OUT" | grep -q '^param\.max_height  *1$' && ok height1-param ||
    not_ok height1-param "$(printf '%s\n' "$OUT" | grep height)"
printf '%s\n' "$OUT" | grep -q '^param\.gpu_mem  *32$' && ok gpu-mem-param ||
    not_ok gpu-mem-param "$(printf '%s\n' "$OUT" | grep gpu_mem)"
# the default packs two pairs (above); 1 GiB per GPU holds no pair
run "$CELLAR" replay "$PRIO" --spec "$ONE" --policy gandiva -o json
check_json_field default-packs packs 2
run "$CELLAR" replay "$PRIO" --spec "$ONE" --policy gandiva --gpu-mem 1 -o json
check_rc gpu-mem-1-rc 0
check_json_field gpu-mem-1-no-packs packs 0
for bad in 0 17 x; do
	run "$CELLAR" replay "$PRIO" --spec "$ONE" --policy gandiva --max-height "$bad"
	check_rc "max-height-$bad-refused" 2
	check_err_has "max-height-$bad-message" "max-height"
done
for bad in 0 -1 x; do
	run "$CELLAR" replay "$PRIO" --spec "$ONE" --policy gandiva --gpu-mem "$bad"
	check_rc "gpu-mem-$bad-refused" 2
	check_err_has "gpu-mem-$bad-message" "--gpu-mem '$bad' must be a number > 0"
done
done_testing
