#!/bin/sh
# t0445-reconf.sh — reconfiguration of a recorded session: `load` of a
# changed spec carries the running jobs over (kept, downgraded, requeued,
# or with --force cancelled with their VC), reports and records each
# decision in one transaction, and the run goes on on the new spec; a
# spec that removes a VC with jobs is refused with nothing changed; a
# start with --spec reconfigures the recovered run; a kill -9 just before
# or just after the commit recovers entirely before or entirely after.
. tests/scenarios/lib.sh
CELLAR_DB=$TMP/s.db
export CELLAR_DB

# Variants of the default spec: prod shrunk to one node; dev removed and
# nodes r1n02 and r1n03 renamed (their GPUs are gone).
sed -e '/V100-RACK.V100-NODE$/{n;s/cellNumber: 4/cellNumber: 1/;}' \
    specs/default.yaml >"$TMP/shrink.yaml"
awk '/^  dev:/{skip=1} /^  infer:/{skip=0} !skip' specs/default.yaml |
    sed -e 's/r1n0\([23]\)/r1z0\1/' >"$TMP/nodev.yaml"
grep -q 'cellNumber: 1' "$TMP/shrink.yaml" && ! grep -q 'dev:' "$TMP/nodev.yaml" &&
    ok variants || not_ok variants "sed/awk did not change the specs"

setup() {
	rm -f "$CELLAR_DB" "$CELLAR_DB-wal" "$CELLAR_DB-shm"
	run "$CELLAR" -c 'alloc a --vc research --gpus 8' \
	    -c 'alloc p1 --vc prod --gpus 8' -c 'alloc p2 --vc prod --gpus 8' \
	    -c 'alloc d --vc dev --gpus 2' -c 'alloc g --vc prod --gpus 8' \
	    -c 'release g' -c 'node bad r0n05'
	check_rc "setup-$1" 0
}
# Everything observable of the session and its run, for comparisons.
# (the jobs' outcome columns, their wall-clock times, left out)
state() {
	"$CELLAR" -c 'status -o json' -c 'jobs -o json' -c 'cells -o json' \
	    -c 'vcs -o json' -c 'jobs --run last -o csv' 2>&1 |
	    sed '/^{/!s/\(,[^,]*\)\{8\}$//'
}

setup load
before=$(state)
run "$CELLAR" load "$TMP/shrink.yaml"
check_rc shrink 0
check_out_has shrink-kept "kept 'a' (vc 'research'): runs on where it was"
check_out_has shrink-down "downgraded 'p2' (vc 'prod'): reconfiguration:"
check_out_has shrink-sum "reconfigured session run 1: 3 kept, 1 downgraded, 0 requeued, 0 cancelled"
run "$CELLAR" jobs --filter job=p2 -o csv --no-header
check_out_has p2-opportunistic "opportunistic"
run "$CELLAR" status
check_out_has shrink-spec "$TMP/shrink.yaml"
check_out_has same-run "(session run 1)"
check_out_has still-bad "bad            8 GPUs"
run "$CELLAR" history p2 -o csv --no-header
[ "$(printf '%s\n' "$OUT" | cut -d, -f3 | tr '\n' ' ')" = "submit start downgrade " ] &&
    ok history-p2 || not_ok history-p2 "$OUT"
run "$CELLAR" events --kind reconfig --job a -o csv --no-header
check_out_has kept-event "kept: runs on where it was"
run "$CELLAR" db check
check_rc db-check-shrink 0

# Removing a VC with jobs: refused, status 1, the VC named, nothing changed.
mid=$(state)
run "$CELLAR" load "$TMP/nodev.yaml"
check_rc refused 1
check_err_has refused-msg "the new spec removes VC 'dev' (1 job) that still has jobs; use --force to cancel them"
[ "$(state)" = "$mid" ] && ok refused-unchanged || not_ok refused-unchanged "state changed"
run "$CELLAR" events --kind reconfig -o csv --no-header
[ "$(printf '%s\n' "$OUT" | grep -c ',-,-,-,')" = 1 ] && ok refused-no-event ||
    not_ok refused-no-event "$OUT"

# --force: dev's job cancelled, the job on the renamed node requeued.
run "$CELLAR" load --force -o json "$TMP/nodev.yaml"
check_rc force 0
check_json_field force-cancelled reconfiguration.cancelled 1
check_json_field force-requeued reconfiguration.requeued 0
check_json_field force-d reconfiguration.jobs.3.action cancelled
run "$CELLAR" jobs -o name
check_out force-jobs "a
p1
p2"
# Events keep the VC names of the spec they were written on: dev's
# start is still 'dev', and --vc finds it by name across the change.
run "$CELLAR" history d -o csv --no-header
[ "$(printf '%s\n' "$OUT" | cut -d, -f3,5 | tr '\n' ' ')" = \
    "submit,dev start,dev reconfig,dev cancel,dev " ] && ok history-d || not_ok history-d "$OUT"
