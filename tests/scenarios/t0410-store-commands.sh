#!/bin/sh
# t0410-store-commands — the state store through the commands: nothing is
# created by reading; the session's run (alloc, preempt, lazy downgrade,
# release, node bad, name reuse, load); runs, run show, jobs --run,
# events with each filter, history, job show; the audit log; replay --db
# and its stored report; events --follow (a second process writing, SIGINT,
# --until-run-done); db check on a planted problem; export -> import ->
# export; a reader polling while a writer writes.
. tests/scenarios/lib.sh
unset CELLAR_DB	# these test the store files themselves

SQLEXEC=$(dirname "$CELLAR")/tests/helpers/sqlexec
DB=$XDG_STATE_HOME/cellar/cellar.db

# Reading creates nothing.
run "$CELLAR" runs
check_rc empty-runs-rc 0
check_out empty-runs "RUN  KIND  SPEC  MODE  POLICY  TRACE  STATE  NOW  JOBS  CREATED"
check_err_has empty-runs-note "note: no state store at '$DB' (nothing recorded yet)"
run "$CELLAR" events -o json
check_json_field empty-events events.# 0
run "$CELLAR" jobs --run last -o json
check_json_field empty-jobs jobs.# 0
run "$CELLAR" history j
check_rc empty-history-rc 1
check_err_has empty-history "cellar: no state store at '$DB' (nothing recorded yet)"
run "$CELLAR" db check
check_rc empty-check-rc 1
[ ! -e "$XDG_STATE_HOME/cellar" ] && ok nothing-created || not_ok nothing-created "$(ls -R "$XDG_STATE_HOME")"

# The session's run: what the hand commands did.
run "$CELLAR" -c 'alloc lz --vc prod --gpus 8 --pods 4 --lazy' \
    -c 'alloc hi --vc prod --gpus 8 --priority 10' \
    -c 'alloc low --vc research --gpus 8 --pods 8' \
    -c 'alloc top --vc research --gpus 8 --priority 5' \
    -c 'alloc opp --vc dev --gpus 8 --opportunistic' \
    -c 'release hi' -c 'alloc hi --vc prod --gpus 1' -c 'node bad r1n01' \
    -c 'status -o json'
check_rc session-rc 0
# a name whose job has ended names a new job: the old one keeps its own
# name, id and events (store.h invariant 8)
printf '%s\n' "$ERR" | grep -q 'is now' && not_ok session-reuse "$ERR" || ok session-reuse
check_json_field session-status-db db "$DB" '$'
check_json_field session-status-run db_run 1 '$'
[ "$(stat -c %a "$DB")" = 600 ] && ok db-mode || not_ok db-mode "$(stat -c %a "$DB")"
[ "$(stat -c %a "$XDG_STATE_HOME/cellar")" = 700 ] && ok dir-mode ||
    not_ok dir-mode "$(stat -c %a "$XDG_STATE_HOME/cellar")"

run "$CELLAR" jobs --run last -o csv --no-header
check_rc jobs-run-rc 0
# less the outcome columns (times of a session are the wall clock's)
OUT=$(printf '%s\n' "$OUT" | sed 's/\(,[^,]*\)\{8\}$//')
check_out jobs-run 'lz,0,prod,R,downgraded,-1,0,32,4,V100-RACK,r1n[00-03],"r1/r1n00,r1/r1n01,r1/r1n02,r1/r1n03",yes,-
hi,1,prod,CA,guaranteed,10,-,8,1,-,-,-,-,-
low,2,research,PR,guaranteed,0,-,64,8,-,-,-,-,-
top,3,research,R,guaranteed,5,5,8,1,V100-RACK,r0n00,r0/r0n00,no,-
opp,4,dev,R,opportunistic,-1,-1,8,1,V100-RACK,r0n01,r0/r0n01,no,-
hi,5,prod,R,guaranteed,0,0,1,1,V100-RACK,r1n04,r1/r1n04/0/0/0,no,-'
run "$CELLAR" jobs --run 1 --vc prod --filter state=R -o name
check_out jobs-run-vc "lz
hi"
run "$CELLAR" jobs --run 1 --filter state=PR -o json
check_json_field jobs-run-json-state jobs.0.state preempted
check_json_field jobs-run-json-code jobs.0.state_code PR
# holding no cells, its own priority (alloc's default)
check_json_field jobs-run-json-prio jobs.0.priority 0
check_json_field jobs-run-json-orig jobs.0.orig_priority null
check_json_field jobs-run-json-run jobs.0.run 1

