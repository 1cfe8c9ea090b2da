#!/bin/sh
# t0055-man-examples — the EXAMPLES of cellar(1) run, so the manual never
# lies (after jq's man.test). In the literal blocks of EXAMPLES:
#
#   $ cellar ...            a command, run with sh in a scratch directory
#                           where `cellar` is the binary under test and
#                           specs/ the shipped specs; a trailing "\" joins
#                           the next line. It must exit 0, or N when it
#                           ends in "# exit N".
#   lines after a command   its exact standard output, when there are any
#   $ cat FILE + lines      the lines are FILE's content: FILE is written,
#                           not cat
#
# mdoc escapes (\e \- \& \(aq \(dq) are decoded first.
. tests/scenarios/lib.sh

man=man/cellar.1
work=$TMP/work
mkdir -p "$work/bin" "$TMP/ex"
ln -s "$CELLAR" "$work/bin/cellar"
ln -s "$(pwd)/specs" "$work/specs"

sed -n '/^\.Sh EXAMPLES$/,/^\.Sh /p' "$man" | awk -v dir="$TMP/ex" '
	function decode(s) {
		gsub(/\\\(aq/, "\047", s); gsub(/\\\(dq/, "\"", s)
		gsub(/\\&/, "", s); gsub(/\\-/, "-", s); gsub(/\\e/, "\\", s)
		return s
	}
	function flush() { if (n > 0) close(dir "/" n ".cmd"); }
	/^\.Bd -literal/ { inlit = 1; cont = 0; next }
	/^\.Ed/ { inlit = 0; cont = 0; next }
	!inlit { next }
	{
		line = decode($0)
		if (cont) {
			print line >> (dir "/" n ".cmd")
			cont = line ~ /\\$/
			next
		}
		if (line ~ /^\$ /) {
			flush()
			n++
			sub(/^\$ /, "", line)
			print line > (dir "/" n ".cmd")
			printf "" > (dir "/" n ".out")
			cont = line ~ /\\$/
			next
		}
		if (n > 0)
			print line >> (dir "/" n ".out")
	}
	END { print n + 0 > (dir "/count") }'

count=$(cat "$TMP/ex/count" 2>/dev/null || echo 0)
if [ "$count" -lt 5 ]; then
	not_ok examples-found "only $count examples in $man EXAMPLES"
	done_testing
fi
ok examples-found

i=1
while [ "$i" -le "$count" ]; do
	cmd=$(cat "$TMP/ex/$i.cmd")
	name="example-$i"
	case $cmd in
	"cat "*)
		# A file shown with cat: write it for the commands that follow.
		cp "$TMP/ex/$i.out" "$work/${cmd#cat }"
		i=$((i + 1))
		continue ;;
	esac
	want=0
	case $cmd in
	*"# exit "[0-9]*) want=${cmd##*# exit } ;;
	esac
	(cd "$work" && PATH="$work/bin:$PATH" sh -c "$cmd") \
	    >"$TMP/out" 2>"$TMP/err" </dev/null
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	if [ "$RC" -ne "$want" ]; then
		not_ok "$name" "[$cmd] exited $RC, want $want; stderr: $ERR"
	elif [ -s "$TMP/ex/$i.out" ] && ! cmp -s "$TMP/out" "$TMP/ex/$i.out"; then
		not_ok "$name" "[$cmd] printed [$OUT], the manual says [$(cat "$TMP/ex/$i.out")]"
	else
		ok "$name"
	fi
	i=$((i + 1))
done

done_testing
