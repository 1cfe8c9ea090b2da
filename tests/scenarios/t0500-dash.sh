#!/bin/sh
# t0500-dash.sh — the dashboard without a terminal: `dash --once` frames
# (status line, panels, keys replayed with --keys, the node map, detail
# and explain), its JSON document, usage errors, and the refusal to open
# the terminal dashboard where there is no terminal.
. tests/scenarios/lib.sh

run "$CELLAR" dash --once --size 120x30 --at 1d
check_rc once-rc 0
# 120 columns: the spec by its file name, the backend and fragmentation
# left out whole rather than cut (a wider frame shows them)
check_out_has once-status "cellar  default.yaml (embedded)  hived  policy las  t=1d00h playing x600  util "
status=$(printf '%s\n' "$OUT" | head -1 | sed 's/ *$//')
case $status in
*" pend") ok once-status-whole ;;
*) not_ok once-status-whole "status line [$status] does not end with a whole field" ;;
esac
check_out_has once-util "% of 128 GPUs"
check_out_has once-tabs " 1 Overview   2 VCs   3 Queues   4 Events   5 Detail"
check_out_has once-tree "- r0                    V100-RACK"
lines=$(printf '%s\n' "$OUT" | wc -l)
[ "$lines" -eq 30 ] && ok once-height || not_ok once-height "$lines lines"
wide=$(printf '%s\n' "$OUT" | awk 'length($0) > 120' | wc -l)
[ "$wide" -eq 0 ] && ok once-width || not_ok once-width "$wide lines wider than 120"

# the same frame twice: deterministic
first=$OUT
run "$CELLAR" dash --once --size 120x30 --at 1d
[ "$OUT" = "$first" ] && ok once-deterministic || not_ok once-deterministic "frames differ"

run "$CELLAR" dash --once --size 160x30 --at 1d
check_out_has once-status-wide "cellar  specs/default.yaml (embedded)  hived  policy las  emulator  t=1d00h playing x600  util "
check_out_has once-status-wide-frag "% of nodes  "

run "$CELLAR" dash --once --size 120x40 --at 1d --panel vcs
check_out_has vcs-row "A research"
check_out_has vcs-labelled "of 64 assigned GPUs"

run "$CELLAR" dash --once --size 120x40 --at 1d --keys 3
check_out_has keys-queues "VC         JOB                      ST GPUS PRIO"
check_out_has keys-queues-prio " q1 "
# headers over their values: CLASS is the job's class (not the policy's
# 0/1), WAIT a pending job's wait, RUN a running job's time since it
# started; at 80 columns RUN and PRIO go before REASON is cut
run "$CELLAR" dash --once --size 120x40 --at 8h --panel queues
check_out_has queues-header " VC         JOB                      ST GPUS PRIO           CLASS WAIT     RUN      REASON"
out_row=$(printf '%s\n' "$OUT" | grep -E '^.A research [a-z0-9-]+ +PD ' | head -1)
case $out_row in
*" auto  "[0-9]*"Resources"*|*" auto  "[0-9]*"Priority"*|*" auto  "[0-9]*"VCFull"*) ok queues-pending-row ;;
*) not_ok queues-pending-row "[$out_row]" ;;
esac
run "$CELLAR" dash --once --size 120x40 --at 8h --panel queues --keys '/state=R<Enter>'
head=$(printf '%s\n' "$OUT" | sed -n 3p)
run_row=$(printf '%s\n' "$OUT" | grep -E '^.A research [a-z0-9-]+ +R ' | head -1)
# the running time starts under RUN, nothing under WAIT
at=$(awk -v h="$head" -v r="$run_row" 'BEGIN {
	i = index(h, "RUN"); w = index(h, "WAIT")
	print (substr(r, i, 1) ~ /[0-9]/ && substr(r, w, 8) ~ /^ *$/) ? "yes" : "no" }')
