#!/bin/sh
# t0080-prompt-signals — the REPL on a terminal fed a script (through
# script(1), which gives cellar a pseudo-terminal): prompt, errors that do
# not end it, continuation lines, the last command's exit status; and exit
# status 130 when a batch is interrupted. tests/scenarios/t01*-repl-*.sh
# drive the REPL key by key in tmux.
. tests/scenarios/lib.sh

if ! command -v script >/dev/null 2>&1; then
	not_ok prompt "script(1) is not installed (Debian: bsdutils)"
else
	printf 'status -o json\nrelease nope\nalloc a --vc prod \\\n --gpus 1\njobs -o name\n' |
	    HOME=$TMP CELLAR_HISTFILE= script -qec "$CELLAR --no-color repl" /dev/null >"$TMP/tty" 2>&1
	RC=$?
	OUT=$(tr -d '\r' <"$TMP/tty")
	check_out_has prompt "cellar default/hived> "
	check_out_has prompt-runs '"kind":"status"'
	check_out_has prompt-error-goes-on "cellar: unknown job 'nope'"
	check_out_has prompt-continuation ">  --gpus 1
job 'a' started"
	check_out_has prompt-after-continuation "cellar default/hived> jobs -o name
a"
	# The last command succeeded: a shell's rule, not batch mode's.
	check_rc prompt-status 0
	[ ! -e "$TMP/.local" ] && ok prompt-no-history ||
	    not_ok prompt-no-history "an empty CELLAR_HISTFILE still wrote $TMP/.local"
fi

# An interrupted batch exits 130. The batch reads a FIFO that stays open,
# so cellar is waiting for its next command when SIGINT arrives.
# (A background job starts with SIGINT ignored; cellar installs its own
# handler all the same, so a batch can always be interrupted.)
mkfifo "$TMP/fifo"
"$CELLAR" -f "$TMP/fifo" >"$TMP/out" 2>"$TMP/err" &
pid=$!
exec 3>"$TMP/fifo"
printf 'status -o json\n' >&3
i=0
while [ ! -s "$TMP/out" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -INT "$pid"
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"	# never hang the suite
wait "$pid"
RC=$?
exec 3>&-
ERR=$(cat "$TMP/err")
OUT=$(cat "$TMP/out")
check_rc sigint-status 130
check_err_has sigint-message "cellar: interrupted"
check_out_has sigint-ran-first '"kind":"status"'

done_testing
