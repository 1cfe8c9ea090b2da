#!/bin/sh
# t0045-listings — the generic listing grammar end to end: json lists the
# same rows as the table, in the same order, after --filter and --sort; a
# filtered tree is flat in every format; wide columns filter and sort even
# when not shown; header names work as keys; every listing rejects unknown
# keys with exit 2 and the list of keys.
. tests/scenarios/lib.sh

setup='alloc a --vc prod --gpus 8 --pods 2 -o json; alloc b --vc dev --gpus 1 -o json; alloc c --vc research --gpus 4 --priority 3 -o json'

# jobs: json order is the table's.
run "$CELLAR" -c "$setup" -c 'jobs --sort -gpus -o name' -c 'jobs --sort -gpus -o json'
check_rc jobs-rc 0
names=$(printf '%s\n' "$OUT" | sed -n '4,6p' | tr '\n' ' ')
[ "$names" = "a c b " ] && ok jobs-sorted || not_ok jobs-sorted "[$names]"
check_json_field jobs-json-0 jobs.0.job a '$'
check_json_field jobs-json-1 jobs.1.job c '$'
check_json_field jobs-json-2 jobs.2.job b '$'
check_json_field jobs-json-code jobs.0.state_code R '$'
check_json_field jobs-json-reason jobs.0.reason null '$'

# A wide-only column (id) sorts and filters in plain table output.
run "$CELLAR" -c "$setup" -c 'jobs --sort -id -o name' -c 'jobs --filter id=1 -o name'
[ "$(printf '%s\n' "$OUT" | sed -n '4,7p' | tr '\n' ' ')" = "c b a b " ] && ok wide-key ||
    not_ok wide-key "[$OUT]"

# cells: a filter gives a flat list in json too, children gone.
run "$CELLAR" cells --depth 1 --filter node=r0n0[0-1] -o json
check_rc cells-json-rc 0
check_json_field cells-flat-n cells.# 2
check_json_field cells-flat-0 cells.0.address r0/r0n00
got=$(json_get cells.0.children)
case $got in *"no 'children'"*) ok cells-flat-no-children ;; *) not_ok cells-flat-no-children "[$got]" ;; esac
run "$CELLAR" cells r0n00 --depth 1 -o json
check_json_field cells-tree-children cells.0.children.# 2
run "$CELLAR" cells --depth 1 --filter node=r0n0[0-1]
case $OUT in *"
  r0/"*) not_ok cells-flat-table "indented: [$OUT]" ;; *) ok cells-flat-table ;; esac

# vcs: json keeps the cluster totals whatever the filter.
run "$CELLAR" vcs --filter gpus\>=32 --sort gpus -o json
check_json_field vcs-n vcs.# 2
check_json_field vcs-0 vcs.0.name prod
check_json_field vcs-cluster cluster.gpus 128
# The table header works as a key: USED% is used_pct_of_gpus.
run "$CELLAR" -c 'alloc a --vc dev --gpus 4 -o json' -c 'vcs --sort -USED% -o name'
[ "$(printf '%s\n' "$OUT" | sed -n 2p)" = dev ] && ok header-key || not_ok header-key "[$OUT]"

# help and apropos: listings of commands.
run "$CELLAR" help --filter lists=yes -o json
check_json_field help-listings commands.# 13
run "$CELLAR" help --filter mutates=yes --sort -command -o name
check_out help-mutating "submit
release
node ok
node bad
load
job migrate
import
cancel
alloc"
run "$CELLAR" apropos hostlist -o json
check_json_field apropos-kind kind apropos
run "$CELLAR" apropos hostlist --filter command=cells -o name
check_out apropos-filter "cells"

# Every listing: an unknown key is exit 2 with the keys listed.
for c in cells vcs jobs help "apropos node"; do
	run "$CELLAR" $c --sort nosuchkey
	check_rc "bad-key-$(echo "$c" | tr ' ' -)" 2
	check_err_has "bad-key-$(echo "$c" | tr ' ' -)-says" "unknown sort key 'nosuchkey' (keys: "
done
# Non-listings take no --sort.
run "$CELLAR" status --sort x
check_rc no-sort-status 2
check_err_has no-sort-status-says "unknown option '--sort'"

done_testing
