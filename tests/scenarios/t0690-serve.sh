#!/bin/sh
# t0690-serve — cellar serve: one server drives a store's live cluster and
# every other cellar is its client. Without a server a live command is
# refused (exit 5). Jobs submitted by one-shot commands run with no client
# open; wait works from any client; a second server is refused with the
# holder's pid and takes over after a kill -9 of the first; a stale socket
# is replaced; kills at random moments lose nothing and run nothing twice;
# concurrent clients' submissions are each stored once, in the order the
# server accepted them; the protocol is plain lines (o/e/exit); garbage,
# huge lines, half-closed and idle connections neither crash nor stall it;
# SIGHUP reloads the spec; the access: section is enforced for a real
# second user; one-shot load keeps its spec.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
PEER=$(dirname "$CELLAR")/tests/helpers/sockpeer
live_spec "$TMP/two.yaml" 0.1
unset CELLAR_DB

# runs_once JOB: its trainer started once and reached its last step once
runs_once() {
	runs=$(grep -c '^step 1$' "$TRAINER_DIR/$1.0.progress" 2>/dev/null)
	ends=$(grep -c "^step $2\$" "$TRAINER_DIR/$1.0.progress" 2>/dev/null)
	[ "$runs" = 1 ] && [ "$ends" = 1 ]
}
# poll_for CMD...: run until it succeeds (a cap on tries)
poll_for() {
	i=0
	while [ "$i" -lt 600 ]; do
		"$@" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# 1. no server: live commands say so (exit 5), naming the store
CELLAR_DB=$TMP/none.db
export CELLAR_DB
run "$CELLAR" --spec "$TMP/two.yaml" submit x --vc a -- true
check_rc no-server-rc 5
check_err_has no-server-msg "no cellar server is running for '$TMP/none.db': start one with 'cellar serve'"
run "$CELLAR" --spec "$TMP/two.yaml" queue
check_rc no-server-queue-rc 5
# the local (default) spec knows nothing of the cluster's VCs: still 5
run "$CELLAR" submit x --vc a -- true
check_rc no-server-before-vc-rc 5
run "$CELLAR" help exit-status
check_out_has no-server-exit-doc "no cellar server"

# 2. submit and walk away: one-shot submits, no client left open, the
# jobs run to their end; queue and wait from other clients
serve_start "$TMP/two.yaml"
for j in w1 w2 w3 w4 w5; do
	"$CELLAR" submit "$j" --vc a --gpus 4 -- "$trainer" 3 0.02 >>"$TMP/sub.out" 2>&1
done
[ "$(grep -c "^submitted job 'w" "$TMP/sub.out")" = 5 ] && ok unattended-submitted ||
    not_ok unattended-submitted "$(cat "$TMP/sub.out")"
all_done() {
	for j in w1 w2 w3 w4 w5; do runs_once "$j" 3 || return 1; done
}
poll_for all_done && ok unattended-ran ||
    not_ok unattended-ran "$(tail -5 "$SERVE_LOG")"
run "$CELLAR" wait w1 w5 --timeout 60s
check_rc unattended-wait-rc 0
check_out unattended-wait "w1 completed
w5 completed"
run "$CELLAR" -o csv --no-header queue
check_out unattended-queue-empty ""
grep -q '^[0-9T:.Z-]* cellar serve: start w5 vc=a ' "$SERVE_LOG" && ok log-decision ||
    not_ok log-decision "$(cat "$SERVE_LOG")"
me=$(id -un)
grep -q "^[0-9T:.Z-]* cellar serve: request $me: submit w1 --vc a --gpus 4 -- " "$SERVE_LOG" && ok log-request ||
    not_ok log-request "$(cat "$SERVE_LOG")"

# 3. files: the socket 0600 beside the store, the lock holding our pid
mode=$(stat -c %a "$CELLAR_DB.sock" 2>/dev/null)
[ "$mode" = 600 ] && ok socket-mode || not_ok socket-mode "mode $mode"
[ "$(cat "$CELLAR_DB.lock" 2>/dev/null)" = "$SERVE_PID" ] && ok lock-pid ||
    not_ok lock-pid "lock holds [$(cat "$CELLAR_DB.lock" 2>&1)], server $SERVE_PID"

# 4. one server per store: the second is refused with the holder's pid
run "$CELLAR" serve
check_rc second-server-rc 1
check_err_has second-server-msg "a cellar server (pid $SERVE_PID) already drives '$CELLAR_DB'"

# 5. the protocol, as socat or a few lines of Python would speak it
run sh -c "printf 'queue -o json\nbogus\nsubmit a; submit b\n\nstatus -o json\n' | '$PEER' '$CELLAR_DB.sock' send"
check_rc proto-rc 0
check_out_has proto-json 'o {"schema_version":1,"kind":"queue","jobs":[]}'
check_out_has proto-unknown "e cellar: unknown command 'bogus'"
check_out_has proto-one-per-line "e cellar: one command per request line (no ';')"
check_out_has proto-status "o {\"schema_version\":1,\"kind\":\"status\""
n=$(printf '%s\n' "$OUT" | grep -c '^exit ')
[ "$n" = 5 ] && ok proto-one-reply-each || not_ok proto-one-reply-each "$n replies: $OUT"
bad=$(printf '%s\n' "$OUT" | grep -v '^[oe] ' | grep -v '^exit [0-9]*$')
[ -z "$bad" ] && ok proto-lines-tagged || not_ok proto-lines-tagged "[$bad]"
printf '%s\n' "$OUT" | grep -n '^exit' | cut -d' ' -f2 | tr '\n' ' ' >"$TMP/codes"
[ "$(cat "$TMP/codes")" = "0 2 2 0 0 " ] && ok proto-codes ||
    not_ok proto-codes "got $(cat "$TMP/codes")"
# a last request without its newline, then end-of-file: still answered
run sh -c "printf 'vcs -o name' | '$PEER' '$CELLAR_DB.sock' send"
check_out proto-last-line-unterminated "o a
exit 0"

# 6. garbage cannot crash or stall it: random bytes, a 10 MB line, a
# half-closed connection, 1,000 idle connections
"$PEER" "$CELLAR_DB.sock" random 1000000 7 >/dev/null 2>&1
run "$PEER" "$CELLAR_DB.sock" longline 10000000
check_out_has garbage-long-line "request line too long"
run "$PEER" "$CELLAR_DB.sock" half
check_rc garbage-half-closed 0
mkfifo "$TMP/idle.in"
"$PEER" "$CELLAR_DB.sock" idle 1000 120 <"$TMP/idle.in" >"$TMP/idle.out" 2>&1 &
idle=$!
exec 7>"$TMP/idle.in"
poll_for grep -q 'connected 1000' "$TMP/idle.out" && ok idle-1000-open ||
    not_ok idle-1000-open "$(cat "$TMP/idle.out")"
run "$CELLAR" submit g1 --vc a --gpus 1 -- "$trainer" 2 0.01
check_rc garbage-still-serves 0
run "$CELLAR" wait g1 --timeout 60s
check_out garbage-job-done "g1 completed"
exec 7>&-
wait "$idle"
kill -0 "$SERVE_PID" 2>/dev/null && ok garbage-alive || not_ok garbage-alive "the server died"

# 7. closing a client stops no job: a wait killed midway
run "$CELLAR" submit c1 --vc a --gpus 4 -- "$trainer" 20 0.02
"$CELLAR" wait c1 --timeout 60s >/dev/null 2>&1 &
w=$!
poll_for test -s "$TRAINER_DIR/c1.0.progress"
kill -9 "$w"
wait "$w" 2>/dev/null
poll_for runs_once c1 20 && ok client-gone-job-runs ||
    not_ok client-gone-job-runs "$(cat "$TRAINER_DIR/c1.0.progress" 2>&1 | tail -2)"

# 8. kill -9 of the server at random moments while jobs start, run,
# stop and are preempted; a new server on the same store takes over:
# no job lost, none run twice, db check clean. The stale socket left
# behind is refused by clients, then replaced.
k=1 bad=
while [ "$k" -le 5 ]; do
	serve_start "$TMP/two.yaml"
	"$CELLAR" -c "submit k${k}a --vc a --gpus 4 --priority 1 -- $trainer 15 0.02; submit k${k}b --vc a --gpus 4 -- $trainer 15 0.02; submit k${k}c --vc a --gpus 4 -- $trainer 15 0.02; submit k${k}h --vc a --gpus 4 --pods 2 --priority 5 -- $trainer 5 0.02" >/dev/null 2>&1 &
	sub=$!
	# a moment of its own each round: 0 to 0.4 s after the submits began
	sleep "0.$(( (k * 37) % 5 ))"
	serve_kill
	wait "$sub" 2>/dev/null
	[ -S "$CELLAR_DB.sock" ] || bad="$bad [$k: no stale socket left]"
	"$CELLAR" queue >/dev/null 2>&1
	rc=$?
	[ "$rc" = 5 ] || bad="$bad [$k: queue on a stale socket exited $rc]"
	serve_again
	out=$("$CELLAR" -c "wait --timeout 60s; events -o csv --no-header; db check" 2>&1)
	for s in a b c h; do
		j=k$k$s
		n=$(printf '%s\n' "$out" | grep -c ",submit,$j,")
		[ "$n" -le 1 ] || bad="$bad [$j: $n submits]"
		if [ "$n" = 1 ]; then
			steps=15
			[ "$s" = h ] && steps=5
			# a preempted job runs again from step 1, once per start it
			# was given; never two runs at once (each step follows the
			# one before, or begins a run); it completes once, its last
			# run to the end
			st=$(printf '%s\n' "$out" | grep -c ",start,$j,")
			cp=$(printf '%s\n' "$out" | grep -c ",complete,$j,")
			f=$TRAINER_DIR/$j.0.progress
			runs=$(grep -c '^step 1$' "$f" 2>/dev/null)
			[ "$cp" = 1 ] || bad="$bad [$j: $cp complete events]"
			[ "$runs" -le "$st" ] || bad="$bad [$j: $runs runs for $st starts]"
			[ "$(tail -n 1 "$f")" = "step $steps" ] ||
			    bad="$bad [$j: its last run ended at $(tail -n 1 "$f")]"
			awk '{ n = $2 + 0; if (n != 1 && n != prev + 1) exit 1; prev = n }' "$f" ||
			    bad="$bad [$j: two runs at once: $(tr '\n' ' ' <"$f")]"
		fi
	done
	printf '%s\n' "$out" | grep -q 'no problems' || bad="$bad [$k: db check: $out]"
	k=$((k + 1))
done
[ -z "$bad" ] && ok kill9-takeover || not_ok kill9-takeover "$bad"

# 9. 8 clients x 500 submits and cancels at once: every accepted job is
# stored once, in the order the server accepted them. The jobs queue
# behind one that holds the whole VC (they used to be pods of 8 GPUs,
# larger than any cell: submit now refuses those)
live_spec "$TMP/idle.yaml" 0.5 "start: true" "status: echo running" "stop: true"
serve_start "$TMP/idle.yaml"
run "$CELLAR" -c "submit hold --vc a --gpus 4 --pods 2 -- true; wait hold --state running --timeout 60s"
check_rc clients-hold-rc 0
c=1
while [ "$c" -le 8 ]; do
	i=1
	: >"$TMP/cl$c"
	while [ "$i" -le 250 ]; do
		printf 'submit c%s-%s --vc a --gpus 4 --pods 2 -- true\ncancel c%s-%s\n' \
		    "$c" "$i" "$c" "$i" >>"$TMP/cl$c"
		i=$((i + 1))
	done
	"$CELLAR" -k -f "$TMP/cl$c" >"$TMP/cl$c.out" 2>&1 &
	eval "cl$c=\$!"
	c=$((c + 1))
done
c=1
while [ "$c" -le 8 ]; do eval "wait \$cl$c"; c=$((c + 1)); done
accepted=$(cat "$TMP"/cl?.out | grep -c '^submitted ')
[ "$accepted" = 2000 ] && ok clients-accepted ||
    not_ok clients-accepted "$accepted of 2000: $(grep -v '^submitted\|^cancelled' "$TMP"/cl?.out | head -3)"
run "$CELLAR" events -o csv --no-header
printf '%s\n' "$OUT" | awk -F, '$3 == "submit" && $4 != "hold" { print $4 }' >"$TMP/stored"
[ "$(sort "$TMP/stored" | uniq -d | wc -l)" = 0 ] &&
    [ "$(wc -l <"$TMP/stored")" = 2000 ] && ok clients-stored-once ||
    not_ok clients-stored-once "$(wc -l <"$TMP/stored") submits, $(sort "$TMP/stored" | uniq -d | head -3)"
sed -n "s/^[0-9T:.Z-]* cellar serve: request [^:]*: submit \(c[0-9]*-[0-9]*\) --vc a .* (exit 0)$/\1/p" \
    "$SERVE_LOG" >"$TMP/accepted"
cmp -s "$TMP/accepted" "$TMP/stored" && ok clients-order ||
    not_ok clients-order "server order differs from the store's: $(diff "$TMP/accepted" "$TMP/stored" | head -4)"
run "$CELLAR" db check
check_rc clients-db-check 0

# 10. SIGHUP reloads the spec (as load does)
live_spec "$TMP/hup.yaml" 0.2
serve_start "$TMP/hup.yaml"
sed -i 's/^  a: {virtualCells: \[{cellType: NODE, cellNumber: 2}\]}$/  a: {virtualCells: [{cellType: NODE, cellNumber: 1}]}\n  b: {virtualCells: [{cellType: NODE, cellNumber: 1}]}/' "$TMP/hup.yaml"
kill -HUP "$SERVE_PID"
has_b() { "$CELLAR" -o name vcs 2>/dev/null | grep -qx b; }
poll_for has_b && ok sighup-reload || not_ok sighup-reload "$(tail -3 "$SERVE_LOG")"
grep -q "SIGHUP: reloading '$TMP/hup.yaml'" "$SERVE_LOG" && ok sighup-logged ||
    not_ok sighup-logged "$(tail -3 "$SERVE_LOG")"

# 11. a server needs a backend and a store file
serve_stop
run "$CELLAR" --db "$TMP/emu.db" serve
check_rc no-backend-rc 3
check_err_has no-backend-msg "has no backend: section"
run "$CELLAR" --db :memory: serve --spec "$TMP/two.yaml"
check_rc memory-rc 4
check_err_has memory-msg "a server needs a store file"

# 12. one-shot load on a fresh store keeps the spec for the next cellar
run "$CELLAR" --db "$TMP/fresh.db" load "$TMP/two.yaml"
check_rc load-fresh-rc 0
run "$CELLAR" --db "$TMP/fresh.db" status -o json
check_out_has load-fresh-kept "\"spec\":\"$TMP/two.yaml\""

# 13. access control with a real second user (root makes one: the test
# fails, never skips, when it cannot)
if [ "$(id -u)" != 0 ]; then
	not_ok access-user "needs root to make a test user (useradd)"
	done_testing
fi
u=cellart$$
g=cellarg$$
groupadd "$g" && useradd -M -N -g "$g" -s /bin/sh "$u" ||
    { not_ok access-user "useradd $u failed"; done_testing; }
trap 'userdel "$u" 2>/dev/null; groupdel "$g" 2>/dev/null; live_cleanup' EXIT
ACC=$TMP/acc
mkdir -p "$ACC" && chmod 755 "$TMP" "$ACC"
live_spec "$ACC/acc.yaml" 0.1 "start: true" "status: echo running" "stop: true"
sed -i "s/^  a: {virtualCells: \[{cellType: NODE, cellNumber: 2}\]}$/  a: {virtualCells: [{cellType: NODE, cellNumber: 1}]}\n  b: {virtualCells: [{cellType: NODE, cellNumber: 1}]}/" "$ACC/acc.yaml"
cat >>"$ACC/acc.yaml" <<EOF
access:
  socketGroup: $g
  virtualClusters:
    a: {users: [$u]}
EOF
serve_stop
CELLAR_DB=$ACC/acc.db
export CELLAR_DB
SERVE_N=$((SERVE_N + 1))
serve_spawn --spec "$ACC/acc.yaml"
[ "$(stat -c '%a %G' "$CELLAR_DB.sock")" = "660 $g" ] && ok access-socket-mode ||
    not_ok access-socket-mode "$(stat -c '%a %G' "$CELLAR_DB.sock")"
as_u() { runuser -u "$u" -- env CELLAR_DB="$CELLAR_DB" HOME="$ACC" XDG_STATE_HOME="$ACC/state-$u" "$CELLAR" "$@"; }
run as_u submit mine --vc a --gpus 1 -- true
check_rc access-own-vc-rc 0
run as_u submit theirs --vc b --gpus 1 -- true
check_rc access-foreign-vc-rc 6
check_err_has access-foreign-vc-msg "user '$u' may not submit to vc 'b': access.virtualClusters.b names neither the user nor a group of theirs"
run as_u node bad n1
check_rc access-node-bad-rc 6
check_err_has access-node-bad-msg "'node bad' is for admins"
run "$CELLAR" submit roots --vc a --gpus 1 -- "$trainer" 100 0.05
check_rc access-root-submit 0
run as_u cancel roots
check_rc access-cancel-other-rc 6
check_err_has access-cancel-other-msg "job 'roots' belongs to 'root'"
run as_u cancel mine
check_rc access-cancel-own-rc 0
run as_u -o csv --no-header queue
check_out_has access-read-ok "roots,1,root,"
run "$CELLAR" -o csv --no-header queue
check_out_lacks access-refused-changed-nothing "theirs"
run "$CELLAR" export -
printf '%s\n' "$OUT" | grep -q "\"$u\",[0-9]*,\"submit mine --vc a --gpus 1 -- true\"" &&
    ok access-audit-user || not_ok access-audit-user "no audit row by $u: $(printf '%s' "$OUT" | grep -o '"audit".\{0,300\}')"
run "$CELLAR" cancel roots
check_rc access-admin-cancel 0
grep -q "^[0-9T:.Z-]* cellar serve: refused $u: submit theirs --vc b " "$SERVE_LOG" && ok access-refusal-logged ||
    not_ok access-refusal-logged "$(grep refused "$SERVE_LOG")"

done_testing
