#!/bin/sh
# t0540-dash-follow-tui.sh — `dash --follow` on a terminal (tmux, 120x40):
# started before the store exists, it says it waits; when another process
# records its first command it shows the run, and its event log grows with
# each command that process commits (alloc, alloc, release), VC usage
# following; q leaves with status 0 and the store holds what the writer
# wrote only.
. tests/scenarios/lib.sh
. tests/scenarios/lib-tmux.sh
unset CELLAR_DB

db=$TMP/s.db
term_start f -- --db "$db" dash --follow --panel events
expect_screen waiting f "waiting for a state store at '$db'"
[ ! -e "$db" ] && ok waiting-creates-nothing ||
    not_ok waiting-creates-nothing "the follower created '$db'"

run "$CELLAR" --db "$db" alloc one --vc prod --gpus 8
check_rc writer-one 0
expect_screen follow-status f "following $db: run 1 (session, running)"
expect_screen follow-start-one f "prod     one"
run "$CELLAR" --db "$db" alloc two --vc dev --gpus 2
check_rc writer-two 0
expect_screen follow-start-two f "dev      two"
run "$CELLAR" --db "$db" release one
check_rc writer-release 0
expect_screen follow-release f "release    B prod     one"
# VC usage from the rebuilt engine: two's GPUs are the only ones in use
type_keys f 2
expect_screen follow-vcs-dev f "used 2  free 10  bad 0  of 12 assigned GPUs"
expect_screen follow-vcs-prod f "used 0  free 32  bad 0  of 32 assigned GPUs"
type_keys f q
wait_exit f
[ "$RC" = 0 ] && ok quit-status || not_ok quit-status "exit $RC: $(screen f)"
run "$CELLAR" --db "$db" events --run 1 -o csv --no-header
n=$(printf '%s\n' "$OUT" | grep -c .)
# submit and start of each, the release: nothing from the follower
[ "$n" -eq 5 ] && ok store-events || not_ok store-events "the store holds $n events: $OUT"
done_testing
