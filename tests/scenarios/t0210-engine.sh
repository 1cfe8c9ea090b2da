#!/bin/sh
# t0210-engine — allocation behaviour through batch commands: bad nodes are
# avoided and doomed cells show in the VC's numbers, pinned cells, gangs,
# leaf types on HiveD's design.yaml, lazy preemption, and opportunistic
# jobs keeping off nodes that VCs use.
. tests/scenarios/lib.sh

FIG3=specs/hived-fig3.yaml
DESIGN=tests/fixtures/hived-configs/design.yaml

# A bad node is avoided while healthy room remains.
run "$CELLAR" --spec "$FIG3" -c 'node bad node1' -c 'alloc c --vc C --gpus 8 --pods 2'
check_rc bad-avoided-rc 0
check_out_lacks bad-avoided "rack/node1"
# Two bad nodes: the VCs cannot all be whole any more; someone sees it.
run "$CELLAR" --spec "$FIG3" -c 'node bad node1' -c 'node bad node2' -c 'vcs -o csv --no-header'
check_rc doomed-rc 0
case $OUT in
*,[1-9]*,0.0,*) ok doomed-visible ;;
*) not_ok doomed-visible "no VC reports bad GPUs: $OUT" ;;
esac
# ... and recovery gives them back.
run "$CELLAR" --spec "$FIG3" -c 'node bad node1; node bad node2; node ok node1; node ok node2' \
    -c 'vcs -o csv --no-header'
check_out_has recovered-A "A,7,0,7,0,0.0"
check_out_has recovered-C "C,18,0,18,0,0.0"
# A job on a node that goes bad is reported.
run "$CELLAR" --spec "$FIG3" -c 'alloc c --vc C --gpus 8' -c 'node bad node1'
check_out_has affected "c"
# Only bad room left: a clear reason.
run "$CELLAR" --spec "$FIG3" -c 'node bad node1; node bad node2; node bad node3; node bad node4' \
    -c 'alloc c --vc C --gpus 8'
check_rc bad-only-rc 1
check_err_has bad-only-why "bad"

# Pinned cells: only requests naming the pin land there.
run "$CELLAR" -c 'alloc p --vc infer --gpus 8 --pin infer-node -o json'
check_rc pin-rc 0
check_json_field pin-node pods.0.node r1n07
run "$CELLAR" -c 'alloc p --vc prod --gpus 1 --pin infer-node'
check_rc pin-not-held 1
check_err_has pin-not-held-why "infer-node"

# Gangs: every pod inside the lowest level that holds it.
run "$CELLAR" -c 'alloc g --vc prod --gang 1x8,2x4 -o json'
check_rc gang-rc 0
check_json_field gang-pods pods.# 3
check_json_field gang-pod0 pods.0.cell r1/r1n00
run "$CELLAR" -c 'alloc big --vc dev --gpus 8'
check_rc gang-too-big 1
check_err_has gang-too-big-why "larger than any cell"

# Leaf types route to their chains (HiveD design.yaml).
run "$CELLAR" --spec "$DESIGN" -c 'alloc t --vc VC2 --gpus 2 --type CT1 -o json'
check_rc type-rc 0
check_json_field type-chain chain CT1-NODE
run "$CELLAR" --spec "$DESIGN" -c 'alloc t --vc VC1 --gpus 2 --type DGX1-P100'
check_rc type-missing 1
check_err_has type-missing-why "DGX1-P100"

# Lazy preemption: the victim keeps running as opportunistic elsewhere.
run "$CELLAR" --spec "$FIG3" -c 'alloc low --vc C --gpus 8 --priority 1 --lazy -o json' \
    -c 'alloc high --vc C --gpus 8 --pods 2 --priority 9 -o json'
check_rc lazy-rc 0
check_json_field lazy-kind victims.0.kind lazy 2
run "$CELLAR" --spec "$FIG3" -c 'alloc low --vc C --gpus 8 --priority 1 --lazy' \
    -c 'alloc high --vc C --gpus 8 --pods 2 --priority 9' -c 'jobs -o name'
check_out_has lazy-still-running "
low
high"

# Opportunistic jobs keep off nodes a VC uses while others are idle.
run "$CELLAR" --spec "$FIG3" -c 'alloc a --vc A --gpus 1' -c 'alloc o --vc A --gpus 7 --opportunistic -o json'
check_rc opp-rc 0
o_node=$(json_get pods.0.node '$')
run "$CELLAR" --spec "$FIG3" -c 'alloc a --vc A --gpus 1 -o json'
a_node=$(json_get pods.0.node)
if [ -n "$o_node" ] && [ "$o_node" != "$a_node" ]; then ok opp-elsewhere
else not_ok opp-elsewhere "opportunistic job on '$o_node', guaranteed on '$a_node'"; fi
