# tests/scenarios/lib-slurm.sh — sourced (after lib.sh and lib-live.sh) by
# the scripts that run the slurm hook set on a real Slurm: munged,
# slurmctld and one slurmd per node (n1, n2: 4 GPUs and 8 CPUs each), all
# on 127.0.0.1, configuration, state and logs under $SLURM_DIR.
#
#   slurm_start                     write slurm.conf and gres.conf, start
#                                   the daemons, return once sinfo shows
#                                   n1 and n2 idle; exports SLURM_CONF for
#                                   the Slurm commands (and so for cellar's
#                                   hooks). A daemon that does not come up:
#                                   one "not ok" with its own log lines, and
#                                   exit 1 — never a skip.
#   slurm_ctld_restart              stop slurmctld and start it again on its
#                                   saved state (slurm_ctld_stop, then
#                                   slurmctld_spawn: the two halves)
#   slurm_stop                      cancel every job, stop every daemon
#   slurm_logs                      the last lines of the daemons' logs
#   spec FILE [LINE...]             a cellar spec of n1 and n2 (VC a owns
#                                   both) on the slurm hook set, status
#                                   every 0.5 s; each LINE one more
#                                   backend key
#   slurm_id JOB POD, slurm_state ID, slurm_where ID, slurm_is ID STATE,
#   cellar_where JOB, poll_until CMD..., poll_file FILE, first_line JOB.POD
#                                   (each described where it is defined)
#
# Needs root (slurmd runs jobs as their user) and the Makefile's TESTPKGS
# (munge slurmctld slurmd slurm-client slurm-wlm-basic-plugins).
# The daemons run in the foreground (-D, -F) as this shell's children, so
# each is stopped and reaped by its own pid, whatever happens (trap).
#
# What makes a node with GPUs register on a machine without any: gres/gpu
# drops a GPU without File= ("Removing file-less GPU", the node then
# reports gpu:0 and is drained INVALID), and a File= that is not a device
# is logged as an error; so each node's four GPUs are symlinks to
# /dev/null, with AutoDetect=off. Slurm then binds them: the job's
# CUDA_VISIBLE_DEVICES is the indices Slurm allocated, not cellar's.
# No accounting (slurmdbd): sacct knows no job, the hooks read a job's end
# from squeue -t all (MinJobAge keeps it 300 s). SlurmdParameters=
# config_overrides lets a node claim 8 CPUs on a smaller machine, so that
# four 1-GPU pods fit on one node; batch_sched_delay=0 starts a batch job
# at its submission instead of up to 3 s later (Slurm's default).
# ReturnToService=1: a node an operator set DOWN stays down until
# `scontrol update state=resume` (with 2 it comes back as soon as its
# slurmd registers again, a fraction of a second later).
SLURM_DIR=$TMP/slurm
SLURM_CONF=$SLURM_DIR/slurm.conf
export SLURM_CONF
MUNGED_PID= SLURMCTLD_PID= SLURMD_PIDS=

# port_free PORT: nothing listens on it (TCP, IPv4 or IPv6)
port_free() {
	hex=$(printf '%04X' "$1")
	! grep -q ":$hex " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

slurm_logs() {	# [PREFIX]: only those daemons' logs
	for f in "$SLURM_DIR"/log/"${1:-}"*; do
		[ -s "$f" ] || continue
		echo "== $(basename "$f")"
		grep -v 'pmix\|MPI: Cannot create context' "$f" | tail -n 8
	done
}

# slurm_fail WHAT [PREFIX]: one verdict with the failing daemon's own words
# (its log files start with PREFIX), every log as comments, then stop
slurm_fail() {
	not_ok slurm-up "$1: $(slurm_logs "${2:-}")"
	slurm_logs | sed 's/^/# /'
	exit 1
}

# poll_until CMD...: run until it succeeds, every 0.1 s, at most 30 s;
# CMD's status 2 means it never will (a daemon died): give up at once
poll_until() {
	i=0
	while [ "$i" -lt 300 ]; do
		"$@"
		case $? in 0) return 0 ;; 2) return 1 ;; esac
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

munged_up() {
	kill -0 "$MUNGED_PID" 2>/dev/null || return 2
	[ -S "$SLURM_DIR/munge.sock" ]
}
ctld_up() {
	kill -0 "$SLURMCTLD_PID" 2>/dev/null || return 2
	scontrol ping 2>/dev/null | grep -q 'is UP'
}
nodes_idle() {
	for p in $SLURMD_PIDS; do kill -0 "$p" 2>/dev/null || return 2; done
	[ "$(sinfo -h -N -o '%N %t' 2>/dev/null | sort | tr '\n' ' ')" = "n1 idle n2 idle " ]
}

