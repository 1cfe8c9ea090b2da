#!/bin/sh
# tests/layers.sh — the layer check: each outside library is included by one
# layer only, and the pure layers (engine, job, policies) include no I/O, clock or
# randomness header. One "ok"/"not ok" line per rule.

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
# Threads: the replay's store writer only.
check pthread 'pthread\.h' 'src/cmd/replay-db\.c:' $dirs
check engine-pure 'stdio\.h|time\.h|sys/time\.h|unistd\.h|fcntl\.h|sys/[a-z]+\.h|pthread\.h|signal\.h|dirent\.h' \
    '^$' src/engine src/policy src/job
# The live controller is above the command layer: nothing below src/cmd/
# includes a command header, the console or the server (the dashboard's
# sources still borrow cmd/session.h: issue 22 moves it).
check below-cmd 'cmd/[a-z-]+\.h|console\.h|serve\.h' '^$' \
    src/core src/spec src/engine src/job src/policy src/sim src/backend src/ipc store
# The socket module knows nothing of cellar but core's strings.
check ipc-core '(cmd|dash|engine|job|policy|sim|spec|backend|store)/[a-z-]+\.h|console\.h|serve\.h' \
    '^$' src/ipc
