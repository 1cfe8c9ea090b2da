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
# slurm_state ID: the job's state in Slurm's words. squeue -t all lists it
# in any state, an ended one too, while the controller remembers it
# (MinJobAge, 300 s by default); sacct only after that, and only where
# accounting runs (slurmdbd): without it sacct knows no job at all, so it
# cannot be the first place to look.
slurm_state() {
	st=$(squeue -h -j "$1" -t all -o %T 2>/dev/null | head -n 1)
	[ -n "$st" ] || st=$(sacct -n -X -P -j "$1" -o State 2>/dev/null | head -n 1)
	printf '%s\n' "$st"
}
