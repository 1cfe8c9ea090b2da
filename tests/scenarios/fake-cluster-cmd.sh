#!/bin/sh
# fake-cluster-cmd.sh — stands in for Slurm's and Kubernetes' commands
# (linked as sbatch, squeue, sacct, scancel, scontrol, sinfo, kubectl on
# PATH): appends its name and each argument in brackets to $FAKE_LOG, one
# line per call, and answers like the real one for what the hook sets ask.
# A submitted job runs for $FAKE_RUNS status looks (default 1), then ends
# with $FAKE_END (default COMPLETED / Succeeded); $FAKE/ holds the state.
# FAKE_DOWN=1: squeue fails as when slurmctld cannot be reached.
# A pod remembers its node and GPUs (NODE/GPUS, for get -o jsonpath with
# spec.nodeName); with FAKE_LINGER=1 a delete --wait=false leaves it
# listed (terminating) until a waiting delete.
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
squeue)	# -h -j ID [-t all] -o FORMAT; an ended job is forgotten at
	# once (-t all finds nothing), so the hooks' sacct path is the one run;
	# -h [-t all] -o "%i FORMAT" lists every job still running (no look
	# counted). FAKE_DOWN=1: the controller cannot be reached;
	# FAKE_FORGET=1: -j says "Invalid job id" for every job (a wrong
	# answer the listing corrects), =down: and the listing cannot reach
	# the controller
	down() {
		echo "slurm_load_jobs error: Unable to contact slurm controller (connect failure)" >&2
		exit 1
	}
	[ -n "${FAKE_DOWN:-}" ] && down
	eval fmt=\${$#}
	if [ "$2" != -j ]; then
		[ "${FAKE_FORGET:-}" = down ] && down
		n=4242
		while [ "$n" -lt "$(cat "$FAKE/next" 2>/dev/null || echo 4242)" ]; do
			l=$(cat "$FAKE/$n.looks" 2>/dev/null || echo 0)
			[ "$l" -lt "${FAKE_RUNS:-1}" ] && [ ! -e "$FAKE/$n.gone" ] &&
			    case $fmt in *%T) echo "$n RUNNING" ;; *) echo "$n $n" ;; esac
			n=$((n + 1))
		done
		exit 0
	fi
	id=$3
	if [ -n "${FAKE_FORGET:-}" ]; then
		echo "slurm_load_jobs error: Invalid job id specified" >&2
		exit 1
	fi
	case $fmt in
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
		*spec.nodeName*) [ -e "$FAKE/$3.made" ] && ! [ -e "$FAKE/$3.gone" ] &&
		    cat "$FAKE/$3.where" ;;
		*) if looks "$3"; then echo Running
		   elif [ -e "$FAKE/$3.gone" ]; then :
		   else echo "${FAKE_END:-Succeeded}"; fi ;;
		esac ;;
	"run "*)	# where it runs: NODE/NVIDIA_VISIBLE_DEVICES
		node= gpus=
		for a in "$@"; do
			case $a in
			--overrides=*) node=${a#*nodeName\":\"}; node=${node%%\"*} ;;
			--env=NVIDIA_VISIBLE_DEVICES=*) gpus=${a#--env=NVIDIA_VISIBLE_DEVICES=} ;;
			esac
		done
		echo "$node/$gpus" >"$FAKE/$2.where"
		rm -f "$FAKE/$2.gone"
		touch "$FAKE/$2.made" ;;
	"delete pod")	# FAKE_LINGER: a pod deleted without waiting stays listed
		case "$* ${FAKE_LINGER:-}" in
		*--wait=false*" 1") ;;
		*) touch "$FAKE/$3.gone" ;;
		esac ;;
	"get node") echo "${FAKE_READY:-True}" ;;
	esac ;;
esac
exit 0
