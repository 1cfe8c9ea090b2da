#!/bin/sh
# t0696-runas — jobs run as the user who submitted them (issue 31). A root
# cellar serve on the process hook set with an access: section; throw-away
# users submit through the socket (socketGroup). Each job's id -u / id -g
# is its submitter's, its output file theirs (0600) and unreadable by the
# other user, the hook environment names them (CELLAR_USER, CELLAR_UID,
# CELLAR_GID), a write to root's home fails; access.runAs maps a user to
# another account; a plain user mapped to an account of uid 0 is refused
# at submit, one mapped to root by name at load; a job queued across a
# SIGKILL and restart of the server runs as its submitter; a server run by
# a plain user runs that user's jobs and refuses another's. Then the same
# over ssh (switchUser: login) against a private sshd: the job's hooks log
# in as its user, its output in their home. Needs root (useradd, a root
# server): otherwise every check is a skip, never a pass.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
. tests/scenarios/lib-sshd.sh
unset CELLAR_DB

if [ "$(id -u)" != 0 ]; then
	for c in process-uid process-output process-env runas-map runas-root \
	    restart ssh-login; do
		skip "$c" "needs root (useradd, a cellar serve that switches users)"
	done
	done_testing
fi
for tool in setpriv runuser useradd; do
	command -v "$tool" >/dev/null 2>&1 ||
	    { not_ok tools "no $tool (util-linux, passwd)"; done_testing; }
done

# Five users: A and B submit, M is mapped to A, C to Z (uid 0, not named
# root); G lets them reach the socket. Removed with their homes at exit,
# also on failure.
A=cellar-ta-$$ B=cellar-tb-$$ C=cellar-tc-$$ M=cellar-tm-$$ Z=cellar-tz-$$
G=cellar-tg-$$
# -f: userdel refuses a user with a process left (Z shares uid 0 with
# everything root runs; a job's stray process would keep A or B)
users_cleanup() {
	for u in $A $B $C $M; do userdel -f -r "$u" >/dev/null 2>&1; done
	userdel -f "$Z" >/dev/null 2>&1
	groupdel "$G" >/dev/null 2>&1
	for u in $A $B $C $M; do groupdel "$u" >/dev/null 2>&1; done
	rm -f /root/cellar-t0696-*	# only a job that ran as root writes one
}
trap 'sshd_stop; users_cleanup' EXIT
groupadd "$G" || { not_ok users "groupadd $G failed"; done_testing; }
for u in $A $B $C $M; do
	# -p '*': no password, but not locked (sshd refuses a locked one)
	useradd -m -U -G "$G" -p '*' -s /bin/sh "$u" ||
	    { not_ok users "useradd $u failed"; done_testing; }
done
useradd -o -u 0 -g 0 -M -N -s /bin/sh "$Z" 2>/dev/null ||
    { not_ok users "useradd -o -u 0 $Z failed"; done_testing; }
chmod 755 "$TMP"
[ -x "$(dirname "$CELLAR")" ] || { not_ok users "the binary's directory is not reachable by other users"; done_testing; }

