#!/bin/sh
# tests/mutate/run.sh — the mutation tier: does a test fail when the code
# it covers is wrong?
#
# Each entry of tests/mutate/mutations (its format is at the top of that
# file) is one small change to the source: a comparison flipped, a
# condition dropped, a constant changed, a write skipped. For each, in a
# copy of the tree (the checkout is never touched), the runner applies the
# change, rebuilds what depends on it (debug build), runs the tests the
# entry names, and restores the file. A mutation is
#   killed     when a named test prints "not ok", exits non-zero or hangs
#              past MUTATE_TIMEOUT seconds (default 600);
#   survived   when every named test passes: a hole in the tests;
#   broken     when its text is not in the file exactly once, or the
#              mutant does not build: the table is out of date.
# One "ok - mutate/ID" (killed) or "not ok - mutate/ID: why" line per
# mutation, then the kill rate per layer, then "N passed, M failed".
#
#   sh tests/mutate/run.sh [-k] [ID...]
#      ID...  only these mutations (default: all)
#      -k     keep the copy (build/mutate) for a look afterwards
# MUTATE_DIR (default build/mutate) holds the copy and its build.

top=$(pwd)
table=$top/tests/mutate/mutations
dir=${MUTATE_DIR:-$top/build/mutate}
timeout_s=${MUTATE_TIMEOUT:-600}
keep=
[ "$1" = -k ] && { keep=1; shift; }
want="$*"

[ -f "$table" ] || { echo "not ok - mutate/table: no $table"; exit 1; }

# The copy: the files make and the tests read, as they are in the
# checkout (uncommitted changes included: you mutate what you test).
rm -rf "$dir/tree"
mkdir -p "$dir/tree" || exit 1
tar -cf - Makefile src ui store specs tests man README.md 2>/dev/null |
    (cd "$dir/tree" && tar -xf -) || { echo "not ok - mutate/copy"; exit 1; }
tree=$dir/tree
B=build/dbg
log=$dir/log
: >"$log"
# The checkout's debug build, if any, starts the copy's: tar and cp -a
# keep modification times, so make rebuilds only what is out of date.
[ -d "$top/build/dbg" ] && mkdir -p "$tree/build" && cp -a "$top/build/dbg" "$tree/build/"

