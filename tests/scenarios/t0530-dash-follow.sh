#!/bin/sh
# t0530-dash-follow — `dash --follow` on a store another process writes.
# A replay recording itself (--checkpoint-every 1) runs in the background;
# `dash --follow --once` frames are polled until its jobs and events show,
# and once it is done the frame agrees with `jobs` and `events` read from
# the same store; so does the frame of a writer killed mid-run. A session
# run written by hand commands: the follower's queues, VC usage, a job's
# history from the store, a change refused. The follower never
# writes (the file is unchanged). Errors: no --db, a missing store, a
# store without a run, the emulator's options.
. tests/scenarios/lib.sh
unset CELLAR_DB

# errors first
run "$CELLAR" dash --follow --once
check_rc no-db-rc 2
check_err_has no-db "--follow needs a store another process writes: give its file with --db PATH"
run "$CELLAR" --db "$TMP/none.db" dash --follow --once
check_rc missing-rc 1
check_err_has missing "no state store at '$TMP/none.db'"
[ ! -e "$TMP/none.db" ] && ok missing-not-created || not_ok missing-not-created "the follower created the file"
run "$CELLAR" --db "$TMP/w.db" dash --follow --once --at 1h
check_rc emu-opt-rc 2
check_err_has emu-opt "--at is the emulator's: not with --follow"
# a store with no run: a dump without rows (of this binary's store
# version, read from a real export) imported into a new store
"$CELLAR" --db "$TMP/one.db" alloc one --vc prod --gpus 1 >/dev/null 2>&1
v=$("$CELLAR" --db "$TMP/one.db" export - 2>/dev/null |
    sed -n 's/.*"store_version": *\([0-9]*\).*/\1/p' | head -n 1)
printf '{"schema_version":1,"kind":"cellar-dump","store_version":%s,"tables":{}}' \
    "$v" >"$TMP/empty.json"
run "$CELLAR" --db "$TMP/empty.db" import "$TMP/empty.json"
if [ -e "$TMP/empty.db" ]; then
	run "$CELLAR" --db "$TMP/empty.db" dash --follow --once
	check_rc no-run-rc 1
	check_err_has no-run "the state store at '$TMP/empty.db' holds no run yet"
else
	not_ok no-run "could not make an empty store: $ERR"
fi

# a replay writing in the background
db=$TMP/w.db
"$CELLAR" --db "$db" replay synth:3000 --policy las --seed 3 --checkpoint-every 1 \
    -o json >"$TMP/writer.out" 2>"$TMP/writer.err" &
writer=$!
# poll (a cap on looks, not a deadline) until a frame shows stored events
i=0 seen=
while [ $i -lt 2000 ]; do
	if "$CELLAR" --db "$db" dash --follow --once --panel events --size 120x20 \
	    >"$TMP/frame" 2>"$TMP/frame.err" &&
	    grep -Eq '^ [0-9].* (submit|start) ' "$TMP/frame"; then
		seen=1
		break
	fi
	i=$((i + 1))
	sleep 0.05
done
[ -n "$seen" ] && ok follow-events-appear ||
    not_ok follow-events-appear "no event in $i frames: $(cat "$TMP/frame" "$TMP/frame.err" | head -5)"
grep -q "following $db: run 1 (replay, " "$TMP/frame" && ok follow-status ||
    not_ok follow-status "$(head -1 "$TMP/frame")"
wait $writer
check_writer=$?
[ $check_writer -eq 0 ] && ok writer-rc || not_ok writer-rc "replay exit $check_writer: $(cat "$TMP/writer.err")"

