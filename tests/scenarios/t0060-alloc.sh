#!/bin/sh
# t0060-alloc — the job commands on the default spec: alloc / place /
# release round trip, place changing nothing, the documented alloc -o json
# shape, gangs, priorities and victims, opportunistic jobs, pins, and the
# errors for unknown VC / job / pin / type and for a job that cannot be placed.
. tests/scenarios/lib.sh

# Round trip: alloc, jobs, release, jobs.
run "$CELLAR" -c 'alloc j1 --vc prod --gpus 8' -c 'jobs -o name' -c 'release j1' -c 'jobs -o name' -c 'vcs -o csv --no-header'
check_rc round-trip-rc 0
check_out_has round-trip-started "job 'j1' started in vc 'prod' on chain 'V100-RACK': 8 GPUs in 1 pod, guaranteed"
check_out_has round-trip-listed "
j1
"
check_out_has round-trip-released "released 1 job"
check_out_has round-trip-free "prod,32,0,32,0,0.0,0,0,0,0,4xV100-NODE"

# The documented JSON of alloc.
run "$CELLAR" -c 'alloc j1 --vc prod --gpus 4 --pods 2 --priority 5 -o json'
check_rc alloc-json-rc 0
check_json alloc-json
check_json_field alloc-kind kind alloc
check_json_field alloc-job job j1
check_json_field alloc-id id 0
check_json_field alloc-vc vc prod
check_json_field alloc-chain chain V100-RACK
check_json_field alloc-priority priority 5
check_json_field alloc-gpus gpus 8
check_json_field alloc-opp opportunistic false
check_json_field alloc-dry dry_run false
check_json_field alloc-placed placed true
check_json_field alloc-pods pods.# 2
check_json_field alloc-pod-node pods.0.node r1n00
check_json_field alloc-pod-nodes pods.0.nodes.0 r1n00
check_json_field alloc-pod-gpus pods.0.gpus '["0","1","2","3"]'
check_json_field alloc-pod-cells pods.0.cells.3 r1/r1n00/0/1/3
check_json_field alloc-pod-cell pods.0.cell r1/r1n00/0
check_json_field alloc-victims victims.# 0

# place changes nothing: the same cells, jobs and VC usage before and after.
state() { "$CELLAR" -c "alloc base --vc prod --gpus 8 -o json" -c "$1" -c 'cells -o json --depth 4' -c 'jobs -o json' -c 'vcs -o json' | tail -n 3; }
before=$(state 'status -o json')
after=$(state 'place p --vc prod --gpus 8 --priority 10 -o json')
if [ -n "$before" ] && [ "$before" = "$after" ]; then ok place-changes-nothing
else not_ok place-changes-nothing "state differs after place"; fi
run "$CELLAR" -c 'alloc base --vc prod --gpus 8' -c 'place p --vc prod --gpus 8 -o json'
check_json_field place-kind kind place '$'
check_json_field place-dry dry_run true '$'
check_json_field place-id id null '$'
check_json_field place-node pods.0.node r1n01 '$'
run "$CELLAR" -c 'place p --vc prod --gpus 8' -c 'jobs -o name'
check_out_has place-table "job 'p' would start in vc 'prod'"
check_out_has place-dry-note "(dry run: nothing changed)"
check_out_lacks place-no-job "
p"

# Priorities: a higher-priority job preempts inside its VC; place says so.
fill='alloc low --vc prod --gpus 8 --pods 4'
run "$CELLAR" -c "$fill" -c 'place high --vc prod --gpus 8 --priority 10'
check_out_has place-victim "would preempt job 'low'"
run "$CELLAR" -o json -c "$fill" -c 'alloc high --vc prod --gpus 8 --priority 10' -c 'jobs'
check_json_field preempt-victim victims.0.job low 2
check_json_field preempt-kind victims.0.kind preempt 2
check_json_field preempted-gone jobs.# 1 3
check_json_field preempted-gone-name jobs.0.job high 3
# Equal priority does not preempt: the engine's reason, exit 1.
run "$CELLAR" -c "$fill" -c 'alloc same --vc prod --gpus 8'
check_rc no-room-rc 1
check_err_has no-room "cellar: cannot place job 'same': "
run "$CELLAR" -c "$fill" -c 'alloc same --vc prod --gpus 8 -o json'
check_rc no-room-json-rc 1
check_json_field no-room-json-placed placed false '$'
check_json_field no-room-json-kind kind alloc '$'
got=$(json_get fail '$')
[ -n "$got" ] && [ "$got" != null ] && ok no-room-json-fail || not_ok no-room-json-fail "fail is [$got]"