run "$CELLAR" history low -o csv --no-header
kinds=$(printf '%s\n' "$OUT" | cut -d, -f3,4,6 | tr '\n' ' ')
[ "$kinds" = "submit,low,- start,low,- preempt,low,top " ] && ok history-kinds ||
    not_ok history-kinds "$kinds"
run "$CELLAR" history lz -o csv --no-header
kinds=$(printf '%s\n' "$OUT" | cut -d, -f3,6 | tr '\n' ' ')
[ "$kinds" = "submit,- start,- downgrade,hi " ] && ok history-lazy ||
    not_ok history-lazy "$kinds"
# by id, exactly one job; by name the newest, saying which are older
run "$CELLAR" history %1 -o csv --no-header
kinds=$(printf '%s\n' "$OUT" | cut -d, -f3,4 | tr '\n' ' ')
[ "$kinds" = "submit,hi start,hi release,hi " ] && ok history-by-id || not_ok history-by-id "$kinds"
run "$CELLAR" history hi -o csv --no-header
kinds=$(printf '%s\n' "$OUT" | cut -d, -f3 | tr '\n' ' ')
[ "$kinds" = "submit start " ] && ok history-newest || not_ok history-newest "$kinds"
check_err_has history-older "note: job 'hi' is id 5, the newest of that name; older jobs of the name: %1 ('history %ID' shows one)"
run "$CELLAR" job show %1 -o json
check_json_field job-show-by-id job.id 1
check_json_field job-show-by-id-state job.state cancelled
run "$CELLAR" history %77
check_rc history-no-id-rc 1
check_err_has history-no-id "no job '%77'"
run "$CELLAR" history nobody
check_rc history-unknown-rc 1
check_err_has history-unknown "cellar: no job 'nobody' in state store '$DB'"

run "$CELLAR" events --kind node-bad -o json
check_json_field events-kind events.# 1
check_json_field events-kind-detail events.0.detail "r1n01; jobs on it: lz"
check_json_field events-kind-cell events.0.cell "r1/r1n01"
run "$CELLAR" events --vc prod -o csv --no-header
[ "$(printf '%s\n' "$OUT" | cut -d, -f5 | sort -u)" = prod ] && ok events-vc ||
    not_ok events-vc "$OUT"
run "$CELLAR" events --job lz -o name
check_out events-job "1
2
5"
run "$CELLAR" events --limit 2 -o csv --no-header
check_out events-limit "$(printf '%s\n' "$OUT" | head -2)"
[ "$(printf '%s\n' "$OUT" | cut -d, -f3 | tr '\n' ' ')" = "start node-bad " ] &&
    ok events-limit-newest || not_ok events-limit-newest "$OUT"
run "$CELLAR" events --since 1h -o json
check_json_field events-since-later events.# 0
run "$CELLAR" events --since 2000-01-01 -o json
check_json_field events-since-date events.# 16
run "$CELLAR" events --kind nope
check_rc events-bad-kind 2
check_err_has events-bad-kind-msg "unknown event kind 'nope' (submit, start"
run "$CELLAR" events --run 9
check_rc events-no-run 1
check_err_has events-no-run-msg "cellar: no run 9 in state store '$DB'"
run "$CELLAR" events --run x
check_rc events-bad-run 2
run "$CELLAR" events --for 1
check_rc events-for-alone 2

run "$CELLAR" job show top -o json
check_rc job-show-rc 0
check_json_field job-show-kind kind job
check_json_field job-show-state job.state_code R
check_json_field job-show-vc job.vc research
check_json_field job-show-gang job.gang 1x8
check_json_field job-show-user job.user "$(id -un)"
check_json_field job-show-nodes placement.nodes r0n00
check_json_field job-show-gpus placement.gpus "r0n00:[0-7]"
check_json_field job-show-cells placement.cells r0/r0n00
check_json_field job-show-prio placement.priority 5
check_json_field job-show-events events.# 2
run "$CELLAR" job show low
check_out_has job-show-text "state        PR (preempted)"
check_out_has job-show-none "placement    none (holds no cells)"
check_out_has job-show-events "last events (history low for all):"