# done: the frame agrees with jobs and events read from the same store
cp "$db" "$TMP/before.db"
run "$CELLAR" --db "$db" dash --follow --once -o json
check_rc follow-json-rc 0
check_out_has follow-json-done '"follow":"following '"$db"': run 1 (replay, done)"'
check_out_has follow-json-backend '"backend":"store"'
"$CELLAR" --db "$db" jobs --run 1 -o csv --no-header >"$TMP/jobs.csv"
nr=$(awk -F, '$4 == "R"' "$TMP/jobs.csv" | wc -l | tr -d ' ')
np=$(awk -F, '$4 == "PD"' "$TMP/jobs.csv" | wc -l | tr -d ' ')
check_out_has follow-json-counts "\"running\":$nr,\"pending\":$np"
run "$CELLAR" --db "$db" events --run 1 --limit 3 -o csv --no-header
last=$(printf '%s\n' "$OUT" | tail -n 1 | cut -d, -f3,4)	# kind,job
kind=${last%%,*} job=${last#*,}
run "$CELLAR" --db "$db" dash --follow --once --panel events --size 120x20
check_rc follow-events-rc 0
# the newest event is the selected last row ('>')
last_line=$(printf '%s\n' "$OUT" | grep -E '^[ >][0-9]' | tail -n 1)
case $last_line in
*" $kind "*" $job"*) ok follow-last-event ;;
*) not_ok follow-last-event "frame's last event [$last_line], store's [$kind $job]" ;;
esac
cmp -s "$db" "$TMP/before.db" && ok follow-read-only ||
    not_ok follow-read-only "the store changed while followed"

# a writer killed mid-run (the store's SIGKILL hook, inside a checkpoint):
# the follower shows what it committed, its run still 'running'
kdb=$TMP/k.db
CELLAR_STORE_KILL=300 run "$CELLAR" --db "$kdb" replay synth:400 --seed 5 --checkpoint-every 1
check_rc killed-rc 137
run "$CELLAR" --db "$kdb" dash --follow --once -o json
check_rc killed-follow-rc 0
check_out_has killed-status "run 1 (replay, running)"
"$CELLAR" --db "$kdb" jobs --run 1 -o csv --no-header >"$TMP/kjobs.csv"
nr=$(awk -F, '$4 == "R"' "$TMP/kjobs.csv" | wc -l | tr -d ' ')
np=$(awk -F, '$4 == "PD"' "$TMP/kjobs.csv" | wc -l | tr -d ' ')
[ "$nr" -gt 0 ] && ok killed-some-running || not_ok killed-some-running "no running job at the kill: $(head -3 "$TMP/kjobs.csv")"
check_out_has killed-counts "\"running\":$nr,\"pending\":$np"

# a session run written by hand commands, then followed
sdb=$TMP/s.db
run "$CELLAR" --db "$sdb" -c 'alloc big --vc prod --gpus 8 --pods 2' -c 'alloc small --vc dev --gpus 2'
check_rc session-rc 0
run "$CELLAR" --db "$sdb" dash --follow --once --panel queues --size 120x20
check_rc session-follow-rc 0
check_out_has session-status "following $sdb: run 1 (session, running)"
printf '%s\n' "$OUT" | grep -Eq ' big  *R  *16 ' && ok session-queue-big ||
    not_ok session-queue-big "$OUT"
printf '%s\n' "$OUT" | grep -Eq ' small  *R  *2 ' && ok session-queue-small ||
    not_ok session-queue-small "$OUT"
run "$CELLAR" --db "$sdb" dash --follow --once -o json
check_out_has session-util '"util":0.140625'
# the history of a job, from the store, in its detail view
run "$CELLAR" --db "$sdb" dash --follow --once --panel queues --size 120x30 --keys '/big<Enter><Enter>'
check_out_has session-detail "job big"
check_out_has session-history "history (from the store):"
printf '%s\n' "$OUT" | grep -Eq 't=[0-9]+s start' && ok session-history-start ||
    not_ok session-history-start "$OUT"
# a change the follower may not make
run "$CELLAR" --db "$sdb" dash --follow --once --keys ':admin<Enter>:release big<Enter>y' --panel queues
check_out_has session-refused "error: the cluster on screen is the store's"
run "$CELLAR" --db "$sdb" jobs -o csv --no-header
check_out_has session-still-running "big,"
done_testing
