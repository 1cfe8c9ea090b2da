#!/bin/sh
# t0693-serve-guard — what cellar serve does for its neighbours and its
# readers: a second server (another store) given a live server's socket
# with --socket is refused, naming the path and the holder's pid, and the
# first still answers after it exits; the server's log lines carry an
# ISO-8601 UTC time, except under journald (JOURNAL_STREAM naming its
# stderr), which stamps them itself; a submit's decision line names the
# job; a server on a terminal formats replies for the client, not for its
# own terminal (no colour escapes reach a pipe); a user outside the
# socket's group is told which group to ask for.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
live_spec "$TMP/two.yaml" 0.1

# 1. the socket guard
serve_start "$TMP/two.yaml"
A=$CELLAR_DB
# refused at once; without the guard it would serve (a bounded run: a
# served socket ends with the timeout's 124, not a hang)
run timeout 60 env CELLAR_DB="$TMP/other.db" "$CELLAR" serve --spec "$TMP/two.yaml" --socket "$A.sock"
check_rc guard-refused-rc 1
check_err_has guard-refused-msg "socket '$A.sock' is in use by a live server (pid $SERVE_PID)"
[ -S "$A.sock" ] && ok guard-socket-kept || not_ok guard-socket-kept "gone"
run "$CELLAR" -o csv --no-header vcs
check_rc guard-first-answers 0
check_out_has guard-first-answers-out "a,"

# 2. log lines: a time first, ISO-8601 UTC
grep -q '^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9][0-9][0-9]Z cellar serve: pid ' "$SERVE_LOG" &&
    ok log-stamped || not_ok log-stamped "$(head -1 "$SERVE_LOG")"
# 3. a submit's decision line names its job
run "$CELLAR" submit named1 --vc a --gpus 1 -- true
grep -q ' cellar serve: submit named1 vc=a$' "$SERVE_LOG" && ok log-submit-named ||
    not_ok log-submit-named "$(grep 'submit' "$SERVE_LOG" | head -3)"
serve_stop
# under journald (JOURNAL_STREAM is its stderr's device:inode): no stamp
SERVE_N=$((SERVE_N + 1))
SERVE_LOG=$TMP/journal.log
: >"$SERVE_LOG"
JOURNAL_STREAM=$(stat -c '%d:%i' "$SERVE_LOG") "$CELLAR" serve >>"$SERVE_LOG" 2>&1 </dev/null &
SERVE_PID=$!
i=0
while [ "$i" -lt 400 ] && ! grep -q 'cellar serve: pid' "$SERVE_LOG"; do sleep 0.05; i=$((i + 1)); done
grep -q '^cellar serve: pid [0-9]* serving' "$SERVE_LOG" && ok log-journald-unstamped ||
    not_ok log-journald-unstamped "$(head -1 "$SERVE_LOG")"
serve_stop

# 4. a server on a terminal (script(1) gives it one, colour allowed
# there): a client's piped output has no escape sequences
if command -v script >/dev/null 2>&1; then
	SERVE_LOG=$TMP/tty.log
	env -u NO_COLOR TERM=xterm script -qfec "'$CELLAR' serve" /dev/null >"$SERVE_LOG" 2>&1 </dev/null &
	SERVE_PID=$!
	i=0
	while [ "$i" -lt 400 ] && ! grep -q 'cellar serve: pid' "$SERVE_LOG"; do sleep 0.05; i=$((i + 1)); done
	run "$CELLAR" queue
	check_rc tty-queue-rc 0
	check_out_has tty-queue-header "VC"
	esc=$(printf '\033')
	case $OUT in
	*"$esc"*) not_ok tty-no-colour "escapes in piped output: $(printf '%s' "$OUT" | od -c | head -2)" ;;
	*) ok tty-no-colour ;;
	esac
	kill "$SERVE_PID" 2>/dev/null
	wait "$SERVE_PID" 2>/dev/null
	i=0
	while [ "$i" -lt 200 ] && [ -S "$CELLAR_DB.sock" ]; do sleep 0.05; i=$((i + 1)); done
	SERVE_PID=
else
	skip tty-no-colour "no script(1)"
fi

# 5. a user outside the socket's group: told which group to ask for
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	g=$(id -gn)
	cp "$TMP/two.yaml" "$TMP/grp.yaml"
	printf 'access:\n  socketGroup: %s\n' "$g" >>"$TMP/grp.yaml"
	serve_start "$TMP/grp.yaml"
	chmod 755 "$TMP"
	run setpriv --reuid=65534 --regid=65534 --clear-groups -- env HOME="$TMP" XDG_STATE_HOME="$TMP/nobody" "$CELLAR" queue
	check_rc denied-rc 5
	check_err_has denied-msg "cannot connect to '$CELLAR_DB.sock': Permission denied: it is for members of group '$g' (the spec's access.socketGroup); ask the cluster's admin to add you to '$g'"
	chmod 700 "$TMP"
	serve_stop
else
	skip denied-msg "needs root and setpriv to be another user"
fi

done_testing
