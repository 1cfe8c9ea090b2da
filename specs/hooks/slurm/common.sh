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
# slurm_ask ID FORMAT [ARG...]: squeue's line for the job (FORMAT: -o).
# squeue fails both for a job the controller no longer knows ("Invalid
# job id specified": nothing printed, status 0) and when it cannot reach
# the controller (slurmctld down or restarting: its words on stderr,
# status 2). A hook must not take the second for "no such job": the job
# may well run on, and cellar would submit it again.
slurm_ask() {
	_j=$1 _f=$2
	shift 2
	out=$(squeue -h -j "$_j" "$@" -o "$_f" 2>&1) && { printf '%s\n' "$out" | head -n 1; return 0; }
	case $out in
	*"Invalid job id"*) return 0 ;;
	esac
	printf 'cannot ask Slurm: %s\n' "$out" >&2
	return 2
}
# slurm_state ID: the job's state in Slurm's words. squeue -t all lists it
# in any state, an ended one too, while the controller remembers it
# (MinJobAge, 300 s by default); sacct only after that, and only where
# accounting runs (slurmdbd): without it sacct knows no job at all, so it
# cannot be the first place to look. Status 2: the controller cannot be
# reached.
slurm_state() {
	st=$(slurm_ask "$1" %T -t all) || return 2
	[ -n "$st" ] || st=$(sacct -n -X -P -j "$1" -o State 2>/dev/null | head -n 1)
	printf '%s\n' "$st"
}
