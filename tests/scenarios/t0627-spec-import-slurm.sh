#!/bin/sh
# t0627-spec-import-slurm — `spec import slurm` on Slurm's own text: the
# fixtures of tests/fixtures/slurm (64 nodes of two GPU types on 4
# switches, a node without GPUs, a DOWN and a DRAIN node; the output of
# the real Slurm 22.05 of t0625, with and without -o), read from files
# and through scontrol (stand-ins on PATH print the fixtures, fail, or
# are missing). What it writes must load (spec check, load, cells);
# broken input, bad options and failing writes give a clear error and
# status. The run against a live Slurm is t0625's (the other half of
# issue 19); these stand-ins print what that Slurm printed.
. tests/scenarios/lib.sh

F=tests/fixtures/slurm
N64=$F/cluster64.nodes
T64=$F/cluster64.topology

# 64 nodes with a topology: a spec that loads, and what it holds.
run "$CELLAR" spec import slurm --nodes "$N64" --topology "$T64"
check_rc c64-rc 0
printf '%s\n' "$OUT" >"$TMP/c64.yaml"
check_out_has c64-header "# A cellar spec imported from Slurm by 'cellar spec import slurm'"
check_out_has c64-edit-vc "#  - virtualClusters: the example VC owns every cell"
check_out_has c64-edit-hooks "hooks: hooks/slurm  # EDIT: where the slurm hook set is"
check_out_has c64-down "cellAddress: gpu017  # DOWN* in Slurm: Not responding"
check_out_has c64-drain "cellAddress: gpu040  # IDLE+DRAIN in Slurm: bad GPU 3"
check_out_has c64-nogpu "#   without GPUs: login01"
check_out_has c64-rack "  - cellType: A100-RACK
    cellAddress: sw0
    cellChildren:
    - cellAddress: gpu001"
check_out_has c64-backend "backend:
  type: local"
check_out_has c64-nosuspend "  suspend: ~
  resume: ~"
check_err_has c64-note "note: imported 64 nodes, 384 GPUs, 2 chains, 4 racks (2 down or drained in Slurm); 1 node without cells"
run "$CELLAR" spec check "$TMP/c64.yaml"
check_rc c64-check-rc 0
check_out_has c64-valid "is valid: 2 chains, 1 vc, 0 pinned cells, 64 nodes, 384 GPUs"
run "$CELLAR" spec check -o json "$TMP/c64.yaml"
check_json_field c64-chain0 chains.0.name A100-RACK
check_json_field c64-chain0-levels chains.0.levels.# 3
check_json_field c64-chain1 chains.1.name V100-RACK
check_json_field c64-vc vcs.0.name all
check_json_field c64-vc-gpus vcs.0.gpus 384
# the spec drives a session: placements on Slurm's nodes and racks
run "$CELLAR" --spec "$TMP/c64.yaml" -c 'alloc big --vc all --gpus 8 --pods 16; jobs -o json'
check_rc c64-alloc-rc 0
run "$CELLAR" --spec "$TMP/c64.yaml" cells -o name sw1
check_out_has c64-cells "sw1/gpu017"

# JSON: one document with the counts and the spec's text.
run "$CELLAR" spec import slurm -o json --nodes "$N64" --topology "$T64"
check_rc json-rc 0
check_json json
check_json_field json-kind kind spec-import
check_json_field json-nodes nodes 64
check_json_field json-gpus gpus 384
check_json_field json-chains chains 2
check_json_field json-racks racks 4
check_json_field json-skipped skipped 1
check_json_field json-unhealthy unhealthy 2
check_json_field json-file file null

# Without the topology: a chain of nodes per node type.
run "$CELLAR" spec import slurm -o json --nodes "$N64"
check_json_field flat-racks racks 0
check_json_field flat-chains chains 2

# --partition, --gpus-per-switch, --vc, --hooks.
run "$CELLAR" spec import slurm -o json --partition a100 --nodes "$N64" --topology "$T64"
check_json_field part-nodes nodes 32
check_json_field part-other other_partitions 33
run "$CELLAR" spec import slurm --partition v100 --gpus-per-switch 2 \
    --vc research --hooks "$(pwd)/specs/hooks/slurm" --nodes "$N64"