run "$CELLAR" events --vc prod --kind start -o csv --no-header
[ "$(printf '%s\n' "$OUT" | wc -l)" = 3 ] && ok vc-by-name || not_ok vc-by-name "$OUT"
run "$CELLAR" db check
check_rc db-check-force 0
run "$CELLAR" runs -o name
check_out one-run "1"

# A GPU gone: the job is requeued (pending, without cells).
setup requeue
run "$CELLAR" alloc z --vc prod --gpus 4
run "$CELLAR" jobs --filter job=z -o csv --no-header
case $OUT in *r1n03*) ok z-on-r1n03 ;; *) not_ok z-on-r1n03 "$OUT" ;; esac
run "$CELLAR" load --force "$TMP/nodev.yaml"
check_rc requeue 0
check_out_has requeued "requeued 'z' (vc 'prod'): GPU 'r1/r1n03/0/0/0' is gone from the new spec"
run "$CELLAR" jobs --run last --filter job=z -o csv --no-header
check_out_has z-pending ",PD,"
run "$CELLAR" db check
check_rc db-check-requeue 0

# An event's cell is named with the spec it was recorded on: r1n02 is
# r1z02 in nodev.yaml, and its node-bad event still says r1n02.
rm -f "$CELLAR_DB" "$CELLAR_DB-wal" "$CELLAR_DB-shm"
run "$CELLAR" -c 'alloc a --vc research --gpus 8' -c 'node bad r1n02'
check_rc cell-setup 0
run "$CELLAR" load --force "$TMP/nodev.yaml"
check_rc cell-load 0
run "$CELLAR" events --kind node-bad -o json
check_out_has cell-old-spec '"cell":"r1/r1n02"'
case $OUT in *r1z02*) not_ok cell-not-new-spec "$OUT" ;; *) ok cell-not-new-spec ;; esac

# A start with --spec reconfigures the recovered run (and says so).
setup start
run "$CELLAR" --spec "$TMP/shrink.yaml" status
check_rc start 0
check_err_has start-report "reconfigured session run 1: 3 kept, 1 downgraded"
check_out_has start-spec "$TMP/shrink.yaml"
# On the same spec again: recovered, nothing to reconfigure.
run "$CELLAR" --spec "$TMP/shrink.yaml" status
check_rc start-same 0
case $ERR in *reconfigured*) not_ok start-same-quiet "$ERR" ;; *) ok start-same-quiet ;; esac
# Refused at start: the hint names load --force, nothing changed.
mid=$(state)
run "$CELLAR" --spec "$TMP/nodev.yaml" status
check_rc start-refused 1
check_err_has start-refused-msg "(with 'load --force FILE')"
[ "$(state)" = "$mid" ] && ok start-refused-unchanged || not_ok start-refused-unchanged "state changed"

# kill -9 just before the commit: the store is as before the load.
setup crash
before=$(state)
CELLAR_CRASH_AT=reconf-commit "$CELLAR" load "$TMP/shrink.yaml" >/dev/null 2>&1
rc=$?
[ $rc = 137 ] && ok crash-before-killed || not_ok crash-before-killed "status $rc"
[ "$(state)" = "$before" ] && ok crash-before-recovered ||
    not_ok crash-before-recovered "$(state)"
run "$CELLAR" db check
check_rc crash-before-check 0
# ... and just after it: recovery finds the whole reconfiguration.
CELLAR_CRASH_AT=reconf-switch "$CELLAR" load "$TMP/shrink.yaml" >/dev/null 2>&1
rc=$?
[ $rc = 137 ] && ok crash-after-killed || not_ok crash-after-killed "status $rc"
after=$(state)
setup clean
"$CELLAR" load "$TMP/shrink.yaml" >/dev/null 2>&1
[ "$(state | grep -v '"now"\|run_time\|T[0-9]')" = "$(printf '%s\n' "$after" | grep -v '"now"\|run_time\|T[0-9]')" ] &&
    ok crash-after-recovered || not_ok crash-after-recovered "$after"
run "$CELLAR" status
check_out_has crash-after-spec "$TMP/shrink.yaml"
run "$CELLAR" db check
check_rc crash-after-check 0
exit $FAILED
