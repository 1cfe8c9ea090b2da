# common.sh — sourced by the process hooks: where a pod's state lives.
# One directory per node, job and pod, so several "nodes" may share a
# machine (tests, single-box use): $CELLAR_RUNDIR/NODE/JOB.ID.POD/ holding
# pid (the job's process group), out (its output) and exit (its status).
# The job's id keeps a reused name from reading an older job's pid.
: "${CELLAR_RUNDIR:=${HOME:-/tmp}/.cellar/run}"
dir="$CELLAR_RUNDIR/$CELLAR_NODE/$CELLAR_JOB.$CELLAR_JOB_ID.$CELLAR_POD"
# A job's output is its owner's: files 0600, directories 0700 (issue 23
# F9: other local users could read it); start gives the job's command
# the umask cellar had ($job_umask).
job_umask=$(umask)
umask 077
# Root running a job of another user's (CELLAR_UID): the job's commands
# run as that user (as-job); pid, exit and killed stay root's in a
# directory of root's, since root signals the group they name (a
# tenant who could rewrite pid could have root kill any process group).
as_job="$(dirname "$0")/as-job"
drop=
[ "$(id -u)" = 0 ] && [ -n "$CELLAR_UID" ] && [ "$CELLAR_UID" != 0 ] && drop=1

# alive PID: the process group still has a member
alive() { kill -0 "-$1" 2>/dev/null; }

# stopped PGID: the group has a stopped member (T) and none that can run
# (R, or S: one woken by SIGSTOP stops once it is scheduled). D counts as
# stopped: a shell waiting in vfork(2) for a child stopped before its
# exec stays in D until SIGCONT (seen in 2 of 100 stopped groups).
stopped() {
	ps -e -o pgid=,stat= | awk -v g="$1" '$1 == g {
		if ($2 ~ /^[Tt]/) t++; else if ($2 !~ /^[DZ]/) n++ }
	    END { exit !(t > 0 && n == 0) }'
}
