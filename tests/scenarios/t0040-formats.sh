#!/bin/sh
# t0040-formats — output formats: -o json on every command of the table is
# one valid JSON document per command with schema_version 1 and its kind;
# name and csv on listings; the table writer's alignment and --no-header.
. tests/scenarios/lib.sh

# One runnable invocation per command (after a setup that starts a job).
# A command missing here fails the coverage check below.
invocation() {
	case $1 in
	"spec check")	echo "spec check specs/default.yaml" ;;
	load)		echo "load" ;;
	status)		echo "status" ;;
	cells)		echo "cells r0n00" ;;
	vcs)		echo "vcs" ;;
	jobs)		echo "jobs" ;;
	alloc)		echo "alloc j2 --vc dev --gpus 2" ;;
	place)		echo "place j3 --vc research --gpus 8 --pods 2" ;;
	release)	echo "release j1" ;;
	"node bad")	echo "node bad r1n00" ;;
	"node ok")	echo "node ok r1n00" ;;
	help)		echo "help alloc" ;;
	*)		echo "" ;;
	esac
}
kind_of() {
	case $1 in
	"spec check")	echo spec-check ;;
	"node bad"|"node ok") echo node ;;
	*)		echo "$1" ;;
	esac
}

run "$CELLAR" help -o name
check_rc names-rc 0
names=$OUT
[ -n "$names" ] || not_ok names "help -o name printed nothing"
echo "$names" | while IFS= read -r c; do
	inv=$(invocation "$c")
	if [ -z "$inv" ]; then
		not_ok "json-$c" "no invocation for '$c' in t0040; add one"
		continue
	fi
	# shellcheck disable=SC2086
	run "$CELLAR" -c "alloc j1 --vc prod --gpus 8" -c "$inv -o json"
	if [ "$RC" -ne 0 ]; then
		not_ok "json-$c" "'$inv -o json' exited $RC: $ERR"
		continue
	fi
	# The setup's table output comes first; the document is the last line.
	OUT=$(printf '%s\n' "$OUT" | tail -n 1)
	check_json "json-$(echo "$c" | tr ' ' -)"
	check_json_field "json-kind-$(echo "$c" | tr ' ' -)" kind "$(kind_of "$c")"
done

# Global -o json applies to every command of a batch: one line each.
run "$CELLAR" -o json -c 'status; vcs; jobs; cells r0 --depth 0'
check_json global-json
n=$(printf '%s\n' "$OUT" | wc -l)
[ "$n" -eq 4 ] && ok global-json-lines || not_ok global-json-lines "$n lines"

# A command's -o overrides the global one.
run "$CELLAR" -o json -c 'jobs -o name'
check_out override ""

# -o name: one name per line.
expect_output vcs-name "research
prod
dev
infer" "$CELLAR" vcs -o name
expect_output cells-name "r0" "$CELLAR" cells r0 --depth 0 -o name
run "$CELLAR" cells r0 --depth 1 -o name
[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 9 ] && ok cells-name-count || not_ok cells-name-count "[$OUT]"

# -o csv: header of keys, then rows; --no-header drops it.
run "$CELLAR" vcs -o csv
check_rc csv-rc 0
check_out_has csv-header "vc,gpus,used,free,bad,used_pct_of_gpus,opp,jobs,opp_jobs,cells"
check_out_has csv-row 'dev,12,0,12,0,0.0,0,0,0,"2xV100-SOCKET,2xV100-SWITCH"'
run "$CELLAR" --no-header vcs -o csv
check_out_lacks csv-no-header "vc,gpus"
run "$CELLAR" -c 'alloc j --vc prod --gpus 2' -c 'jobs -o csv --no-header'
check_out_has csv-jobs "j,prod,0,2,1,V100-RACK,r1n00,running"

# Table output: aligned columns, numbers right-aligned, no trailing blanks.
run "$CELLAR" vcs
check_out_has table-header "VC        GPUS  USED  FREE  BAD  USED%  OPP  JOBS  OPPJOBS  CELLS"
check_out_has table-row "research    64     0    64    0    0.0    0     0        0  1xV100-RACK"
case $OUT in
*" 
"*) not_ok table-trailing "a line ends in a blank" ;;
*) ok table-trailing ;;
esac
run "$CELLAR" --no-header vcs
check_out_lacks table-no-header "GPUS"
check_out_lacks table-no-legend "USED%:"

# Names are never truncated.
run "$CELLAR" -c 'alloc a-very-long-job-name-that-goes-on-and-on-and-on --vc prod --gpus 1; jobs'
check_out_has long-name "a-very-long-job-name-that-goes-on-and-on-and-on  prod"

# Colour only when asked for and allowed (never into a pipe).
run "$CELLAR" cells r0 --depth 0
case $OUT in
*"$(printf '\033')"*) not_ok no-colour-in-pipe "escape sequence in piped output" ;;
*) ok no-colour-in-pipe ;;
esac

done_testing