check_rc opts-rc 0
printf '%s\n' "$OUT" >"$TMP/opts.yaml"
check_out_has opts-sbatch "SBATCH_PARTITION=v100"
check_out_has opts-hooks "hooks: $(pwd)/specs/hooks/slurm  # EDIT"
run "$CELLAR" spec check -o json "$TMP/opts.yaml"
check_json_field opts-valid valid true
check_json_field opts-levels chains.0.levels.# 3
check_json_field opts-switch chains.0.levels.1.type V100-SWITCH
check_json_field opts-switch-cells chains.0.levels.1.cells 64
check_json_field opts-vc vcs.0.name research
check_json_field opts-vc-gpus vcs.0.gpus 128

# The real Slurm 22.05 of t0625 (n1, n2 x 4 GPUs; n2 drained; a tree
# topology s0, s1 under top), and its output without -o.
run "$CELLAR" spec import slurm --nodes $F/real-2n.nodes --topology $F/real-2n.topology
check_rc real-rc 0
check_out_has real-drain "cellAddress: n2  # IDLE+DRAIN in Slurm: disk failing"
printf '%s\n' "$OUT" >"$TMP/real.yaml"
run "$CELLAR" spec check "$TMP/real.yaml"
check_out_has real-valid "is valid: 1 chain, 1 vc, 0 pinned cells, 2 nodes, 8 GPUs"
run "$CELLAR" spec import slurm -o json --nodes $F/real-2n-multiline.nodes
check_json_field multiline-nodes nodes 2
check_json_field multiline-gpus gpus 8

# --write: the file, never over one without --force.
run "$CELLAR" spec import slurm --nodes "$N64" --topology "$T64" --write "$TMP/w.yaml"
check_rc write-rc 0
check_out write-summary "wrote '$TMP/w.yaml': 64 nodes, 384 GPUs, 2 chains, 4 racks (2 down or drained in Slurm); 1 node without cells (no GPUs, ...)"
if cmp -s "$TMP/w.yaml" "$TMP/c64.yaml"; then ok write-same
else not_ok write-same "the written file differs from standard output"; fi
run "$CELLAR" spec import slurm --nodes "$N64" --write "$TMP/w.yaml"
check_rc write-exists-rc 1
check_err_has write-exists "cellar: '$TMP/w.yaml' exists (--force replaces it)"
if cmp -s "$TMP/w.yaml" "$TMP/c64.yaml"; then ok write-kept
else not_ok write-kept "a refused --write changed the file"; fi
run "$CELLAR" spec import slurm --nodes "$N64" --write "$TMP/w.yaml" --force
check_rc write-force-rc 0
run "$CELLAR" spec import slurm -o json --nodes "$N64" --write "$TMP/w2.yaml"
check_json_field write-json-file file "$TMP/w2.yaml"
check_json_field write-json-spec spec null
run "$CELLAR" spec import slurm --nodes "$N64" --write "$TMP/nosuchdir/w.yaml"
check_rc write-nodir-rc 1
check_err_has write-nodir "cannot write '$TMP/nosuchdir/w.yaml'"
leftover=$(ls "$TMP" | grep -c '\.tmp')
[ "$leftover" -eq 0 ] && ok write-no-tmp || not_ok write-no-tmp "$(ls "$TMP")"

# Through scontrol: stand-ins on PATH print what Slurm printed.
mkdir -p "$TMP/bin" "$TMP/bin-fail" "$TMP/bin-topo"
cat >"$TMP/bin/scontrol" <<EOF
#!/bin/sh
case "\$*" in
"show node -o") cat "$(pwd)/$F/real-2n.nodes" ;;
"show topology") echo "scontrol: error: No topology information available" >&2 ;;
*) echo "unexpected: \$*" >&2; exit 9 ;;
esac
EOF
cat >"$TMP/bin-topo/scontrol" <<EOF
#!/bin/sh
case "\$*" in
"show node -o") cat "$(pwd)/$N64" ;;
"show topology") cat "$(pwd)/$T64" ;;
*) exit 9 ;;
esac
EOF
cat >"$TMP/bin-fail/scontrol" <<'EOF'
#!/bin/sh
echo "slurm_load_node error: Unable to contact slurm controller (connect failure)" >&2
exit 1
EOF
chmod +x "$TMP/bin/scontrol" "$TMP/bin-topo/scontrol" "$TMP/bin-fail/scontrol"
run env PATH="$TMP/bin:$PATH" "$CELLAR" spec import slurm -o json
check_rc scontrol-rc 0
check_json_field scontrol-nodes nodes 2
check_json_field scontrol-racks racks 0
run env PATH="$TMP/bin:$PATH" "$CELLAR" spec import slurm
check_out_has scontrol-source "# (scontrol show node -o, scontrol show topology):"
run env PATH="$TMP/bin-topo:$PATH" "$CELLAR" spec import slurm -o json
check_json_field scontrol-topo-racks racks 4
check_json_field scontrol-topo-nodes nodes 64
run env PATH="$TMP/bin-fail:$PATH" "$CELLAR" spec import slurm
check_rc scontrol-fail-rc 1
check_err_has scontrol-fail "cellar: 'scontrol show node -o' failed (exit 1): slurm_load_node error: Unable to contact slurm controller"
run env PATH="$TMP/nowhere" "$CELLAR" spec import slurm
check_rc scontrol-missing-rc 1
check_err_has scontrol-missing "cannot run 'scontrol': No such file or directory (Slurm's client; or give --nodes FILE)"