run "$CELLAR" run show last -o json
check_json_field run-show-kind run.kind session
check_json_field run-show-state run.state running
check_json_field run-show-states states.R 4
check_json_field run-show-states-pr states.PR 1
check_json_field run-show-events run.events 16
check_json_field run-show-report report null

# The audit log: every mutating command that ran while the store was
# open, as typed, with its status (a failure before the store was opened
# has nothing to write to).
run "$CELLAR" --db "$TMP/audit.db" -k -c 'release nosuch' -c 'alloc z --vc dev --gpus 1' \
    -c 'release nosuch' -c 'alloc "odd name" --vc prod --gpus 1' -c 'release z'
check_rc audit-run-rc 1
run "$CELLAR" --db "$TMP/audit.db" export "$TMP/audit.json"
check_rc export-rc 0
OUT=$(tr -d '\n' <"$TMP/audit.json")
check_json_field audit-rows tables.audit.rows.# 4
check_json_field audit-cmdline tables.audit.rows.0.4 "alloc z --vc dev --gpus 1"
check_json_field audit-status tables.audit.rows.0.5 0
check_json_field audit-user tables.audit.rows.0.2 "$(id -un)"
check_json_field audit-run tables.audit.rows.0.3 1
check_json_field audit-failed tables.audit.rows.1.5 1
check_json_field audit-failed-cmd tables.audit.rows.1.4 "release nosuch"
check_json_field audit-quoted tables.audit.rows.2.4 "alloc 'odd name' --vc prod --gpus 1"
check_json_field audit-quoted-rc tables.audit.rows.2.5 2
check_json_field audit-last tables.audit.rows.3.4 "release z"
# why a change failed; a change that ran has no reason
check_json_field audit-failed-reason tables.audit.rows.1.6 "unknown job 'nosuch'"
check_json_field audit-ok-reason tables.audit.rows.0.6 null
# the audit listing: who did what, failures with their reason
run "$CELLAR" --db "$TMP/audit.db" audit -o csv --no-header
check_out_has audit-list-ok ",$(id -un),ok,0,1,alloc z --vc dev --gpus 1,-,1"
check_out_has audit-list-failed ",$(id -un),failed,1,1,release nosuch,unknown job 'nosuch',1"
run "$CELLAR" --db "$TMP/audit.db" audit --limit 1 --user "$(id -un)" -o name
check_out audit-list-limit 4
run "$CELLAR" --db "$TMP/audit.db" audit --user nobody-at-all -o name
check_out audit-list-user ""
run "$CELLAR" --db "$TMP/audit.db" audit --refused -o name
check_out audit-list-refused ""
run "$CELLAR" --db "$TMP/audit.db" audit --since yesterday
check_rc audit-list-since-bad 2

# A later process recovers the running session run and goes on in it; a
# load reconfigures that run (here to quota mode), which goes on.
run "$CELLAR" -c 'alloc x --vc dev --gpus 1' -c 'load --mode quota' -c 'alloc y --vc dev --gpus 1'
check_rc second-rc 0
run "$CELLAR" runs -o csv --no-header
check_out_has runs-recovered "1,session,specs/default.yaml (embedded),quota,-,-,running,"
run "$CELLAR" history x -o csv --no-header
[ "$(printf '%s\n' "$OUT" | cut -d, -f3,7 | tail -1)" = "reconfig,kept: runs on where it was" ] &&
    ok load-kept || not_ok load-kept "$OUT"

