#!/bin/sh
# tests/layers.sh — the layer check. One "ok"/"not ok" line per rule:
#  - map: every include of one of cellar's own headers follows the layer
#    map below (a layer includes itself and the layers it lists, nothing
#    else), and the README's "may include" column says what the map says;
#  - int: a layer's private header (*-int.h) is included by that layer
#    (and the tests) only;
#  - basenames: no two source files of src/, ui/, store/ share a name;
#  - one outside library per layer (curses, libedit, sqlite, yaml,
#    pthread), and the pure layers (engine, job, policies) include no I/O,
#    clock or randomness header.
# `sh tests/layers.sh --table` prints the map as the README's column.

# The layer map: a layer, then the layers it may include. A file's layer is
# its directory (src/serve*.[ch] and src/main.c are layers of their own); an
# include names a layer by its first directory ("engine/engine.h" is
# src/engine, "store/store.h" is store, "serve.h" is src/serve.c). Data
# flows down: nothing includes a layer listed after it, save the tests.
map='
src/core	-
src/spec	src/core
src/engine	src/core src/spec
src/job		src/core src/spec src/engine
src/policy	src/core src/spec src/engine src/job
src/sim		src/core src/spec src/engine src/job src/policy
src/backend	src/core src/spec
src/ipc		src/core
store		src/core src/spec src/engine src/job
src/cluster	src/core src/spec src/engine src/job src/ipc store
src/live	src/core src/spec src/engine src/job src/policy src/backend store src/cluster
src/dash	src/core src/spec src/engine src/job src/policy src/sim src/ipc store src/cluster
src/cmd		src/core src/spec src/engine src/job src/policy src/sim src/ipc store src/cluster src/live src/dash
src/serve.c	src/core src/spec src/engine src/job src/ipc store src/cluster src/live src/cmd
ui		src/core src/spec src/engine src/job src/policy src/cluster src/dash src/cmd
src/main.c	src/core src/spec src/engine src/job src/policy src/sim src/backend src/ipc store src/cluster src/live src/dash src/cmd src/serve.c ui
tests		src/core src/spec src/engine src/job src/policy src/sim src/backend src/ipc store src/cluster src/live src/dash src/cmd src/serve.c ui src/main.c
'

# Includes against the map that are known and being fixed: FILE HEADER
# (none today; each listed line must exist, so a fix removes it here).
known=''

# Exit status 1 when a rule failed, so the lint works alone (a hook) too.
failed=0
fail_rule() { echo "not ok - layers/$1: $2"; failed=1; }

# The map as the README's table column: LAYER<tab>MAY-INCLUDE, in order.
table() {
	echo "$map" | awk 'NF {
		may = ""; all = 1; n = 0
		for (i = 2; i <= NF; i++) {
			if ($i == "-") continue
			may = may (n++ ? ", " : "") $i
			if (!(($i) in before)) all = 0
		}
		if (n == 0) may = "libc only"
		else if (all && n == nbefore && n > 8) may = "all the layers above"	# a long list
		gsub(/src\//, "", may)
		print $1 "\t" may
		before[$1] = 1; nbefore++
	}'
}
if [ "$1" = "--table" ]; then
	table
	exit 0
fi

dirs="src ui store tests/unit tests/bench tests/helpers tests/fuzz"

# Every quoted include in the tree, as FILE:LINE:HEADER.
includes=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $dirs \
    --include='*.c' --include='*.h' 2>/dev/null |
    sed -E 's/^([^:]*:[0-9]+:)[^"]*"([^"]*)".*/\1\2/')

# The map rule: prints each include the map does not allow and is not
# known, then each known line that is no longer in the tree.
map_hits=$(printf '@map\n%s\n@known\n%s\n@inc\n%s\n' "$map" "$known" "$includes" | awk '
function layer_of(f,   p, n) {
	n = split(f, p, "/")
	if (p[1] == "src" && n == 2)
		return p[2] == "main.c" ? "src/main.c" : p[2] ~ /^serve(-[a-z]+)?\.[ch]$/ ? "src/serve.c" : "?"
	if (p[1] == "src")
		return "src/" p[2]
	return p[1] == "tests" || p[1] == "ui" || p[1] == "store" ? p[1] : "?"
}
function target_of(h,   p, n) {
	n = split(h, p, "/")
	if (n == 1)
		return h == "serve.h" ? "src/serve.c" : ""	# beside the file
	if (p[1] == "store" || p[1] == "ui" || p[1] == "tests")
		return p[1]
	return ("src/" p[1]) in known_layer ? "src/" p[1] : "?" h
}
/^@map$/ { sect = "map"; next }
/^@known$/ { sect = "known"; next }
/^@inc$/ { sect = "inc"; next }
NF == 0 { next }
sect == "map" {
	for (i = 2; i <= NF; i++) {
		if ($i != "-" && !($i in known_layer))
			print "the map: " $1 " lists " $i ", which is not above it"
		ok[$1 " " $i] = 1
	}
	known_layer[$1] = 1
	next
}
sect == "known" { exc[$1 " " $2] = 1; next }
sect == "inc" {
	split($0, f, ":")
	from = layer_of(f[1]); to = target_of(f[3])
	if ((f[1] " " f[3]) in exc) { seen[f[1] " " f[3]] = 1; next }
	if (from == "?" || !(from in known_layer)) {
		print f[1] ": not a layer of the map"; next
	}
	if (to == "" || to == from || ok[from " " to])
		next
	if (to ~ /^\?/) {
		print f[1] ":" f[2] ": " f[3] ": not a layer of the map"; next
	}
	print f[1] ":" f[2] ": " from " includes " to " (" f[3] ")"
}
END {
	for (k in exc)
		if (!seen[k])
			print "known " k ": no longer in the tree, delete it from the list"
}')
if [ -n "$map_hits" ]; then
	fail_rule map "$(echo "$map_hits" | sort -u | head -8 | tr '\n' ' ')"
else
	echo "ok - layers/map"
fi

# The README's architecture table: its rows are the map's layers in the
# map's order, and its last column ("may include") is the map's (--table).
tmp=$(mktemp)
table >"$tmp"
readme_hits=$(grep -E '^\| `[a-z./]+` \|' README.md |
    awk -F'|' '{ l = $2; gsub(/[ `]/, "", l); sub(/\/$/, "", l);
	may = $(NF - 1); gsub(/^ +| +$/, "", may); print l "\t" may }' |
    diff - "$tmp" | grep '^[<>]')
rm -f "$tmp"
if [ -n "$readme_hits" ]; then
	fail_rule readme "README.md (<) and the map (>) differ: $(echo "$readme_hits" | head -4 | tr '\n\t' '  ')"
else
	echo "ok - layers/readme"
fi

# A private header (*-int.h) stays in its layer; the tests may look inside.
int_hits=$(echo "$includes" | awk -F: '$3 ~ /-int\.h$/ {
	split($3, h, "/"); if ($1 !~ "^(src/)?" h[1] "/" && $1 !~ /^tests\//) print $1 ":" $2 ": " $3 }')
if [ -n "$int_hits" ]; then
	fail_rule int "$(echo "$int_hits" | head -3 | tr '\n' ' ')"
else
	echo "ok - layers/int"
fi

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

# Unique basenames: a file's name says which one it is, in a debugger's
# backtrace, a profile or a commit subject, without its directory.
dups=$(find src ui store -name '*.[ch]' | sed 's|.*/||' | sort | uniq -d)
if [ -n "$dups" ]; then
	fail_rule basenames "in two directories: $(echo $dups)"
else
	echo "ok - layers/basenames"
fi

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
exit $failed
