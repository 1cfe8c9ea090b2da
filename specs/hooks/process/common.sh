# common.sh — sourced by the process hooks: where a pod's state lives.
# One directory per node, job and pod, so several "nodes" may share a
# machine (tests, single-box use): $CELLAR_RUNDIR/NODE/JOB.POD/ holding
# pid (the job's process group), out (its output) and exit (its status).
: "${CELLAR_RUNDIR:=${HOME:-/tmp}/.cellar/run}"
dir="$CELLAR_RUNDIR/$CELLAR_NODE/$CELLAR_JOB.$CELLAR_POD"

# alive PID: the process group still has a member
alive() { kill -0 "-$1" 2>/dev/null; }
