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
check_out_has once-tabs " 1 Cells   2 VCs   3 Queues   4 Events   5 Detail"
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

# filter on pending jobs, Enter on the first: explain
run "$CELLAR" dash --once --size 120x30 --at 1d --keys '3/state=PD<Enter><Enter>'
check_rc explain-rc 0
check_out_has explain-job " job demo-philly-"
check_out_has explain-state "state PD (pending)"
check_out_has explain-waits " waits: "
# its wait so far counts (the detail said "queued 0s"): the queue's WAIT
job=$(printf '%s\n' "$OUT" | sed -n 's/^ job \(demo-philly-[0-9]*\).*/\1/p')
run "$CELLAR" dash --once --size 120x60 --at 1d --keys 3
wait=$(printf '%s\n' "$OUT" | awk -v j="$job" '$3 == j && $4 == "PD" { print $(NF-1) }')
case $wait in
''|0s) not_ok explain-queued-wait "job [$job] wait [$wait]" ;;
*)	run "$CELLAR" dash --once --size 120x30 --at 1d --keys '3/state=PD<Enter><Enter>'
	check_out_has explain-queued " queued $wait  ran " ;;
esac

run "$CELLAR" dash --once --size 80x24 --at 1d --map
check_out_has map-header "node map: letter = VC"
check_out_has map-rack "r0         "

run "$CELLAR" dash --once --size 100x30 --keys '?'
check_out_has help-overlay "keys (any key closes this)"
check_out_has help-quit "q      quit"

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
check_out_has colon-jobs-emulated "demo-philly-"
run "$CELLAR" dash --once --size 120x30 --keys ':node bad r0n00<Enter>'
check_out_has colon-refused "changes state: turn on admin mode with :admin first"
run "$CELLAR" dash --once --size 120x30 --keys ':admin<Enter>:node bad r0n00<Enter>'
check_out_has colon-confirm "run 'node bad r0n00'? [y/N]"
check_out_has colon-banner " ADMIN"
# confirmed, it is still refused: the emulated cluster is not a live session
run "$CELLAR" dash --once --size 120x30 --keys ':admin<Enter>:node bad r0n00<Enter>y'
check_out_has colon-emu-refused "error: the cluster on screen is the emulator's"
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

done_testing
