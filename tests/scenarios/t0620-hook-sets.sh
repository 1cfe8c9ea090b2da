#!/bin/sh
# t0620-hook-sets — the slurm and kubernetes hook sets (specs/hooks/) run
# by cellar's local backend against fake sbatch, squeue, sacct, scancel,
# scontrol, sinfo and kubectl on PATH (tests/scenarios/fake-cluster-cmd.sh
# records every call), checking the exact command lines: a gang of two
# pods is submitted pinned to the nodes and GPUs cellar chose, polled
# until it completes; a cancelled job is stopped through scancel / kubectl
# delete; suspend, resume and health run by hand with a job's environment
# (cellar's own health polls call sinfo and kubectl too: filtered out).
# A cellar server (cellar serve) runs each case's cluster, so the fake
# commands' knobs (FAKE_RUNS, FAKE_END, FAKE_LINGER) and CELLAR_K8S_IMAGE
# reach the hooks through the server's environment (SERVE_ENV); the
# commands are its client's.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
top=$(pwd)
mkdir -p "$TMP/bin"
for c in sbatch squeue sacct scancel scontrol sinfo kubectl; do
	ln -s "$top/tests/scenarios/fake-cluster-cmd.sh" "$TMP/bin/$c"
done
PATH=$TMP/bin:$PATH
FAKE=$TMP/fake
FAKE_LOG=$TMP/calls
export PATH FAKE FAKE_LOG
spec() {	# spec FILE HOOKSET
	cat >"$1" <<YAML
physicalCluster:
  cellTypes:
    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}
  physicalCells:
  - {cellType: NODE, cellAddress: n1}
  - {cellType: NODE, cellAddress: n2}
virtualClusters:
  a: {virtualCells: [{cellType: NODE, cellNumber: 2}]}
backend:
  type: local
  hooks: $top/specs/hooks/$2
  rundir: $TMP/run
  statusInterval: 0.1
YAML
}
# check_calls NAME WANT: the calls recorded (then forgotten) are exactly WANT
check_calls() {
	got=$(cat "$FAKE_LOG" 2>/dev/null)
	if [ "$got" = "$2" ]; then ok "$1"
	else not_ok "$1" "calls [$got], want [$2]"; fi
	: >"$FAKE_LOG"
}
# the calls of one tool only, in order (pods start in parallel: per-pod
# order is checked by sorting)
only() { grep "^$1 " "$FAKE_LOG" | sort; }
# live SPEC ENV SCRIPT: a server on SPEC (a store of its own) with ENV in
# its environment, SCRIPT run by a client (run: $OUT, $ERR, $RC); the
# server is stopped before the calls are read, so that its health polls
# add none after the client is done
live() {
	SERVE_ENV=$2
	serve_start "$1"
	run "$CELLAR" -c "$3"
	serve_stop
}

# ---- slurm ----
spec "$TMP/slurm.yaml" slurm
live "$TMP/slurm.yaml" "" "submit g --vc a --gpus 4 --pods 2 -- train.sh --lr '0.1 x'; wait g --timeout 60s"
check_rc slurm-gang-rc 0
check_out_has slurm-gang-completed "g completed"
got=$(only sbatch)
want="sbatch [--parsable] [--job-name=cellar-g.0.0] [--nodelist=n1] [--nodes=1] [--ntasks=1] [--gres=gpu:4] [--no-requeue] [--export=ALL] [--output=$TMP/run/slurm/g.0.0.out] [--wrap='train.sh' '--lr' '0.1 x']
sbatch [--parsable] [--job-name=cellar-g.0.1] [--nodelist=n2] [--nodes=1] [--ntasks=1] [--gres=gpu:4] [--no-requeue] [--export=ALL] [--output=$TMP/run/slurm/g.0.1.out] [--wrap='train.sh' '--lr' '0.1 x']"
[ "$got" = "$want" ] && ok slurm-sbatch || not_ok slurm-sbatch "[$got], want [$want]"
# each pod: squeue says RUNNING once, then nothing (the fake controller
# forgets an ended job at once), the list of every job confirms it, then
# sacct COMPLETED
got=$(only squeue | uniq -c | sed 's/^ *//')
want="2 squeue [-h] [-j] [4242] [-t] [all] [-o] [%T]
2 squeue [-h] [-j] [4243] [-t] [all] [-o] [%T]
2 squeue [-h] [-t] [all] [-o] [%i %T]"
[ "$got" = "$want" ] && ok slurm-squeue || not_ok slurm-squeue "[$got], want [$want]"
got=$(only sacct)
want="sacct [-n] [-X] [-P] [-j] [4242] [-o] [State]
sacct [-n] [-X] [-P] [-j] [4243] [-o] [State]"
[ "$got" = "$want" ] && ok slurm-sacct || not_ok slurm-sacct "[$got], want [$want]"
: >"$FAKE_LOG"