printf '%s\n' "$run_row" | grep -Eq ' (gua|opp) ' && [ "$at" = yes ] &&
    ok queues-running-row || not_ok queues-running-row "[$head] [$run_row]"
run "$CELLAR" dash --once --size 80x30 --at 8h --panel queues --keys '/state=PD<Enter>'
check_out_has queues-80-header " VC         JOB                      ST GPUS CLASS WAIT     REASON"
printf '%s\n' "$OUT" | grep -Eq ' PD .* (Resources|Priority|VCFull|Fragmented)$' &&
    ok queues-80-reason || not_ok queues-80-reason "$OUT"

# filter on pending jobs, Enter on the first: explain
run "$CELLAR" dash --once --size 120x30 --at 1d --keys '3/state=PD<Enter><Enter>'
check_rc explain-rc 0
check_out_has explain-job " job philly-"
check_out_has explain-state "state PD (pending)"
check_out_has explain-waits " waits: "
# its wait so far counts (the detail said "queued 0s" while the queue's
# WAIT said 13m50s): all its time pending, so at least the queue's WAIT
# (this wait alone; a job preempted before has waited more)
job=$(printf '%s\n' "$OUT" | sed -n 's/^ job \([^ ]*\).*/\1/p')
queued=$(printf '%s\n' "$OUT" | sed -n 's/^ queued \([^ ]*\)  ran .*/\1/p')
run "$CELLAR" dash --once --size 120x60 --at 1d --keys 3
wait=$(printf '%s\n' "$OUT" | awk -v j="$job" '$3 == j && $4 == "PD" { print $(NF-1) }')
secs() {	# 1d02h, 1h03m, 13m50s, 42s -> seconds
	printf '%s\n' "$1" | awk '{ n = 0; s = $0
		while (match(s, /^[0-9]+[dhms]/)) {
			v = substr(s, 1, RLENGTH - 1); u = substr(s, RLENGTH, 1)
			n += v * (u == "d" ? 86400 : u == "h" ? 3600 : u == "m" ? 60 : 1)
			s = substr(s, RLENGTH + 1) }
		print (s == "" && $0 != "") ? n : -1 }'
}
if [ -n "$wait" ] && [ "$(secs "$wait")" -gt 0 ] &&
    [ "$(secs "$queued")" -ge "$(secs "$wait")" ]; then
	ok explain-queued-wait
else
	not_ok explain-queued-wait "job [$job] queued [$queued], the queue's WAIT [$wait]"
fi

run "$CELLAR" dash --once --size 80x24 --at 1d --map
check_out_has map-header "node map: letter = VC"
check_out_has map-rack "r0         "

run "$CELLAR" dash --once --size 100x30 --keys '?'
check_out_has help-overlay "keys (any key closes this)"
check_out_has help-quit "q       quit"

run "$CELLAR" dash --once --size 40x10
check_out_has too-small "terminal too small (need 60x12)"

run "$CELLAR" dash --once --size 100x30 --unicode
check_out_has utf8-tree "▾ r0"

