#!/bin/sh
# t0715-trace-class — the trace column class on a replay under antman
# (tests/fixtures/traces/itp-antman-class.csv: a and f guaranteed, c
# opportunistic, e auto, b, d and g empty). A job's own class wins; the
# empty ones follow --class, or the policy's default (auto under antman,
# guaranteed under fifo). The same rows without the column all follow
# --class, and the report differs. A bad class is an error naming file,
# line and column.
. tests/scenarios/lib.sh
unset CELLAR_DB

CLS=tests/fixtures/traces/itp-antman-class.csv
ONE=tests/fixtures/specs/one-node.yaml
cut -d, -f1-4 "$CLS" >"$TMP/plain.csv"

# classes NAME WANT TRACE ARGS...: replay into a fresh store; the jobs'
# classes in trace order, "a=guaranteed b=auto ...", must be WANT
classes() {
	name=$1 want=$2 trace=$3
	shift 3
	db=$TMP/$name.db
	run "$CELLAR" --db "$db" replay "$trace" --spec "$ONE" "$@"
	check_rc "$name-rc" 0
	# without the lines naming the trace file, to compare runs
	grep -v -F "$trace" "$TMP/out" >"$TMP/$name.report"
	got=$("$CELLAR" --db "$db" jobs --run 1 -o csv | awk -F, 'NR > 1 {
	    printf "%s%s=%s", (NR > 2 ? " " : ""), $1, $5 }')
	if [ "$got" = "$want" ]; then ok "$name-classes"
	else not_ok "$name-classes" "got [$got], want [$want]"; fi
}

classes antman-default "a=guaranteed b=auto c=opportunistic d=auto e=auto f=guaranteed g=auto" \
    "$CLS" --policy antman
classes antman-opp "a=guaranteed b=opportunistic c=opportunistic d=opportunistic e=auto f=guaranteed g=opportunistic" \
    "$CLS" --policy antman --class opportunistic
classes antman-guar "a=guaranteed b=guaranteed c=opportunistic d=guaranteed e=auto f=guaranteed g=guaranteed" \
    "$CLS" --policy antman --class GUARANTEED
classes fifo-default "a=guaranteed b=guaranteed c=opportunistic d=guaranteed e=auto f=guaranteed g=guaranteed" \
    "$CLS" --policy fifo
classes plain-opp "a=opportunistic b=opportunistic c=opportunistic d=opportunistic e=opportunistic f=opportunistic g=opportunistic" \
    "$TMP/plain.csv" --policy antman --class opportunistic
# the forced guaranteed jobs change the run, not only the labels
if [ "$(wc -l <"$TMP/plain-opp.report")" -lt 5 ]; then
	not_ok report-differs "nothing to compare: $(cat "$TMP/plain-opp.report")"
elif cmp -s "$TMP/antman-opp.report" "$TMP/plain-opp.report"; then
	not_ok report-differs "the same report with and without the column"
else
	ok report-differs
fi
printf 'job_id,submission_time,duration,num_gpu,class\na,0,60,1,auto\nb,0,60,1,besteffort\n' \
    >"$TMP/bad.csv"
run "$CELLAR" replay "$TMP/bad.csv" --spec "$ONE" --policy antman
check_rc bad-class-rc 1
check_err_has bad-class-message \
    "bad.csv:3:10: class 'besteffort' is not guaranteed, opportunistic or auto"
done_testing