# Broken input: an error naming the line, status 3.
printf 'NodeName=n1 Gres=gpu:4 State=IDLE\nthis is not scontrol\n' >"$TMP/garbage"
run "$CELLAR" spec import slurm --nodes "$TMP/garbage"
check_rc garbage-rc 3
check_err_has garbage "'$TMP/garbage' line 2: not a node (want NodeName=... as scontrol show node -o prints): 'this is not scontrol'"
printf 'SwitchName=s0 Nodes=gpu[001-016]\nSwitchName=s1 Nodes=gpu[900-901]\n' >"$TMP/badtopo"
run "$CELLAR" spec import slurm --nodes "$N64" --topology "$TMP/badtopo"
check_rc badtopo-rc 3
check_err_has badtopo "'$TMP/badtopo' line 2: switch 's1' holds node 'gpu900' that the node list does not have"
printf 'NodeName=n1 Gres=gpu:a100:x:y:4 State=IDLE\n' >"$TMP/badgres"
run "$CELLAR" spec import slurm --nodes "$TMP/badgres"
check_rc badgres-rc 3
check_err_has badgres "line 1: node 'n1': cannot read GRES 'gpu:a100:x:y:4'"
: >"$TMP/empty"
run "$CELLAR" spec import slurm --nodes "$TMP/empty"
check_rc empty-rc 3
check_err_has empty "'$TMP/empty' lists no node"
printf 'NodeName=c1 Gres=(null) State=IDLE\n' >"$TMP/nogpu"
run "$CELLAR" spec import slurm --nodes "$TMP/nogpu"
check_rc nogpu-rc 3
check_err_has nogpu "no node with GPUs (Gres=gpu...) to import"
run "$CELLAR" spec import slurm --nodes "$N64" --partition nosuch
check_rc nopart-rc 3
check_err_has nopart "no node in partition 'nosuch'"
run "$CELLAR" spec import slurm --nodes "$TMP/missing"
check_rc missing-rc 3
check_err_has missing "cannot read '$TMP/missing'"
run "$CELLAR" spec import slurm --nodes /bin/sh
check_rc binary-rc 3
check_err_has binary "'/bin/sh' is not text (a NUL byte)"
# bytes that are not text in a reason end up as '?' in a comment
printf 'NodeName=n1 Gres=gpu:2 State=DOWN Reason=\377\376 fan\n' >"$TMP/bytes"
run "$CELLAR" spec import slurm --nodes "$TMP/bytes"
check_rc bytes-rc 0
check_out_has bytes "cellAddress: n1  # DOWN in Slurm: ?? fan"

# Bad options: status 2, the usage line.
expect_exit usage-source 2 "$CELLAR" spec import k8s
check_err_has usage-source-msg "unknown source 'k8s' (slurm)"
expect_exit usage-nosource 2 "$CELLAR" spec import
expect_exit usage-topo 2 "$CELLAR" spec import slurm --topology "$T64"
check_err_has usage-topo-msg "--topology needs --nodes"
expect_exit usage-force 2 "$CELLAR" spec import slurm --nodes "$N64" --force
expect_exit usage-gps 2 "$CELLAR" spec import slurm --nodes "$N64" --gpus-per-switch 0
expect_exit usage-vc 2 "$CELLAR" spec import slurm --nodes "$N64" --vc 'a b'
check_err_has usage-vc-msg "bad VC name 'a b'"
expect_exit usage-hooks 2 "$CELLAR" spec import slurm --nodes "$N64" --hooks ''

done_testing