# a job that runs until cancelled, then a failing one
rm -rf "$FAKE"
live "$TMP/slurm.yaml" FAKE_RUNS=100000 "submit c --vc a --gpus 4 -- sleep 1; wait c --state running --timeout 60s; cancel c; wait c --timeout 60s"
check_rc slurm-cancel-rc 0
check_out_has slurm-cancelled "c cancelled"
got=$(only scancel)
[ "$got" = "scancel [4242]" ] && ok slurm-scancel || not_ok slurm-scancel "[$got]"
: >"$FAKE_LOG"
rm -rf "$FAKE"
live "$TMP/slurm.yaml" FAKE_END=FAILED "submit f --vc a --gpus 4 -- false; wait f --timeout 60s"
check_out_has slurm-failed "f failed"
: >"$FAKE_LOG"

# suspend, resume and health by hand, as cellar runs them
hook() {	# hook SET NAME: run it with pod 0 of job c on n1
	env CELLAR_JOB=c CELLAR_JOB_ID=0 CELLAR_POD=0 CELLAR_PODS=1 CELLAR_NODE=n1 CELLAR_NODES=n1 \
	    CELLAR_GPUS=0,1 CUDA_VISIBLE_DEVICES=0,1 CELLAR_RUNDIR="$TMP/run" \
	    "$top/specs/hooks/$1/$2" >"$TMP/hook-out" 2>&1
}
mkdir -p "$TMP/run/slurm"; echo 4300 >"$TMP/run/slurm/c.0.0"
hook slurm suspend && hook slurm resume && hook slurm health
check_calls slurm-suspend-resume-health "scontrol [suspend] [4300]
scontrol [resume] [4300]
sinfo [-h] [-N] [-n] [n1] [-o] [%t]"
FAKE_SINFO='drain*' hook slurm health && not_ok slurm-drained "health passed a drained node" ||
    { grep -q "Slurm says node 'n1' is drain" "$TMP/hook-out" && ok slurm-drained ||
      not_ok slurm-drained "$(cat "$TMP/hook-out")"; }
: >"$FAKE_LOG"

