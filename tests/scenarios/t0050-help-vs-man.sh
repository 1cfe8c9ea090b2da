#!/bin/sh
# t0050-help-vs-man — the manual against the program's own tables (after
# git's t0450-txt-doc-vs-help); `make check-man` runs it with t0055.
#
#  - the sections cellar(1) must have are there, in order;
#  - COMMANDS has one ".It Cm NAME" entry per command of the table and no
#    other, and each entry documents the command's options (\-NAME), the
#    options of its usage line on its .It line, its alias, its listing
#    columns (as Li KEY) and its help examples, verbatim;
#  - every help topic is named in the entry of help;
#  - JOB STATES lists exactly the state codes and pending reasons of
#    src/job, EXIT STATUS exactly the statuses of cmd_exit_table;
#  - SERVER's list of who may send what names each command once, in the
#    class of the access table (help -o json);
#  - every global option of `cellar --help` is in DESCRIPTION;
#  - every JSON kind the commands write is described in JSON output;
#  - the help examples all run, in table order, on the default spec (those
#    of live commands on specs/local.yaml).
. tests/scenarios/lib.sh

man=man/cellar.1
if [ ! -f "$man" ]; then
	not_ok man-exists "$man is missing"
	done_testing
fi
have_jsontool tables || done_testing

# A count from json_get, or 0 when it is not one.
num() { case $1 in ''|*[!0-9]*) echo 0 ;; *) echo "$1" ;; esac; }
# The lines of section NAME (".Sh NAME" up to the next .Sh).
section() { awk -v s=".Sh $1" '/^\.Sh /{on = ($0 == s); next} on' "$man"; }
slug() { echo "$1" | tr ' ?' '-q'; }

# 1. Sections, in this order (others may come between).
prev=0 missing=
for s in NAME SYNOPSIS DESCRIPTION COMMANDS "JOB STATES" "DASHBOARD KEYS" \
    "OUTPUT FORMATS" ENVIRONMENT FILES "EXIT STATUS" EXAMPLES "SEE ALSO"; do
	n=$(grep -n "^\.Sh $s\$" "$man" | head -1 | cut -d: -f1)
	if [ -z "$n" ]; then missing="$missing [$s missing]"
	elif [ "$n" -le "$prev" ]; then missing="$missing [$s out of order]"
	else prev=$n; fi
done
if [ -z "$missing" ]; then ok sections
else not_ok sections "$missing"; fi

# 2. COMMANDS entries: split the section into one file per command (the
# lines from its ".It Cm" to the next item of a top-level list).
mkdir -p "$TMP/blocks"
section COMMANDS | awk -v dir="$TMP/blocks" '
	/^\.Ss / { name = ""; next }
	/^\.Bl/ { depth++ }
	/^\.El/ { depth--; if (depth == 0) name = "" }
	depth == 1 && /^\.It / {
		name = ""
		if ($0 ~ /^\.It Cm [a-z]/) {
			n = split($0, w, " ")
			for (i = 3; i <= n && w[i] ~ /^[a-z]/; i++)
				name = name (name == "" ? "" : " ") w[i]
			print name > (dir "/NAMES")
		}
	}
	name != "" { f = name; gsub(/ /, "_", f); print > (dir "/" f) }'
run "$CELLAR" help -o json
check_rc help-json-rc 0
printf '%s\n' "$OUT" >"$TMP/help.json"
n=$(num "$(json_get commands.#)")
[ "$n" -gt 0 ] || not_ok commands "help -o json lists no commands"
: >"$TMP/table"
i=0
while [ "$i" -lt "$n" ]; do
	json_get "commands.$i.name" >>"$TMP/table"
	i=$((i + 1))
done
touch "$TMP/blocks/NAMES"
while IFS= read -r c; do
	grep -qx "$c" "$TMP/blocks/NAMES" ||
	    not_ok "in-man-$(slug "$c")" "command '$c' has no '.It Cm $c' in $man COMMANDS"
done <"$TMP/table"
while IFS= read -r c; do
	grep -qx "$c" "$TMP/table" ||
	    not_ok "in-table-$(slug "$c")" "'.It Cm $c' in $man is no command"
done <"$TMP/blocks/NAMES"
[ -s "$TMP/blocks/NAMES" ] || not_ok man-commands "no '.It Cm' entries in $man COMMANDS"
ok commands-both-ways

# The words that follow a Li macro in a file, one per line.
li_words() {
	awk '{ on = 0; for (i = 1; i <= NF; i++) {
		if ($i == "Li" || $i == ".Li") { on = 1; continue }
		if ($i ~ /^[A-Z][a-z][a-z]?$/ || $i ~ /^\.[A-Z]/) { on = 0; continue }
		if (on && $i != "," && $i != ";") { w = $i; gsub(/[,;()]$/, "", w); print w }
	} }' "$1"
}

