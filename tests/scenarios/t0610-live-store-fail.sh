#!/bin/sh
# t0610-live-store-fail — write-ahead in the live loop (console.h invariant
# 4): every write step of a live cluster fails in turn (the
# CELLAR_STORE_FAIL=N test hook), and after each run no job has run that
# the store does not say was started. A cellar server (cellar serve) runs
# the cluster and does every write, so the hook is in its environment
# (SERVE_ENV) and the steps counted are the server's, from its start to
# its stop; the commands are a client's. A failure in the server's start
# stops it (exit 4): the client is refused (exit 5, no server). A failure
# in a request is that request's (exit 4). A failure after a scheduler
# pass acted on the engine halts the server's loop: the next wait is
# refused instead of starting the job the store lacks, and so is every
# later client's. The store stays consistent (db check).
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
live_spec "$TMP/two.yaml" 0.1
# a runs; b waits for a's cells and starts in the pass after a completes
script="submit a --vc a --gpus 4 --pods 2 -- $trainer 1 0.01; submit b --vc a --gpus 4 --pods 2 -- $trainer 1 0.01; wait b --timeout 30s; wait b --timeout 5s"

fresh() { serve_stop; rm -rf "$TMP/run" "$TRAINER_DIR"; mkdir -p "$TRAINER_DIR"; }

# serve_try N: a server on a new store with CELLAR_STORE_FAIL=N. 0 once it
# serves; 1 when it exited first (the failure hit its start), its exit
# status in $srv_rc (serve_start's own verdict line goes to $TMP/ready: a
# server that does not start is a result here, judged below)
serve_try() {
	# halted for good here (no retry for an hour): the refusals are checked
	SERVE_ENV="CELLAR_STORE_FAIL=$1 CELLAR_SERVE_RETRY=3600"
	serve_start "$TMP/two.yaml" >"$TMP/ready" && return 0
	kill "$SERVE_PID" 2>/dev/null	# not started in time: 143, bad
	wait "$SERVE_PID"
	srv_rc=$?
	SERVE_PID=
	return 1
}

# How many write steps a whole run takes: the server's, printed when it
# closes its store at its stop
fresh
SERVE_ENV=CELLAR_STORE_KILL=1000000
serve_start "$TMP/two.yaml"
"$CELLAR" -k -c "$script" >"$TMP/out" 2>"$TMP/err"
serve_stop
steps=$(sed -n 's/.*: \([0-9]*\) write steps.*/\1/p' "$SERVE_LOG")
if [ -n "$steps" ] && [ "$(grep -c 'b completed' "$TMP/out")" = 2 ]; then ok calibrate
else not_ok calibrate "no step count or b did not complete: $(cat "$TMP/out" "$TMP/err" "$SERVE_LOG")"
	done_testing; fi

n=1 bad= pass_hit=0 halted_seen=0
while [ "$n" -le "$steps" ]; do
	fresh
	if serve_try "$n"; then
		"$CELLAR" -k -c "$script" >"$TMP/o1" 2>"$TMP/e1"
		rc=$?
		# halted: a later client is refused too, and told why
		if grep -q "cellar serve: halted: .*CELLAR_STORE_FAIL=$n" "$SERVE_LOG"; then
			halted_seen=$((halted_seen + 1))
			"$CELLAR" -c "wait --timeout 5s" >"$TMP/o2" 2>"$TMP/e2"
			rc2=$?
			[ "$rc2" = 4 ] && grep -q "live session is halted after a store failure (.*CELLAR_STORE_FAIL=$n)" "$TMP/e2" ||
			    bad="$bad [$n: halted, a later client got exit $rc2: $(cat "$TMP/e2")]"
			# a change is refused, and the refusal is in the log
			"$CELLAR" submit late$n --vc a -- true >"$TMP/o3" 2>"$TMP/e3"
			rc3=$?
			[ "$rc3" = 4 ] && grep -q "cellar serve: refused $(id -un): submit late$n --vc a -- true (exit 4: the live session is halted" "$SERVE_LOG" ||
			    bad="$bad [$n: halted, a change got exit $rc3 ($(cat "$TMP/e3")), log: $(grep refused "$SERVE_LOG")]"
		fi
		serve_stop
	else
		# the failure hit the server's start (where it makes or
		# recovers the run): it says so and exits 4; with no server,
		# the client's live commands are refused, the first (submit)
		# with exit 5 like the rest
		[ "$srv_rc" = 4 ] && grep -q "CELLAR_STORE_FAIL=$n" "$SERVE_LOG" ||
		    bad="$bad [$n: the server's start failed with exit $srv_rc: $(cat "$SERVE_LOG")]"
		"$CELLAR" -k -c "$script" >"$TMP/o1" 2>"$TMP/e1"
		rc=$?
		[ "$rc" = 5 ] && grep -q "no cellar server is running for '$CELLAR_DB'" "$TMP/e1" ||
		    bad="$bad [$n: no server, the client got exit $rc: $(cat "$TMP/e1")]"
		rc=noserver
	fi
	run "$CELLAR" events -o csv --no-header
	ev=$OUT
	case $rc in
	4) grep -q "CELLAR_STORE_FAIL=$n" "$TMP/e1" ||
	       bad="$bad [$n: exit 4 without the injected failure: $(cat "$TMP/e1")]" ;;
	0) # the step was a ROLLBACK and no write came after it, or the
	   # failure came after the client's last reply (the server halted,
	   # checked above): never a failure the server kept to itself
	   [ "$(grep -c 'b completed' "$TMP/o1")" = 2 ] ||
	       bad="$bad [$n: exit 0 but b did not complete: $(cat "$TMP/o1")]"
	   ! grep -q "CELLAR_STORE_FAIL=$n" "$SERVE_LOG" ||
	       grep -q "cellar serve: halted: .*CELLAR_STORE_FAIL=$n" "$SERVE_LOG" ||
	       bad="$bad [$n: exit 0, the server failed and went on: $(cat "$SERVE_LOG")]" ;;
	noserver) ;;	# judged above
	*) bad="$bad [$n: exit $rc: $(cat "$TMP/e1")]" ;;
	esac
	for j in a b; do
		if ! printf '%s\n' "$ev" | grep -q ",start,$j,"; then
			[ -e "$TRAINER_DIR/$j.0.progress" ] &&
			    bad="$bad [$n: $j ran, the store has no start]"
		fi
	done
	# the failure hit the pass that started b: halted, b never ran
	if printf '%s\n' "$ev" | grep -q ",complete,a," &&
	    ! printf '%s\n' "$ev" | grep -q ",start,b,"; then
		pass_hit=$((pass_hit + 1))
		grep -q "live session is halted" "$TMP/e1" ||
		    bad="$bad [$n: the second wait was not refused: $(cat "$TMP/e1")]"
	fi
	# a failure while the store was made leaves none (store.h invariant 6)
	if [ -e "$CELLAR_DB" ]; then
		run "$CELLAR" db check
		[ "$RC" -eq 0 ] || bad="$bad [$n: db check: $OUT $ERR]"
	fi
	n=$((n + 1))
done
if [ -z "$bad" ]; then ok "every-step-$steps"
else not_ok "every-step-$steps" "$bad"; fi
[ "$pass_hit" -gt 0 ] && ok "pass-failures-$pass_hit" ||
    not_ok pass-failures "no injected failure hit the pass that starts b"
[ "$halted_seen" -gt 0 ] && ok "halted-$halted_seen" ||
    not_ok halted "no injected failure halted the server"

done_testing
