#!/bin/sh
# t0030-spec — `spec check` on good and bad specs (every diagnostic with
# file:line:col, exit 3 when invalid, a summary when valid) and `load`
# (switching specs and modes, carrying jobs over, a failed load
# leaving the session as it was).
. tests/scenarios/lib.sh

# A valid spec: summary of chains, VCs and pins.
run "$CELLAR" spec check specs/default.yaml
check_rc default-rc 0
check_out_has default-valid "spec 'specs/default.yaml' is valid: 1 chain, 4 vcs, 1 pinned cell, 16 nodes, 128 GPUs"
check_out_has default-chain "V100-RACK"
check_out_has default-node-level "node level"
check_out_has default-vc "research"
check_out_has default-pin "infer-node"

run "$CELLAR" spec check -o json specs/default.yaml
check_json default-json
check_json_field default-json-kind kind spec-check
check_json_field default-json-valid valid true
check_json_field default-json-gpus gpus 128
check_json_field default-json-chain chains.0.name V100-RACK
check_json_field default-json-leaf chains.0.leaf_type V100
check_json_field default-json-levels chains.0.levels.# 5
check_json_field default-json-top chains.0.levels.0.type V100-RACK
check_json_field default-json-vcs vcs.# 4
check_json_field default-json-vc-gpus vcs.0.gpus 64
check_json_field default-json-pin pins.0.vc infer

# Bad specs: one diagnostic each, at the line and column of the problem.
check_bad() {   # check_bad NAME FILE LINE:COL
	run "$CELLAR" spec check "tests/fixtures/bad/$2"
	check_rc "$1-rc" 3
	check_out_has "$1-where" "tests/fixtures/bad/$2:$3: error: "
	check_err_has "$1-summary" "cellar: spec 'tests/fixtures/bad/$2' is invalid"
	run "$CELLAR" spec check -o json "tests/fixtures/bad/$2"
	check_rc "$1-json-rc" 3
	check_json "$1-json"
	check_json_field "$1-json-valid" valid false
	check_json_field "$1-json-severity" diagnostics.0.severity error
}
check_bad syntax syntax.yaml 4:16
check_bad child-number child-number.yaml 6:24
check_bad unknown-type unknown-type.yaml 11:15
check_bad infeasible infeasible.yaml 16:7
check_bad unknown-pin unknown-pin.yaml 14:21
check_bad access-vc access-vc.yaml 14:5

# cellar's own access: section (cellar serve's rules) checks like the rest.
run "$CELLAR" spec check tests/fixtures/specs/access.yaml
check_rc access-rc 0
check_out_has access-valid "spec 'tests/fixtures/specs/access.yaml' is valid"

# HiveD's shortcut paths (CHAIN...TYPE, what lies between ignored): a
# skipped level, a repeated one and the full path load; a type that is not
# in the chain at all is still an error, naming the chain's types.
SC=tests/fixtures/specs/hived-shortcut.yaml
run "$CELLAR" spec check "$SC"
check_rc shortcut-rc 0
check_out_has shortcut-valid "spec '$SC' is valid: 2 chains, 3 vcs"
run "$CELLAR" --spec "$SC" vcs -o json
check_rc shortcut-vcs-rc 0
check_json_field shortcut-skip-gpus vcs.0.gpus 5
check_json_field shortcut-skip-level vcs.0.cells.0.level 1
check_json_field shortcut-whole-type vcs.1.cells.0.type RACK
check_json_field shortcut-whole-gpus vcs.1.gpus 8
check_json_field shortcut-full-type vcs.2.cells.0.type SW
sed 's/RACK\.RACK/RACK.K80/' "$SC" >"$TMP/not-in-chain.yaml"
run "$CELLAR" spec check "$TMP/not-in-chain.yaml"
check_rc shortcut-not-in-chain-rc 3
check_out_has shortcut-not-in-chain "$TMP/not-in-chain.yaml:23:18: error: cell type 'K80' in 'RACK.K80' is not in chain 'RACK', whose types are 'RACK', 'NODE', 'SW', 'GPU'"

run "$CELLAR" spec check /nonexistent/spec.yaml
check_rc missing-rc 3
check_out_has missing "/nonexistent/spec.yaml"

# spec check leaves the session alone.
run "$CELLAR" -c 'spec check tests/fixtures/cmd/small.yaml; status -o json'
check_json_field check-no-load gpus 128 '$'