# 3. Each entry documents what the table says of its command.
i=0
while [ "$i" -lt "$n" ]; do
	OUT=$(cat "$TMP/help.json")
	c=$(json_get "commands.$i.name")
	b="$TMP/blocks/$(echo "$c" | tr ' ' _)"
	t=$(slug "$c")
	i=$((i + 1))
	[ -f "$b" ] || continue
	bad=
	# Options, as \-NAME anywhere in the entry.
	k=0
	m=$(num "$(json_get "commands.$((i - 1)).options.#")")
	while [ "$k" -lt "$m" ]; do
		o=$(json_get "commands.$((i - 1)).options.$k.long")
		grep -q "\\\\-$o\\>" "$b" || bad="$bad --$o"
		k=$((k + 1))
	done
	# The options of the usage line, on the .It line.
	# (A bare "--" ends the options: not an option.)
	for o in $(json_get "commands.$((i - 1)).usage" | grep -o -- '--[a-z-][a-z-]*'); do
		head -n 1 "$b" | grep -q "\\\\-${o#--}\\>" || bad="$bad usage:$o"
	done
	# The alias.
	a=$(json_get "commands.$((i - 1)).alias")
	if [ "$a" != null ] && [ -n "$a" ]; then
		grep -qF -e "Cm $a" -e "Ql \\&$a" -e "Ql $a" "$b" || bad="$bad alias:$a"
	fi
	# The columns of a listing, each key as Li KEY.
	li_words "$b" >"$TMP/li"
	k=0
	m=$(num "$(json_get "commands.$((i - 1)).columns.#")")
	while [ "$k" -lt "$m" ]; do
		key=$(json_get "commands.$((i - 1)).columns.$k.key")
		grep -qxF "$key" "$TMP/li" || bad="$bad column:$key"
		k=$((k + 1))
	done
	# The examples, verbatim lines of the entry.
	k=0
	m=$(num "$(json_get "commands.$((i - 1)).examples.#")")
	while [ "$k" -lt "$m" ]; do
		ex=$(json_get "commands.$((i - 1)).examples.$k")
		grep -qxF "$ex" "$b" || bad="$bad example:[$ex]"
		k=$((k + 1))
	done
	if [ -z "$bad" ]; then ok "entry-$t"
	else not_ok "entry-$t" "'$c' in $man lacks:$bad"; fi
done

# 4. Help topics, in the entry of help.
OUT=$(cat "$TMP/help.json")
m=$(num "$(json_get topics.#)")
[ "$m" -gt 0 ] || not_ok topics "help -o json lists no topics"
k=0 bad=
while [ "$k" -lt "$m" ]; do
	tp=$(json_get "topics.$k.topic")
	grep -qF "Cm help $tp" "$TMP/blocks/help" 2>/dev/null || bad="$bad $tp"
	k=$((k + 1))
done
if [ -z "$bad" ]; then ok topics-documented
else not_ok topics-documented "topics not named in the help entry:$bad"; fi

# 5. JOB STATES: the codes and reasons of src/job, both ways.
section "JOB STATES" | sed -n 's/^\.It Li \([^ ]*\)$/\1/p' | sort >"$TMP/man-states"
run "$CELLAR" help states -o json
check_rc states-json-rc 0
: >"$TMP/states"
m=$(num "$(json_get states.#)")
k=0
while [ "$k" -lt "$m" ]; do
	code=$(json_get "states.$k.code")
	echo "$code" >>"$TMP/states"
	sname=$(json_get "states.$k.name")
	section "JOB STATES" | grep -A1 -x "\\.It Li $code" | grep -q "^$sname:" ||
	    not_ok "state-$code" "JOB STATES does not call '$code' '$sname:'"
	k=$((k + 1))
done
m=$(num "$(json_get reasons.#)")
k=0
while [ "$k" -lt "$m" ]; do
	json_get "reasons.$k.name" >>"$TMP/states"
	k=$((k + 1))
done
sort -o "$TMP/states" "$TMP/states"
if cmp -s "$TMP/states" "$TMP/man-states"; then ok job-states
else not_ok job-states "program vs man: $(diff "$TMP/states" "$TMP/man-states" | grep '^[<>]' | tr '\n' ' ')"; fi

# 6. EXIT STATUS: the statuses of cmd_exit_table, both ways.
section "EXIT STATUS" | sed -n 's/^\.It \([0-9][0-9]*\)$/\1/p' >"$TMP/man-exit"
run "$CELLAR" help exit-status -o json
check_rc exit-json-rc 0
: >"$TMP/exit"
m=$(num "$(json_get statuses.#)")
k=0
while [ "$k" -lt "$m" ]; do
	json_get "statuses.$k.status" >>"$TMP/exit"
	k=$((k + 1))
done
if [ -s "$TMP/exit" ] && cmp -s "$TMP/exit" "$TMP/man-exit"; then ok exit-statuses
else not_ok exit-statuses "program [$(tr '\n' ' ' <"$TMP/exit")] man [$(tr '\n' ' ' <"$TMP/man-exit")]"; fi

# 6b. SERVER: who may send what, as the access table says (help -o json's
# access), both ways: each class's item lists its commands in .Cm lines.
section SERVER | awk '
	/^\.Sy Who may do what\./ { on = 1 }
	on && /^\.El/ { exit }
	on && /^\.It Cm / { class = $3; next }
	on && class != "" && /^\.Cm / {
		sub(/^\.Cm /, ""); sub(/ [.,]$/, "")
		n = split($0, w, " , ")
		for (i = 1; i <= n; i++) print w[i] "\t" class
	}' | sort >"$TMP/man-access"
run "$CELLAR" help -o json
: >"$TMP/access"
m=$(num "$(json_get commands.#)")
k=0
while [ "$k" -lt "$m" ]; do
	printf '%s\t%s\n' "$(json_get "commands.$k.name")" \
	    "$(json_get "commands.$k.access")" >>"$TMP/access"
	k=$((k + 1))
done
sort -o "$TMP/access" "$TMP/access"
if [ -s "$TMP/access" ] && cmp -s "$TMP/access" "$TMP/man-access"; then ok server-access
else not_ok server-access "program vs man: $(diff "$TMP/access" "$TMP/man-access" | grep '^[<>]' | tr '\n\t' '  ')"; fi

# 7. Global options, in DESCRIPTION.
run "$CELLAR" --help
section DESCRIPTION >"$TMP/desc"
bad=
for o in $(printf '%s\n' "$OUT" | sed -n 's/^  \(-., \)\{0,1\}--\([a-z-]*\).*/\2/p'); do
	e=$(printf %s "$o" | sed 's/-/\\\\-/g')	# no-header: no\\-header
	grep -q "Fl \\\\-$e\\>" "$TMP/desc" || bad="$bad --$o"
done
if [ -z "$bad" ]; then ok global-options
else not_ok global-options "not in DESCRIPTION:$bad"; fi

# 8. JSON kinds: every kind the examples write is described.
OUT=$(cat "$TMP/help.json")
: >"$TMP/script"
i=0
while [ "$i" -lt "$n" ]; do
	m=$(num "$(json_get "commands.$i.examples.#")")
	k=0
	# A live command's examples start real processes: they run on
	# specs/local.yaml (cmd.h invariant 4), in a script of their own.
	sc=script
	[ "$(json_get "commands.$i.live")" = true ] && sc=script-live
	while [ "$k" -lt "$m" ]; do
		json_get "commands.$i.examples.$k" >>"$TMP/$sc"
		k=$((k + 1))
	done
	i=$((i + 1))
done
[ -s "$TMP/script-live" ] || not_ok live-examples "no examples of live commands"
# A watch without --count runs until interrupted, a serve until a signal:
# not in a script (t0130 and t0690 run them).
awk '!/^watch / || /--count/' "$TMP/script" >"$TMP/script-all"
mv "$TMP/script-all" "$TMP/script"
grep -v '^serve' "$TMP/script-live" >"$TMP/script-all"
mv "$TMP/script-all" "$TMP/script-live"
# the live examples are clients of a server on specs/local.yaml, whose
# process hooks keep their state under its $HOME/.cellar/run
. tests/scenarios/lib-live.sh
SERVE_ENV="HOME=$TMP"
sed -n '/^\.Ss JSON output/,/^\.S[hs] /p' "$man" |
    sed -n 's/^\.It Li //p' | tr -d ',' | tr ' ' '\n' >"$TMP/man-kinds"
grep -v -- ' -o ' "$TMP/script" >"$TMP/script-json"
grep -v -- ' -o ' "$TMP/script-live" >"$TMP/script-live-json"
run "$CELLAR" -o json -f "$TMP/script-json"
default_out=$OUT
serve_start specs/local.yaml
run "$CELLAR" -o json -f "$TMP/script-live-json"
[ "$RC" -eq 0 ] || not_ok live-examples-json "exit $RC: $ERR"
serve_stop
CELLAR_DB=:memory:
OUT="$default_out
$OUT"
bad=
lines=$(printf '%s\n' "$OUT" | wc -l)
k=1
while [ "$k" -le "$lines" ]; do
	kind=$(json_get kind "$k")
	grep -qxF "$kind" "$TMP/man-kinds" || bad="$bad $kind"
	k=$((k + 1))
done
if [ -z "$bad" ] && [ "$lines" -gt 1 ]; then ok json-kinds-documented
else not_ok json-kinds-documented "kinds not in JSON output:$bad ($lines documents)"; fi

# 9. The examples of the help run, in table order, on the default spec.
run env -u CELLAR_DB "$CELLAR" -q -f "$TMP/script"	# the default store, as a user has
if [ "$RC" -eq 0 ]; then ok examples-run
else not_ok examples-run "exit $RC: $ERR"; fi
# (a store of their own: the default one now holds the run above, on a
# spec with other VCs, which --spec would have to reconfigure)
serve_start specs/local.yaml
run "$CELLAR" -q -f "$TMP/script-live"
if [ "$RC" -eq 0 ]; then ok live-examples-run
else not_ok live-examples-run "exit $RC: $ERR"; fi

done_testing
