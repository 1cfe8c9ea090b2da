# tests/scenarios/lib-live.sh — sourced (after lib.sh) by the live-session
# scripts tests/scenarios/t06*-live-*.sh: the fake trainer and a two-node
# cluster run by the local backend with the process hook set.
#
#   $trainer                        tests/scenarios/fake-trainer.sh
#   $TRAINER_DIR                    where trainers write (exported, made)
#   live_spec FILE INTERVAL [LINE...]
#                                   write a spec of nodes n1, n2 (4 GPUs
#                                   each, VC a owns both) whose backend
#                                   polls status every INTERVAL seconds;
#                                   each LINE is one more backend key

trainer=$(pwd)/tests/scenarios/fake-trainer.sh
TRAINER_DIR=$TMP/trainer
export TRAINER_DIR
mkdir -p "$TRAINER_DIR"

live_spec() {
	f=$1 interval=$2
	shift 2
	cat >"$f" <<YAML
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
  hooks: $(pwd)/specs/hooks/process
  rundir: $TMP/run
  statusInterval: $interval
YAML
	for l in "$@"; do printf '  %s\n' "$l" >>"$f"; done
}
