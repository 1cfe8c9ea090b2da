#!/bin/sh
# tests/papers/run.sh — the paper tier alone (make check-papers): every
# tests/papers/p-*.sh with $CELLAR set, in a scratch state directory, ending
# "N passed, M failed" like tests/run.sh (which runs this tier too).
B=${CELLAR_BUILD:-build/dbg}
CELLAR=$(pwd)/$B/cellar
export CELLAR
log=$(mktemp)
state=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$state"' EXIT
XDG_STATE_HOME=$state/state
HOME=$state/home
mkdir -p "$HOME"
export XDG_STATE_HOME HOME
unset CELLAR_DB CELLAR_BUSY_TIMEOUT
for s in tests/papers/p-*.sh; do
	out=$(mktemp)
	sh "$s" >"$out" 2>&1
	rc=$?
	cat "$out" | tee -a "$log" >/dev/null
	cat "$out"
	if [ $rc -ne 0 ] && ! grep -q '^not ok - ' "$out"; then
		echo "not ok - $(basename "$s"): exited $rc without a verdict" | tee -a "$log"
	fi
	if ! grep -q '^\(not \)\{0,1\}ok - ' "$out"; then
		echo "not ok - $(basename "$s"): printed no test result" | tee -a "$log"
	fi
	rm -f "$out"
done
pass=$(grep -c '^ok - ' "$log")
fail=$(grep -c '^not ok - ' "$log")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