# load: switch spec, then mode; a spec without the jobs' VC is refused
# (t0430 has the rest of reconfiguration), and --force cancels them.
run "$CELLAR" -c 'alloc j --vc prod --gpus 1; load tests/fixtures/cmd/small.yaml'
check_rc load-refused-rc 1
check_err_has load-refused "the new spec removes VC 'prod' (1 job) that still has jobs"
run "$CELLAR" -c 'alloc j --vc prod --gpus 1; load --force tests/fixtures/cmd/small.yaml; jobs -o name; vcs -o name'
check_rc load-rc 0
check_out_has load-msg "loaded 'tests/fixtures/cmd/small.yaml' in hived mode: 1 chain, 2 vcs, 2 nodes, 8 GPUs"
check_out_has load-dropped "cancelled 'j' (vc 'prod'): VC 'prod' removed by reconfiguration"
case $OUT in
*"1 cancelled
a
b") ok load-new-vcs ;;
*) not_ok load-new-vcs "[$OUT]" ;;
esac

run "$CELLAR" -c 'load --mode quota -o json; status -o json'
check_json load-json
check_json_field load-json-mode mode quota
check_json_field load-json-spec spec "specs/default.yaml (embedded)"
check_json_field load-mode-status mode quota 2

run "$CELLAR" --mode private -c 'status -o json'
check_json_field global-mode mode private

run "$CELLAR" -c 'load tests/fixtures/cmd/small.yaml; load --default -o json'
check_json_field load-default spec "specs/default.yaml (embedded)" 2

run "$CELLAR" -c 'load --default specs/default.yaml'
check_rc load-both-rc 2
run "$CELLAR" -c 'load --mode nope'
check_rc load-bad-mode-rc 2

# A failed load keeps the current spec and its jobs.
run "$CELLAR" -k -c 'alloc j --vc prod --gpus 1; load tests/fixtures/bad/infeasible.yaml; jobs -o name; status -o json'
check_rc failed-load-rc 3
check_err_has failed-load-diag "tests/fixtures/bad/infeasible.yaml:16:7: error:"
check_err_has failed-load-msg "cannot load spec 'tests/fixtures/bad/infeasible.yaml': 1 error"
check_out_has failed-load-keeps-jobs "
j
"
check_out_has failed-load-keeps-spec '"gpus":128'

# Reload with no FILE re-reads the current file.
run "$CELLAR" --spec tests/fixtures/cmd/small.yaml -c 'load -o json'
check_json_field reload spec tests/fixtures/cmd/small.yaml

# A misspelt top-level key is an error naming the key meant (it used to
# be a warning, and the spec was "valid" with no VCs); HiveD's own
# Kubernetes keys load with a note.
sed 's/^virtualClusters:/virtualCluster:/' specs/local.yaml >"$TMP/typo.yaml"
run "$CELLAR" spec check "$TMP/typo.yaml"
check_rc top-typo-rc 3
check_out_has top-typo-msg "error: unknown key 'virtualCluster' in the spec (did you mean 'virtualClusters'? keys: physicalCluster, virtualClusters, backend, access,"
check_out_lacks top-typo-not-valid "is valid"
{ echo "webServerAddress: ':30096'"; cat specs/local.yaml; } >"$TMP/hived-keys.yaml"
run "$CELLAR" spec check "$TMP/hived-keys.yaml"
check_rc hived-key-rc 0
check_out_has hived-key-note "note: key 'webServerAddress' ignored: only used by hived's kubernetes scheduler"

# The notes of a spec come from spec check, load and the --spec that makes
# it current, not again from every later command that recovers it from
# the store (each one-shot used to repeat them).
db=$TMP/notes.db
run "$CELLAR" --db "$db" --spec "$TMP/hived-keys.yaml" alloc j1 --vc prod --gpus 1
check_rc notes-first-rc 0
check_err_has notes-first-load "note: key 'webServerAddress' ignored"
for c in jobs status vcs; do
	run "$CELLAR" --db "$db" $c
	check_rc "notes-later-$c-rc" 0
	check_err_empty "notes-later-$c"
done
run "$CELLAR" --db "$db" --spec "$TMP/hived-keys.yaml" jobs -o name
check_out notes-same-spec-jobs j1
check_err_empty notes-same-spec-quiet
run "$CELLAR" --db "$db" load "$TMP/hived-keys.yaml"
check_rc notes-load-rc 0
check_err_has notes-load "note: key 'webServerAddress' ignored"
run "$CELLAR" --db "$db" spec check "$TMP/hived-keys.yaml"
check_out_has notes-check "note: key 'webServerAddress' ignored"
run "$CELLAR" --db "$db" jobs -o name
check_out notes-after-load-jobs j1
check_err_empty notes-after-load-quiet

# An empty spec loads with a warning and an empty cluster.
run "$CELLAR" --spec tests/fixtures/cmd/empty.yaml -c 'status -o json; cells; jobs -o json'
check_rc empty-rc 0
check_json_field empty-gpus gpus 0

done_testing