# replay --db: the run, its report as replay printed it, its series.
run "$CELLAR" --db "$TMP/r.db" replay synth:120 --policy las -o json
check_rc replay-rc 0
check_err_has replay-recorded "note: recorded as run 1 in '$TMP/r.db'"
printf '%s\n' "$OUT" >"$TMP/replay.json"
run "$CELLAR" --db "$TMP/r.db" run show 1 -o json
check_json_field replay-kind run.kind replay
check_json_field replay-policy run.policy las
check_json_field replay-params run.params.policy las
check_json_field replay-state run.state done
got=$(json_get report)
[ "$got" = "$(cat "$TMP/replay.json")" ] && ok replay-report || not_ok replay-report "stored report differs"
samples=$(json_get series.samples)
[ "$samples" -gt 10 ] && ok replay-series || not_ok replay-series "$samples samples"
run "$CELLAR" --db "$TMP/r.db" run show 1
printf '%s\n' "$OUT" | grep -Eq '^GROUP +JOBS +DONE +NEVER ' &&
    ok replay-show-table || not_ok replay-show-table "$OUT"
check_out_has replay-show-param "param.policy"
run "$CELLAR" --db "$TMP/r.db" jobs --run 1 --filter state=CD -o name
[ "$(printf '%s\n' "$OUT" | wc -l)" -ge 100 ] && ok replay-jobs || not_ok replay-jobs "$OUT"
# each job's outcome, as a researcher takes it away (csv): JCT and the
# queuing delay follow from its times, and the GPU-hours add up to the
# report's
run "$CELLAR" --db "$TMP/r.db" jobs --run 1 -o csv
check_rc replay-jobs-csv-rc 0
printf '%s\n' "$OUT" | head -1 | grep -q ',submit,first_start,end,jct,queue_delay,queued,preemptions,gpu_hours$' &&
    ok replay-jobs-csv-header || not_ok replay-jobs-csv-header "$(printf '%s\n' "$OUT" | head -1)"
report_gpu_h=$(OUT=$(cat "$TMP/replay.json") json_get groups.0.gpu_hours)
bad=$(printf '%s\n' "$OUT" | awk -F, -v want="$report_gpu_h" '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ n++; g += $c["gpu_hours"]
	  if ($c["end"] != "-" && ($c["jct"] - ($c["end"] - $c["submit"]))^2 > 1e-4) { print "jct " $1; exit }
	  if ($c["first_start"] != "-" && ($c["queue_delay"] - ($c["first_start"] - $c["submit"]))^2 > 1e-4) { print "delay " $1; exit } }
	END { if (n < 100) print n " rows"; else if ((g - want)^2 > (0.001 * want + 0.01)^2) print "gpu-hours " g " vs " want }')
[ -z "$bad" ] && ok replay-jobs-csv-outcomes || not_ok replay-jobs-csv-outcomes "$bad"
run "$CELLAR" --db "$TMP/r.db" jobs --run 1 -o json
check_json_field replay-jobs-json-jct jobs.0.jct "$(json_get jobs.0.end)"
run "$CELLAR" --db "$TMP/r.db" history synth-3 -o csv --no-header
[ "$(printf '%s\n' "$OUT" | cut -d, -f3 | tr '\n' ' ')" = "submit start complete " ] &&
    ok replay-history || not_ok replay-history "$OUT"
# Without --db nothing is recorded.
run "$CELLAR" replay synth:20
run "$CELLAR" runs -o name
check_out replay-default-no-record "1"

# events --follow: a run that is done ends it at once.
run "$CELLAR" --db "$TMP/r.db" events --follow --until-run-done --limit 3 -o csv --no-header
check_rc follow-done-rc 0
[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 3 ] && ok follow-done || not_ok follow-done "$OUT"
# Another process writes while we follow (its own run: we follow them all).
"$CELLAR" --db "$TMP/f.db" -q alloc first --vc dev --gpus 1
"$CELLAR" --db "$TMP/f.db" events --follow --for 3 -o csv --no-header >"$TMP/follow.out" 2>&1 &
follower=$!
# following: it has printed the events written before it started
wait_for lines_at_least "$TMP/follow.out" 2 || not_ok follow-started "$(cat "$TMP/follow.out")"
"$CELLAR" --db "$TMP/f.db" -q -c 'alloc second --vc dev --gpus 1' -c 'release second'
wait "$follower"
rc=$?
[ "$rc" -eq 0 ] && ok follow-for-rc || not_ok follow-for-rc "$rc"
[ "$(cut -d, -f3,4 "$TMP/follow.out" | tr '\n' ' ')" = "submit,first start,first submit,second start,second release,second " ] &&
    ok follow-sees-writer || not_ok follow-sees-writer "$(cat "$TMP/follow.out")"
