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
lines() { grep -c "$2" "$1" 2>/dev/null; }
# more_ticks FILE N: FILE has more than N tick lines
more_ticks() { [ "$(lines "$1" '^tick ')" -gt "$2" ]; }
# slurm_on ID STATE NODE: squeue lists it in STATE on NODE
slurm_on() { [ "$(squeue -h -j "$1" -o '%T %N' 2>/dev/null)" = "$2 $3" ]; }
# pid_in JOB.POD: the pid its command printed (pid=...)
pid_in() { sed -n 's/^pid=//p' "$OUTDIR/$1.out" 2>/dev/null | head -n 1; }
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
poll_until more_ticks "$OUTDIR/low.0.out" 2
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
[ ! -s "$OUTDIR/high.0.out" ] && ok susp-high-never-ran ||
    not_ok susp-high-never-ran "$(cat "$OUTDIR/high.0.out")"
run "$CELLAR" -o csv --no-header queue
check_out_has susp-cellar-says-high-runs "a,-,high,$(id -un),R,running,5,4,1,n1,-"
check_out_has susp-cellar-low-suspended "a,-,low,$(id -un),S,suspended,1,8,2,n[1-2],-"
run "$CELLAR" -o csv --no-header events
check_out_has susp-event ",suspend,low,a,high,n1:[0-3] n2:[0-3],"
echo "# while low is SUSPENDED in Slurm its GPUs stay allocated (GRES $w): high waits $(squeue -h -j "$high0" -o '%T (%r)'), cellar says high runs"
n0=$(lines "$OUTDIR/low.0.out" '^tick ')
run "$CELLAR" cancel high
check_rc susp-cancel-high-rc 0
both_running() { slurm_is "$low0" RUNNING && slurm_is "$low1" RUNNING; }
poll_until both_running && ok susp-slurm-resumed ||
    not_ok susp-slurm-resumed "Slurm jobs [$low0 $low1] are [$(slurm_state "$low0") $(slurm_state "$low1")]"
run "$CELLAR" wait low --state running --timeout 30s
check_out susp-cellar-resumed "low running"
poll_until more_ticks "$OUTDIR/low.0.out" "$n0" && [ "$(pstate "$pid0")" != T ] &&
    ok susp-ticks-on || not_ok susp-ticks-on "[$(lines "$OUTDIR/low.0.out" '^tick ')] ticks, [$n0] before; pid $pid0 [$(pstate "$pid0")]"
[ "$(lines "$OUTDIR/low.0.out" '^node=')" = 1 ] && [ "$(pid_in low.0)" = "$pid0" ] &&
    awk '/^tick / { if ($2 != ++n) bad = 1 } END { exit bad }' "$OUTDIR/low.0.out" &&
    ok susp-same-run || not_ok susp-same-run "$(head -n 3 "$OUTDIR/low.0.out" | tr '\n' ' ')"
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

done_testing
