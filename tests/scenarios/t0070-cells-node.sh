#!/bin/sh
# t0070-cells-node — the cell tree (`cells` by address, node, chain, depth,
# the nested JSON) and node health (`node bad` / `node ok`: hostlists,
# affected jobs, all-or-nothing on unknown nodes).
. tests/scenarios/lib.sh

# Default: every chain from the top down to node level.
run "$CELLAR" cells
check_rc cells-rc 0
check_out_has cells-header "CELL        TYPE       LEVEL  STATE  VC     GPUS  USED  OPP  BAD  FLAGS   JOB  PRIO"
check_out_has cells-indent "
  r0/r0n00  V100-NODE      4  free"
check_out_has cells-pinned "r1/r1n07  V100-NODE      4  bound  infer     8     0    0    0  pinned"
check_out_lacks cells-stops-at-nodes "r0/r0n00/0"
[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 19 ] && ok cells-lines || not_ok cells-lines "[$OUT]"

# A node: down to its GPUs; a GPU shows its job and priority.
run "$CELLAR" -c 'alloc a --vc prod --gpus 2 --priority 7' -c 'cells r1n00'
check_out_has cells-node-leaf "      r1/r1n00/0/0/1  V100             1  bound     prod     1     1    0    0  -      a       7"
run "$CELLAR" cells r1n00 -o name
[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 15 ] && ok cells-node-count || not_ok cells-node-count "[$OUT]"

# A full address, a chain, --depth.
expect_output cells-address "r0/r0n03/1" "$CELLAR" cells r0/r0n03/1 --depth 0 -o name
run "$CELLAR" cells V100-RACK --depth 0 -o name
check_out cells-chain "r0
r1"
run "$CELLAR" cells r0 --depth 2 -o name
[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 25 ] && ok cells-depth || not_ok cells-depth "[$OUT]"
run "$CELLAR" cells r0 --depth 99
check_rc cells-depth-range-rc 2
run "$CELLAR" cells nowhere
check_rc cells-unknown-rc 1
check_err_has cells-unknown "cellar: unknown cell, node or chain 'nowhere'"
run "$CELLAR" cells r0/nowhere
check_err_has cells-unknown-path "'r0/nowhere'"

# JSON: a nested tree.
run "$CELLAR" -c 'alloc a --vc prod --gpus 2 --priority 7' -c 'cells r1n00 -o json'
OUT=$(printf '%s\n' "$OUT" | tail -n 1)
check_json cells-json
check_json_field cells-json-root cells.0.address r1/r1n00
check_json_field cells-json-node cells.0.node r1n00
check_json_field cells-json-state cells.0.state bound
check_json_field cells-json-vc cells.0.vc prod
check_json_field cells-json-used cells.0.used 2
check_json_field cells-json-children cells.0.children.# 2
check_json_field cells-json-leaf cells.0.children.0.children.0.children.1.address r1/r1n00/0/0/1
check_json_field cells-json-leaf-job cells.0.children.0.children.0.children.1.job a
check_json_field cells-json-leaf-prio cells.0.children.0.children.0.children.1.priority 7
check_json_field cells-json-free-leaf cells.0.children.1.children.0.children.0.job null

# node bad: affected jobs, bad counts; node ok clears them.
run "$CELLAR" -c 'alloc a --vc prod --gpus 2' -c 'node bad r1n00' -c 'cells r1n00 --depth 0 -o csv --no-header'
check_rc bad-rc 0
check_out_has bad-table "r1n00  bad    a"
check_out_has bad-count "r1/r1n00,V100-NODE,4,bound,prod,8,2,0,8,"
check_err_has bad-note "note: 1 job still holds cells on bad nodes"
run "$CELLAR" -c 'node bad r1n00; node ok r1n00' -c 'cells r1n00 --depth 0 -o csv --no-header'
check_out_has ok-clears ",8,0,0,0,-,-,-"
run "$CELLAR" -c 'alloc a --vc prod --gpus 8 --pods 2' -c 'node bad r1n[00-01] -o json'
check_json_field bad-json-state state bad '$'
check_json_field bad-json-nodes nodes.# 2 '$'
check_json_field bad-json-name nodes.1.name r1n01 '$'
check_json_field bad-json-affected nodes.0.affected.0 a '$'
run "$CELLAR" -c 'alloc a --vc prod --gpus 8 --pods 2' -c 'node bad r1n00 r1n01 -o name'
check_out_has bad-name "
a"
[ "$(printf '%s\n' "$OUT" | grep -c '^a$')" -eq 1 ] && ok bad-name-once || not_ok bad-name-once "[$OUT]"

# vcs and status see bad GPUs.
run "$CELLAR" -c 'node bad r1n07' -c 'vcs -o csv --no-header' -c 'status -o json'
check_out_has bad-vcs "infer,10,0,"
check_json_field bad-status bad 8 '$'

# Unknown nodes: nothing is marked.
run "$CELLAR" -c 'node bad r0n00 nope' 
check_rc bad-unknown-rc 1
check_err_has bad-unknown "cellar: unknown node 'nope'"
run "$CELLAR" -k -c 'node bad r0n00 nope' -c 'status -o json'
check_json_field bad-atomic bad 0 '$'
run "$CELLAR" node bad 'r0n[00-'
check_rc bad-hostlist-rc 2
check_err_has bad-hostlist "unbalanced '['"
run "$CELLAR" node ok nope
check_err_has ok-unknown "unknown node 'nope'"

done_testing
