#!/bin/sh
# t0735-quota-borrow — quota sharing with borrowing (--borrow; issue 20's
# missing baseline, YARN-CS without preemption): a tenant over its quota
# runs on idle GPUs and keeps them until its job ends, so the tenant whose
# quota they were waits behind it. Without borrowing the over-quota job
# waits (guaranteed) or runs opportunistic and is preempted (--class auto),
# and the owner runs at once. The reports count what ran borrowed.
. tests/scenarios/lib.sh
unset CELLAR_DB

spec_rack2 "$TMP/spec.yaml"
cat >>"$TMP/spec.yaml" <<'SPEC'
virtualClusters:
  a: {virtualCells: [{cellType: RACK.NODE, cellNumber: 1}]}
  b: {virtualCells: [{cellType: RACK.NODE, cellNumber: 1}]}
SPEC
# a fills its quota for 2 h, then asks for another node at 00:10 (over its
# quota: n1 is idle); b, within its quota, asks for its node at 00:20
cat >"$TMP/trace.csv" <<'CSV'
timestamp,duration,num_gpus,gpu_time,cluster
2017-10-01 00:00:00,7200.0,4,28800.0,a
2017-10-01 00:10:00,3600.0,4,14400.0,a
2017-10-01 00:20:00,3600.0,4,14400.0,b
CSV
SET="--spec $TMP/spec.yaml --vc-map a=a,b=b --policy fifo --ideal --sharing quota"

# borrowing: a's second job borrows n1 at 00:10 and keeps it; b waits for
# it until 01:10 (3000 s), though n1 is b's share
# shellcheck disable=SC2086 # SET is a word list on purpose
run "$CELLAR" replay "$TMP/trace.csv" $SET --borrow -o json
check_rc borrow-rc 0
check_json_field borrow-config config.borrow true
check_json_field borrow-owner-waits groups.2.queue.avg 3000
check_json_field borrow-borrower-at-once groups.1.queue.avg 0
check_json_field borrow-no-preemption groups.0.preemptions 0
check_json_field borrow-jobs borrowed.jobs 1
check_json_field borrow-gpu-hours borrowed.gpu_hours 4
check_json_field borrow-vc-jobs groups.1.borrowed_jobs 1

# guaranteed, no borrowing: a's second job waits for its quota (until
# 02:00: 6600 s, a's mean 3300 s), b runs at once
# shellcheck disable=SC2086
run "$CELLAR" replay "$TMP/trace.csv" $SET -o json
check_rc quota-rc 0
check_json_field quota-owner-at-once groups.2.queue.avg 0
check_json_field quota-over-waits groups.1.queue.avg 3300
check_out_lacks quota-no-borrow-key '"borrow'

# --class auto (HiveD's quota baseline): a's second job runs opportunistic
# and b takes n1 back at 00:20
# shellcheck disable=SC2086
run "$CELLAR" replay "$TMP/trace.csv" $SET --class auto -o json
check_rc auto-rc 0
check_json_field auto-owner-at-once groups.2.queue.avg 0
check_json_field auto-preempts groups.1.preemptions 1

# the text report says what ran borrowed
# shellcheck disable=SC2086
run "$CELLAR" replay "$TMP/trace.csv" $SET --borrow
check_rc text-rc 0
check_out_has text-header "sharing quota with borrowing"
check_out_has text-line "borrowing: 1 job(s) ran over their VC's quota on idle GPUs, kept until they ended (4.0 GPU-hours held borrowed)"

# compare: the borrowing quota run beside hived's
run "$CELLAR" compare "$TMP/trace.csv" --spec "$TMP/spec.yaml" --vc-map a=a,b=b \
    --policy fifo --ideal --sharing quota,hived --borrow
check_rc compare-rc 0
check_out_has compare-mode "quota+borrow"
check_out_has compare-line "fifo: borrowing: 1 job(s)"

# anomaly: b is worse than on its private cluster only with borrowing
run "$CELLAR" anomaly "$TMP/trace.csv" --spec "$TMP/spec.yaml" --vc-map a=a,b=b \
    --policy fifo --ideal --sharing quota --borrow -o json
check_rc anomaly-rc 0
check_json_field anomaly-borrow anomalous_vcs 1
check_json_field anomaly-borrowed borrowed.jobs 1

# --borrow is a rule of quota sharing
run "$CELLAR" replay "$TMP/trace.csv" --spec "$TMP/spec.yaml" --vc-map a=a,b=b \
    --sharing hived --borrow
check_rc borrow-needs-quota 2
check_err_has borrow-error "--borrow needs --sharing quota"
run "$CELLAR" anomaly "$TMP/trace.csv" --spec "$TMP/spec.yaml" --vc-map a=a,b=b --borrow
check_rc anomaly-default-hived 2
check_err_has anomaly-error "--borrow needs --sharing quota"


# A recorded replay killed mid-way resumes to the very report an
# uninterrupted one prints (the job blobs say which runs borrowed: the
# store's placements do not), and a follower shows the borrowed GPUs.
P="tests/fixtures/traces/philly-sample.csv --spec specs/philly-hived-200.yaml --vc-map *=- --policy fifo --load 400 --sharing quota --borrow --checkpoint-every 500 -o json"
# shellcheck disable=SC2086 # P is a word list on purpose
run "$CELLAR" replay $P
check_rc philly-plain 0
cp "$TMP/out" "$TMP/plain.json"
# shellcheck disable=SC2086
CELLAR_STORE_KILL=1000000000 run "$CELLAR" --db "$TMP/ref.db" replay $P
check_rc philly-stored 0
steps=$(sed -n 's/.*: \([0-9]*\) write steps.*/\1/p' "$TMP/err")
# shellcheck disable=SC2086
CELLAR_STORE_KILL=$((steps * 3 / 4)) run "$CELLAR" --db "$TMP/k.db" replay $P
check_rc philly-killed 137
# the follower's per-VC use against the store's running jobs
run "$CELLAR" --db "$TMP/k.db" jobs --run 1 -o csv
check_rc philly-jobs 0
awk -F, 'NR > 1 && $4 == "R" { u[$3] += $8 } END { for (v in u) print v, u[v] }' \
    "$TMP/out" | sort >"$TMP/stored-use"
run "$CELLAR" --db "$TMP/k.db" dash --follow --once --keys 2
check_rc philly-follow 0
sed -n 's/^.[A-Z] \([0-9a-f]*\) .* used \([0-9]*\) .* of \([0-9]*\) assigned.*/\1 \2 \3/p' \
    "$TMP/out" | sort >"$TMP/follow-use"
if awk 'NR == FNR { s[$1] = $2; next } $2 != (s[$1] + 0) { bad++ }
    $2 > $3 { over++ } END { exit !(FNR == 11 && !bad && over > 0) }' \
    "$TMP/stored-use" "$TMP/follow-use"; then ok philly-follower-shows-borrowed
else not_ok philly-follower-shows-borrowed "store: $(tr '\n' ' ' <"$TMP/stored-use"); follower: $(tr '\n' ' ' <"$TMP/follow-use")"; fi
# shellcheck disable=SC2086
run "$CELLAR" --db "$TMP/k.db" replay $P
check_rc philly-resumed 0
check_err_has philly-resumed-note "resuming run 1"
if cmp -s "$TMP/out" "$TMP/plain.json"; then ok philly-resumed-report
else not_ok philly-resumed-report "$(diff "$TMP/plain.json" "$TMP/out" | head -5)"; fi

done_testing
