#!/bin/sh
# t0615-live-cuts — the live operator's papercuts of issue 21, on the
# shipped one-box spec (specs/local.yaml: VCs of two 2-GPU switches) run
# by a server: submit refuses a job its VC could never hold, with place's
# words, instead of queueing it forever with reason Resources.
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
run "$CELLAR" queue -o name
check_out never-nothing-queued ""
run "$CELLAR" events -o csv --no-header
check_out_lacks never-no-submit-event "submit"
# what fits once the VC is free is queued, as before
run "$CELLAR" -c "submit a --vc prod --gpus 2 --pods 2 -- sleep 30; submit b --vc prod --gpus 2 -- true; queue -o csv --no-header"
check_rc fits-later-rc 0
check_out_has fits-later-queued "prod,1,b,"

done_testing
