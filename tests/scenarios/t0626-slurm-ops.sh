#!/bin/sh
# t0626-slurm-ops — the slurm hook set (specs/hooks/slurm) on a real Slurm
# (lib-slurm.sh: munged, slurmctld, slurmds n1 and n2 of 4 GPUs on
# loopback), the operations t0625 leaves out: preemption by suspension
# (scontrol suspend/resume), `job migrate` with the job's checkpoint, a
# node drained and set down in Slurm, and slurmctld restarted while
# cellar runs. Each case has a cellar server of its own, and is checked
# on Slurm's side (squeue, scontrol show job, the job's output file) and
# cellar's (queue, status, events, job log). Needs root; a Slurm that does
# not come up is a failure, never a skip.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
. tests/scenarios/lib-slurm.sh
slurm_start

# pstate PID: the process's state letter (T: stopped), or gone
pstate() {
	s=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
	echo "${s:-gone}"
}
# has_event TEXT: cellar's events (csv) have a line containing TEXT
has_event() { "$CELLAR" -o csv --no-header events 2>/dev/null | grep -qF "$1"; }
# count_events TEXT
count_events() { "$CELLAR" -o csv --no-header events 2>/dev/null | grep -cF "$1"; }
# in_log JOB TEXT: the job's log (its hooks' words, cellar's) has TEXT
in_log() { "$CELLAR" job log "$1" 2>/dev/null | grep -qF "$2"; }
# lines FILE PATTERN: how many lines of FILE match
lines() { n=$(grep -c "$2" "$1" 2>/dev/null); echo "${n:-0}"; }
# more_ticks FILE N: FILE has more than N tick lines
more_ticks() { [ "$(lines "$1" '^tick ')" -gt "$2" ]; }
# slurm_on ID STATE NODE: squeue lists it in STATE on NODE
slurm_on() { [ "$(squeue -h -j "$1" -o '%T %N' 2>/dev/null)" = "$2 $3" ]; }
# pid_in JOB.POD: the pid its command printed (pid=...)
pid_in() { sed -n 's/^pid=//p' "$(sf "$1" .out)" 2>/dev/null | head -n 1; }
has_pid() { [ -n "$(pid_in "$1")" ]; }

# ---- 2b. priority preemption with the set's suspend and resume ----
# low (a gang on both nodes, ticking) is suspended for high: Slurm shows
# it SUSPENDED, its processes stopped, and it keeps its GPUs (scontrol -d
# still lists their indices), so high's sbatch waits PENDING (Resources)
# in Slurm while cellar, having given high low's cells, says high runs.
# Nothing frees them on its own: cellar resumes low only after high ends,
# and high cannot start before low releases. Cancelling high resumes low
# (RUNNING again, the same processes tick on) and it completes.
spec "$TMP/susp.yaml"
serve_start "$TMP/susp.yaml"
tick="i=0; while [ ! -e $TMP/go2 ]; do i=\$((i + 1)); echo tick \$i; sleep 0.2; done"
run "$CELLAR" submit low --vc a --gpus 4 --pods 2 --priority 1 -- sh -c "$probe; echo pid=\$\$; $tick"
run "$CELLAR" wait low --state running --timeout 60s
check_out susp-low-running "low running"
poll_until has_pid low.0 && poll_until has_pid low.1
low0=$(slurm_id low 0) low1=$(slurm_id low 1)
pid0=$(pid_in low.0)
poll_until more_ticks "$(sf low.0 .out)" 2
run "$CELLAR" submit high --vc a --gpus 4 --priority 5 -- sh -c "$probe"
check_rc susp-submit-high-rc 0
both_suspended() { slurm_is "$low0" SUSPENDED && slurm_is "$low1" SUSPENDED; }
poll_until both_suspended && ok susp-slurm-suspended ||
    not_ok susp-slurm-suspended "Slurm jobs [$low0 $low1] are [$(slurm_state "$low0") $(slurm_state "$low1")]"
