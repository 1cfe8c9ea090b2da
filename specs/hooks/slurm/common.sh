# common.sh — sourced by the slurm hooks: where a pod's Slurm job id is
# kept. The hooks run where Slurm's commands work (a login node: backend
# local on it, or ssh to it); one file per job and pod holds the id that
# sbatch gave, so stop, suspend, resume and status find the Slurm job.
: "${CELLAR_RUNDIR:=${HOME:-/tmp}/.cellar/run}"
dir="$CELLAR_RUNDIR/slurm"
idfile="$dir/$CELLAR_JOB.$CELLAR_POD"
# the Slurm job id of this pod, or exit with the hook's "nothing here"
slurm_id() {
	[ -s "$idfile" ] || return 1
	cat "$idfile"
}
