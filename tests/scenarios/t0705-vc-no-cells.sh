#!/bin/sh
# t0705-vc-no-cells — a tenant without quota (issue 20: the baseline of a VC
# with no cells): a spec VC with zero cells loads, its jobs run only
# opportunistically (whatever their class: it has nothing to guarantee),
# on idle GPUs of the others' cells, preempted when an owner claims them,
# and the reports show it as a VC of its own. Under private sharing its
# private cluster is empty, so its jobs never start.
. tests/scenarios/lib.sh
unset CELLAR_DB

spec_rack2 "$TMP/spec.yaml"
cat >>"$TMP/spec.yaml" <<'SPEC'
virtualClusters:
  owner: {virtualCells: [{cellType: RACK.NODE, cellNumber: 2}]}
  guest: {}
SPEC
# the guest's 2-GPU job runs on idle GPUs; the owner's second 4-GPU job
# takes them back at 00:20; the guest's 1-GPU job waits for a free GPU
cat >"$TMP/trace.csv" <<'CSV'
timestamp,duration,num_gpus,gpu_time,cluster
2017-10-01 00:00:00,3600.0,4,14400.0,own
2017-10-01 00:10:00,3600.0,2,7200.0,gst
2017-10-01 00:20:00,3600.0,4,14400.0,own
2017-10-01 00:30:00,1800.0,1,1800.0,gst
CSV
SET="--spec $TMP/spec.yaml --vc-map own=owner,gst=guest --policy fifo"

run "$CELLAR" spec check "$TMP/spec.yaml"
check_rc spec-loads 0
check_out_has spec-shows-empty-vc "guest"

for mode in hived quota; do
	# shellcheck disable=SC2086 # SET is a word list on purpose
	run "$CELLAR" replay "$TMP/trace.csv" $SET --sharing $mode -o json
	check_rc "$mode-rc" 0
	check_json_field "$mode-guest-row" groups.2.group guest
	check_json_field "$mode-guest-done" groups.2.done 2
	check_json_field "$mode-guest-preempted" groups.2.preemptions 1
	check_json_field "$mode-owner-never-preempted" groups.1.preemptions 0
	# both guest jobs ran as opportunistic: the class rows say so
	check_json_field "$mode-opp-row" groups.4.group "(opportunistic)"
	check_json_field "$mode-opp-jobs" groups.4.jobs 2
done

# private: an empty private cluster never runs the guest's jobs
# shellcheck disable=SC2086
run "$CELLAR" replay "$TMP/trace.csv" $SET --sharing private -o json
check_rc private-rc 0
check_json_field private-guest-never groups.2.never 2
check_json_field private-owner-done groups.1.done 2

done_testing