run "$CELLAR" wait low --state suspended --timeout 30s
check_out susp-cellar-suspended "low suspended"
poll_until sh -c "[ \"\$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' /proc/$pid0/stat)\" = T ]" &&
    ok susp-process-stopped || not_ok susp-process-stopped "pid $pid0 is [$(pstate "$pid0")]"
w="$(slurm_where "$low0") $(slurm_where "$low1")"
[ "$w" = "n1:0-3 n2:0-3" ] && ok susp-slurm-keeps-gpus ||
    not_ok susp-slurm-keeps-gpus "a suspended job's GRES in scontrol -d: [$w]"
high0=$(slurm_id high 0)
pending_resources() {
	[ "$(squeue -h -j "$high0" -o '%T %r' 2>/dev/null)" = "PENDING Resources" ]
}
poll_until pending_resources && ok susp-high-pending-in-slurm ||
    not_ok susp-high-pending-in-slurm "Slurm job [$high0] is [$(squeue -h -j "$high0" -o '%T %r' 2>&1)]"
[ ! -s "$(sf high.0 .out)" ] && ok susp-high-never-ran ||
    not_ok susp-high-never-ran "$(cat "$(sf high.0 .out)")"
run "$CELLAR" -o csv --no-header queue
printf '%s\n' "$OUT" | grep -qx "a,-,high,[0-9]*,$(id -un),R,running,5,4,1,n1,-" &&
    ok susp-cellar-says-high-runs || not_ok susp-cellar-says-high-runs "$OUT"
printf '%s\n' "$OUT" | grep -qx "a,-,low,[0-9]*,$(id -un),S,suspended,1,8,2,n\[1-2\],-" &&
    ok susp-cellar-low-suspended || not_ok susp-cellar-low-suspended "$OUT"
run "$CELLAR" -o csv --no-header events
check_out_has susp-event ",suspend,low,a,high,n1:[0-3] n2:[0-3],"
echo "# while low is SUSPENDED in Slurm its GPUs stay allocated (GRES $w): high waits $(squeue -h -j "$high0" -o '%T (%r)'), cellar says high runs"
n0=$(lines "$(sf low.0 .out)" '^tick ')
run "$CELLAR" cancel high
check_rc susp-cancel-high-rc 0
both_running() { slurm_is "$low0" RUNNING && slurm_is "$low1" RUNNING; }
poll_until both_running && ok susp-slurm-resumed ||
    not_ok susp-slurm-resumed "Slurm jobs [$low0 $low1] are [$(slurm_state "$low0") $(slurm_state "$low1")]"
run "$CELLAR" wait low --state running --timeout 30s
check_out susp-cellar-resumed "low running"
poll_until more_ticks "$(sf low.0 .out)" "$n0" && [ "$(pstate "$pid0")" != T ] &&
    ok susp-ticks-on || not_ok susp-ticks-on "[$(lines "$(sf low.0 .out)" '^tick ')] ticks, [$n0] before; pid $pid0 [$(pstate "$pid0")]"
[ "$(lines "$(sf low.0 .out)" '^node=')" = 1 ] && [ "$(pid_in low.0)" = "$pid0" ] &&
    awk '/^tick / { if ($2 != ++n) bad = 1 } END { exit bad }' "$(sf low.0 .out)" &&
    ok susp-same-run || not_ok susp-same-run "$(head -n 3 "$(sf low.0 .out)" | tr '\n' ' ')"
run "$CELLAR" -o csv --no-header events
check_out_has susp-resume-event ",resume,low,a,-,n1:[0-3] n2:[0-3],"
touch "$TMP/go2"
run "$CELLAR" wait low high --timeout 60s
check_out susp-ends "low completed
high cancelled"
[ "$(slurm_state "$low0") $(slurm_state "$low1")" = "COMPLETED COMPLETED" ] &&
    ok susp-slurm-completed || not_ok susp-slurm-completed "[$(slurm_state "$low0") $(slurm_state "$low1")]"