# Ctrl-C (SIGINT) stops it with status 130.
"$CELLAR" --db "$TMP/f.db" events --follow >"$TMP/int.out" 2>&1 &
follower=$!
# in its follow loop (its handler set): it has printed the old events
wait_for lines_at_least "$TMP/int.out" 1 || not_ok follow-int-started "$(cat "$TMP/int.out")"
kill -INT "$follower"
wait "$follower"
rc=$?
[ "$rc" -eq 130 ] && ok follow-sigint || not_ok follow-sigint "exit $rc: $(cat "$TMP/int.out")"

# db check finds a planted problem: two running jobs on one GPU.
"$CELLAR" --db "$TMP/bad.db" -q -c 'alloc p --vc dev --gpus 1' -c 'alloc q --vc dev --gpus 1'
"$SQLEXEC" "$TMP/bad.db" "UPDATE placements SET leaves = (SELECT leaves FROM placements WHERE job = 0) WHERE job = 1"
run "$CELLAR" --db "$TMP/bad.db" db check
check_rc check-planted-rc 1
check_out_has check-planted "run 1: leaf cell "
check_out_has check-planted-jobs "is held by jobs 0 and 1"
check_err_has check-planted-summary "cellar: state store '$TMP/bad.db' has 1 problem"
run "$CELLAR" --db "$TMP/bad.db" db check -o json
check_json_field check-json-ok ok false
check_json_field check-json-count count 1
run "$CELLAR" --db "$TMP/f.db" db check -o json
check_json_field check-clean ok true

# export -> import into a new store -> export: the same file.
run "$CELLAR" export "$TMP/a.json"
check_rc export-a 0
run "$CELLAR" --db "$TMP/copy.db" import "$TMP/a.json"
check_rc import-rc 0
check_out_has import-said "imported 1 runs, "
run "$CELLAR" --db "$TMP/copy.db" export "$TMP/b.json"
cmp -s "$TMP/a.json" "$TMP/b.json" && ok round-trip || not_ok round-trip "the dumps differ"
[ "$(stat -c %a "$TMP/a.json")" = 600 ] && ok export-mode || not_ok export-mode "$(stat -c %a "$TMP/a.json")"
run "$CELLAR" --db "$TMP/copy.db" db check
check_rc import-check 0
# Again: not into a store that is not empty, unless --as-new.
run "$CELLAR" --db "$TMP/copy.db" import "$TMP/a.json"
check_rc import-again-rc 1
check_err_has import-again "cellar: cannot import '$TMP/a.json': state store '$TMP/copy.db' is not empty"
run "$CELLAR" --db "$TMP/copy.db" import "$TMP/a.json" --as-new -o json
check_rc import-new-rc 0
check_json_field import-new-runs runs 1
run "$CELLAR" --db "$TMP/copy.db" runs -o name
check_out import-new-ids "1
2"
run "$CELLAR" --db "$TMP/copy.db" history low --run 2 -o csv --no-header
[ "$(printf '%s\n' "$OUT" | cut -d, -f3 | tr '\n' ' ')" = "submit start preempt " ] &&
    ok import-new-history || not_ok import-new-history "$OUT"