# Lazy jobs are downgraded to opportunistic instead of stopped.
run "$CELLAR" -o json -c 'alloc lz --vc prod --gpus 8 --pods 4 --lazy' -c 'alloc hi --vc prod --gpus 8 --priority 10' -c 'jobs'
victim_kind=$(json_get victims.0.kind 2)
if [ "$victim_kind" = lazy ]; then
	ok lazy-victim
	check_json_field lazy-state jobs.0.state downgraded 3
else
	# The engine may choose to preempt if it cannot avoid the lazy job's GPUs.
	check_json_field lazy-victim-name victims.0.job lz 2
fi

# Gangs: members expand to pods, up to 8 members.
run "$CELLAR" alloc g --vc dev --gang 2x2,1x4 -o json
check_rc gang-rc 0
check_json_field gang-pods pods.# 3
check_json_field gang-gpus gpus 8
run "$CELLAR" alloc g --vc dev --gang 1x1,1x1,1x1,1x1,1x1,1x1,1x1,1x1,1x1
check_rc gang-too-many-rc 2
check_err_has gang-too-many "more than 8 members"
run "$CELLAR" alloc g --vc dev --gang 2x
check_rc gang-bad-rc 2
run "$CELLAR" alloc g --vc dev --gang 2x2 --pods 2
check_err_has gang-pods "'--pods' does not go with '--gang'"
run "$CELLAR" alloc g --vc dev --gang 2x2 --gpus 2
check_err_has gang-gpus "give either '--gpus' or '--gang'"

# Opportunistic jobs: --opportunistic or --priority -1.
run "$CELLAR" alloc o --vc dev --gpus 8 --opportunistic -o json
check_json_field opp-json opportunistic true
check_json_field opp-prio priority -1
run "$CELLAR" -c 'alloc o --vc dev --gpus 2 --priority -1' -c 'jobs -o csv --no-header'
check_out_has opp-state "o,0,dev,R,opportunistic,-1,-1,2,1,V100-RACK,"
check_out_has opp-state-name ",opportunistic"
run "$CELLAR" alloc o --vc dev --gpus 1 --opportunistic --priority 3
check_rc opp-contradiction-rc 2

# Pins and types.
run "$CELLAR" alloc p --vc infer --pin infer-node --gpus 8 -o json
check_rc pin-rc 0
check_json_field pin-node pods.0.node r1n07
run "$CELLAR" alloc t --vc dev --type V100 --gpus 1
check_rc type-rc 0

# Unknown names are errors that name them.
run "$CELLAR" alloc j --vc nope --gpus 1
check_rc unknown-vc-rc 1
check_err_has unknown-vc "cellar: unknown vc 'nope'"
run "$CELLAR" alloc j --vc dev --gpus 1 --pin nowhere
check_err_has unknown-pin "cellar: unknown pinned cell 'nowhere'"
run "$CELLAR" alloc j --vc dev --gpus 1 --type K80
check_err_has unknown-type "cellar: unknown cell type 'K80'"
run "$CELLAR" alloc j --vc dev --gpus 1 --type V100-NODE
check_err_has not-leaf-type "cellar: cell type 'V100-NODE' is not a leaf (GPU) type"
run "$CELLAR" release nope
check_rc unknown-job-rc 1
check_err_has unknown-job "cellar: unknown job 'nope'"
run "$CELLAR" jobs --vc nope
check_err_has jobs-unknown-vc "cellar: unknown vc 'nope'"
run "$CELLAR" -c 'alloc j --vc dev --gpus 1; alloc j --vc dev --gpus 1'
check_rc duplicate-rc 1
check_err_has duplicate "cellar: job 'j' already exists"
run "$CELLAR" alloc 'bad name' --vc dev --gpus 1
check_rc bad-name-rc 2
run "$CELLAR" alloc j --vc prod --gpus 100
check_rc too-big-rc 1
check_err_has too-big "cellar: cannot place job 'j': "

# release: several names, all or nothing.
run "$CELLAR" -c 'alloc a --vc dev --gpus 1; alloc b --vc dev --gpus 1' -c 'release a nope' -c 'jobs -o name'
check_rc release-atomic-rc 1
run "$CELLAR" -k -c 'alloc a --vc dev --gpus 1; alloc b --vc dev --gpus 1' -c 'release a nope' -c 'jobs -o name'
check_out_has release-atomic "
a
b"
run "$CELLAR" -c 'alloc a --vc dev --gpus 1; alloc b --vc dev --gpus 1' -c 'release a b -o json'
check_json_field release-json jobs.1.job b '$'
check_json_field release-json-gpus jobs.0.gpus 1 '$'
run "$CELLAR" -c 'alloc a --vc dev --gpus 1' -c 'release a a'
check_err_has release-twice "job 'a' named twice"

# jobs --vc filters.
run "$CELLAR" -c 'alloc a --vc dev --gpus 1; alloc b --vc prod --gpus 1' -c 'jobs --vc prod -o name'
check_out_has jobs-filter "
b"
check_out_lacks jobs-filter-out "
a
"

done_testing