poll_until slurm_is "$high0" CANCELLED && ok susp-high-slurm-cancelled ||
    not_ok susp-high-slurm-cancelled "[$(slurm_state "$high0")]"

# ---- 4. job migrate to the other node, with the job's checkpoint ----
# m counts steps on n1 from its checkpoint file; `job migrate m --node n2`
# runs the stop hook (CELLAR_TO_NODE set): CELLAR_CHECKPOINT, here on the
# hook's host with SLURM_JOB_ID, saves the last step, then scancel; the
# migrate hook sbatches m pinned to n2, where it goes on from the
# checkpoint. Slurm: the old job CANCELLED and gone from squeue, a new
# one RUNNING on n2; the checkpoint ran once.
spec "$TMP/mig.yaml"
serve_start "$TMP/mig.yaml"
cat >"$TMP/ckpt.sh" <<'CKPT'
echo "$SLURM_JOB_ID $CELLAR_NODE:$CELLAR_GPUS -> $CELLAR_TO_NODE:$CELLAR_TO_GPUS" >>"$CELLAR_RUNDIR/m.ckpts"
sed -n 's/^step //p' "$CELLAR_RUNDIR/slurm/$CELLAR_JOB.$CELLAR_JOB_ID.$CELLAR_POD.out" | tail -n 1 >"$CELLAR_RUNDIR/m.ckpt"
echo "checkpoint at step $(cat "$CELLAR_RUNDIR/m.ckpt")"
CKPT
steps="s=\$(cat $TMP/run/m.ckpt 2>/dev/null || echo 0); while [ ! -e $TMP/go4 ]; do s=\$((s + 1)); echo step \$s; sleep 0.1; done"
run "$CELLAR" submit m --vc a --gpus 4 --env "CELLAR_CHECKPOINT=sh $TMP/ckpt.sh" -- sh -c "$probe; $steps"
run "$CELLAR" wait m --state running --timeout 60s
check_out mig-running "m running"
m_steps() { [ "$(lines "$(sf m.0 .out)" '^step ')" -ge 3 ]; }
poll_until m_steps
old=$(slurm_id m 0)
poll_until slurm_on "$old" RUNNING n1 && ok mig-on-n1 || not_ok mig-on-n1 "$(squeue -h -j "$old" -o '%T %N' 2>&1)"
run "$CELLAR" job migrate m --node n2
check_rc mig-rc 0
new_id() { id=$(slurm_id m 0); [ -n "$id" ] && [ "$id" != "$old" ]; }
poll_until new_id
new=$(slurm_id m 0)
poll_until slurm_on "$new" RUNNING n2 && ok mig-slurm-new-on-n2 ||
    not_ok mig-slurm-new-on-n2 "Slurm job [$new]: [$(squeue -h -j "$new" -o '%T %N' 2>&1)]"
poll_until slurm_is "$old" CANCELLED && [ -z "$(squeue -h -j "$old" -o %i 2>/dev/null)" ] &&
    ok mig-slurm-old-gone || not_ok mig-slurm-old-gone "Slurm job [$old] is [$(slurm_state "$old")]"
live=$(squeue -h -n "$(sn m.0)" -o '%i %N' 2>&1)
[ "$live" = "$new n2" ] && ok mig-one-live-job || not_ok mig-one-live-job "squeue lists [$live]"
[ "$(cat "$TMP/run/m.ckpts" 2>&1)" = "$old n1:0,1,2,3 -> n2:0,1,2,3" ] && ok mig-checkpoint-once ||
    not_ok mig-checkpoint-once "$(cat "$TMP/run/m.ckpts" 2>&1)"
poll_out "m.0"
first=$(sed -n 's/^step //p' "$(sf m.0 .out)" | head -n 1)
ck=$(cat "$TMP/run/m.ckpt" 2>/dev/null)
case $(first_line m.0) in "node=n2 cvd=0,1,2,3 cellar=n2:0,1,2,3") ok mig-new-run-on-n2 ;;
*) not_ok mig-new-run-on-n2 "$(first_line m.0)" ;; esac
m_went_on() { [ -n "$(sed -n 's/^step //p' "$(sf m.0 .out)" | head -n 1)" ]; }
poll_until m_went_on
first=$(sed -n 's/^step //p' "$(sf m.0 .out)" | head -n 1)
[ -n "$ck" ] && [ "$first" = $((ck + 1)) ] && ok mig-goes-on-from-checkpoint ||
    not_ok mig-goes-on-from-checkpoint "checkpoint [$ck], first step on n2 [$first]"
