#!/bin/sh
# t0050-help-vs-man — the manual against the command table (after git's
# t0450-txt-doc-vs-help): every command `help -o name` lists has an entry in
# the COMMANDS section of man/cellar.1 and vice versa, every option of every
# command is documented, and the man page's example command lines parse.
. tests/scenarios/lib.sh

man=man/cellar.1
if [ ! -f "$man" ]; then
	not_ok man-exists "$man is missing"
	done_testing
fi

# A count from json_get, or 0 when it is not one.
num() { case $1 in ''|*[!0-9]*) echo 0 ;; *) echo "$1" ;; esac; }

# Commands in the man page: ".It Cm WORDS Macro..." lines of COMMANDS,
# the lowercase words before the first macro.
sed -n '/^\.Sh COMMANDS/,/^\.Sh /p' "$man" |
    sed -n 's/^\.It Cm \([a-z][a-z ]*[a-z]\)\( [A-Z].*\)\{0,1\}$/\1/p' >"$TMP/man"
run "$CELLAR" help -o name
check_rc help-names-rc 0
printf '%s\n' "$OUT" >"$TMP/table"

while IFS= read -r c; do
	if grep -qx "$c" "$TMP/man"; then ok "in-man-$(echo "$c" | tr ' ' -)"
	else not_ok "in-man-$(echo "$c" | tr ' ' -)" "command '$c' is not in $man COMMANDS"; fi
done <"$TMP/table"
while IFS= read -r c; do
	if grep -qx "$c" "$TMP/table"; then ok "in-table-$(echo "$c" | tr ' ' -)"
	else not_ok "in-table-$(echo "$c" | tr ' ' -)" "'$c' is in $man but not a command"; fi
done <"$TMP/man"
[ -s "$TMP/man" ] || not_ok man-commands "no '.It Cm' command lines found in $man"

# Every option of every command appears as "Fl \-NAME" in the man page.
if have_jsontool options; then
	missing=
	while IFS= read -r c; do
		run "$CELLAR" help "$c" -o json
		n=$(num "$(json_get commands.0.options.#)")
		i=0
		while [ "$i" -lt "$n" ]; do
			o=$(json_get "commands.0.options.$i.long")
			grep -q "Fl \\\\-$o\\>" "$man" || missing="$missing $c:--$o"
			i=$((i + 1))
		done
	done <"$TMP/table"
	if [ -z "$missing" ]; then ok options-documented
	else not_ok options-documented "undocumented:$missing"; fi
fi

# The help's examples are the man page's: each appears in a literal block.
if have_jsontool examples; then
	missing=
	while IFS= read -r c; do
		run "$CELLAR" help "$c" -o json
		n=$(num "$(json_get commands.0.examples.#)")
		i=0
		while [ "$i" -lt "$n" ]; do
			ex=$(json_get "commands.0.examples.$i")
			grep -qxF "$ex" "$man" || missing="$missing [$ex]"
			i=$((i + 1))
		done
	done <"$TMP/table"
	if [ -z "$missing" ]; then ok examples-in-man
	else not_ok examples-in-man "not in $man:$missing"; fi
fi

# The examples of the help run on the default spec (files aside).
run "$CELLAR" help -o json
if have_jsontool examples-run; then
	: >"$TMP/script"
	n=$(num "$(json_get commands.#)")
	i=0
	while [ "$i" -lt "$n" ]; do
		m=$(num "$(json_get "commands.$i.examples.#")")
		k=0
		while [ "$k" -lt "$m" ]; do
			json_get "commands.$i.examples.$k" >>"$TMP/script"
			k=$((k + 1))
		done
		i=$((i + 1))
	done
	# Specs named in examples that do not ship are left out.
	grep -v 'my-cluster.yaml' "$TMP/script" >"$TMP/runnable"
	run "$CELLAR" -q -f "$TMP/runnable"
	if [ "$RC" -eq 0 ]; then ok examples-run
	else not_ok examples-run "exit $RC: $ERR"; fi
fi

# The page itself is clean.
if command -v mandoc >/dev/null 2>&1; then
	lint=$(mandoc -Tlint -Wwarning "$man" 2>&1)
	if [ -z "$lint" ]; then ok mandoc-lint
	else not_ok mandoc-lint "$lint"; fi
else
	not_ok mandoc-lint "mandoc is not installed (make deps installs it as root)"
fi

done_testing
