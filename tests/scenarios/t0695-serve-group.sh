#!/bin/sh
# t0695-serve-group — group commit in cellar serve (store.h invariant 9,
# serve.c): the requests of one poll round share one COMMIT, their replies
# wait for it, and no hook runs for a decision before it commits.
#
# One client writes four requests at once (sockpeer send: one write, so
# one round): two submits that start at once, one that queues, its
# cancel. Then every write step of the server is failed in turn
# (CELLAR_STORE_FAIL=N, counted from the server's start). Whatever the
# step: a request answered 0 is in the store; a job whose hook ran has its
# start in the store; a group whose COMMIT failed answers every request of
# it exit 4 and records none, runs no hook, and halts the server (a later
# submit is refused, saying why); a restart takes over and the store is
# consistent (db check).
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
PEER=$(dirname "$CELLAR")/tests/helpers/sockpeer
live_spec "$TMP/two.yaml" 0.1
batch="submit x --vc a --gpus 4 -- $trainer 1 0.01
submit y --vc a --gpus 4 -- $trainer 1 0.01
submit z --vc a --gpus 4 --pods 2 -- $trainer 1 0.01
cancel z"

fresh() { serve_stop; rm -rf "$TMP/run" "$TRAINER_DIR"; mkdir -p "$TRAINER_DIR"; }
# the batch in one write; the four exit statuses on one line
send_batch() {
	printf '%s\n' "$batch" | "$PEER" "$CELLAR_DB.sock" send >"$TMP/replies" 2>&1
	codes=$(sed -n 's/^exit //p' "$TMP/replies" | tr '\n' ' ')
}

# calibrate: the batch answered in order, all 0, x and y started; the
# server's write steps up to its stop
fresh
SERVE_ENV=CELLAR_STORE_KILL=1000000
serve_start "$TMP/two.yaml"
send_batch
run "$CELLAR" wait y --timeout 30s
serve_stop
steps=$(sed -n 's/.*: \([0-9]*\) write steps.*/\1/p' "$SERVE_LOG")
if [ "$codes" = "0 0 0 0 " ] && grep -q "^o submitted job 'x' (id 0)$" "$TMP/replies" &&
    [ -n "$steps" ] && [ -e "$TRAINER_DIR/x.0.pid" ]; then ok batch
else not_ok batch "replies '$codes' steps '$steps': $(cat "$TMP/replies" "$SERVE_LOG")"
	done_testing; fi
# replies in the order sent
order=$(sed -n -e "s/^o submitted job '\([^']*\)'.*/\1/p" \
    -e 's/^o cancelled //p' "$TMP/replies" | tr '\n' ' ')
[ "$order" = "x y z z " ] && ok reply-order || not_ok reply-order "$order"

n=1 bad= group_hit=0 cmd_hit=0
while [ "$n" -le "$steps" ]; do
	fresh
	SERVE_ENV="CELLAR_STORE_FAIL=$n CELLAR_SERVE_RETRY=3600"	# stays halted
	if ! serve_start "$TMP/two.yaml" >/dev/null; then
		# the failure hit the server's start (t0610 judges that)
		kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; SERVE_PID=
		n=$((n + 1)); continue
	fi
	send_batch
	group_failed=0
	if [ "$(grep -c "did not commit: .*CELLAR_STORE_FAIL=$n" "$SERVE_LOG")" = 4 ]; then
		group_hit=$((group_hit + 1)) group_failed=1
		[ "$codes" = "4 4 4 4 " ] &&
		    [ "$(grep -c 'nothing of this request was recorded' "$TMP/replies")" = 4 ] ||
		    bad="$bad [$n: group failed, replies '$codes': $(cat "$TMP/replies")]"
		"$CELLAR" submit w --vc a --gpus 1 -- true >"$TMP/o2" 2>"$TMP/e2"
		rc2=$?
		[ "$rc2" = 4 ] && grep -q "halted after a store failure (.*CELLAR_STORE_FAIL=$n" "$TMP/e2" ||
		    bad="$bad [$n: after the failed group, a submit got $rc2: $(cat "$TMP/e2")]"
	else
		case $codes in *4*) cmd_hit=$((cmd_hit + 1)) ;; esac
	fi
	# what the store says, after a restart took the run over
	SERVE_ENV=
	serve_again >/dev/null
	run "$CELLAR" events -o csv --no-header
	ev=$OUT
	i=0
	for j in x y z; do
		i=$((i + 1))
		rc=$(echo "$codes" | cut -d' ' -f$i)
		if [ "$rc" = 0 ] && ! printf '%s\n' "$ev" | grep -q ",submit,$j,"; then
			bad="$bad [$n: $j answered 0, not in the store: $ev]"
		fi
		if [ -e "$TRAINER_DIR/$j.0.pid" ] && ! printf '%s\n' "$ev" | grep -q ",start,$j,"; then
			bad="$bad [$n: $j ran, the store has no start]"
		fi
	done
	# the group did not commit: none of it is in the store, no hook ran
	if [ "$group_failed" = 1 ]; then
		printf '%s\n' "$ev" | grep -q ',submit,[xyz],' &&
		    bad="$bad [$n: the group failed, yet: $ev]"
		ls "$TRAINER_DIR"/*.pid >/dev/null 2>&1 &&
		    bad="$bad [$n: the group failed, yet a hook ran]"
	fi
	run "$CELLAR" db check
	[ "$RC" -eq 0 ] || bad="$bad [$n: db check: $OUT $ERR]"
	n=$((n + 1))
done
[ -z "$bad" ] && ok "every-step-$steps" || not_ok "every-step-$steps" "$bad"
# the sweep reached both kinds of failure: one command's, and the group's
[ "$group_hit" -gt 0 ] && ok "group-commit-failures-$group_hit" ||
    not_ok group-commit-failures "no injected failure hit the group's COMMIT"
[ "$cmd_hit" -gt 0 ] && ok "command-failures-$cmd_hit" ||
    not_ok command-failures "no injected failure hit a single request"

done_testing