run "$CELLAR" -o csv --no-header queue
printf '%s\n' "$OUT" | grep -qx "a,-,m,[0-9]*,$(id -un),R,running,0,4,1,n2,-" &&
    ok mig-queue || not_ok mig-queue "$OUT"
touch "$TMP/go4"
run "$CELLAR" wait m --timeout 60s
check_out mig-completed "m completed"
slurm_is "$new" COMPLETED && ok mig-slurm-completed || not_ok mig-slurm-completed "[$(slurm_state "$new")]"
run "$CELLAR" -o csv --no-header events
check_out_has mig-event ",migrate,m,a,-,pod 0: n1:[0-3] -> n2:[0-3],"
run "$CELLAR" job log m
check_out_has mig-log-checkpoint "checkpoint at step $ck"
check_out_has mig-log-scancel "cancelled Slurm job $old"
check_out_has mig-log-sbatch "submitted pod 0 as Slurm job $new on n2"
check_out_has mig-log-migrated "cellar: migrated"

# ---- 5. a node drained, then set down, in Slurm ----
# The health hook (sinfo, every 0.3 s here) marks n2 bad: cellar's events
# and status say so, the jobs on it fail for the node and are requeued
# (their Slurm jobs scancelled), running again on n1 where there is room;
# `scontrol update state=resume` brings n2 back healthy in cellar. Set
# DOWN, Slurm ends the job on it (NODE_FAIL: sbatch --no-requeue keeps
# Slurm from running it again itself); cellar requeues it, it waits
# (n1 has no room), and runs on n2 once that is resumed.
spec "$TMP/health.yaml" 'healthInterval: 0.3' 'retries: 1' 'backoff: 0.2'
serve_start "$TMP/health.yaml"
hold="while [ ! -e $TMP/go5 ]; do sleep 0.1; done"
run "$CELLAR" submit fill --vc a --gpus 4 -- sh -c "$probe; $hold"
run "$CELLAR" submit d --vc a --gpus 2 -- sh -c "$probe; $hold"
run "$CELLAR" wait fill d --state running --timeout 60s
[ "$(cellar_where fill) $(cellar_where d)" = "n1:0-3 n2:0-1" ] && ok drain-placed ||
    not_ok drain-placed "fill [$(cellar_where fill)], d [$(cellar_where d)]"
fill0=$(slurm_id fill 0)
run "$CELLAR" cancel fill
poll_until slurm_is "$fill0" CANCELLED
d0=$(slurm_id d 0)
poll_until slurm_on "$d0" RUNNING n2 && ok drain-d-on-n2 || not_ok drain-d-on-n2 "$(squeue -h -j "$d0" -o '%T %N' 2>&1)"
run scontrol update nodename=n2 state=drain reason=cellar-test
check_rc drain-scontrol-rc 0
poll_until has_event ",node-bad,-,-,-,n2; jobs on it: d," && ok drain-node-bad ||
    not_ok drain-node-bad "$("$CELLAR" -o csv --no-header events | tail -n 3)"
run "$CELLAR" status
OUT=$(printf '%s\n' "$OUT" | grep '^bad ')
check_out_has drain-status-bad "4 GPUs (50.0% of cluster GPUs)"
poll_until has_event ",requeue,d," && ok drain-requeue-event ||
    not_ok drain-requeue-event "$("$CELLAR" -o csv --no-header events | tail -n 3)"
