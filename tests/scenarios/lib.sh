# tests/scenarios/lib.sh — sourced by every scenario script.
#
# tests/run.sh runs each tNNNN-*.sh with the repo root as cwd and $CELLAR
# naming the binary under test. A script calls `run CMD...` and then checks
# the captured result, or uses the expect_* one-liners; every check prints
# exactly one line, "ok - SCRIPT/NAME" or "not ok - SCRIPT/NAME: why".
# Every script gets its own XDG_STATE_HOME ($TMP/state), so the default
# state store is $TMP/state/cellar/cellar.db and never the user's.
# JSON is checked with the tcore-json unit-test binary built next to
# $CELLAR (no python or jq needed); if it is missing, JSON checks fail.
#
#   run CMD...                      stdout -> $OUT, stderr -> $ERR, status -> $RC
#   check_rc NAME WANT              exit status of the last run
#   check_out NAME WANT             stdout is exactly WANT
#   check_out_has NAME TEXT         stdout contains TEXT (fixed string)
#   check_out_lacks NAME TEXT       stdout does not contain TEXT
#   check_err_has NAME TEXT         stderr contains TEXT
#   check_err_empty NAME            nothing on stderr
#   check_json NAME                 every stdout line is a JSON document
#                                   with "schema_version":1 and a "kind"
#   check_json_field NAME PATH WANT [LINE]
#                                   value at PATH (a.0.b, x.#) of the JSON
#                                   document on stdout line LINE (default 1,
#                                   "$" for the last line)
#   expect_exit NAME WANT CMD...    run + check_rc
#   expect_output NAME WANT CMD...  run + check_out + check_rc 0
#   expect_json_field NAME PATH WANT CMD...
#                                   run + check_rc 0 + check_json_field
#   json_get PATH [LINE]            print the value (for building values)

: "${CELLAR:?CELLAR must name the cellar binary under test}"
T=$(basename "$0" .sh)
JSONTOOL=$(dirname "$CELLAR")/tests/unit/tcore-json
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cellar-$T.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
FAILED=0
OUT= ERR= RC=0

# No colour, whatever the caller's environment says.
NO_COLOR=1
export NO_COLOR
# Each script has its own state store (and REPL history), never the user's.
# Every invocation starts from a fresh cluster (CELLAR_DB=:memory:): a
# session recorded in a file store is recovered by the next invocation, so
# scripts that test the store itself unset CELLAR_DB or name a file.
XDG_STATE_HOME=$TMP/state
CELLAR_DB=:memory:
export XDG_STATE_HOME CELLAR_DB
unset CELLAR_BUSY_TIMEOUT

# wait_for CMD...: poll CMD until it succeeds (up to WAIT_MAX looks 0.05 s
# apart, 20 s by default: a loaded machine, never a fixed sleep); its
# status is the last try's.
WAIT_MAX=${WAIT_MAX:-400}
wait_for() {
	_w=0
	while ! "$@"; do
		_w=$((_w + 1))
		[ "$_w" -ge "$WAIT_MAX" ] && return 1
		sleep 0.05
	done
	return 0
}
# lines_at_least FILE N: FILE has N lines or more
lines_at_least() { [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]; }

# skip NAME WHY: this check cannot run here (not root, a tool missing);
# the runner counts it apart from passes and failures.
skip() { echo "skip - $T/$1: $2"; }
ok() { echo "ok - $T/$1"; }
not_ok() {
	# One line: newlines in the reason would break the report.
	echo "not ok - $T/$1: $(printf '%s' "$2" | tr '\n' '|' | cut -c1-300)"
	FAILED=1
}

run() {
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

# run_stdin INPUT CMD...: like run, with INPUT on stdin.
run_stdin() {
	input=$1; shift
	printf '%s' "$input" | "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

check_rc() {
	if [ "$RC" -eq "$2" ]; then ok "$1"
	else not_ok "$1" "exit status $RC, want $2; stderr: $ERR"; fi
}

check_out() {
	if [ "$OUT" = "$2" ]; then ok "$1"
	else not_ok "$1" "stdout [$OUT], want [$2]"; fi
}

check_out_has() {
	case $OUT in
	*"$2"*) ok "$1" ;;
	*) not_ok "$1" "stdout lacks [$2]: [$OUT]; stderr: $ERR" ;;
	esac
}

check_out_lacks() {
	case $OUT in
	*"$2"*) not_ok "$1" "stdout has [$2]: [$OUT]" ;;
	*) ok "$1" ;;
	esac
}

check_err_has() {
	case $ERR in
	*"$2"*) ok "$1" ;;
	*) not_ok "$1" "stderr lacks [$2]: [$ERR]" ;;
	esac
}

check_err_empty() {
	if [ -z "$ERR" ]; then ok "$1"
	else not_ok "$1" "stderr not empty: [$ERR]"; fi
}

have_jsontool() {
	if [ -x "$JSONTOOL" ]; then return 0; fi
	not_ok "$1" "JSON tool '$JSONTOOL' is missing (make check builds it)"
	return 1
}

check_json() {
	have_jsontool "$1" || return
	if [ -z "$OUT" ]; then
		not_ok "$1" "no output; stderr: $ERR"
		return
	fi
	if ! why=$(printf '%s\n' "$OUT" | "$JSONTOOL" --check 2>&1); then
		not_ok "$1" "invalid JSON: $why"
		return
	fi
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		[ -n "$line" ] || continue
		v=$(printf '%s' "$line" | "$JSONTOOL" --get schema_version 2>&1)
		k=$(printf '%s' "$line" | "$JSONTOOL" --get kind 2>&1)
		if [ "$v" != 1 ] || [ -z "$k" ]; then
			not_ok "$1" "line $n: schema_version [$v] kind [$k]"
			return
		fi
	done <<JSON_EOF
$OUT
JSON_EOF
	ok "$1"
}

# json_get PATH [LINE]: the value at PATH in stdout line LINE (default 1).
json_get() {
	printf '%s\n' "$OUT" | sed -n "${2:-1}p" | "$JSONTOOL" --get "$1" 2>&1
}

check_json_field() {
	have_jsontool "$1" || return
	got=$(json_get "$2" "${4:-1}")
	if [ "$got" = "$3" ]; then ok "$1"
	else not_ok "$1" "$2 is [$got], want [$3]"; fi
}

expect_exit() {
	name=$1 want=$2; shift 2
	run "$@"
	check_rc "$name" "$want"
}

expect_output() {
	name=$1 want=$2; shift 2
	run "$@"
	if [ "$RC" -ne 0 ]; then
		not_ok "$name" "exit status $RC; stderr: $ERR"
		return
	fi
	check_out "$name" "$want"
}

expect_json_field() {
	name=$1 path=$2 want=$3; shift 3
	run "$@"
	if [ "$RC" -ne 0 ]; then
		not_ok "$name" "exit status $RC; stderr: $ERR"
		return
	fi
	check_json_field "$name" "$path" "$want"
}

# A spec of one rack of two 4-GPU nodes (n0, n1) into file $1; the
# caller appends its virtualClusters section.
spec_rack2() {
	cat >"$1" <<'SPEC'
physicalCluster:
  cellTypes:
    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}
    RACK: {childCellType: NODE, childCellNumber: 2}
  physicalCells:
  - cellType: RACK
    cellChildren: [{cellAddress: n0}, {cellAddress: n1}]
SPEC
}

# End of a script: the verdicts are the lines already printed.
done_testing() {
	exit 0
}
