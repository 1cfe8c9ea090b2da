#!/bin/sh
# t0040-formats — output formats: -o json on every command of the table is
# one valid JSON document per command with schema_version 1 and its kind;
# name, csv and wide on listings; the table writer's alignment and
# --no-header.
. tests/scenarios/lib.sh

# Every command writes exactly one JSON document, of a kind named after it:
# the examples of every command (those without their own -o), run in table
# order in one session under a global -o json, give one line each. A new
# command is covered by its examples (its first one is plain, cmd.h
# invariant 4).
num() { case $1 in ''|*[!0-9]*) echo 0 ;; *) echo "$1" ;; esac; }
run "$CELLAR" help -o json
check_rc help-json-rc 0
: >"$TMP/script"
: >"$TMP/firstword"
: >"$TMP/script-live"
: >"$TMP/firstword-live"
n=$(num "$(json_get commands.#)")
[ "$n" -gt 0 ] || not_ok commands "help -o json lists no commands"
i=0
while [ "$i" -lt "$n" ]; do
	name=$(json_get "commands.$i.name")
	if [ "$name" = watch ] || [ "$name" = serve ]; then
		# watch writes the documents of the command it runs and needs
		# a terminal or --count; t0130 covers it. serve runs until a
		# signal: t0690 covers it.
		i=$((i + 1))
		continue
	fi
	m=$(num "$(json_get "commands.$i.examples.#")")
	# A live command's examples start real processes: they run on
	# specs/local.yaml, in a script of their own (cmd.h invariant 4).
	live=
	[ "$(json_get "commands.$i.live")" = true ] && live=-live
	k=0
	while [ "$k" -lt "$m" ]; do
		ex=$(json_get "commands.$i.examples.$k")
		case $ex in
		*" -o "*|*my-cluster*) ;;
		*) printf '%s\n' "$ex" >>"$TMP/script$live"
		   printf '%s\n' "${name%% *}" >>"$TMP/firstword$live" ;;
		esac
		k=$((k + 1))
	done
	grep -qx "${name%% *}" "$TMP/firstword$live" ||
	    not_ok "json-$name" "'$name' has no example without -o"
	i=$((i + 1))
done
run "$CELLAR" -o json -f "$TMP/script"
check_rc json-examples-rc 0
default_out=$OUT
# the live examples go to a server on specs/local.yaml (the process hooks
# keep their state under its $HOME/.cellar/run)
. tests/scenarios/lib-live.sh
SERVE_ENV="HOME=$TMP"
serve_start specs/local.yaml
run env HOME="$TMP" "$CELLAR" -o json -f "$TMP/script-live"
check_rc json-live-examples-rc 0
serve_stop
CELLAR_DB=:memory:
[ -s "$TMP/script-live" ] || not_ok json-live-examples "no examples of live commands"
OUT="$default_out
$OUT"
cat "$TMP/script-live" >>"$TMP/script"
cat "$TMP/firstword-live" >>"$TMP/firstword"
check_json json-examples
lines=$(printf '%s\n' "$OUT" | wc -l)
want=$(wc -l <"$TMP/script")
if [ "$lines" -eq "$want" ]; then ok json-one-per-command
else not_ok json-one-per-command "$lines documents for $want commands"; fi
k=1
while IFS= read -r w; do
	kind=$(json_get kind "$k")
	case $kind in
	"$w"|"$w"-*) ;;
	*) not_ok "json-kind-$k" "command '$(sed -n "${k}p" "$TMP/script")' wrote kind '$kind'" ;;
	esac
	k=$((k + 1))
done <"$TMP/firstword"
ok json-kinds

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
check_out_has csv-header "vc,gpus,used,free,bad,used_pct_of_gpus,opp,jobs,opp_jobs,doomed,cells"
check_out_has csv-row 'dev,12,0,12,0,0.0,0,0,0,0,"2xV100-SOCKET,2xV100-SWITCH"'
run "$CELLAR" --no-header vcs -o csv
check_out_lacks csv-no-header "vc,gpus"
run "$CELLAR" -c 'alloc j --vc prod --gpus 2' -c 'jobs -o csv --no-header'
check_out_has csv-jobs "j,0,prod,R,guaranteed,0,0,2,1,V100-RACK,r1n00,r1/r1n00/0/0,no,-"
# an engine job's outcome columns (csv only, SUBMIT .. GPU_H): one '-' each
if printf '%s\n' "$OUT" | grep -qx 'j,0,prod,R,guaranteed,0,0,2,1,V100-RACK,r1n00,r1/r1n00/0/0,no,-,-,-,-,-,-,-,-,-'
then ok csv-jobs-outcome; else not_ok csv-jobs-outcome "$OUT"; fi

# -o wide: the table plus the wide columns; csv has them all.
run "$CELLAR" -c 'alloc j --vc prod --gpus 2 --lazy' -c 'jobs -o wide'
check_rc wide-rc 0
check_out_has wide-header "JOB  ID  VC    ST  CLASS       PRIO  ORIG  GPUS  PODS  CHAIN      NODES  CELLS         LAZY  REASON"
check_out_has wide-row "j     0  prod  R   guaranteed     0     0     2     1  V100-RACK  r1n00  r1/r1n00/0/0  yes   -"
run "$CELLAR" -c 'alloc j --vc prod --gpus 2' -c 'jobs'
check_out_has table-jobs "JOB  ID  VC    ST  CLASS       PRIO  GPUS  PODS  CHAIN      NODES  REASON"
check_out_lacks table-no-wide "LAZY"
run "$CELLAR" cells r0n00 --depth 0 -o wide
check_out_has wide-cells "r0/r0n00  V100-NODE      4  free   -      8     0    0    0  -      -       -  V100-RACK  r0n00"
run "$CELLAR" status -o wide
check_rc wide-any-table-command 0
run "$CELLAR" status -o name
check_rc no-name-status 2
check_err_has no-name-status-says "command 'status' has no 'name' output (it has: table, wide, json)"

# Table output: aligned columns, numbers right-aligned, no trailing blanks.
run "$CELLAR" vcs
check_out_has table-header "VC        GPUS  USED  FREE  BAD  USED%  OPP  JOBS  OPPJOBS  CELLS"
check_out_lacks table-no-doomed "DOOMED"
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
check_out_has long-name "a-very-long-job-name-that-goes-on-and-on-and-on   0  prod"
run "$CELLAR" -c 'alloc a-very-long-job-name-that-goes-on-and-on-and-on --vc prod --gpus 1; jobs -o wide'
check_out_has long-name-wide "a-very-long-job-name-that-goes-on-and-on-and-on   0  prod"

# Colour only when asked for and allowed (never into a pipe).
run "$CELLAR" cells r0 --depth 0
case $OUT in
*"$(printf '\033')"*) not_ok no-colour-in-pipe "escape sequence in piped output" ;;
*) ok no-colour-in-pipe ;;
esac

done_testing
