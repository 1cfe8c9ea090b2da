#!/bin/sh
# t0535-dash-follow-policy — what `dash --follow` shows of a replay is what
# the emulator source shows at the same point: the queues in the policy's
# order with its priority column (gittins: queue and index), and node
# failures of the trace's faults on the cells (the node map's '#', the
# tree's doomed node, VC usage's bad GPUs). The replay is stopped at a
# checkpoint by the store's SIGKILL hook; the emulator source plays the
# same trace, load, class and policy to that checkpoint's clock.
. tests/scenarios/lib.sh
unset CELLAR_DB

trace=tests/fixtures/traces/synthetic-ygput1000_L5_n32g4.csv
spec=specs/tiresias-n32g4.yaml
db=$TMP/g.db
CELLAR_STORE_KILL=600 run "$CELLAR" --db "$db" replay "$trace" --spec "$spec" \
    --policy gittins --load 8 --class auto --skip-too-big --checkpoint-every 50
check_rc killed-rc 137
run "$CELLAR" --db "$db" runs -o json
now=$(printf '%s\n' "$OUT" | sed -n 's/.*"now":\([0-9.e+]*\).*/\1/p')
# the emulator's clock a hair past the checkpoint's last event (the stored
# clock is printed rounded)
at=$(awk -v n="$now" 'BEGIN { printf "%.3f", n + 0.001 }')
run "$CELLAR" --db "$db" dash --follow --once --size 120x40 --panel queues
check_rc follow-rc 0
follow=$OUT
run "$CELLAR" --db :memory: --spec "$spec" dash --once --size 120x40 --panel queues \
    --trace "$trace" --policy gittins --load 8 --at "$at"
check_rc emu-rc 0
emu=$OUT
# some are pending, so the order is the policy's to make
n=$(printf '%s\n' "$follow" | grep -c ' PD ')
[ "$n" -gt 2 ] && ok some-pending || not_ok some-pending "$n pending: $follow"
# every queue row (all but the status line and the key hints, which
# leave out the emulator's play keys) the same, in the same order
printf '%s\n' "$follow" | sed '1d;$d' >"$TMP/follow.rows"
printf '%s\n' "$emu" | sed '1d;$d' >"$TMP/emu.rows"
if cmp -s "$TMP/follow.rows" "$TMP/emu.rows"; then
	ok queues-as-emulator
else
	not_ok queues-as-emulator "$(diff "$TMP/emu.rows" "$TMP/follow.rows" | head -20)"
fi
# the priority column is gittins' (queue and index), not the raw key
printf '%s\n' "$follow" | grep -Eq ' PD +[0-9]+ q[0-9]+ g=' && ok gittins-prio ||
    not_ok gittins-prio "$follow"
# the first pending row in the follower is the emulator's first
f1=$(printf '%s\n' "$follow" | grep ' PD ' | head -n 1)
e1=$(printf '%s\n' "$emu" | grep ' PD ' | head -n 1)
[ -n "$f1" ] && [ "$f1" = "$e1" ] && ok first-pending || not_ok first-pending "[$f1] vs [$e1]"

# node failures of the trace: n05 stays bad, n06 comes back before the kill
fdb=$TMP/f.db
CELLAR_STORE_KILL=600 run "$CELLAR" --db "$fdb" replay "$trace" --spec "$spec" \
    --policy gittins --load 8 --class auto --skip-too-big --checkpoint-every 50 \
    --fault n05@10m --fault n06@20m-30m
check_rc fault-killed-rc 137
run "$CELLAR" --db "$fdb" dash --follow --once --size 120x20 --map
check_rc fault-map-rc 0
# one character per node, n00 first: n05 is the sixth
row=$(printf '%s\n' "$OUT" | sed -n 's/^sw0  *//p')
case $row in
?????#[!#]*) ok fault-map-bad ;;
*) not_ok fault-map-bad "map row [$row]: $OUT" ;;
esac
printf '%s\n' "$row" | tr -cd '#' | wc -c | grep -qx ' *1' && ok fault-map-one-bad ||
    not_ok fault-map-one-bad "map row [$row]"
# the tree: n05 doomed (X in the health column), bound to the VC, no job
run "$CELLAR" --db "$fdb" dash --follow --once --size 120x20 --panel cells
printf '%s\n' "$OUT" | grep -Eq '^ +\+ n05 +NODE +[a-zA-Z.] X A default +0 +0 +4 +4 ' &&
    ok fault-tree-doomed || not_ok fault-tree-doomed "$OUT"
printf '%s\n' "$OUT" | grep -Eq '^ +\+ n06 +NODE +[a-zA-Z.]   A default' &&
    ok fault-tree-healed || not_ok fault-tree-healed "$OUT"
run "$CELLAR" --db "$fdb" dash --follow --once --size 120x20 --panel vcs
check_out_has fault-vc-bad "bad 4  of 128 assigned GPUs"
done_testing
