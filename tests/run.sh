#!/bin/sh
# tests/run.sh — run every test tier and end with "N passed, M failed".
#
# Tiers, in order (arguments name some: layers unit fuzz scenarios papers
# man; none: all): the layer check, the C unit tests (build/VARIANT/tests/unit),
# the deterministic fuzz run of the command grammar (tests/fuzz: the seed
# corpus and a fixed set of mutations), the scenario scripts
# (tests/scenarios/t*.sh, run with $CELLAR set to the binary under test), the
# paper tier (tests/papers/p-*.sh: the seed papers' claims), and the
# man-page lint. Every test prints "ok - NAME" or
# "not ok - NAME: why", or "skip - NAME: why" when it cannot run here (not
# root, a tool missing): a skip is counted apart, never as a pass. A
# binary or script that dies without printing its own verdict counts as
# one failure. Exit status is 1 when anything failed.

B=${CELLAR_BUILD:-build/dbg}
CELLAR=$(pwd)/$B/cellar
export CELLAR
top=$(pwd)
log=$(mktemp)
# No test may touch the user's state: the store and the REPL history live
# under a scratch XDG_STATE_HOME (and HOME), and CELLAR_DB from the
# caller's environment is ignored.
state=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$state"' EXIT
XDG_STATE_HOME=$state/state
HOME=$state/home
mkdir -p "$HOME"
export XDG_STATE_HOME HOME
unset CELLAR_DB CELLAR_BUSY_TIMEOUT

run() {   # run NAME CMD...: stream its lines, record a crash as a failure
	name=$1; shift
	out=$(mktemp)
	"$@" >"$out" 2>&1
	rc=$?
	cat "$out"
	cat "$out" >>"$log"
	if [ $rc -ne 0 ] && ! grep -q '^not ok - ' "$out"; then
		echo "not ok - $name: exited $rc without a verdict" | tee -a "$log"
	fi
	if ! grep -q '^\(\(not \)\{0,1\}ok\|skip\) - ' "$out" && [ $rc -eq 0 ]; then
		echo "not ok - $name: printed no test result" | tee -a "$log"
	fi
	rm -f "$out"
}

# The tiers to run: the arguments (make check-papers: papers), else all.
tiers=${*:-layers unit fuzz scenarios papers man}
want() { case " $tiers " in *" $1 "*) return 0 ;; esac; return 1; }

want layers && run layers sh tests/layers.sh
if want unit; then
	for t in "$B"/tests/unit/t*; do
		[ -x "$t" ] || continue
		run "$(basename "$t")" "$t"
	done
fi
if [ -n "$CELLAR_LONG" ]; then fuzz_n=3000; else fuzz_n=300; fi
want fuzz && run fuzz-cmdline "$B/tests/fuzz/fuzz-main" -n "$fuzz_n" \
    -x tests/fuzz/cmdline.dict tests/fuzz/corpus
for tier in scenarios:tests/scenarios/t papers:tests/papers/p-; do
	want "${tier%%:*}" || continue
	for s in "${tier#*:}"*.sh; do
		[ -f "$s" ] || continue
		run "$(basename "$s")" sh "$s"
	done
done
want man && run man-lint sh tests/manlint.sh

cd "$top" || exit 1
pass=$(grep -c '^ok - ' "$log")
fail=$(grep -c '^not ok - ' "$log")
skip=$(grep -c '^skip - ' "$log")
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