run "$CELLAR" --db "$TMP/copy.db" db check
check_rc import-new-check 0
# A dump of store version 3 (events were rows then; the dump format is
# the same): it imports, and its events read back as they were.
sed 's/"store_version":11,/"store_version":3,/' "$TMP/a.json" >"$TMP/v3.json"
grep -q '"store_version":3,' "$TMP/v3.json" && ok v3-dump-made || not_ok v3-dump-made "no version in the dump"
run "$CELLAR" --db "$TMP/v3.db" import "$TMP/v3.json"
check_rc import-v3-rc 0
run "$CELLAR" --db "$TMP/v3.db" events -o csv
V3_EVENTS=$OUT
run "$CELLAR" events -o csv
[ -n "$OUT" ] && [ "$V3_EVENTS" = "$OUT" ] && ok import-v3-events || not_ok import-v3-events "$V3_EVENTS"
printf '{"schema_version":1,"kind":"cellar-dump","store_version":3,"tables":{"runs":{"columns":["id"],"rows":[]}}}\n' >"$TMP/bad.json"
run "$CELLAR" --db "$TMP/empty.db" import "$TMP/bad.json"
check_rc import-bad-rc 1
check_err_has import-bad "table 'runs': 1 columns; this cellar has: id, kind, spec"
run "$CELLAR" --db "$TMP/x.db" import "$TMP/nonexistent.json"
check_rc import-missing-rc 1
[ ! -e "$TMP/x.db" ] && ok import-missing-nothing || not_ok import-missing-nothing "created"
run "$CELLAR" --db "$TMP/copy.db" db vacuum -o json
check_json_field vacuum db "$TMP/copy.db"
run "$CELLAR" --db "$TMP/none.db" db vacuum
check_rc vacuum-none-rc 1
[ ! -e "$TMP/none.db" ] && ok vacuum-none-nothing || not_ok vacuum-none-nothing "created"

# A reader polls while a writer writes: every snapshot is whole.
"$CELLAR" --db "$TMP/c.db" -q alloc seed --vc dev --gpus 1
(
	i=0
	while [ "$i" -lt 40 ]; do
		printf 'alloc w%d --vc research --gpus 8\nrelease w%d\n' "$i" "$i"
		i=$((i + 1))
	done
) >"$TMP/writer.cellar"
"$CELLAR" --db "$TMP/c.db" -q -f "$TMP/writer.cellar" &
writer=$!
bad=
i=0
while [ "$i" -lt 20 ]; do
	doc=$("$CELLAR" --db "$TMP/c.db" jobs --run last -o json 2>&1)
	if ! printf '%s\n' "$doc" | "$JSONTOOL" --check >/dev/null 2>&1; then
		bad="$bad [$doc]"
	else
		# Consistent: the job in R holds nodes, the others none.
		n=$(OUT=$doc json_get jobs.#)
		k=0
		while [ "$k" -lt "$n" ]; do
			st=$(OUT=$doc json_get "jobs.$k.state_code")
			nodes=$(OUT=$doc json_get "jobs.$k.nodes")
			case $st/$nodes in
			R/null|CA/r*) bad="$bad [$st $nodes]" ;;
			esac
			k=$((k + 1))
		done
	fi
	i=$((i + 1))
done
wait "$writer"
[ -z "$bad" ] && ok reader-consistent || not_ok reader-consistent "$bad"
run "$CELLAR" --db "$TMP/c.db" jobs --run last --filter state=CA -o name
[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 40 ] && ok writer-all || not_ok writer-all "$OUT"

# Name reuse inside one group (`-f`: one commit for the batch): each
# alloc is a new job, the earlier ones keep the name.
printf 'alloc a --vc prod --gpus 1\nrelease a\nalloc a --vc prod --gpus 2\nrelease a\nalloc a --vc prod --gpus 4\n' >"$TMP/reuse"
run "$CELLAR" --db "$TMP/reuse.db" -f "$TMP/reuse"
check_rc reuse-group-rc 0
run "$CELLAR" --db "$TMP/reuse.db" jobs --run last -o csv --no-header
[ "$(printf '%s\n' "$OUT" | cut -d, -f1,2,4 | tr '\n' ' ')" = "a,0,CA a,1,CA a,2,R " ] &&
    ok reuse-group-ids || not_ok reuse-group-ids "$OUT"
run "$CELLAR" --db "$TMP/reuse.db" history a -o csv --no-header
[ "$(printf '%s\n' "$OUT" | cut -d, -f3 | tr '\n' ' ')" = "submit start " ] &&
    ok reuse-group-history || not_ok reuse-group-history "$OUT"
check_err_has reuse-group-older "older jobs of the name: %0, %1"
run "$CELLAR" --db "$TMP/reuse.db" db check
check_rc reuse-group-check 0

done_testing