# ---- kubernetes ----
rm -rf "$FAKE"
spec "$TMP/k8s.yaml" kubernetes
live "$TMP/k8s.yaml" CELLAR_K8S_IMAGE=img:1 "submit G_1 --vc a --gpus 4 --pods 2 -- train.sh --lr '0.1 x'; wait G_1 --timeout 60s"
check_rc k8s-gang-rc 0
check_out_has k8s-gang-completed "G_1 completed"
got=$(only kubectl | grep '\[run\]')
want="kubectl [run] [cellar-g-1-0-0] [--image=img:1] [--restart=Never] [--labels=cellar-job=G_1,cellar-job-id=0,cellar-pod=0] [--overrides={\"apiVersion\":\"v1\",\"spec\":{\"nodeName\":\"n1\",\"securityContext\":{\"runAsUser\":$(id -u),\"runAsGroup\":$(id -g)}}}] [--env=NVIDIA_VISIBLE_DEVICES=0,1,2,3] [--env=CUDA_VISIBLE_DEVICES=0,1,2,3] [--env=CELLAR_JOB=G_1] [--env=CELLAR_JOB_ID=0] [--env=CELLAR_POD=0] [--env=CELLAR_PODS=2] [--env=CELLAR_NODES=n[1-2]] [--] [sh] [-c] ['train.sh' '--lr' '0.1 x']
kubectl [run] [cellar-g-1-0-1] [--image=img:1] [--restart=Never] [--labels=cellar-job=G_1,cellar-job-id=0,cellar-pod=1] [--overrides={\"apiVersion\":\"v1\",\"spec\":{\"nodeName\":\"n2\",\"securityContext\":{\"runAsUser\":$(id -u),\"runAsGroup\":$(id -g)}}}] [--env=NVIDIA_VISIBLE_DEVICES=0,1,2,3] [--env=CUDA_VISIBLE_DEVICES=0,1,2,3] [--env=CELLAR_JOB=G_1] [--env=CELLAR_JOB_ID=0] [--env=CELLAR_POD=1] [--env=CELLAR_PODS=2] [--env=CELLAR_NODES=n[1-2]] [--] [sh] [-c] ['train.sh' '--lr' '0.1 x']"
[ "$got" = "$want" ] && ok k8s-run || not_ok k8s-run "[$got], want [$want]"
got=$(only kubectl | grep '\[get\] \[pod\] \[cellar-g-1-0-0\] \[--ignore' | uniq -c | sed 's/^ *//')
want="2 kubectl [get] [pod] [cellar-g-1-0-0] [--ignore-not-found] [-o] [jsonpath={.status.phase}]"
[ "$got" = "$want" ] && ok k8s-status || not_ok k8s-status "[$got], want [$want]"
: >"$FAKE_LOG"
rm -rf "$FAKE"
live "$TMP/k8s.yaml" FAKE_RUNS=100000 "submit c --vc a --gpus 4 --env K8S_IMAGE=own:2 -- sleep 1; wait c --state running --timeout 60s; cancel c; wait c --timeout 60s"
check_out_has k8s-cancelled "c cancelled"
only kubectl | grep -q '\[run\] \[cellar-c-0-0\] \[--image=own:2\]' && ok k8s-job-image ||
    not_ok k8s-job-image "$(only kubectl | grep '\[run\]')"
got=$(only kubectl | grep delete)
[ "$got" = "kubectl [delete] [pod] [cellar-c-0-0] [--ignore-not-found] [--wait=false]" ] &&
    ok k8s-delete || not_ok k8s-delete "[$got]"
: >"$FAKE_LOG"
live "$TMP/k8s.yaml" "" "submit noimg --vc a --gpus 4 -- true; wait noimg --timeout 60s; job log noimg"
check_out_has k8s-no-image "no image: set K8S_IMAGE"
: >"$FAKE_LOG"
hook kubernetes suspend && not_ok k8s-suspend "suspend succeeded" || ok k8s-suspend
hook kubernetes health
check_calls k8s-health 'kubectl [get] [node] [n1] [-o] [jsonpath={.status.conditions[?(@.type=="Ready")].status}]'


# ---- migration: stop on the old node, then migrate on the new one ----
# slurm: scancel, then sbatch pinned to the new node
rm -rf "$FAKE"; : >"$FAKE_LOG"
live "$TMP/slurm.yaml" FAKE_RUNS=100000 "submit m --vc a --gpus 4 -- sleep 1; wait m --state running --timeout 60s; job migrate m --node n2; wait m --state running --timeout 60s; cancel m; wait m --timeout 60s; events -o csv --no-header"
check_rc slurm-migrate-rc 0
check_out_has slurm-migrate-event ",migrate,m,a,-,pod 0: n1:[0-3] -> n2:[0-3],"
got=$(grep -E '^(sbatch|scancel) ' "$FAKE_LOG")
want="sbatch [--parsable] [--job-name=cellar-m.0.0] [--nodelist=n1] [--nodes=1] [--ntasks=1] [--gres=gpu:4] [--no-requeue] [--export=ALL] [--output=$TMP/run/slurm/m.0.0.out] [--wrap='sleep' '1']
scancel [4242]
sbatch [--parsable] [--job-name=cellar-m.0.0] [--nodelist=n2] [--nodes=1] [--ntasks=1] [--gres=gpu:4] [--no-requeue] [--export=ALL] [--output=$TMP/run/slurm/m.0.0.out] [--wrap='sleep' '1']
scancel [4243]"
[ "$got" = "$want" ] && ok slurm-migrate-calls || not_ok slurm-migrate-calls "[$got], want [$want]"
# kubernetes: the old pod deleted (it lingers, terminating), waited for,
# the new one created on n2 with its GPUs
rm -rf "$FAKE"; : >"$FAKE_LOG"
live "$TMP/k8s.yaml" "FAKE_LINGER=1 FAKE_RUNS=100000 CELLAR_K8S_IMAGE=img:1" "submit m --vc a --gpus 2 -- sleep 1; wait m --state running --timeout 60s; job migrate m --node n2; wait m --state running --timeout 60s; cancel m; wait m --timeout 60s; events -o csv --no-header"
check_rc k8s-migrate-rc 0
check_out_has k8s-migrate-event ",migrate,m,a,-,pod 0: n1:[0-1] -> n2:[0-1],"
got=$(grep -E '^kubectl \[(run|delete)\]|spec.nodeName' "$FAKE_LOG" | sed 's/ \[--labels.*//')
want="kubectl [run] [cellar-m-0-0] [--image=img:1] [--restart=Never]
kubectl [delete] [pod] [cellar-m-0-0] [--ignore-not-found] [--wait=false]
kubectl [get] [pod] [cellar-m-0-0] [--ignore-not-found] [-o] [jsonpath={.spec.nodeName}/{.spec.containers[0].env[?(@.name==\"NVIDIA_VISIBLE_DEVICES\")].value}]
kubectl [delete] [pod] [cellar-m-0-0] [--ignore-not-found] [--wait=true] [--timeout=120s]
kubectl [run] [cellar-m-0-0] [--image=img:1] [--restart=Never]
kubectl [delete] [pod] [cellar-m-0-0] [--ignore-not-found] [--wait=false]"
[ "$got" = "$want" ] && ok k8s-migrate-calls || not_ok k8s-migrate-calls "[$got], want [$want]"
grep -q 'kubectl \[run\] \[cellar-m-0-0\].*nodeName":"n2".*\[--env=NVIDIA_VISIBLE_DEVICES=0,1\]' "$FAKE_LOG" &&
    ok k8s-migrate-pinned || not_ok k8s-migrate-pinned "$(grep '\[run\]' "$FAKE_LOG")"
# run again after a restart (the new pod there): left alone
: >"$FAKE_LOG"
echo "n2/0,1" >"$FAKE/cellar-m-0-0.where"; rm -f "$FAKE/cellar-m-0-0.gone"
env CELLAR_JOB=m CELLAR_JOB_ID=0 CELLAR_POD=0 CELLAR_NODE=n2 CELLAR_GPUS=0,1 CELLAR_RUNDIR="$TMP/run" \
    "$top/specs/hooks/kubernetes/migrate" >"$TMP/hook-out" 2>&1
check_calls k8s-migrate-again 'kubectl [get] [pod] [cellar-m-0-0] [--ignore-not-found] [-o] [jsonpath={.spec.nodeName}/{.spec.containers[0].env[?(@.name=="NVIDIA_VISIBLE_DEVICES")].value}]'
grep -q "is on n2 already" "$TMP/hook-out" && ok k8s-migrate-again-says || not_ok k8s-migrate-again-says "$(cat "$TMP/hook-out")"

# a migration's stop that finds the pod ended on its own says so and
# cancels nothing (cellar then starts nothing on the new node)
rm -rf "$FAKE"; mkdir -p "$FAKE" "$TMP/run/slurm"; : >"$FAKE_LOG"
echo 4300 >"$TMP/run/slurm/c.0.0"; touch "$FAKE/4300.gone"
env CELLAR_JOB=c CELLAR_JOB_ID=0 CELLAR_POD=0 CELLAR_NODE=n1 CELLAR_TO_NODE=n2 CELLAR_RUNDIR="$TMP/run" \
    "$top/specs/hooks/slurm/stop" >"$TMP/hook-out" 2>&1
check_calls slurm-stop-ended "squeue [-h] [-j] [4300] [-o] [%i]
squeue [-h] [-o] [%i %i]
squeue [-h] [-j] [4300] [-t] [all] [-o] [%T]
squeue [-h] [-t] [all] [-o] [%i %T]
sacct [-n] [-X] [-P] [-j] [4300] [-o] [State]"
[ "$(head -n 1 "$TMP/hook-out")" = completed ] && [ -s "$TMP/run/slurm/c.0.0" ] && ok slurm-stop-ended-says ||
    not_ok slurm-stop-ended-says "$(cat "$TMP/hook-out")"
rm -f "$FAKE/4300.gone"
env CELLAR_JOB=c CELLAR_JOB_ID=0 CELLAR_POD=0 CELLAR_NODE=n1 CELLAR_TO_NODE=n2 CELLAR_RUNDIR="$TMP/run" \
    "$top/specs/hooks/slurm/stop" >"$TMP/hook-out" 2>&1
check_calls slurm-stop-running "squeue [-h] [-j] [4300] [-o] [%i]
scancel [4300]"
# with the job's CELLAR_CHECKPOINT: run (SLURM_JOB_ID set) before scancel
: >"$FAKE_LOG"; echo 4300 >"$TMP/run/slurm/c.0.0"; rm -f "$FAKE/4300.gone"
env CELLAR_JOB=c CELLAR_JOB_ID=0 CELLAR_POD=0 CELLAR_NODE=n1 CELLAR_TO_NODE=n2 CELLAR_RUNDIR="$TMP/run" \
    CELLAR_CHECKPOINT="echo checkpoint \$SLURM_JOB_ID >>$TMP/ckpt; echo scancel-not-yet >>$FAKE_LOG" \
    "$top/specs/hooks/slurm/stop" >"$TMP/hook-out" 2>&1
check_calls slurm-stop-checkpoint "squeue [-h] [-j] [4300] [-o] [%i]
scancel-not-yet
scancel [4300]"
[ "$(cat "$TMP/ckpt" 2>&1)" = "checkpoint 4300" ] && ok slurm-stop-checkpoint-once ||
    not_ok slurm-stop-checkpoint-once "$(cat "$TMP/ckpt" 2>&1)"
echo 4300 >"$TMP/run/slurm/c.0.0"; rm -f "$FAKE/4300.gone"; : >"$FAKE_LOG"
env CELLAR_JOB=c CELLAR_JOB_ID=0 CELLAR_POD=0 CELLAR_NODE=n1 CELLAR_TO_NODE=n2 CELLAR_RUNDIR="$TMP/run" \
    CELLAR_CHECKPOINT=false "$top/specs/hooks/slurm/stop" >"$TMP/hook-out" 2>&1 &&
    not_ok slurm-stop-checkpoint-fails "the stop passed" ||
    { grep -q "checkpoint failed: not moved" "$TMP/hook-out" && [ -s "$TMP/run/slurm/c.0.0" ] &&
      ok slurm-stop-checkpoint-fails || not_ok slurm-stop-checkpoint-fails "$(cat "$TMP/hook-out")"; }
check_calls slurm-stop-checkpoint-fails-calls "squeue [-h] [-j] [4300] [-o] [%i]"
# a job Slurm ended NODE_FAIL: left to the health hook (status fails)
# while the node is down, "failed" once it is not
echo 4300 >"$TMP/run/slurm/c.0.0"; touch "$FAKE/4300.gone"; : >"$FAKE_LOG"
FAKE_END=NODE_FAIL FAKE_SINFO='down*' hook slurm status &&
    not_ok slurm-node-fail-down "status passed: $(cat "$TMP/hook-out")" ||
    { grep -q "ended NODE_FAIL on n1: left to the health hook" "$TMP/hook-out" && ok slurm-node-fail-down ||
      not_ok slurm-node-fail-down "$(cat "$TMP/hook-out")"; }
FAKE_END=NODE_FAIL FAKE_SINFO=idle hook slurm status &&
    [ "$(cat "$TMP/hook-out")" = failed ] && ok slurm-node-fail-back ||
    not_ok slurm-node-fail-back "$(cat "$TMP/hook-out")"
check_calls slurm-node-fail-calls "squeue [-h] [-j] [4300] [-t] [all] [-o] [%T]
squeue [-h] [-t] [all] [-o] [%i %T]
sacct [-n] [-X] [-P] [-j] [4300] [-o] [State]
sinfo [-h] [-N] [-n] [n1] [-o] [%t]
squeue [-h] [-j] [4300] [-t] [all] [-o] [%T]
squeue [-h] [-t] [all] [-o] [%i %T]
sacct [-n] [-X] [-P] [-j] [4300] [-o] [State]
sinfo [-h] [-N] [-n] [n1] [-o] [%t]"
rm -f "$FAKE/4300.gone"
# each_hook_fails NAME VAR=VALUE: status, start and a migration's stop, with
# the fake controller set by VAR=VALUE, fail saying they cannot ask Slurm,
# and none says absent, failed or completed
each_hook_fails() {
	for h in status start stop; do
		env "$2" CELLAR_JOB=c CELLAR_JOB_ID=0 CELLAR_POD=0 CELLAR_NODE=n1 CELLAR_TO_NODE=n2 \
		    CELLAR_GPUS=0 CELLAR_RUNDIR="$TMP/run" CELLAR_COMMAND=true \
		    "$top/specs/hooks/slurm/$h" >"$TMP/hook-out" 2>&1 &&
		    not_ok "$1-$h" "passed: $(cat "$TMP/hook-out")" ||
		    { grep -q "cannot ask Slurm: slurm_load_jobs error: Unable to contact" "$TMP/hook-out" &&
		      ! grep -q 'absent\|failed\|completed' "$TMP/hook-out" && ok "$1-$h" ||
		      not_ok "$1-$h" "$(cat "$TMP/hook-out")"; }
	done
}
# slurmctld cannot be reached (squeue fails, not "Invalid job id"):
# status fails rather than say absent, start submits nothing, a
# migration's stop fails rather than take the pod as ended
each_hook_fails slurm-ctld-down FAKE_DOWN=1
only squeue >/dev/null; got=$(grep -v '^squeue ' "$FAKE_LOG")
[ -z "$got" ] && ok slurm-ctld-down-nothing-else || not_ok slurm-ctld-down-nothing-else "[$got]"
: >"$FAKE_LOG"
# a controller that says "Invalid job id" for a job it runs (seen once
# while slurmctld was being stopped): the list of every job corrects it;
# status says running, start submits nothing, a migration's stop cancels;
# when the list cannot reach the controller, each hook fails instead
rm -rf "$FAKE"; mkdir -p "$FAKE"; echo 4243 >"$FAKE/next"; echo 4242 >"$TMP/run/slurm/c.0.0"
env FAKE_FORGET=1 FAKE_RUNS=5 CELLAR_JOB=c CELLAR_JOB_ID=0 CELLAR_POD=0 CELLAR_NODE=n1 CELLAR_GPUS=0 \
    CELLAR_RUNDIR="$TMP/run" "$top/specs/hooks/slurm/status" >"$TMP/hook-out" 2>&1 &&
    [ "$(cat "$TMP/hook-out")" = running ] && ok slurm-forget-status ||
    not_ok slurm-forget-status "$(cat "$TMP/hook-out")"
env FAKE_FORGET=1 FAKE_RUNS=5 CELLAR_JOB=c CELLAR_JOB_ID=0 CELLAR_POD=0 CELLAR_NODE=n1 CELLAR_GPUS=0 \
    CELLAR_RUNDIR="$TMP/run" CELLAR_COMMAND=true "$top/specs/hooks/slurm/start" >"$TMP/hook-out" 2>&1 &&
    grep -q "already submitted (Slurm job 4242)" "$TMP/hook-out" && ok slurm-forget-start ||
    not_ok slurm-forget-start "$(cat "$TMP/hook-out")"
check_calls slurm-forget-calls "squeue [-h] [-j] [4242] [-t] [all] [-o] [%T]
squeue [-h] [-t] [all] [-o] [%i %T]
squeue [-h] [-j] [4242] [-o] [%i]
squeue [-h] [-o] [%i %i]"
each_hook_fails slurm-forget-down FAKE_FORGET=down
grep -q '^s[bc]a' "$FAKE_LOG" && not_ok slurm-forget-down-nothing-else "$(cat "$FAKE_LOG")" ||
    ok slurm-forget-down-nothing-else
# a state word the hook does not know says nothing of the pod: status
# fails (cellar asks again), never "absent"
printf '#!/bin/sh\necho WEIRD_NEW_STATE\n' >"$TMP/bin-weird"; mkdir -p "$TMP/weird"
ln -sf "$TMP/bin-weird" "$TMP/weird/squeue"; chmod +x "$TMP/bin-weird"
env PATH="$TMP/weird:$PATH" CELLAR_JOB=c CELLAR_JOB_ID=0 CELLAR_POD=0 CELLAR_NODE=n1 CELLAR_RUNDIR="$TMP/run" \
    "$top/specs/hooks/slurm/status" >"$TMP/hook-out" 2>&1 &&
    not_ok slurm-unknown-state "passed: $(cat "$TMP/hook-out")" ||
    { grep -q "Slurm says 'WEIRD_NEW_STATE' for job 4242: not a state this hook knows" "$TMP/hook-out" &&
      ok slurm-unknown-state || not_ok slurm-unknown-state "$(cat "$TMP/hook-out")"; }
rm -rf "$FAKE"; mkdir -p "$FAKE"; : >"$FAKE_LOG"
touch "$FAKE/cellar-c-0-0.made"
FAKE_RUNS=0 FAKE_END=Failed env CELLAR_JOB=c CELLAR_JOB_ID=0 CELLAR_POD=0 CELLAR_NODE=n1 CELLAR_TO_NODE=n2 \
    "$top/specs/hooks/kubernetes/stop" >"$TMP/hook-out" 2>&1
check_calls k8s-stop-ended "kubectl [get] [pod] [cellar-c-0-0] [--ignore-not-found] [-o] [jsonpath={.status.phase}]"
[ "$(head -n 1 "$TMP/hook-out")" = failed ] && ok k8s-stop-ended-says ||
    not_ok k8s-stop-ended-says "$(cat "$TMP/hook-out")"

done_testing