slurmctld_spawn() {
	slurmctld -D -f "$SLURM_CONF" >>"$SLURM_DIR/log/slurmctld.out" 2>&1 </dev/null &
	SLURMCTLD_PID=$!
	poll_until ctld_up || slurm_fail "slurmctld did not answer scontrol ping" slurmctld
}

slurm_start() {
	if [ "$(id -u)" != 0 ]; then
		not_ok slurm-up "needs root (slurmd runs jobs as their users)"
		exit 1
	fi
	for c in munged slurmctld slurmd sbatch squeue scontrol sinfo scancel; do
		command -v "$c" >/dev/null 2>&1 && continue
		[ -x "/usr/sbin/$c" ] && continue
		not_ok slurm-up "no $c: install munge slurmctld slurmd slurm-client (the Makefile's TESTPKGS)"
		exit 1
	done
	PATH=$PATH:/usr/sbin
	mkdir -p "$SLURM_DIR/log" "$SLURM_DIR/state" "$SLURM_DIR/dev" \
	    "$SLURM_DIR/spool/n1" "$SLURM_DIR/spool/n2" || exit 1
	# munged refuses a socket whose directories others cannot search
	chmod 711 "$TMP" && chmod 755 "$SLURM_DIR" || exit 1
	for i in 0 1 2 3; do ln -s /dev/null "$SLURM_DIR/dev/nvidia$i"; done
	# three free ports in a row: slurmctld, n1's slurmd, n2's
	try=0 port=
	while [ $try -lt 50 ]; do
		p=$((20000 + ($$ * 11 + try * 997) % 40000))
		if port_free "$p" && port_free $((p + 1)) && port_free $((p + 2)); then
			port=$p
			break
		fi
		try=$((try + 1))
	done
	[ -n "$port" ] || slurm_fail "no three free ports"
	host=$(hostname -s)
	cat >"$SLURM_CONF" <<EOF
ClusterName=cellartest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SLURM_DIR/munge.sock
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool/%n
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd-%n.pid
SlurmctldLogFile=$SLURM_DIR/log/slurmctld.log
SlurmdLogFile=$SLURM_DIR/log/slurmd-%n.log
MailProg=/bin/true
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=batch_sched_delay=0
SlurmdParameters=config_overrides
ReturnToService=1
KillWait=5
GresTypes=gpu
NodeName=n1 NodeAddr=127.0.0.1 NodeHostname=$host Port=$((port + 1)) CPUs=8 Gres=gpu:4 State=UNKNOWN
NodeName=n2 NodeAddr=127.0.0.1 NodeHostname=$host Port=$((port + 2)) CPUs=8 Gres=gpu:4 State=UNKNOWN
PartitionName=all Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
EOF
	cat >"$SLURM_DIR/gres.conf" <<EOF
AutoDetect=off
NodeName=n[1-2] Name=gpu File=$SLURM_DIR/dev/nvidia[0-3]
EOF
	# munge: a key of our own, its socket beside the configuration
	dd if=/dev/urandom of="$SLURM_DIR/munge.key" bs=1024 count=1 2>/dev/null &&
	    chmod 400 "$SLURM_DIR/munge.key" || slurm_fail "no munge key"
	munged -F --key-file="$SLURM_DIR/munge.key" --socket="$SLURM_DIR/munge.sock" \
	    --pid-file="$SLURM_DIR/munged.pid" --seed-file="$SLURM_DIR/munge.seed" \
	    --log-file="$SLURM_DIR/log/munged.log" >>"$SLURM_DIR/log/munged.out" 2>&1 </dev/null &
	MUNGED_PID=$!
	poll_until munged_up || slurm_fail "munged did not start" munged
	slurmctld_spawn
	for n in n1 n2; do
		slurmd -D -f "$SLURM_CONF" -N "$n" >>"$SLURM_DIR/log/slurmd-$n.out" 2>&1 </dev/null &
		SLURMD_PIDS="$SLURMD_PIDS $!"
	done
	poll_until nodes_idle ||
	    slurm_fail "n1 and n2 are not idle: $(sinfo -h -N -o '%N %t %E' 2>&1)" slurmd
	ok slurm-up
}

