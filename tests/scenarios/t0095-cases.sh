#!/bin/sh
# t0095-cases — expected-output cases: for each tests/scenarios/cases/NAME.cmd
# the batch script runs (on stdin, from the repo root) and its standard
# output, standard error and exit status must be exactly NAME.out, NAME.err
# and NAME.rc. A first line "#! ARGS" gives cellar extra arguments (it is a
# comment to cellar itself). Adding a case is adding files;
# CELLAR_UPDATE_CASES=1 writes the three files from the current binary, to
# review with git diff (it reports no verdicts, so it never passes a test).
. tests/scenarios/lib.sh

dir=tests/scenarios/cases
n=0
for cmd in "$dir"/*.cmd; do
	[ -f "$cmd" ] || continue
	name=$(basename "$cmd" .cmd)
	base=$dir/$name
	n=$((n + 1))
	args=$(sed -n '1s/^#! //p' "$cmd")
	# shellcheck disable=SC2086
	"$CELLAR" $args <"$cmd" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ -n "$CELLAR_UPDATE_CASES" ]; then
		cp "$TMP/out" "$base.out"
		cp "$TMP/err" "$base.err"
		echo "$rc" >"$base.rc"
		echo "# wrote $base.{out,err,rc}"
		continue
	fi
	missing=
	for f in out err rc; do
		[ -f "$base.$f" ] || missing="$missing $name.$f"
	done
	if [ -n "$missing" ]; then
		not_ok "$name" "missing$missing (CELLAR_UPDATE_CASES=1 writes them)"
		continue
	fi
	why=
	[ "$rc" = "$(cat "$base.rc")" ] || why="exit status $rc, want $(cat "$base.rc");"
	cmp -s "$TMP/out" "$base.out" ||
	    why="$why stdout differs: $(diff "$base.out" "$TMP/out" | head -6 | tr '\n' '|')"
	cmp -s "$TMP/err" "$base.err" ||
	    why="$why stderr differs: $(diff "$base.err" "$TMP/err" | head -6 | tr '\n' '|')"
	if [ -z "$why" ]; then ok "$name"
	else not_ok "$name" "$why"; fi
done
[ -n "$CELLAR_UPDATE_CASES" ] || [ "$n" -gt 0 ] || not_ok cases "no cases in $dir"

done_testing
