#!/bin/sh
# t0545-dash-follow-reconf.sh — `dash --follow` on a terminal (tmux) keeps
# up with what changes the cluster under it without a restart: a node the
# writer marks bad shows in VC usage and the node map, and a `load` that
# reconfigures the followed run onto another spec (a VC removed, two
# nodes renamed) is rebuilt on the new spec: its name in the status line,
# its VCs, its nodes, the cancelled job's event kept in the log.
. tests/scenarios/lib.sh
. tests/scenarios/lib-tmux.sh
unset CELLAR_DB

db=$TMP/s.db
awk '/^  dev:/{skip=1} /^  infer:/{skip=0} !skip' specs/default.yaml |
    sed -e 's/r1n0\([23]\)/r1z0\1/' >"$TMP/nodev.yaml"
run "$CELLAR" --db "$db" -c 'alloc one --vc prod --gpus 8' -c 'alloc d --vc dev --gpus 2'
check_rc writer-allocs 0

term_start f -- --db "$db" dash --follow --panel vcs
# wide enough for the status line to keep the spec's name
resize f 200 40
expect_screen follow-status f "following $db: run 1 (session, running)"
expect_screen follow-spec f "default.yaml (embedded)"
expect_screen follow-dev f "dev     "
expect_screen follow-dev-used f "used 2  free 10  bad 0  of 12 assigned GPUs"
expect_screen follow-research-ok f "used 0  free 64  bad 0  of 64 assigned GPUs"

# a node goes bad: the bad set changed, the follower rebuilds
run "$CELLAR" --db "$db" node bad r0n05
check_rc writer-node-bad 0
expect_screen follow-node-bad f "used 0  free 56  bad 8  of 64 assigned GPUs"
type_keys f 1 m
expect_screen follow-map-bad f "r0         ,,,,,#,,"

# the run moves onto another spec
run "$CELLAR" --db "$db" load --force "$TMP/nodev.yaml"
check_rc writer-load 0
check_out_has writer-reconfigured "reconfigured session run 1"
expect_screen follow-new-spec f "nodev.yaml"
screen f | grep -q "start the dashboard again" &&
    not_ok follow-no-problem "$(screen f)" || ok follow-no-problem
expect_screen follow-map-still-bad f "r0         ,,,,,#,,"
type_keys f 2
expect_screen follow-vcs-infer f "C infer"
expect_gone follow-dev-gone f " dev "
expect_screen follow-research-bad f "used 0  free 56  bad 8  of 64 assigned GPUs"
# the renamed nodes are the new spec's (the tree, filtered by name)
type_keys f 1 m
type_text f "/r1z02"
type_keys f Enter
expect_screen follow-renamed-node f "r1z02 "
# events recorded on the old spec keep their VCs by name: the cancelled
# job's VC is gone, not the new spec's VC of its old index (infer)
type_keys f Escape 4
expect_screen follow-cancel-event f "d VC 'dev' removed by reconfiguration"
expect_screen follow-kept-event f "B prod     one kept: runs on where it was"
screen f | grep -q "infer *d" && not_ok follow-old-vc "$(screen f)" || ok follow-old-vc
type_keys f q
wait_exit f
[ "$RC" = 0 ] && ok quit-status || not_ok quit-status "exit $RC: $(screen f)"
done_testing
