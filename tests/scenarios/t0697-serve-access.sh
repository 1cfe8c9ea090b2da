#!/bin/sh
# t0697-serve-access — the server never acts on a path with its own
# rights, and audits every refusal. Every command of the command table
# (help -o json) is sent over the raw socket, as a plain user made for the
# test and as root, with a root-only file wherever a command takes a file
# to read and a path it must not create wherever it takes one to write;
# each answer is what the command's access class says: anyone (runs for
# both), member and admin (refused for the user, exit 6, the rule named),
# client (refused for both, exit 6, "run it yourself"). The secret's text
# is in no reply, the paths are not created, the secret is unchanged.
# Every refusal has its log line and its count in the audit (audit
# --refused); a flood of refused requests adds a row per second, not one
# per request.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
PEER=$(dirname "$CELLAR")/tests/helpers/sockpeer
unset CELLAR_DB

if [ "$(id -u)" != 0 ]; then
	skip access "needs root: a test user (useradd) and a root-only file"
	done_testing
fi
for tool in useradd userdel groupadd groupdel runuser; do
	command -v "$tool" >/dev/null 2>&1 || { skip access "no $tool"; done_testing; }
done
u=cellara$$
g=cellarh$$
groupadd "$g" && useradd -M -N -g "$g" -s /bin/sh "$u" ||
    { not_ok access-user "useradd $u failed"; done_testing; }
trap 'userdel -r "$u" 2>/dev/null; groupdel "$g" 2>/dev/null; live_cleanup' EXIT

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
# root's alone: its text must reach nobody through the server
S=$ACC/secret.yaml
token=secret-$$-token
printf 'physicalCluster: %s\n%s,%s\n' "$token" "$token" "$token" >"$S"
chmod 600 "$S"
sum0=$(cksum <"$S")
# where a written file would go (the user may not write in $ACC)
TGT=$ACC/target
CELLAR_DB=$ACC/acc.db
export CELLAR_DB
SERVE_N=1
serve_spawn --spec "$ACC/acc.yaml"
sock=$CELLAR_DB.sock
run "$CELLAR" submit rootjob --vc b --gpus 1 -- true
check_rc root-submit 0

# send WHO LINE: one request on a connection of its own; the reply in
# $TMP/reply, its exit status in $REPLY_RC
send() {
	if [ "$1" = root ]; then
		printf '%s\n' "$2" | "$PEER" "$sock" send >"$TMP/reply" 2>&1
	else
		printf '%s\n' "$2" | runuser -u "$u" -- "$PEER" "$sock" send >"$TMP/reply" 2>&1
	fi
	REPLY_RC=$(sed -n 's/^exit \([0-9]*\)$/\1/p' "$TMP/reply" | tail -1)
}

# the request for a command: files point at the secret (read) or the
# target (written); the others take their first help example
request() {
	case $1 in
	"spec check") echo "spec check $S" ;;
	"spec import") echo "spec import slurm --nodes $S --write $TGT" ;;
	load) echo "load $S" ;;
	alloc) echo "alloc x1 --vc a --gpus 1" ;;
	place) echo "place x1 --vc a --gpus 1" ;;
	release) echo "release x1" ;;
	serve) echo "serve --spec $S --db $TGT" ;;
	submit) echo "submit s1 --vc b --gpus 1 -- true" ;;
	cancel) echo "cancel rootjob" ;;
	wait) echo "wait nosuch --timeout 1s" ;;
	"job log"|"job show"|history|"job migrate") echo "$1 rootjob" ;;
	"node bad"|"node ok") echo "$1 n2" ;;
	replay) echo "replay $S --series $TGT" ;;
	compare) echo "compare $S --figure $TGT.svg" ;;
	anomaly) echo "anomaly $S --figure $TGT.svg" ;;
	plot) echo "plot $S" ;;
	export) echo "export $TGT" ;;
	import) echo "import $S" ;;
	*) echo "$2" ;;
	esac
}

