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

# A cellar server (cellar serve) runs the live cluster; every other cellar
# of a script is its client (the same store, CELLAR_DB).
#
#   serve_start SPEC [ARG...]       stop the server running, if any, and
#                                   start one on SPEC with a store of its
#                                   own ($TMP/liveN.db, exported as
#                                   CELLAR_DB); returns once it answers.
#                                   Its stderr goes to $SERVE_LOG. Extra
#                                   ARGs go to serve; SERVE_ENV (e.g.
#                                   "CELLAR_STORE_FAIL=3") to its env.
#   serve_again [ARG...]            start a server again on the same store
#                                   (no --spec: it takes the run over)
#   serve_stop                      SIGTERM, and wait for it to exit
#   serve_kill                      SIGKILL, and reap it
#   serve_wait_ready                wait until the server answers
# The server is stopped when the script exits.
SERVE_PID= SERVE_N=0 SERVE_LOG=

serve_wait_ready() {
	i=0
	while [ "$i" -lt 400 ]; do
		grep -q '^[0-9T:.Z-]* cellar serve: pid [0-9]* serving' "$SERVE_LOG" 2>/dev/null &&
		    return 0
		kill -0 "$SERVE_PID" 2>/dev/null || break
		sleep 0.05
		i=$((i + 1))
	done
	not_ok serve-ready "the server did not start: $(cat "$SERVE_LOG" 2>&1)"
	return 1
}

serve_spawn() {
	SERVE_LOG=$TMP/serve$SERVE_N.log
	: >"$SERVE_LOG"
	env $SERVE_ENV "$CELLAR" serve "$@" >>"$SERVE_LOG" 2>&1 </dev/null &
	SERVE_PID=$!
	serve_wait_ready
}

serve_start() {
	serve_stop
	SERVE_N=$((SERVE_N + 1))
	CELLAR_DB=$TMP/live$SERVE_N.db
	export CELLAR_DB
	spec=$1
	shift
	serve_spawn --spec "$spec" "$@"
}

serve_again() {
	serve_stop
	serve_spawn "$@"
}

serve_stop() {
	[ -n "$SERVE_PID" ] || return 0
	kill "$SERVE_PID" 2>/dev/null
	wait "$SERVE_PID" 2>/dev/null
	SERVE_PID=
}

serve_kill() {
	[ -n "$SERVE_PID" ] || return 0
	kill -9 "$SERVE_PID" 2>/dev/null
	wait "$SERVE_PID" 2>/dev/null
	SERVE_PID=
}

live_cleanup() {
	serve_stop
	rm -rf "$TMP"
}
trap live_cleanup EXIT
