#!/bin/sh
# fake-cluster-cmd.sh — stands in for Slurm's and Kubernetes' commands
# (linked as sbatch, squeue, sacct, scancel, scontrol, sinfo, kubectl on
# PATH): appends its name and each argument in brackets to $FAKE_LOG, one
# line per call, and answers like the real one for what the hook sets ask.
# A submitted job runs for $FAKE_RUNS status looks (default 1), then ends
# with $FAKE_END (default COMPLETED / Succeeded); $FAKE/ holds the state.
me=$(basename "$0")
line=$me
for a in "$@"; do line="$line [$a]"; done
mkdir -p "$FAKE"
printf '%s\n' "$line" >>"$FAKE_LOG"
# looks NAME: count one status look at job NAME; true while it runs
looks() {
	n=$(cat "$FAKE/$1.looks" 2>/dev/null || echo 0)
	n=$((n + 1))
	echo "$n" >"$FAKE/$1.looks"
	[ "$n" -le "${FAKE_RUNS:-1}" ] && [ ! -e "$FAKE/$1.gone" ]
}
case $me in
sbatch)	# pods start in parallel: ids handed out under a lock
	while ! mkdir "$FAKE/lock" 2>/dev/null; do sleep 0.01; done
	n=$(cat "$FAKE/next" 2>/dev/null || echo 4242)
	echo $((n + 1)) >"$FAKE/next"
	rmdir "$FAKE/lock"
	echo "$n" ;;
squeue)	# -h -j ID -o FORMAT
	id=$3
	case $5 in
	%i) [ -e "$FAKE/$id.gone" ] || echo "$id" ;;
	%T) looks "$id" && echo RUNNING ;;
	esac ;;
sacct) echo "${FAKE_END:-COMPLETED}" ;;
scancel) touch "$FAKE/$1.gone" ;;
scontrol|sinfo) [ "$me" = sinfo ] && echo "${FAKE_SINFO:-idle}" ;;
kubectl)
	case "$1 $2" in
	"get pod")
		case $* in
		*"-o name"*) [ -e "$FAKE/$3.made" ] && ! [ -e "$FAKE/$3.gone" ] &&
		    echo "pod/$3" || { echo "pods \"$3\" not found" >&2; exit 1; } ;;
		*) if looks "$3"; then echo Running
		   elif [ -e "$FAKE/$3.gone" ]; then :
		   else echo "${FAKE_END:-Succeeded}"; fi ;;
		esac ;;
	"run "*) touch "$FAKE/$2.made" ;;
	"delete pod") touch "$FAKE/$3.gone" ;;
	"get node") echo "${FAKE_READY:-True}" ;;
	esac ;;
esac
exit 0
