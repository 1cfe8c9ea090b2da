#!/bin/sh
# tests/layers.sh — the layer check: each outside library is included by one
# layer only, the pure layers (engine, job, policies) include no I/O, clock or
# randomness header, and no layer includes the headers of one above it. One
# "ok"/"not ok" line per rule.

fail_rule() { echo "not ok - layers/$1: $2"; }

check() {   # check NAME REGEX ALLOWED-PATH-REGEX [DIRS...]
	name=$1; re=$2; allow=$3; shift 3
	hits=$(grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($re)[>\"]" \
	    "$@" --include='*.c' --include='*.h' 2>/dev/null | grep -vE "^($allow)" )
	if [ -n "$hits" ]; then
		fail_rule "$name" "$(echo "$hits" | head -3 | tr '\n' ' ')"
	else
		echo "ok - layers/$name"
	fi
}

dirs="src ui store tests/unit tests/bench tests/helpers"
check curses 'n?curses(w)?\.h|ncursesw/[a-z]+\.h|term\.h' 'ui/' $dirs
check libedit 'histedit\.h|editline/readline\.h' 'ui/' $dirs
# tests/helpers/sqlexec.c plays another program touching a store.
check sqlite 'sqlite3\.h' 'store/|tests/helpers/' $dirs
check yaml 'yaml\.h' 'src/spec/spec-yaml\.c:' $dirs
# Threads: the replay's store writer, and compare's and anomaly's runs
# side by side (the emulator below is pure: each run on its own thread).
check pthread 'pthread\.h' 'src/cmd/replay-db\.c:|src/cmd/sim-pool\.c:' $dirs
check engine-pure 'stdio\.h|time\.h|sys/time\.h|unistd\.h|fcntl\.h|sys/[a-z]+\.h|pthread\.h|signal\.h|dirent\.h' \
    '^$' src/engine src/policy src/job
# The command layer is on top: nothing below src/cmd/ includes a command
# header, not the cluster state (src/cluster/), the live loop (src/live/)
# or the dashboard either.
check below-cmd 'cmd/[a-z-]+\.h' '^$' \
    src/core src/spec src/engine src/job src/policy src/sim src/backend src/ipc store \
    src/cluster src/live src/dash
# The live loop and the server are above the cluster state: nothing below
# them includes the console (live/) or the server.
check below-live 'live/[a-z-]+\.h|serve\.h' '^$' \
    src/core src/spec src/engine src/job src/policy src/sim src/backend src/ipc store \
    src/cluster
# The live loop's shared insides stay in src/live/.
check live-int 'live/live-int\.h' 'src/live/' $dirs
# The socket module knows nothing of cellar but core's strings.
check ipc-core '(backend|cluster|cmd|dash|engine|job|live|policy|sim|spec|store)/[a-z-]+\.h|serve\.h' \
    '^$' src/ipc