slurm_ctld_stop() {
	kill "$SLURMCTLD_PID" 2>/dev/null
	wait "$SLURMCTLD_PID" 2>/dev/null
	SLURMCTLD_PID=
}
slurm_ctld_restart() {
	slurm_ctld_stop
	slurmctld_spawn
}

slurm_stop() {
	if [ -n "$SLURMCTLD_PID" ] && kill -0 "$SLURMCTLD_PID" 2>/dev/null; then
		# no job's processes outlive the test: cancel all, wait for them
		ids=$(squeue -h -o %i 2>/dev/null)
		[ -z "$ids" ] || scancel $ids 2>/dev/null
		i=0
		while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ $i -lt 150 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	fi
	for p in $SLURMD_PIDS $SLURMCTLD_PID $MUNGED_PID; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	SLURMD_PIDS= SLURMCTLD_PID= MUNGED_PID=
}

# ---- for the scripts: a cellar spec of those nodes, what their jobs
# print, and Slurm's view of a pod ----
top=$(pwd)

# spec FILE [LINE...]: nodes n1 and n2 as Slurm knows them, VC a owns
# both; each LINE is one more backend key
spec() {
	f=$1
	shift
	cat >"$f" <<YAML
physicalCluster:
  cellTypes:
    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}
  physicalCells:
  - {cellType: NODE, cellAddress: n1}
  - {cellType: NODE, cellAddress: n2}
virtualClusters:
  a: {virtualCells: [{cellType: NODE, cellNumber: 2}]}
backend:
  type: local
  hooks: $top/specs/hooks/slurm
  rundir: $TMP/run
  statusInterval: 0.5
YAML
	for l in "$@"; do printf '  %s\n' "$l" >>"$f"; done
}
OUTDIR=$TMP/run/slurm
# what each job prints first: where Slurm ran it and which GPUs it was
# given, beside what cellar chose
probe='echo "node=$SLURMD_NODENAME cvd=$CUDA_VISIBLE_DEVICES cellar=$CELLAR_NODE:$CELLAR_GPUS"'

# slurm_id JOB POD: the Slurm job id the hooks recorded
# sf JOB.POD [SUFFIX]: the set's file of a pod (JOB.ID.POD: the hooks key
# it by the job's id too), or the pattern when there is none yet
sf() { set -- "$OUTDIR/${1%.*}".*."${1##*.}$2"; echo "$1"; }
slurm_id() { cat "$(sf "$1.$2")" 2>/dev/null; }
# sn JOB.POD: the pod's Slurm job name (cellar-JOB.ID.POD)
sn() { _f=$(sf "$1"); echo "cellar-${_f##*/}"; }
# slurm_where ID: NODE:GPU-INDICES as Slurm allocated them (scontrol -d:
# "Nodes=n1 CPU_IDs=0 Mem=0 GRES=gpu:2(IDX:0-1)")
slurm_where() {
	scontrol -d show job "$1" 2>/dev/null |
	    sed -n 's/^ *Nodes=\([^ ]*\) .*GRES=[^ ]*(IDX:\([^)]*\)).*/\1:\2/p'
}
# slurm_state ID: Slurm's JobState
slurm_state() {
	scontrol show job "$1" 2>/dev/null | sed -n 's/^ *JobState=\([^ ]*\).*/\1/p'
}
# cellar_where JOB: the placement of cellar's start event, brackets
# dropped ("n1:[0-1] n2:[0-1]" -> "n1:0-1 n2:0-1")
cellar_where() {
	"$CELLAR" -o csv --no-header history "$1" 2>/dev/null |
	    awk -F, '$3 == "start" { d = $7 } END { print d }' | tr -d '[]'
}

# poll_file FILE: until it has a line (the job's process ran)
poll_file() { poll_until test -s "$1"; }
# poll_out JOB.POD: until the pod's output file has something
out_nonempty() { [ -s "$(sf "$1" .out)" ]; }
poll_out() { poll_until out_nonempty "$1"; }
# first_line JOB.POD: the probe's line in the job's output file
first_line() { head -n 1 "$(sf "$1" .out)" 2>/dev/null; }
# slurm_is ID STATE: Slurm's JobState of ID is STATE (for poll_until)
slurm_is() { [ "$(slurm_state "$1")" = "$2" ]; }

slurm_cleanup() {
	serve_stop	# lib-live.sh's server first: its hooks call Slurm
	slurm_stop
	rm -rf "$TMP"
}
trap slurm_cleanup EXIT
# a signal still runs the EXIT trap, so no daemon outlives the script
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
