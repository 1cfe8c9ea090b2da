#!/bin/sh
# t0056-readme — the README a newcomer reads stays short and true (issue
# 21): README.md has fewer than 250 lines; every relative link of
# README.md and src/README.md names a file or directory of the tree; and
# the commands of the README's tour run, in order, on one state store,
# each exiting 0 and printing every output line the README shows under it
# ("..." marks lines left out).
. tests/scenarios/lib.sh

# 1. Short.
n=$(wc -l <README.md)
if [ "$n" -lt 250 ]; then ok readme-short
else not_ok readme-short "README.md has $n lines (at most 249)"; fi

# 2. Links: [text](target) with a target that is no URL and no bare
# anchor resolves against the linking file's directory (#anchor dropped).
for f in README.md src/README.md; do
	if [ ! -f "$f" ]; then
		not_ok "links-$f" "$f is missing"
		continue
	fi
	dir=$(dirname "$f")
	grep -o '\]([^)]*)' "$f" | sed 's/^](//; s/)$//' >"$TMP/links"
	count=0 bad=
	while IFS= read -r t; do
		case $t in
		http://*|https://*|mailto:*|'#'*) continue ;;
		esac
		count=$((count + 1))
		p=${t%%#*}
		[ -e "$dir/$p" ] || bad="$bad $t"
	done <"$TMP/links"
	if [ "$count" -eq 0 ]; then not_ok "links-$f" "no relative links found in $f"
	elif [ -z "$bad" ]; then ok "links-$f"
	else not_ok "links-$f" "$count links, broken:$bad"; fi
done

# 3. The tour: the indented lines of "## A tour" that start with ./cellar
# are commands; the indented lines after one, its expected output.
awk -v dir="$TMP/tour" '
	/^## / { on = ($0 ~ /^## A tour/); next }
	!on || !/^    / { next }
	{ line = substr($0, 5) }
	line ~ /^\.\/cellar / {
		n++
		print substr(line, 3) > (dir "." n ".cmd")
		printf "" > (dir "." n ".out")
		next
	}
	n > 0 && line != "..." { print line >> (dir "." n ".out") }
	END { print n + 0 > (dir ".count") }' README.md
count=$(cat "$TMP/tour.count" 2>/dev/null || echo 0)
if [ "$count" -lt 8 ]; then
	not_ok tour-found "only $count tour commands in README.md"
	done_testing
fi
ok tour-found

# The tour's commands share the default store under $XDG_STATE_HOME, as a
# newcomer's would ($HOME too: nothing of the user's is read).
unset CELLAR_DB
HOME=$TMP/home
mkdir -p "$HOME" "$TMP/bin"
ln -s "$CELLAR" "$TMP/bin/cellar"
PATH=$TMP/bin:$PATH
export HOME PATH
i=1
while [ "$i" -le "$count" ]; do
	cmd=$(cat "$TMP/tour.$i.cmd")
	sh -c "$cmd" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	if [ "$rc" -ne 0 ]; then
		not_ok "tour-$i" "'$cmd' exited $rc: $(cat "$TMP/err")"
		i=$((i + 1))
		continue
	fi
	missing=
	while IFS= read -r want; do
		[ -z "$want" ] && continue
		grep -qxF -- "$want" "$TMP/out" || missing="$missing [$want]"
	done <"$TMP/tour.$i.out"
	if [ -z "$missing" ]; then ok "tour-$i"
	else not_ok "tour-$i" "'$cmd' did not print:$missing"; fi
	i=$((i + 1))
done
done_testing
