#!/bin/sh
# t0440-store-concurrency.sh — a reader process polls a file store while a
# replay records itself into it (a commit after every event, so the reader
# lands between many of them). Every document the reader gets must show
# one consistent state (tests/helpers/snapcheck: every job once and a
# prefix of the trace, a placement exactly for the jobs holding cells, no
# GPU held by two jobs; events numbered without a gap, each job's history
# beginning with its submission, nothing after its completion); snapshots
# only grow; the reader never fails (no "locked": WAL readers do not wait
# for the writer), and the writer is never made to fail either: it ends
# with the report of a replay without a store. At least three snapshots
# must catch the run half written, else the test proves nothing and says so.
. tests/scenarios/lib.sh
unset CELLAR_DB
SNAP=$(dirname "$CELLAR")/tests/helpers/snapcheck
TRACE=tests/fixtures/traces/philly-sample.csv
DB=$TMP/c.db

run "$CELLAR" replay "$TRACE" --spec specs/philly.yaml --vc-map '*=-' -o json
check_rc plain 0
cp "$TMP/out" "$TMP/plain.json"

"$CELLAR" --db "$DB" replay "$TRACE" --spec specs/philly.yaml --vc-map '*=-' \
    --checkpoint-every 1 -o json >"$TMP/writer.out" 2>"$TMP/writer.err" &
writer=$!

bad= reads=0 mid=0 early=0 lastjobs=0 lastevents=0
# First wait for the writer's run (up to 3000 polls): until it exists a
# reader finds no store (status 0, an empty list), a store being created
# or no run (status 1 to 4 with a message); "locked" is a failure even then.
while kill -0 "$writer" 2>/dev/null && [ "$early" -lt 3000 ]; do
	"$CELLAR" --db "$DB" jobs --run last -o json >"$TMP/j.json" 2>"$TMP/j.err" &&
	    ! grep -q '"run":null' "$TMP/j.json" && break
	if grep -qi 'lock' "$TMP/j.err"; then
		bad="$bad [before the run: $(cat "$TMP/j.err")]"
		break
	fi
	early=$((early + 1))
	sleep 0.01
done
# From then on every read succeeds and shows one consistent state.
while [ -z "$bad" ] && kill -0 "$writer" 2>/dev/null; do
	"$CELLAR" --db "$DB" jobs --run last -o json >"$TMP/j.json" 2>"$TMP/j.err"
	rj=$?
	"$CELLAR" --db "$DB" events --run last -o json >"$TMP/e.json" 2>"$TMP/e.err"
	re=$?
	if [ "$rj" -ne 0 ] || [ "$re" -ne 0 ]; then
		bad="$bad [status $rj/$re: $(cat "$TMP/j.err" "$TMP/e.err")]"
		break
	fi
	reads=$((reads + 1))
	if ! js=$("$SNAP" jobs <"$TMP/j.json"); then
		cp "$TMP/j.json" "$TMP/bad-jobs.json"
		bad="$bad [jobs: $js]"
		break
	fi
	if ! es=$("$SNAP" events <"$TMP/e.json"); then
		bad="$bad [events: $es]"
		break
	fi
	nj=${js#jobs=}; nj=${nj%% *}
	ne=${es#events=}; ne=${ne%% *}
	# The events of a run start at its first seq (1 in a new store).
	case $es in
	"events=0 "*|*" first=1 "*) ;;
	*) bad="$bad [events do not start at seq 1: $es]"; break ;;
	esac
	if [ "$nj" -lt "$lastjobs" ] || [ "$ne" -lt "$lastevents" ]; then
		bad="$bad [went back: $lastjobs -> $nj jobs, $lastevents -> $ne events]"
		break
	fi
	lastjobs=$nj lastevents=$ne
	[ "$nj" -gt 0 ] && [ "$nj" -lt 3044 ] && mid=$((mid + 1))
done
wait "$writer"
wrc=$?
echo "# $T: $reads snapshots read, $mid of them mid-run, $early polls before the run existed"
[ -z "$bad" ] && ok reader-consistent || not_ok reader-consistent "$bad"
[ "$wrc" -eq 0 ] && ok writer-ok || not_ok writer-ok "status $wrc: $(cat "$TMP/writer.err")"
cmp -s "$TMP/writer.out" "$TMP/plain.json" && ok writer-report ||
    not_ok writer-report "the recorded replay's report differs from the plain one"
[ "$mid" -ge 3 ] && ok reader-overlapped ||
    not_ok reader-overlapped "only $mid of $reads snapshots caught the run half written"

# The finished run: every job of the trace, consistent, events whole.
run "$CELLAR" --db "$DB" jobs --run last -o json
js=$(printf '%s\n' "$OUT" | "$SNAP" jobs)
case $js in
"jobs=3044 R=0 PD=0 "*) ok final-jobs ;;
*) not_ok final-jobs "$js" ;;
esac
run "$CELLAR" --db "$DB" events --run last -o json
es=$(printf '%s\n' "$OUT" | "$SNAP" events)
case $es in
"events="*" first=1 "*" jobs=3044") ok final-events ;;
*) not_ok final-events "$es" ;;
esac

# The checker itself must catch what it is there for.
printf '%s\n' '{"jobs":[{"job":"a","id":0,"state_code":"R","nodes":"n1","gpu_addresses":"n1:[0-1]"},{"job":"b","id":1,"state_code":"R","nodes":"n1","gpu_addresses":"n1:1"}]}' |
    "$SNAP" jobs >/dev/null && not_ok snapcheck-gpu "a GPU held twice passed" || ok snapcheck-gpu
printf '%s\n' '{"jobs":[{"job":"a","id":0,"state_code":"R","nodes":null,"gpu_addresses":null}]}' |
    "$SNAP" jobs >/dev/null && not_ok snapcheck-placement "a running job without cells passed" ||
    ok snapcheck-placement
printf '%s\n' '{"jobs":[{"job":"a","id":1,"state_code":"PD","nodes":null,"gpu_addresses":null}]}' |
    "$SNAP" jobs >/dev/null && not_ok snapcheck-prefix "a job set with a hole passed" ||
    ok snapcheck-prefix
printf '%s\n' '{"events":[{"seq":1,"kind":"submit","job":"a"},{"seq":3,"kind":"start","job":"a"}]}' |
    "$SNAP" events >/dev/null && not_ok snapcheck-gap "a gap in seqs passed" || ok snapcheck-gap
printf '%s\n' '{"events":[{"seq":1,"kind":"start","job":"a"}]}' |
    "$SNAP" events >/dev/null && not_ok snapcheck-history "a history without its submission passed" ||
    ok snapcheck-history
printf '%s' '{"jobs":[' | "$SNAP" jobs >/dev/null && not_ok snapcheck-json "a cut document passed" ||
    ok snapcheck-json

done_testing