# build [TARGET...]: the debug binaries and tests in the copy (only
# TARGETs, when given: what the mutation's tests run); 0 when built
build() {
	[ $# -gt 0 ] || set -- variant-tests
	(cd "$tree" && make -s -j2 VARIANT=dbg "$@" >>"$log" 2>&1)
}

echo "# mutate: building the copy in $tree"
build || { echo "not ok - mutate/build: the unmutated tree does not build (see $log)"; exit 1; }

# targets TEST...: the binaries those tests run
targets() {
	for t in "$@"; do
		case $t in
		unit:*) echo "$B/tests/unit/${t#unit:}" ;;
		*) echo "$B/cellar"
		   for h in "$tree"/tests/helpers/*.c; do
			h=${h#"$tree"/}
			echo "$B/${h%.c}"
		   done ;;
		esac
	done | sort -u
}

state=$(mktemp -d)
trap 'rm -rf "$state"; [ -n "$keep" ] || rm -rf "$tree"' EXIT

# run_test SPEC: unit:NAME or sc:NAME (tests/scenarios/NAME.sh) or
# papers:NAME; 0 when it passed, 1 when it failed or hung.
run_test() {
	out=$state/out
	case $1 in
	unit:*)
		(cd "$tree" && timeout "$timeout_s" "$B/tests/unit/${1#unit:}") >"$out" 2>&1 ;;
	sc:*)
		rm -rf "$state/home" "$state/xdg"
		mkdir -p "$state/home"
		(cd "$tree" && env CELLAR="$tree/$B/cellar" CELLAR_BUILD=$B \
		    HOME="$state/home" XDG_STATE_HOME="$state/xdg" \
		    timeout "$timeout_s" sh "tests/scenarios/${1#sc:}.sh") >"$out" 2>&1 ;;
	*)
		echo "unknown test '$1'" >"$out"; return 2 ;;
	esac
	rc=$?
	[ $rc -eq 0 ] && ! grep -q '^not ok' "$out"
}

# apply FILE FROM TO: replace the one occurrence of FROM by TO (fixed
# strings); 1 when FROM is not there exactly once.
apply() {
	perl -e '
		my ($f, $from, $to) = @ARGV;
		open(my $h, "<", $f) or exit 3;
		local $/; my $t = <$h>; close $h;
		my $n = () = $t =~ /\Q$from\E/g;
		exit 1 if $n != 1;
		$t =~ s/\Q$from\E/$to/;
		open($h, ">", $f) or exit 3; print $h $t; close $h;
		exit 0;' "$tree/$1" "$2" "$3"
}

# layer FILE: the layer a mutation belongs to, for the summary
layer() {
	case $1 in
	src/serve.c) echo serve ;;
	src/*/*) d=${1#src/}; echo "${d%%/*}" ;;
	store/*) echo store ;;
	specs/hooks/*) echo hooks ;;
	*) echo other ;;
	esac
}

pass=0 fail=0
: >"$state/layers"

# one mutation: $id $file $from $to $tests
mutate_one() {
	case " $want " in
	"  ") ;;
	*" $id "*) ;;
	*) return ;;
	esac
	l=$(layer "$file")
	cp "$tree/$file" "$state/orig"
	if ! apply "$file" "$from" "$to"; then
		echo "not ok - mutate/$id: broken: '$from' is not in $file exactly once"
		fail=$((fail + 1))
		echo "$l broken" >>"$state/layers"
		return
	fi
	case $file in
	*.c|*.h|*.sql)
		# shellcheck disable=SC2046
		if ! build $(targets $tests); then
			echo "not ok - mutate/$id: broken: the mutant does not build (see $log)"
			fail=$((fail + 1))
			echo "$l broken" >>"$state/layers"
			cp "$state/orig" "$tree/$file"
			return
		fi ;;
	esac
	killer=
	for t in $tests; do
		if ! run_test "$t"; then
			killer=$t
			break
		fi
	done
	if [ -n "$killer" ]; then
		echo "ok - mutate/$id ($l: killed by $killer)"
		pass=$((pass + 1))
		echo "$l killed" >>"$state/layers"
	else
		echo "not ok - mutate/$id: survived $tests ($file: '$from' -> '$to')"
		fail=$((fail + 1))
		echo "$l survived" >>"$state/layers"
	fi
	# restored with a new mtime: the next build takes the original again
	cp "$state/orig" "$tree/$file"
}

# The table: blocks of "key value" lines (id, file, from, to, tests),
# blank-line separated; '#' lines are comments.
id= file= from= to= tests=
flush() {
	if [ -n "$id" ]; then
		if [ -z "$file" ] || [ -z "$from" ] || [ -z "$tests" ]; then
			echo "not ok - mutate/$id: the entry lacks file, from or tests"
			fail=$((fail + 1))
		else
			mutate_one
		fi
	fi
	id= file= from= to= tests=
}
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	'#'*) continue ;;
	'') flush; continue ;;
	esac
	key=${line%% *}
	val=${line#"$key"}
	val=${val#"${val%%[! ]*}"}	# the value starts after the spaces
	case $key in
	id) id=$val ;;
	file) file=$val ;;
	from) from=$val ;;
	to) to=$val ;;
	tests) tests=$val ;;
	*) echo "not ok - mutate/table: unknown key '$key' in '$line'"; fail=$((fail + 1)) ;;
	esac
done <"$table"
flush

# Kill rate per layer.
echo "# layer      killed  survived  broken"
awk '{ n[$1 " " $2]++; l[$1] = 1 }
    END { for (x in l) printf "# %-10s %6d  %8d  %6d\n", x, n[x " killed"],
	n[x " survived"], n[x " broken"] }' "$state/layers" | sort
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