# as USER cellar ARGS...: a client as that user, on this store
as() {
	_u=$1
	shift
	runuser -u "$_u" -- env CELLAR_DB="$CELLAR_DB" HOME="$TMP/h-$_u" \
	    XDG_STATE_HOME="$TMP/h-$_u" "$CELLAR" "$@"
}
# out JOB: the output file of the job's pod 0 under RUNDIR (the pod's
# directory is JOB.ID.0: the newest, should the name have been reused)
out() { ls -t "$RUNDIR"/*/"$1".*.0/out 2>/dev/null | head -n 1; }
# the job's command: who it runs as, what its hooks were given
probe='id -u; id -g; echo "env $CELLAR_USER $CELLAR_UID $CELLAR_GID"; touch /root/cellar-t0696-$CELLAR_JOB'

access() {
	cat <<EOF
access:
  socketGroup: $G
  admins: {users: [root]}
  runAs: {$M: $A, $C: $Z}
  virtualClusters:
    a: {users: [$A, $B, $C, $M]}
EOF
}

# ---- the process set, local backend, server as root ----
RUNDIR=$TMP/run
live_spec "$TMP/ra.yaml" 0.1
access >>"$TMP/ra.yaml"
serve_start "$TMP/ra.yaml"

for u in $A $B; do
	run as "$u" submit "j-$u" --vc a --gpus 1 -- sh -c "$probe"
	check_rc "submit-$u" 0
done
run "$CELLAR" wait "j-$A" "j-$B" --timeout 60s
check_rc process-wait 0
for u in $A $B; do
	f=$(out "j-$u")
	want="$(id -u "$u")
$(id -g "$u")
env $u $(id -u "$u") $(id -g "$u")"
	got=$(head -n 3 "$f" 2>/dev/null)
	[ "$got" = "$want" ] && ok "process-uid-$u" ||
	    not_ok "process-uid-$u" "[$got], want [$want]"
	[ "$(stat -c '%U %a' "$f" 2>/dev/null)" = "$u 600" ] && ok "process-output-owner-$u" ||
	    not_ok "process-output-owner-$u" "$(stat -c '%U %a' "$f" 2>&1)"
	[ ! -e "/root/cellar-t0696-j-$u" ] && grep -q 'Permission denied' "$f" &&
	    ok "process-not-root-$u" || not_ok "process-not-root-$u" "$(cat "$f")"
	rm -f "/root/cellar-t0696-j-$u"
done
# A reads their own output; B cannot read A's
runuser -u "$A" -- cat "$(out "j-$A")" >/dev/null 2>&1 && ok process-output-own ||
    not_ok process-output-own "$A cannot read $(out "j-$A")"
f=$(out "j-$A")
if [ -z "$f" ]; then not_ok process-output-private "no output of j-$A"
elif runuser -u "$B" -- cat "$f" >/dev/null 2>&1; then
	not_ok process-output-private "$B read $A's output"
else ok process-output-private; fi
runuser -u "$B" -- ls "$RUNDIR/$(basename "$(dirname "$(dirname "$(out "j-$A")")")")" \
    >/dev/null 2>&1 && not_ok process-rundir-unlisted "$B lists the node's directory" ||
    ok process-rundir-unlisted

# access.runAs: M's job runs as A; C's (mapped to uid 0) is refused
run as "$M" submit "j-$M" --vc a --gpus 1 -- sh -c "$probe"
check_rc runas-map-submit 0
run "$CELLAR" wait "j-$M" --timeout 60s
got=$(head -n 3 "$(out "j-$M")" 2>/dev/null)
want="$(id -u "$A")
$(id -g "$A")
env $A $(id -u "$A") $(id -g "$A")"
[ "$got" = "$want" ] && ok runas-map || not_ok runas-map "[$got], want [$want]"
run as "$C" submit "j-$C" --vc a --gpus 1 -- sh -c "$probe"
check_rc runas-root-rc 6
check_err_has runas-root-msg "user '$C' may not run jobs as root: access.runAs maps them to '$Z' (uid 0)"
run "$CELLAR" -o csv --no-header queue
check_out_lacks runas-root-nothing "j-$C"
# an admin's job runs as root
run "$CELLAR" submit j-root --vc a --gpus 1 -- sh -c 'id -u'
run "$CELLAR" wait j-root --timeout 60s
[ "$(head -n 1 "$(out j-root)" 2>/dev/null)" = 0 ] && ok runas-admin-root ||
    not_ok runas-admin-root "$(cat "$(out j-root)" 2>&1)"
# a plain user mapped to root by name: the spec does not load
sed "s/runAs: {$M: $A, $C: $Z}/runAs: {$B: root}/" "$TMP/ra.yaml" >"$TMP/bad.yaml"
run "$CELLAR" spec check "$TMP/bad.yaml"
check_rc runas-root-load-rc 3
check_out_has runas-root-load-msg "'access.runAs.$B' is root, but '$B' is not in 'access.admins.users'"

# restart: A's job waits in the queue behind root's, the server is killed
# and started again; the job then runs as A
run "$CELLAR" submit hold --vc a --pods 2 --gpus 4 -- sh -c "while [ ! -e '$TMP/go' ]; do sleep 0.05; done"
check_rc restart-hold 0
run as "$A" submit j-late --vc a --gpus 1 -- sh -c "$probe"
check_rc restart-submit 0
run "$CELLAR" -o csv --no-header queue
printf '%s\n' "$OUT" | grep -q ",j-late,[0-9]*,$A," && ok restart-queued ||
    not_ok restart-queued "$OUT"
serve_kill
serve_again
touch "$TMP/go"
run "$CELLAR" wait j-late --timeout 60s
check_rc restart-wait 0
got=$(head -n 2 "$(out j-late)" 2>/dev/null | tr '\n' ' ')
[ "$got" = "$(id -u "$A") $(id -g "$A") " ] && ok restart-uid || not_ok restart-uid "[$got]"
run "$CELLAR" db check
check_rc restart-db-check 0
run "$CELLAR" export -
printf '%s\n' "$OUT" | grep -q "\"uid\",\"gid\"\]" && ok dump-columns ||
    not_ok dump-columns "$(printf '%s' "$OUT" | grep -o '"jobs".\{0,400\}')"
serve_stop

# ---- a server run by plain user A (no root): it cannot switch users, so
# it runs A's jobs as A and refuses B's, saying what to do ----
PS=$TMP/plain
mkdir -p "$PS" && chown "$A" "$PS" && chmod 755 "$PS"
live_spec "$PS/p.yaml" 0.1
sed -i "s|^  rundir: .*|  rundir: $PS/run|" "$PS/p.yaml"
access >>"$PS/p.yaml"
chmod 644 "$PS/p.yaml"
serve_stop
CELLAR_DB=$PS/p.db
setpriv --reuid "$A" --regid "$A" --init-groups env HOME="$PS" \
    XDG_STATE_HOME="$PS" CELLAR_DB="$CELLAR_DB" "$CELLAR" serve \
    --spec "$PS/p.yaml" >"$PS/log" 2>&1 </dev/null &
PLAIN_PID=$!
plain_ready() { grep -q ' cellar serve: pid [0-9]* serving' "$PS/log"; }
if wait_for plain_ready; then ok plain-serve
else not_ok plain-serve "$(cat "$PS/log")"; fi
RUNDIR=$PS/run
run as "$A" submit p-own --vc a --gpus 1 -- sh -c "$probe"
check_rc plain-own-submit 0
run as "$A" wait p-own --timeout 60s
got=$(head -n 2 "$(out p-own)" 2>/dev/null | tr '\n' ' ')
[ "$got" = "$(id -u "$A") $(id -g "$A") " ] && ok plain-own-uid ||
    not_ok plain-own-uid "[$got]"
run as "$B" submit p-other --vc a --gpus 1 -- sh -c "$probe"
check_rc plain-other-rc 6
check_err_has plain-other-msg "this cellar server runs as '$A', not root, so its jobs can run only as '$A', not as '$B'"
run as "$A" -o csv --no-header queue
check_out_lacks plain-other-nothing "p-other"
kill "$PLAIN_PID" 2>/dev/null
wait "$PLAIN_PID" 2>/dev/null
RUNDIR=$TMP/run

# ---- the process set over ssh: the hooks log in as the job's user ----
sshd_start
# the users log in with the server's key: the authorized keys (one file
# for every user here) and the way to them must be readable to them
chmod 755 "$SSHD_DIR" && chmod 644 "$SSHD_DIR/authorized_keys"
ssh_spec "$TMP/ssh.yaml" 0.1 2
sed -i '/^  rundir:/d' "$TMP/ssh.yaml"	# each user's ~/.cellar/run
access >>"$TMP/ssh.yaml"
serve_start "$TMP/ssh.yaml"
for u in $A $B; do
	run as "$u" submit "s-$u" --vc a --gpus 1 -- sh -c "$probe"
	check_rc "ssh-submit-$u" 0
done
run "$CELLAR" wait "s-$A" "s-$B" --timeout 60s
check_rc ssh-wait 0
for u in $A $B; do
	home=$(getent passwd "$u" | cut -d: -f6)
	RUNDIR=$home/.cellar/run
	f=$(out "s-$u")
	want="$(id -u "$u")
$(id -g "$u")
env $u $(id -u "$u") $(id -g "$u")"
	got=$(head -n 3 "$f" 2>/dev/null)
	[ "$got" = "$want" ] && ok "ssh-login-uid-$u" || not_ok "ssh-login-uid-$u" "[$got], want [$want]"
	[ "$(stat -c '%U %a' "$f" 2>/dev/null)" = "$u 600" ] && ok "ssh-output-owner-$u" ||
	    not_ok "ssh-output-owner-$u" "$(stat -c '%U %a' "$f" 2>&1)"
	grep -q "Accepted publickey for $u from" "$SSHD_LOG" && ok "ssh-login-$u" ||
	    not_ok "ssh-login-$u" "$(grep Accepted "$SSHD_LOG" | tail -3)"
done
RUNDIR=$(getent passwd "$A" | cut -d: -f6)/.cellar/run
f=$(out "s-$A")
if [ -z "$f" ]; then not_ok ssh-output-private "no output of s-$A"
elif runuser -u "$B" -- cat "$f" >/dev/null 2>&1; then
	not_ok ssh-output-private "$B read $A's output"
else ok ssh-output-private; fi

done_testing
