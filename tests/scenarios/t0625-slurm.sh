#!/bin/sh
# t0625-slurm — the slurm hook set (specs/hooks/slurm) on a real Slurm:
# munged, slurmctld and two slurmds (n1, n2, 4 GPUs each) on loopback
# (lib-slurm.sh), a cellar server on a spec of those two nodes, driven as
# an operator does (submit, wait, cancel, job log), and every case checked
# on Slurm's side too (squeue, scontrol show job, the job's output file).
# Needs root; a Slurm that does not come up is a failure, never a skip.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
. tests/scenarios/lib-slurm.sh
slurm_start

# the slurm set README's "cellar on your Slurm cluster in 5 steps", as
# written there: 1. Slurm's node names and GPUs; 2. a spec of those nodes
# on the slurm hooks, suspension off (spec, lib-slurm.sh: the README's,
# with rundir and a short statusInterval); 3. spec check; 4. serve; 5. a
# job
run sinfo -h -N -o '%N %G %t'
check_out step1-sinfo "n1 gpu:4 idle
n2 gpu:4 idle"
spec "$TMP/slurm.yaml" "suspend: ~" "resume: ~"
run "$CELLAR" spec check "$TMP/slurm.yaml"
check_rc step3-spec-check 0
# step 2's alternative: `spec import slurm` asks this Slurm itself
run "$CELLAR" spec import slurm --hooks "$top/specs/hooks/slurm" \
    --write "$TMP/imported.yaml"
check_rc import-live 0
run "$CELLAR" --spec "$TMP/imported.yaml" cells -o csv --no-header
check_rc import-live-loads 0
[ "$(grep -c 'n[12]' "$TMP/imported.yaml")" -ge 2 ] &&
    grep -q 'suspend: ~' "$TMP/imported.yaml" && ok import-live-nodes ||
    not_ok import-live-nodes "$(cat "$TMP/imported.yaml")"
run "$CELLAR" spec check "$TMP/imported.yaml"
check_rc import-live-check 0
serve_start "$TMP/slurm.yaml"
run "$CELLAR" submit hello --vc a --gpus 1 -- sh -c 'echo hello from $SLURMD_NODENAME, GPUs $CUDA_VISIBLE_DEVICES'
check_rc step5-submit 0
run "$CELLAR" wait hello --timeout 60s
check_out step5-completed "hello completed"
run "$CELLAR" job log hello
check_out_has step5-log "submitted pod 0 as Slurm job $(slurm_id hello 0) on n1 (GPUs 0)"
[ "$(cat "$(sf hello.0 .out)" 2>&1)" = "hello from n1, GPUs 0" ] && ok step5-output ||
    not_ok step5-output "$(cat "$(sf hello.0 .out)" 2>&1)"