run "$CELLAR" -o csv --no-header events
check_out_has drain-fail-event ",fail,d,a,-,node 'n2': health hook failed: Slurm says node 'n2' is drng,"
d_moved() { id=$(slurm_id d 0); [ -n "$id" ] && [ "$id" != "$d0" ] && slurm_on "$id" RUNNING n1; }
poll_until d_moved && ok drain-d-runs-on-n1 ||
    not_ok drain-d-runs-on-n1 "Slurm job [$(slurm_id d 0)]: [$(squeue -h -n "$(sn d.0)" -t all -o '%i %T %N' | tr '\n' ' ')]"
[ "$(cellar_where d)" = "n1:0-1" ] && ok drain-cellar-d-on-n1 || not_ok drain-cellar-d-on-n1 "[$(cellar_where d)]"
poll_until slurm_is "$d0" CANCELLED && ok drain-old-scancelled || not_ok drain-old-scancelled "[$(slurm_state "$d0")]"
run scontrol update nodename=n2 state=resume
check_rc drain-resume-rc 0
poll_until has_event ",node-ok,-,-,-,n2," && ok drain-node-ok || not_ok drain-node-ok "$("$CELLAR" -o csv --no-header events | tail -n 3)"
run "$CELLAR" status
OUT=$(printf '%s\n' "$OUT" | grep '^bad ')
check_out_has drain-status-healthy "0 GPUs (0.0% of cluster GPUs)"
# down: e holds n2
run "$CELLAR" submit e --vc a --gpus 4 -- sh -c "$probe; $hold"
run "$CELLAR" wait e --state running --timeout 60s
poll_out "e.0"
e0=$(slurm_id e 0)
e0name=$(sn e.0)	# its id file goes with the requeue
slurm_on "$e0" RUNNING n2 && ok down-e-on-n2 || not_ok down-e-on-n2 "$(squeue -h -j "$e0" -o '%T %N' 2>&1)"
run scontrol update nodename=n2 state=down reason=cellar-test
check_rc down-scontrol-rc 0
poll_until slurm_is "$e0" NODE_FAIL && ok down-slurm-node-fail || not_ok down-slurm-node-fail "[$(slurm_state "$e0")]"
bad_twice() { [ "$(count_events ",node-bad,-,-,-,n2")" = 2 ]; }
poll_until bad_twice && ok down-node-bad || not_ok down-node-bad "$("$CELLAR" -o csv --no-header events | tail -n 4)"
e_queued() { "$CELLAR" -o csv --no-header queue 2>/dev/null | grep -q ",e,[0-9]*,$(id -un),PD,queued,"; }
poll_until e_queued && ok down-e-requeued || not_ok down-e-requeued "$("$CELLAR" -o csv --no-header queue 2>&1)"
run "$CELLAR" -o csv --no-header events
check_out_lacks down-e-not-failed ",failed,e,"
n=$(squeue -h -t all -n "$e0name" -o '%i %T' | tr '\n' ' ')
[ "$n" = "$e0 NODE_FAIL " ] && ok down-slurm-no-requeue || not_ok down-slurm-no-requeue "Slurm has [$n]"
st=$(sinfo -h -N -n n2 -o %t)
[ "$st" = down ] && ok down-stays-down || not_ok down-stays-down "n2 is [$st]"
run scontrol update nodename=n2 state=resume
check_rc down-resume-rc 0
ok_twice() { [ "$(count_events ",node-ok,-,-,-,n2")" = 2 ]; }
poll_until ok_twice && ok down-node-ok || not_ok down-node-ok "$("$CELLAR" -o csv --no-header events | tail -n 4)"
e_again() { id=$(slurm_id e 0); [ -n "$id" ] && [ "$id" != "$e0" ] && slurm_on "$id" RUNNING n2; }
poll_until e_again && ok down-e-runs-again-on-n2 ||
    not_ok down-e-runs-again-on-n2 "$(squeue -h -t all -n "$(sn e.0)" -o '%i %T %N' | tr '\n' ' ')"
touch "$TMP/go5"
run "$CELLAR" wait d e --timeout 60s
check_out health-completed "d completed
e completed"

