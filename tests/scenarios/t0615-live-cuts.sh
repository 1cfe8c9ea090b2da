#!/bin/sh
# t0615-live-cuts — the live operator's papercuts of issue 21, on the
# shipped one-box spec (specs/local.yaml: VCs of two 2-GPU switches) run
# by a server: submit refuses a job its VC could never hold, with place's
# words, instead of queueing it forever with reason Resources; jobs lists
# pending jobs with the running ones (as squeue), finished ones with
# --all; job show counts the wait or run going on; job log names where
# the job's own output is.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh

# specs/local.yaml with its hooks found from here and a run dir of ours
sed -e "s|^  hooks: hooks/process|  hooks: $(pwd)/specs/hooks/process\\
  rundir: $TMP/run\\
  statusInterval: 0.1|" specs/local.yaml >"$TMP/local.yaml"
grep -q "rundir: $TMP/run" "$TMP/local.yaml" && ok spec-made ||
    not_ok spec-made "$(cat "$TMP/local.yaml")"

# 1. a pod larger than any cell of the VC, and a gang wider than its
# cells: refused (exit 1) with the dry run's reason, nothing queued
serve_start "$TMP/local.yaml"
run "$CELLAR" place big --vc prod --gpus 4
place_err=$ERR
run "$CELLAR" submit big --vc prod --gpus 4 -- true
check_rc never-pod-rc 1
check_err_has never-pod-msg "cannot place job 'big': a pod of 4 gpus is larger than any cell vc 'prod' holds"
[ "$ERR" = "$place_err" ] && ok never-pod-as-place || not_ok never-pod-as-place "submit [$ERR] place [$place_err]"
run "$CELLAR" submit wide --vc research --gpus 2 --pods 3 -- true
check_rc never-gang-rc 1
check_err_has never-gang-msg "cannot place job 'wide': vc 'research' can never hold 3 pods of 2 gpus: each takes a cell of type 'SWITCH' and it has 2"
run "$CELLAR" submit scav --vc prod --gpus 16 --priority -1 -- true
check_rc never-opp-rc 1
check_err_has never-opp-msg "cannot place job 'scav': a pod of 16 gpus is larger than any cell of the cluster"
run "$CELLAR" queue -o name
check_out never-nothing-queued ""
run "$CELLAR" events -o csv --no-header
check_out_lacks never-no-submit-event "submit"
# what fits once the VC is free is queued, as before
printf 'echo "out of pod $CELLAR_POD"\nsleep 30\n' >"$TMP/job.sh"
run "$CELLAR" -c "submit a --vc prod --gpus 2 --pods 2 -- sh $TMP/job.sh; submit b --vc prod --gpus 2 -- true; queue -o csv --no-header"
check_rc fits-later-rc 0
check_out_has fits-later-queued "prod,1,b,"

# 2. jobs (and ps): running and pending together; --filter state=PD, as
# 'help states' says; --vc; JSON; finished ones only with --all
run "$CELLAR" wait a --state running --timeout 60s
check_rc jobs-a-running 0
run "$CELLAR" jobs -o csv --no-header
check_rc jobs-rc 0
check_out_has jobs-running 'a,0,prod,R,guaranteed,0,0,4,2,BOX,box,"box/0,box/1",no,-'
check_out_has jobs-pending "b,1,prod,PD,guaranteed,0,0,2,1,-,-,-,no,VCFull"
run "$CELLAR" ps --filter state=PD -o name
check_out jobs-filter-pd "b"
run "$CELLAR" jobs --vc research -o name
check_out jobs-vc-other ""
run "$CELLAR" jobs -o json
check_json_field jobs-json-n jobs.# 2
check_json_field jobs-json-pending-id jobs.1.id 1
check_json_field jobs-json-pending-state jobs.1.state_code PD
check_json_field jobs-json-pending-reason jobs.1.reason VCFull
check_json_field jobs-json-pending-gpus jobs.1.gpus 2
# 3. job show counts the period going on: b pending since its submit
# read "queued 0 s", a running since its start "run time 0 s"
secs() {	# secs JOB FIELD: the whole seconds job show gives FIELD
	"$CELLAR" job show "$1" 2>/dev/null | sed -n "s/^$2  *\([0-9][0-9]*\) s\$/\1/p"
}
i=0
while [ "$i" -lt 200 ]; do
	q=$(secs b queued) r=$(secs a "run time")
	[ "${q:-0}" -ge 2 ] && [ "${r:-0}" -ge 2 ] && break
	sleep 0.05
	i=$((i + 1))
done
[ "${q:-0}" -ge 2 ] && ok show-queued-grows || not_ok show-queued-grows "queued [$q] after $i polls"
[ "${r:-0}" -ge 2 ] && ok show-run-time-grows || not_ok show-run-time-grows "run time [$r] after $i polls"
run "$CELLAR" job show a
check_out_has show-running-queued-closed "queued          0 s"
run "$CELLAR" job show b -o json
case $(json_get job.queued) in 0|0.0|'') not_ok show-json-queued "$OUT" ;; *) ok show-json-queued ;; esac
# and why it waits, as the queue says (the store kept "None", the reason
# at submission)
check_json_field show-json-reason job.reason VCFull
run "$CELLAR" jobs --all -o csv --no-header
check_out_has jobs-all-reason "b,1,prod,PD,guaranteed,0,-,2,1,-,-,-,-,VCFull"

# 4. job log points at the job's own output (it showed the hooks' lines
# only): the process set's start hook names the file, on its node
# (the process set's files are keyed NAME.ID.POD)
run "$CELLAR" job show a -o json
aid=$(json_get job.id 1)
run "$CELLAR" job log a
check_out_has log-hook-line "started pod 0 on box"
check_out_has log-points-pod0 "output of pod 0: $TMP/run/box/a.$aid.0/out on box"
check_out_has log-points-pod1 "output of pod 1: $TMP/run/box/a.$aid.1/out on box"
i=0
while ! grep -q "out of pod 1" "$TMP/run/box/a.$aid.1/out" 2>/dev/null && [ "$i" -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
grep -q "out of pod 1" "$TMP/run/box/a.$aid.1/out" 2>/dev/null && ok log-file-is-output ||
    not_ok log-file-is-output "$(cat "$TMP/run/box/a.$aid.1/out" 2>&1)"

run "$CELLAR" -c "cancel b; wait b --timeout 60s; jobs -o name"
check_out jobs-finished-left-out "cancelled b
b cancelled
a"
run "$CELLAR" jobs --all -o csv --no-header
check_out_has jobs-all-finished "b,"
check_out_has jobs-all-cancelled ",CA,"
check_out_has jobs-all-running "a,"
run "$CELLAR" jobs --all --run last
check_rc jobs-all-and-run 2

run "$CELLAR" -c "cancel a; wait a --timeout 60s"
check_rc cleanup-rc 0
done_testing