# ':' commands run read-only; a mutating one is refused without admin
run "$CELLAR" dash --once --size 120x30 --keys ':vcs<Enter>'
check_out_has colon-vcs "research"
# ... on the cluster on screen: a day into the demo, not the idle session
run "$CELLAR" dash --once --size 120x30 --at 1d --keys ':vcs<Enter>'
check_out_has colon-on-screen "cluster: 128 GPUs, of which"
check_out_lacks colon-not-session "of which 0 guaranteed (0.0%), 0 opportunistic"
run "$CELLAR" dash --once --size 120x30 --at 1d --keys ':jobs<Enter>'
check_out_has colon-jobs-emulated "philly-"
# a change on the emulated cluster is refused at once: not sent to
# :admin, not asked y/N, then refused (issue 21)
run "$CELLAR" dash --once --size 120x30 --keys ':node bad r0n00<Enter>'
check_out_has colon-emu-refused "error: the cluster on screen is the emulator's"
check_out_lacks colon-no-admin-detour "turn on admin mode"
run "$CELLAR" dash --once --size 120x30 --keys ':alloc x --vc prod --gpus 1<Enter>'
check_out_has colon-alloc-refused "error: the cluster on screen is the emulator's"
run "$CELLAR" dash --once --size 120x30 --keys ':admin<Enter>:node bad r0n00<Enter>'
check_out_lacks colon-no-confirm "[y/N]"
check_out_has colon-banner " ADMIN"
check_out_has colon-admin-refused "error: the cluster on screen is the emulator's"
# the ':' line: Ctrl-U clears it, Ctrl-W takes a word, Tab lists
run "$CELLAR" dash --once --size 120x30 --keys ':node bad r0n00<C-u>'
check_out_lacks colon-ctrl-u ":node"
printf '%s\n' "$OUT" | tail -1 | grep -qx ':' && ok colon-ctrl-u-empty ||
    not_ok colon-ctrl-u-empty "$(printf '%s\n' "$OUT" | tail -1)"
run "$CELLAR" dash --once --size 120x30 --keys ':node bad r0n00<C-w>'
printf '%s\n' "$OUT" | tail -1 | grep -qx ':node bad' && ok colon-ctrl-w ||
    not_ok colon-ctrl-w "$(printf '%s\n' "$OUT" | tail -1)"
run "$CELLAR" dash --once --size 120x30 --keys ':c<Tab>'
check_out_has colon-tab-lists "cancel  cells  compare"
printf '%s\n' "$OUT" | tail -1 | grep -qx ':c' && ok colon-tab-no-pick ||
    not_ok colon-tab-no-pick "$(printf '%s\n' "$OUT" | tail -1)"
run "$CELLAR" dash --once --size 120x30 --keys ':node bad r0n0<Tab>'
check_out_has colon-tab-nodes "r0n00  r0n01  r0n02"
# the selected row is marked without colour
run "$CELLAR" dash --once --size 120x30 --keys 'j'
check_out_has select-marker ">  + r0n00"

run "$CELLAR" -o json dash --once --size 100x30 --at 6h
check_rc json-rc 0
check_json json
check_json_field json-kind kind dash
check_json_field json-now now 21600

run "$CELLAR" dash --once --size 0x5
check_rc bad-size 2
check_err_has bad-size-msg "invalid --size '0x5'"
run "$CELLAR" dash --once --refresh 10
check_rc bad-refresh 2
check_err_has bad-refresh-msg "invalid --refresh '10': less than 50"
run "$CELLAR" dash --once --size 120x5 --refresh 1000
check_rc refresh-rc 0
run "$CELLAR" dash --once --panel nope
check_rc bad-panel 2
run "$CELLAR" dash --once --keys '<Nope>'
check_rc bad-key 2
check_err_has bad-key-msg "unknown key '<Nope>'"
run "$CELLAR" dash --once --policy nope
check_rc bad-policy 1
check_err_has bad-policy-msg "unknown policy 'nope'"
run "$CELLAR" dash
check_rc no-terminal 1
check_err_has no-terminal-msg "the dashboard needs a terminal"

# a trace whose VCs the spec lacks: the error names --vc-map, which dash takes
run "$CELLAR" dash --once --trace tests/fixtures/traces/philly-sample.csv
check_rc trace-vcs-unmapped 1
check_err_has trace-vcs-hint "map them with --vc-map"
run "$CELLAR" dash --once --size 100x12 --at 6h --trace tests/fixtures/traces/philly-sample.csv --vc-map '*=prod'
check_rc trace-vc-map 0
check_out_has trace-vc-map-runs " 1 run "
expect_exit vc-map-needs-trace 2 "$CELLAR" dash --once --vc-map '*=-'
check_err_has vc-map-needs-trace-msg "--vc-map maps a --trace's VCs"

done_testing