# ---- 7. slurmctld restarted while cellar runs ----
# r runs in Slurm; slurmctld is stopped: cellar's status polls fail
# (logged, not taken for "absent"), s submitted meanwhile finds sbatch
# failing and is retried (retries 5, backoff 0.5: 15 s), health too;
# slurmctld comes back on its saved state: r is the same Slurm job, still
# RUNNING, s is submitted exactly once, nothing is failed or requeued,
# and both complete.
spec "$TMP/ctld.yaml" 'healthInterval: 1' 'retries: 5' 'backoff: 0.5'
serve_start "$TMP/ctld.yaml"
hold="while [ ! -e $TMP/go7 ]; do sleep 0.1; done"
run "$CELLAR" submit r --vc a --gpus 2 -- sh -c "$probe; $hold"
run "$CELLAR" wait r --state running --timeout 60s
poll_out "r.0"
r0=$(slurm_id r 0)
slurm_ctld_stop
t0=$(date +%s.%N)
run squeue -h
t1=$(date +%s.%N)
[ "$RC" != 0 ] && check_err_has ctld-down "Unable to contact slurm controller" ||
    not_ok ctld-down "squeue still answers: $OUT"
echo "# slurmctld down: squeue fails in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s ($ERR)"
run "$CELLAR" submit s --vc a --gpus 2 -- sh -c "$probe; $hold"
check_rc ctld-submit-rc 0
# s's first sbatch has failed (the hook is due again): cellar says starting
s_starting() { "$CELLAR" -o csv --no-header queue 2>/dev/null | grep -q ",s,[0-9]*,$(id -un),[A-Z]*,starting,"; }
poll_until s_starting && ok ctld-s-starting || not_ok ctld-s-starting "$("$CELLAR" -o csv --no-header queue 2>&1)"
[ ! -s "$(sf s.0)" ] && ok ctld-s-not-in-slurm-yet || not_ok ctld-s-not-in-slurm-yet "$(cat "$(sf s.0)")"
slurmctld_spawn
ok ctld-back
s_runs() { id=$(slurm_id s 0); [ -n "$id" ] && slurm_is "$id" RUNNING; }
poll_until s_runs && ok ctld-s-submitted || not_ok ctld-s-submitted "$("$CELLAR" job log s 2>&1 | tr '\n' ' ')"
slurm_is "$r0" RUNNING && [ "$(slurm_id r 0)" = "$r0" ] && ok ctld-r-same-job ||
    not_ok ctld-r-same-job "[$(slurm_id r 0)] was [$r0]: [$(slurm_state "$r0")]"
run "$CELLAR" wait r s --state running --timeout 10s
check_out ctld-cellar-running "r running
s running"
n=$(squeue -h -t all -n "$(sn r.0),$(sn s.0)" -o %j | sort | tr '\n' ' ')
[ "$n" = "$(sn r.0) $(sn s.0) " ] && ok ctld-once-each || not_ok ctld-once-each "Slurm has [$n]"
touch "$TMP/go7"
run "$CELLAR" wait r s --timeout 60s
check_out ctld-completed "r completed
s completed"
run "$CELLAR" -o csv --no-header events
check_out_lacks ctld-no-fail ",fail,"
check_out_lacks ctld-no-requeue ",requeue,"
check_out_lacks ctld-no-node-bad ",node-bad,"
[ "$(lines "$(sf r.0 .out)" '^node=')" = 1 ] && [ "$(lines "$(sf s.0 .out)" '^node=')" = 1 ] &&
    ok ctld-ran-once || not_ok ctld-ran-once "$(cat "$(sf r.0 .out)" "$(sf s.0 .out)" | tr '\n' ' ')"
n=$(squeue -h -t all -n "$(sn r.0),$(sn s.0)" -o '%j %T' | sort | tr '\n' ' ')
[ "$n" = "$(sn r.0) COMPLETED $(sn s.0) COMPLETED " ] && ok ctld-slurm-completed ||
    not_ok ctld-slurm-completed "[$n]"

done_testing
