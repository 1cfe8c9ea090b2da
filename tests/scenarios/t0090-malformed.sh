#!/bin/sh
# t0090-malformed — malformed input of every kind gets one clear error and
# the right exit status, never a crash (make asan runs this under ASan):
# NUL bytes, invalid UTF-8, binary garbage, a 1 MB line, a 128 KB argument,
# unterminated quotes at end of input, a trailing backslash, missing option
# values, control bytes in words, and thousands of commands on one line.
. tests/scenarios/lib.sh

# No crash: a status below 128 (signals are 128+).
check_no_crash() {
	if [ "$RC" -lt 128 ]; then ok "$1"
	else not_ok "$1" "exit status $RC (a signal); stderr: $(printf '%s' "$ERR" | head -c 300)"; fi
}

# NUL bytes on stdin: a usage error naming the line, before it runs.
printf 'jobs -o name\nvcs\000 -o name\nstatus\n' >"$TMP/nul"
run "$CELLAR" -f "$TMP/nul"
check_rc nul-rc 2
check_err_has nul "cellar: line 2: NUL byte in input (at byte 4)"
check_out nul-nothing-of-line-2 ""
run "$CELLAR" -k -f "$TMP/nul"
check_rc nul-keep-going-rc 2
check_out_has nul-keep-going-rest "FIELD"

# Invalid UTF-8, on stdin and in argv.
printf 'cells r0n0\303\n' >"$TMP/utf8"
run "$CELLAR" -f "$TMP/utf8"
check_rc utf8-rc 2
check_err_has utf8 "cellar: line 1: input is not valid UTF-8 (at byte 11)"
run "$CELLAR" node bad "$(printf 'r0n\377')"
check_rc utf8-argv-rc 2
check_err_has utf8-argv "word 3 is not valid UTF-8 (at byte 4)"
run "$CELLAR" -c "$(printf 'jobs \355\240\200')"
check_rc utf8-surrogate-rc 2
# Valid UTF-8 that names nothing is an ordinary failure.
run "$CELLAR" cells "$(printf 'r\303\251seau')"
check_rc utf8-valid-rc 1
check_err_has utf8-valid "unknown cell, node or chain 'r$(printf '\303\251')seau'"

# Binary garbage: deterministic pseudo-random bytes, several sizes.
for n in 1 64 4096 100000; do
	awk -v n="$n" 'BEGIN { srand(42); for (i = 0; i < n; i++)
	    printf "%c", int(rand() * 256) }' >"$TMP/garbage" 2>/dev/null
	run "$CELLAR" -f "$TMP/garbage"
	check_no_crash "garbage-$n"
	[ "$RC" -eq 0 ] && not_ok "garbage-$n-fails" "random bytes ran cleanly" || ok "garbage-$n-fails"
done
run "$CELLAR" -k -f /dev/null
check_rc empty-file-rc 0

# A 1 MB line: refused as too long, the rest still runs with -k.
awk 'BEGIN { printf "jobs "; for (i = 0; i < 1048576; i++) printf "x"; printf "\nstatus -o json\n" }' \
    >"$TMP/long"
run "$CELLAR" -k -f "$TMP/long"
check_rc long-line-rc 2
check_err_has long-line "cellar: line 1: input too long (1048581 bytes; at most 65536)"
check_out_has long-line-rest '"kind":"status"'
check_no_crash long-line-no-crash
# A long argument in argv (one-shot; Linux allows 128 KiB per argument).
run "$CELLAR" cells "$(awk 'BEGIN { for (i = 0; i < 131000; i++) printf "y" }')"
check_rc long-word-rc 2
check_err_has long-word "word 2 is too long (131000 bytes; at most 65536)"
# Just under the limit, a long word is an ordinary failure with its echo.
run "$CELLAR" release "$(awk 'BEGIN { for (i = 0; i < 60000; i++) printf "z" }')"
check_rc long-ok-word-rc 1

# Unterminated quotes and a trailing backslash at end of input.
printf "jobs\nrelease 'a b\n" >"$TMP/quote"
run "$CELLAR" -f "$TMP/quote"
check_rc quote-rc 2
check_err_has quote "cellar: line 2: unexpected end of input (unterminated quote or trailing backslash)"
printf 'jobs \\' >"$TMP/backslash"
run "$CELLAR" -f "$TMP/backslash"
check_rc backslash-rc 2
run "$CELLAR" -c 'help "node'
check_rc c-quote-rc 2
check_err_has c-quote "unterminated double quote"

# Missing option values, empty words, control bytes.
run "$CELLAR" -c 'jobs --sort'
check_rc missing-sort-rc 2
check_err_has missing-sort "option '--sort' needs a value (KEY[,-KEY])"
run "$CELLAR" -c 'jobs --filter ""'
check_rc empty-filter-rc 2
check_err_has empty-filter "invalid filter ''"
run "$CELLAR" -o
check_rc missing-global-rc 2
check_err_has missing-global "option '-o' needs a value"
run "$CELLAR" -c "''"
check_rc empty-word-rc 2
check_err_has empty-word "unknown command ''"
run "$CELLAR" -c "$(printf 'release a\033[2Jb')"
check_rc control-rc 1
check_err_has control-escaped "unknown job 'a\\x1b[2Jb'"

# Many commands on one line, within the limit: all run, in order.
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "status -o json;"; print "" }' >"$TMP/many"
run "$CELLAR" -f "$TMP/many"
check_rc many-rc 0
[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 3000 ] && ok many-all-ran ||
    not_ok many-all-ran "$(printf '%s\n' "$OUT" | wc -l) outputs"

done_testing