# 1. a 1-pod job and a 2-pod gang: each pod one Slurm job on the node
# cellar chose, with cellar's GPUs; checked while they run (Slurm's GPU
# indices are in scontrol -d only then), released by a file, and both
# complete, in cellar and in Slurm
hold="while [ ! -e $TMP/go1 ]; do sleep 0.1; done"
# Known gap: sbatch cannot name GPU indices, only a count, and Slurm
# gives the lowest free ones in its own job order; when two pods on a node
# reach Slurm in the other order than cellar placed them (their start
# hooks run in parallel), CUDA_VISIBLE_DEVICES is not cellar's (seen: one
# on n1:2-3 in Slurm, n1:0-1 in cellar). So the gang is submitted once
# one runs in Slurm; the node and count always agree.
run "$CELLAR" submit one --vc a --gpus 2 -- sh -c "$probe; $hold"
check_rc submit-one-rc 0
poll_out "one.0"
run "$CELLAR" submit gang --vc a --gpus 2 --pods 2 -- sh -c "$probe; $hold"
check_rc submit-gang-rc 0
for jp in one.0 gang.0 gang.1; do
	job=${jp%.*} pod=${jp#*.}
	if ! poll_out "$jp"; then
		not_ok "$jp-ran" "no output from Slurm job [$(slurm_id "$job" "$pod")]: $(tail -n 5 "$SERVE_LOG")"
		continue
	fi
	id=$(slurm_id "$job" "$pod")
	line=$(first_line "$jp")
	node=${line#node=}; node=${node%% *}
	cvd=${line#*cvd=}; cvd=${cvd%% *}
	mine=${line#*cellar=}
	st=$(squeue -h -j "$id" -o '%T %N %j')
	[ "$st" = "RUNNING $node $(sn "$jp")" ] && ok "$jp-squeue" ||
	    not_ok "$jp-squeue" "squeue says [$st]"
	[ "$node" = "${mine%%:*}" ] && ok "$jp-node" ||
	    not_ok "$jp-node" "Slurm ran it on [$node], cellar chose [$mine]"
	[ "$cvd" = "${mine#*:}" ] && ok "$jp-cuda-visible-devices" ||
	    not_ok "$jp-cuda-visible-devices" "CUDA_VISIBLE_DEVICES [$cvd], cellar's GPUs [${mine#*:}]"
done
# cellar's own record of the placement (its start event), and Slurm's
# allocation (scontrol -d: node and GRES indices)
w=$(slurm_where "$(slurm_id one 0)")
[ "$(cellar_where one)" = "$w" ] && ok one-placement ||
    not_ok one-placement "cellar [$(cellar_where one)], Slurm [$w]"
w="$(slurm_where "$(slurm_id gang 0)") $(slurm_where "$(slurm_id gang 1)")"
[ "$(cellar_where gang)" = "$w" ] && ok gang-placement ||
    not_ok gang-placement "cellar [$(cellar_where gang)], Slurm [$w]"
echo "# placed by cellar and by Slurm alike: one $(cellar_where one), gang $(cellar_where gang)"
touch "$TMP/go1"
run "$CELLAR" wait one gang --timeout 60s
check_out wait-completed "one completed
gang completed"
for jp in one.0 gang.0 gang.1; do
	id=$(slurm_id "${jp%.*}" "${jp#*.}")
	st=$(slurm_state "$id")
	[ "$st" = COMPLETED ] && ok "$jp-slurm-completed" ||
	    not_ok "$jp-slurm-completed" "Slurm job [$id] is [$st]"
done
run "$CELLAR" job log gang
check_out_has gang-log-pod0 "submitted pod 0 as Slurm job $(slurm_id gang 0) on $(first_line gang.0 | sed 's/.*cellar=\([^:]*\):\(.*\)/\1 (GPUs \2)/')"
check_out_has gang-log-pod1 "submitted pod 1 as Slurm job $(slurm_id gang 1) on $(first_line gang.1 | sed 's/.*cellar=\([^:]*\):\(.*\)/\1 (GPUs \2)/')"
check_out_has gang-log-completed "cellar: completed"

# 3. cancel: a running job is scancelled (its process ends, Slurm says
# CANCELLED); a job still queued in cellar never reaches Slurm
run "$CELLAR" submit full --vc a --gpus 4 --pods 2 -- sh -c "$probe; echo pid=\$\$; exec sleep 300"
check_rc submit-full-rc 0
run "$CELLAR" submit queued --vc a --gpus 4 -- sh -c "$probe"
run "$CELLAR" wait full --state running --timeout 60s
check_out full-running "full running"
run "$CELLAR" -o csv --no-header queue
check_out_has queued-in-cellar "queued"
poll_out "full.1"
has_pid() { grep -q '^pid=' "$(sf full.0 .out)" 2>/dev/null || return 1; }
poll_until has_pid
pid0=$(sed -n 's/^pid=//p' "$(sf full.0 .out)")
id0=$(slurm_id full 0) id1=$(slurm_id full 1)
[ -n "$pid0" ] && kill -0 "$pid0" 2>/dev/null && ok full-process-runs ||
    not_ok full-process-runs "no process [$pid0]: $(cat "$(sf full.0 .out)")"
run "$CELLAR" cancel queued
check_rc cancel-queued-rc 0
run "$CELLAR" cancel full
check_rc cancel-full-rc 0
run "$CELLAR" wait full queued --timeout 60s
check_out cancel-both "full cancelled
queued cancelled"
# scancel returns before Slurm is done (COMPLETING while the processes
# end): cellar is not told, it frees the cells at once; a pod placed there
# next waits PENDING in Slurm for that moment
both_cancelled() {
	[ "$(slurm_state "$id0") $(slurm_state "$id1")" = "CANCELLED CANCELLED" ]
}
poll_until both_cancelled && ok full-slurm-cancelled ||
    not_ok full-slurm-cancelled "Slurm jobs [$id0 $id1] are [$(slurm_state "$id0") $(slurm_state "$id1")]"
live=$(squeue -h -j "$id0,$id1" -o %i 2>&1)
[ -z "$live" ] && ok full-squeue-gone || not_ok full-squeue-gone "squeue lists [$live]"
poll_until sh -c "! kill -0 $pid0 2>/dev/null" && ok full-process-ended ||
    not_ok full-process-ended "process $pid0 still runs"
any=$(squeue -h -t all -n "$(sn queued.0)" -o %i 2>&1)
[ -z "$any" ] && [ ! -e "$(sf queued.0)" ] && [ ! -e "$(sf queued.0 .out)" ] &&
    ok queued-never-in-slurm || not_ok queued-never-in-slurm "Slurm knows [$any]: $(ls "$OUTDIR")"
run "$CELLAR" job log full
check_out_has full-log-scancel "cancelled Slurm job $id0"

# 2. priority preemption without the set's suspend (suspend: ~): the
# low gang is scancelled in Slurm and requeued in cellar, the high job
# runs in Slurm on the node cellar chose, then low runs again (new Slurm
# jobs) and completes
spec "$TMP/nosuspend.yaml" 'suspend: ~' 'resume: ~'
serve_start "$TMP/nosuspend.yaml"
hold="while [ ! -e $TMP/go2 ]; do sleep 0.1; done"
run "$CELLAR" submit low --vc a --gpus 4 --pods 2 --priority 1 -- sh -c "$probe; $hold"
run "$CELLAR" wait low --state running --timeout 60s
check_out preempt-low-running "low running"
poll_out "low.0" && poll_out "low.1"
low0=$(slurm_id low 0) low1=$(slurm_id low 1)
run "$CELLAR" submit high --vc a --gpus 4 --priority 5 -- sh -c "$probe"
run "$CELLAR" wait high --timeout 60s
check_out preempt-high-completed "high completed"
st="$(slurm_state "$low0") $(slurm_state "$low1")"
case $st in
"CANCELLED CANCELLED"|"CANCELLED COMPLETING"|"COMPLETING CANCELLED"|"COMPLETING COMPLETING")
	ok preempt-low-scancelled ;;
*) not_ok preempt-low-scancelled "Slurm jobs [$low0 $low1] are [$st]" ;;
esac
line=$(first_line high.0)
node=${line#node=}; node=${node%% *}
mine=${line#*cellar=}
[ "$node" = "${mine%%:*}" ] && [ "$(slurm_state "$(slurm_id high 0)")" = COMPLETED ] &&
    ok preempt-high-in-slurm || not_ok preempt-high-in-slurm "[$line] $(slurm_state "$(slurm_id high 0)")"
run "$CELLAR" -o csv --no-header events
check_out_has preempt-event "preempt,low,a,high"
check_out_has preempt-requeue "requeue,low"
# low runs again: new Slurm jobs, then completes
rerun() { [ -n "$(slurm_id low 0)" ] && [ "$(slurm_id low 0)" != "$low0" ] &&
    [ -n "$(slurm_id low 1)" ] && [ "$(slurm_id low 1)" != "$low1" ]; }
poll_until rerun && ok preempt-low-resubmitted ||
    not_ok preempt-low-resubmitted "Slurm ids [$(slurm_id low 0) $(slurm_id low 1)], first [$low0 $low1]"
touch "$TMP/go2"
run "$CELLAR" wait low --timeout 60s
check_out preempt-low-completed "low completed"

# 6. kill -9 of the cellar server while its pods run in Slurm, then a
# server again on the same store: it takes the jobs over (they go on in
# Slurm, none is submitted twice) and sees them complete
hold="while [ ! -e $TMP/go6 ]; do sleep 0.1; done"
run "$CELLAR" submit k --vc a --gpus 2 --pods 2 -- sh -c "$probe; $hold"
run "$CELLAR" wait k --state running --timeout 60s
check_out kill-running "k running"
poll_out "k.0" && poll_out "k.1"
ids="$(slurm_id k 0) $(slurm_id k 1)"
serve_kill
serve_again
# the new server asked Slurm (status) and found the pods running
taken_over() {
	"$CELLAR" job log k 2>/dev/null | grep -q 'taken over after a restart (running)'
}
poll_until taken_over && ok kill-taken-over ||
    not_ok kill-taken-over "$("$CELLAR" job log k 2>&1)"
n=$(squeue -h -t all -n "$(sn k.0),$(sn k.1)" -o %i | sort | tr '\n' ' ')
want=$(printf '%s\n' $ids | sort | tr '\n' ' ')
[ "$n" = "$want" ] && ok kill-no-second-sbatch ||
    not_ok kill-no-second-sbatch "Slurm jobs [$n], before the kill [$want]"
touch "$TMP/go6"
run "$CELLAR" wait k --timeout 60s
check_out kill-completed "k completed"
n=$(squeue -h -t all -n "$(sn k.0),$(sn k.1)" -o '%i %T' | sort | tr '\n' ' ')
want=$(printf '%s COMPLETED\n' $ids | sort | tr '\n' ' ')
[ "$n" = "$want" ] && ok kill-slurm-completed || not_ok kill-slurm-completed "[$n], want [$want]"
[ "$(grep -c '^node=' "$(sf k.0 .out)")" = 1 ] && ok kill-ran-once ||
    not_ok kill-ran-once "$(cat "$(sf k.0 .out)")"

# measured: from `cellar submit` returning to the job's process running
# under Slurm (its first line in the output file: the time it started),
# median and worst of LAT_N (issue 19: 20)
LAT_N=20
n=0 lat=
while [ $n -lt $LAT_N ]; do
	n=$((n + 1))
	"$CELLAR" submit "lat$n" --vc a --gpus 1 -- date +%s.%N >/dev/null 2>&1
	t0=$(date +%s.%N)
	if ! poll_out "lat$n.0"; then
		not_ok latency "lat$n never ran: $(tail -n 5 "$SERVE_LOG")"
		break
	fi
	lat="$lat $(awk -v a="$t0" -v b="$(head -n 1 "$(sf lat$n.0 .out)")" 'BEGIN { printf "%.3f", b - a }')"
done
run "$CELLAR" wait $(i=1; while [ $i -le $n ]; do printf 'lat%s ' $i; i=$((i + 1)); done) --timeout 60s
[ "$(printf '%s\n' "$OUT" | grep -c ' completed$')" = $LAT_N ] && ok latency-jobs-completed ||
    not_ok latency-jobs-completed "$OUT"
echo "# submit to running under Slurm, $n jobs (s):$lat"
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END {
	printf "%.3f", (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 }'; }
worst() { printf '%s\n' "$@" | sort -n | tail -n 1; }
slurm_median=$(median $lat)
echo "# median $slurm_median s, worst $(worst $lat) s"

# the same for the process hook set (lib-live.sh's spec: the same two
# nodes, status every 0.5 s), measured the same way: the job's first line
# in its output file ($TMP/run/NODE/JOB.POD/out) against submit returning
live_spec "$TMP/process.yaml" 0.5
serve_start "$TMP/process.yaml"
ran() { for f in "$TMP"/run/n[12]/"$1".*.0/out; do [ -s "$f" ] && return 0; done; return 1; }
n=0 lat=
while [ $n -lt $LAT_N ]; do
	n=$((n + 1))
	"$CELLAR" submit "plat$n" --vc a --gpus 1 -- date +%s.%N >/dev/null 2>&1
	t0=$(date +%s.%N)
	if ! poll_until ran "plat$n"; then
		not_ok process-latency "plat$n never ran: $(tail -n 5 "$SERVE_LOG")"
		break
	fi
	f=$(ls "$TMP"/run/n[12]/"plat$n".*.0/out | head -n 1)
	lat="$lat $(awk -v a="$t0" -v b="$(head -n 1 "$f")" 'BEGIN { printf "%.3f", b - a }')"
done
run "$CELLAR" wait $(i=1; while [ $i -le $n ]; do printf 'plat%s ' $i; i=$((i + 1)); done) --timeout 60s
[ "$(printf '%s\n' "$OUT" | grep -c ' completed$')" = $LAT_N ] && ok process-latency-jobs-completed ||
    not_ok process-latency-jobs-completed "$OUT"
echo "# process set: submit to running, $n jobs (s):$lat"
process_median=$(median $lat)
echo "# process set: median $process_median s, worst $(worst $lat) s"
# No clock limit: the two sets, measured in this run, against each other.
# sbatch, slurmctld's scheduling and slurmd's launch cost about 8x the
# process set's fork (0.90 s against 0.11 s on an idle 2-core machine);
# 25x means a start that waits for something else (a status poll, a
# scheduler cycle), which this check is for.
awk -v s="$slurm_median" -v p="$process_median" 'BEGIN { exit !(s > 0 && p > 0 && s < 25 * p) }' &&
    ok slurm-start-latency ||
    not_ok slurm-start-latency "median $slurm_median s under Slurm, $process_median s for the process set (over 25x)"

done_testing
