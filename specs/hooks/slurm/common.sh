# common.sh — sourced by the slurm hooks: where a pod's Slurm job id is
# kept. The hooks run where Slurm's commands work (a login node: backend
# local on it, or ssh to it); one file per job and pod holds the id that
# sbatch gave, so stop, suspend, resume and status find the Slurm job.
# Keyed JOB.ID.POD (the Slurm job's name is cellar-JOB.ID.POD): a reused
# job name never finds an older job's Slurm job.
: "${CELLAR_RUNDIR:=${HOME:-/tmp}/.cellar/run}"
dir="$CELLAR_RUNDIR/slurm"
key="$CELLAR_JOB.$CELLAR_JOB_ID.$CELLAR_POD"
idfile="$dir/$key"
# the Slurm job id of this pod, or exit with the hook's "nothing here"
slurm_id() {
	[ -s "$idfile" ] || return 1
	cat "$idfile"
}
# slurm_ask ID FORMAT [ARG...]: squeue's line for the job (FORMAT: -o),
# nothing when the controller does not know the job. squeue fails both
# for a job the controller no longer knows ("Invalid job id specified")
# and when it cannot reach the controller (slurmctld down or restarting:
# "Unable to contact ..."). A hook must not take the second for "no such
# job": the job may well run on, and cellar would fail it or submit it
# again. So "no such job" is believed only when the controller, asked a
# second time for every job it knows (the same ARGs), answers without
# it: once in CI a status hook said "absent" for a job that ran on while
# slurmctld was being stopped (t0626), and cellar cancelled it. Only
# squeue's stdout is read when it succeeds (a warning on stderr is not
# the answer).
slurm_ask() {
	_j=$1 _f=$2
	shift 2
	_e=$(mktemp) || return 2
	out=$(squeue -h -j "$_j" "$@" -o "$_f" 2>"$_e")
	_rc=$?
	_err=$(cat "$_e")
	if [ "$_rc" = 0 ] && [ -n "$out" ]; then
		rm -f "$_e"
		printf '%s\n' "$out" | head -n 1
		return 0
	fi
	case $_rc$_err in
	0*|*"Invalid job id"*)	# unknown: ask again for every job
		out=$(squeue -h "$@" -o "%i $_f" 2>"$_e")
		_rc=$? _err=$(cat "$_e")
		rm -f "$_e"
		if [ "$_rc" = 0 ]; then
			printf '%s\n' "$out" | awk -v j="$_j" '$1 == j { sub(/^[^ ]* /, ""); print; exit }'
			return 0
		fi ;;
	*) rm -f "$_e" ;;
	esac
	printf 'cannot ask Slurm: %s\n' "$_err" >&2
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