# 1. every command of the table, as the user, then as root
run "$CELLAR" help -o json
check_rc help-json 0
n=$(json_get commands.#)
i=0 bad= walked=0 urefused=0 rrefused=0
while [ "$i" -lt "$n" ]; do
	name=$(json_get "commands.$i.name")
	class=$(json_get "commands.$i.access")
	line=$(request "$name" "$(json_get "commands.$i.examples.0")")
	for who in "$u" root; do
		send "$who" "$line"
		case $class/$who in
		client/*) want=6 msg="runs '$name' for nobody" ;;
		admin/root|member/root|anyone/*) want=ran msg= ;;
		admin/*) want=6 msg="'$name' is for admins" ;;
		member/*) want=6 msg="access." ;;
		*) want=6 msg="has no access class" ;;
		esac
		if [ -z "$REPLY_RC" ]; then
			bad="$bad [$who: '$line': no exit line: $(head -c 200 "$TMP/reply")]"
		elif [ "$want" = ran ] && [ "$REPLY_RC" = 6 ]; then
			bad="$bad [$who: '$line' ($class) refused: $(head -c 200 "$TMP/reply")]"
		elif [ "$want" = 6 ] && { [ "$REPLY_RC" != 6 ] ||
		    ! grep -qF "$msg" "$TMP/reply"; }; then
			bad="$bad [$who: '$line' ($class): exit $REPLY_RC, want 6 and '$msg': $(head -c 200 "$TMP/reply")]"
		fi
		[ "$want" = 6 ] && [ "$who" = root ] && rrefused=$((rrefused + 1))
		[ "$want" = 6 ] && [ "$who" != root ] && urefused=$((urefused + 1))
		# the secret reaches nobody but root's own load of it
		if grep -qF "$token" "$TMP/reply" && [ "$who/$name" != root/load ]; then
			bad="$bad [$who: '$line' ($class) showed the secret]"
		fi
	done
	walked=$((walked + 1))
	i=$((i + 1))
done
[ "$walked" -gt 30 ] && [ -z "$bad" ] && ok "walk-$walked-commands" ||
    not_ok walk "$walked commands:$bad"
[ "$urefused" -gt 15 ] && [ "$rrefused" -gt 10 ] && ok refusals-seen ||
    not_ok refusals-seen "user $urefused, root $rrefused refusals"
ls "$TGT"* >/dev/null 2>&1 && not_ok nothing-written "$(ls -l "$TGT"*)" ||
    ok nothing-written
[ "$(cksum <"$S")" = "$sum0" ] && ok secret-unchanged || not_ok secret-unchanged "it changed"

# 2. each refusal is in the log, and counted in the audit (rows of the
# same user and second share one row: the counts add up)
nlog=$(grep -c "cellar serve: refused $u: " "$SERVE_LOG")
[ "$nlog" = "$urefused" ] && ok log-user-refusals ||
    not_ok log-user-refusals "$nlog log lines, $urefused refusals"
nlog=$(grep -c "cellar serve: refused root: " "$SERVE_LOG")
[ "$nlog" = "$rrefused" ] && ok log-root-refusals ||
    not_ok log-root-refusals "$nlog log lines, $rrefused refusals"
# audit_sum USER: the refusals the audit counts for USER
audit_sum() {
	"$CELLAR" audit --refused --user "$1" -o csv --no-header 2>/dev/null |
	    awk -F, '{ n += $6 } END { print n + 0 }'
}
counted() { [ "$(audit_sum "$u")" = "$1" ]; }
i=0
while [ "$i" -lt 400 ] && ! counted "$urefused"; do sleep 0.05; i=$((i + 1)); done
counted "$urefused" && ok audit-user-refusals ||
    not_ok audit-user-refusals "audit counts $(audit_sum "$u"), $urefused refusals"
[ "$(audit_sum root)" = "$rrefused" ] && ok audit-root-refusals ||
    not_ok audit-root-refusals "audit counts $(audit_sum root), $rrefused refusals"
# the rows say what and why; the user reads them through the server
send "$u" "audit --refused --user $u -o csv --no-header"
[ "$REPLY_RC" = 0 ] && grep -q "^o [0-9]*,[^,]*,$u,refused,6,[0-9]*," "$TMP/reply" &&
    ok audit-user-reads || not_ok audit-user-reads "$(head -c 300 "$TMP/reply")"
send "$u" "audit --refused --user $u -o json"
grep -qF "\"result\":\"refused\",\"status\":6,\"reason\":\"" "$TMP/reply" &&
    ok audit-reason || not_ok audit-reason "$(head -c 300 "$TMP/reply")"
# an accepted change is audited with its caller too
run "$CELLAR" audit --user root -o csv --no-header
check_out_has audit-accepted ",root,ok,0,1,submit rootjob --vc b --gpus 1 -- true,"

# 3. a flood: 3000 refused requests on one connection are all answered
# and logged, counted to the last, in a row per second or so
rows0=$("$CELLAR" audit --refused --user "$u" -o name | wc -l)
sum0=$(audit_sum "$u")
k=0
: >"$TMP/flood"
while [ "$k" -lt 3000 ]; do echo "export $TGT"; k=$((k + 1)); done >"$TMP/flood"
t0=$(date +%s)
runuser -u "$u" -- "$PEER" "$sock" send <"$TMP/flood" >"$TMP/flood.out" 2>&1
t1=$(date +%s)
[ "$(grep -c '^exit 6$' "$TMP/flood.out")" = 3000 ] && ok flood-answered ||
    not_ok flood-answered "$(grep -c '^exit' "$TMP/flood.out") replies: $(tail -2 "$TMP/flood.out")"
i=0
while [ "$i" -lt 400 ] && ! counted $((sum0 + 3000)); do sleep 0.05; i=$((i + 1)); done
counted $((sum0 + 3000)) && ok flood-counted ||
    not_ok flood-counted "audit counts $(audit_sum "$u"), want $((sum0 + 3000))"
rows=$(( $("$CELLAR" audit --refused --user "$u" -o name | wc -l) - rows0 ))
# (none new when the flood's second is the one the earlier refusals
# opened a row in: they count into it)
[ "$rows" -ge 0 ] && [ "$rows" -le $((t1 - t0 + 2)) ] && ok flood-rows ||
    not_ok flood-rows "$rows rows for 3000 refusals in $((t1 - t0 + 1)) s"
[ "$(grep -c "cellar serve: refused $u: export " "$SERVE_LOG")" = 3001 ] &&
    ok flood-logged || not_ok flood-logged "$(grep -c "refused $u: export" "$SERVE_LOG") lines"
ls "$TGT"* >/dev/null 2>&1 && not_ok flood-nothing-written "$(ls -l "$TGT"*)" ||
    ok flood-nothing-written

# 4. the client never forwards a client-only command: the user's own
# cellar runs it with the user's rights (the secret: permission denied)
run runuser -u "$u" -- env CELLAR_DB="$CELLAR_DB" HOME="$ACC" \
    XDG_STATE_HOME="$ACC/state-$u" "$CELLAR" spec check "$S"
check_rc client-own-rights 3
check_out_has client-own-rights-msg "cannot open spec '$S': Permission denied"
check_out_lacks client-own-rights-secret "$token"

serve_stop
done_testing
