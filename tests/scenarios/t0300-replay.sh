#!/bin/sh
# t0300-replay — the emulator through its commands: determinism, the
# Tiresias 60-job trace under fifo / las / gittins / srtf (the ordering the
# paper reports), HiveD's sharing-safety claim on a Philly sample (hived: no
# VC worse than private; quota: the anomaly), failures, the time series, and
# the errors of bad input.
. tests/scenarios/lib.sh

FIX=tests/fixtures/traces
T60="$FIX/tiresias-60_job.csv"
PHILLY="$FIX/philly-sample.csv"

# Determinism: the same inputs give byte-identical reports.
run "$CELLAR" replay synth:400 --policy las --seed 7 -o json
first=$OUT
check_rc determinism-rc 0
check_json determinism-json
run "$CELLAR" replay synth:400 --policy las --seed 7 -o json
if [ "$OUT" = "$first" ]; then ok determinism-same
else not_ok determinism-same "two runs differ"; fi
run "$CELLAR" replay synth:400 --policy las --seed 8 -o json
if [ "$OUT" != "$first" ]; then ok determinism-seed-matters
else not_ok determinism-seed-matters "seed 8 gave the seed-7 report"; fi

# Tiresias' 60 jobs on 2 nodes x 4 GPUs: las and gittins far better than fifo
# on average JCT, srtf (the oracle) best. Printed for the log.
for ideal in --ideal ""; do
	run "$CELLAR" compare "$T60" --spec specs/tiresias-n2g4.yaml \
	    --policy fifo,las,gittins,srtf $ideal -o json
	check_rc "tiresias60$ideal-rc" 0
	fifo=$(json_get runs.0.jct.avg)
	las=$(json_get runs.1.jct.avg)
	git=$(json_get runs.2.jct.avg)
	srtf=$(json_get runs.3.jct.avg)
	echo "# tiresias 60 jobs, n2g4$ideal: avg JCT fifo $fifo las $las gittins $git srtf $srtf"
	if awk -v f="$fifo" -v l="$las" -v g="$git" -v s="$srtf" \
	    'BEGIN { exit !(l < 0.75 * f && g < 0.75 * f && s <= l && s <= g) }'; then
		ok "tiresias60$ideal-ordering"
	else
		not_ok "tiresias60$ideal-ordering" "fifo $fifo las $las gittins $git srtf $srtf"
	fi
done
# On 32 nodes x 4 GPUs the 60 jobs never contend: every policy ties.
run "$CELLAR" compare "$T60" --spec specs/tiresias-n32g4.yaml --policy fifo,las,srtf --ideal -o csv --no-header
check_rc tiresias60-n32g4-rc 0
n=$(printf '%s\n' "$OUT" | cut -d, -f4 | sort -u | wc -l)
if [ "$n" -eq 1 ]; then ok tiresias60-n32g4-tie
else not_ok tiresias60-n32g4-tie "avg JCTs differ: $OUT"; fi

# compare's runs side by side on threads give the reports of one after
# another, byte for byte (six runs, so both threads take several), and
# anomaly's two runs too.
run "$CELLAR" compare synth:300 --policy fifo,las,gandiva --sharing hived,quota \
    --seed 3 --parallel 1 -o json
check_rc parallel-one-rc 0
one=$OUT
run "$CELLAR" compare synth:300 --policy fifo,las,gandiva --sharing hived,quota \
    --seed 3 --parallel 2 -o json
check_rc parallel-two-rc 0
if [ -n "$one" ] && [ "$OUT" = "$one" ]; then ok parallel-same
else not_ok parallel-same "--parallel 2 differs from --parallel 1"; fi
run "$CELLAR" anomaly "$PHILLY" --spec specs/philly.yaml --vc-map '*=-' \
    --policy fifo --load 1000 --parallel 1 -o json
one=$OUT
run "$CELLAR" anomaly "$PHILLY" --spec specs/philly.yaml --vc-map '*=-' \
    --policy fifo --load 1000 --parallel 2 -o json
if [ -n "$one" ] && [ "$OUT" = "$one" ]; then ok parallel-anomaly-same
else not_ok parallel-anomaly-same "--parallel 2 differs from --parallel 1"; fi
run "$CELLAR" compare synth:30 --parallel 0
check_rc parallel-zero-rc 2
check_err_has parallel-zero-msg "parallel"
# stderr not a terminal: plain progress lines (every call at 0) with an
# ETA, and the notes of the runs' wall times in the order of the runs
# (runs long enough for the 0.2 s progress tick)
run env CELLAR_PROGRESS_EVERY=0 "$CELLAR" compare synth:8000 --policy fifo,las \
    --sharing hived,quota --seed 3 --parallel 2
check_rc progress-rc 0
check_err_has progress-line "progress: compare: "
check_err_has progress-eta ", ETA "
order=$(printf '%s\n' "$ERR" | sed -n 's/^note: \([a-z]*\/[a-z]*\): [0-9]* jobs, .*/\1/p' | tr '\n' ' ')
if [ "$order" = "fifo/hived fifo/quota las/hived las/quota " ]
then ok progress-notes-order
else not_ok progress-notes-order "notes in the order: $order"; fi

# Sharing safety on the Philly sample (1 job in 27 of the trace) compressed
# so its arrivals come within hours: a cluster under pressure. With every
# job guaranteed (--class guaranteed; anomaly's default is auto), hived is
# the private run by construction and says so; quota sharing is not.
run "$CELLAR" anomaly "$PHILLY" --spec specs/philly.yaml --vc-map '*=-' \
    --sharing hived --policy fifo --load 1000 --class guaranteed -o json
check_rc philly-hived-rc 0
got=$(json_get anomalous_vcs)
echo "# philly sample, hived: $got anomalous VCs"
if [ "$got" = 0 ]; then ok philly-hived-safe
else not_ok philly-hived-safe "$got VCs worse than private: $OUT"; fi
check_json_field philly-hived-identical identical true
check_json_field philly-hived-all-guaranteed all_guaranteed true
check_json_field philly-hived-class-given class guaranteed
run "$CELLAR" anomaly "$PHILLY" --spec specs/philly.yaml --vc-map '*=-' \
    --sharing hived --policy fifo --load 1000 --class guaranteed
check_out_has philly-hived-says-identical "identical: every job is guaranteed"
run "$CELLAR" anomaly "$PHILLY" --spec specs/philly.yaml --vc-map '*=-' \
    --sharing quota --policy fifo --load 1000 --class guaranteed -o json
check_rc philly-quota-rc 0
got=$(json_get anomalous_vcs)
echo "# philly sample, quota: $got anomalous VCs"
if [ "${got:-0}" -ge 1 ] 2>/dev/null; then ok philly-quota-anomaly
else not_ok philly-quota-anomaly "no VC worse than private: $OUT"; fi
check_json_field philly-quota-differs identical false
run "$CELLAR" anomaly "$PHILLY" --spec specs/philly.yaml --vc-map '*=-' \
    --sharing quota --policy fifo --load 1000 --class guaranteed
check_out_has philly-quota-table "ANOMALY"
check_out_has philly-quota-legend "worse than private beyond noise"
check_out_lacks philly-quota-not-identical "identical"

# gandiva, every job guaranteed: its defragmentation picks one node of
# the whole cluster per pass, so hived and private differ, and the report
# says why; without migrations they are the same run on this sample.
run "$CELLAR" anomaly "$PHILLY" --spec specs/philly.yaml --vc-map '*=-' \
    --policy gandiva --load 1000 --class guaranteed
check_out_has gandiva-guaranteed-why "gandiva acts on physical nodes"
run "$CELLAR" anomaly "$PHILLY" --spec specs/philly.yaml --vc-map '*=-' \
    --policy gandiva --load 1000 --class guaranteed --no-migrate -o json
check_json_field gandiva-no-migrate-identical identical true

# anomaly's default is the paper's setting: jobs beyond their VC's quota
# run opportunistic (--class auto), so hived differs from private and
# shares: no VC worse, some VC better; the worst window comes with both
# means, and it is the window where shared most exceeds private.
run "$CELLAR" anomaly "$PHILLY" --spec specs/philly.yaml --vc-map '*=-' \
    --policy fifo --load 1000 -o json
check_rc philly-auto-rc 0
check_json_field philly-auto-class class auto
check_json_field philly-auto-all-guaranteed all_guaranteed false
check_json_field philly-auto-differs identical false
check_json_field philly-auto-safe anomalous_vcs 0
if printf '%s' "$OUT" | awk '
    /"queue_shared"/ { gsub(/[^0-9.]/, "", $2); s = $2 + 0 }
    /"queue_private"/ { gsub(/[^0-9.]/, "", $2); if (s < $2 - 60) better++ }
    END { exit !(better >= 1) }' RS=',' FS=':'; then ok philly-auto-shares
else not_ok philly-auto-shares "no VC better off shared: $OUT"; fi
check_json_field philly-auto-worst-fields vcs.0.worst_private "$(json_get vcs.0.worst_private)"
ws=$(json_get vcs.0.worst_shared)
wp=$(json_get vcs.0.worst_private)
if [ -n "$ws" ] && [ -n "$wp" ]; then ok philly-auto-worst-window
else not_ok philly-auto-worst-window "worst_shared [$ws] worst_private [$wp]"; fi
run "$CELLAR" anomaly "$PHILLY" --spec specs/philly.yaml --vc-map '*=-' \
    --policy fifo --load 1000
check_out_has philly-auto-worst-columns "W_SHARED  W_PRIVATE"

# The queuing delay compared is HiveD's, submission to first start; the
# time pending (waits after a preemption included) is reported beside it
# and can only be longer. Under las with --class auto a job that ran as
# opportunistic, was preempted and waited again counts that wait there.
run "$CELLAR" anomaly synth:600 --policy las --load 4 --window 2h -o json
check_rc las-auto-rc 0
if printf '%s' "$OUT" | awk '
    /"queue_shared"/ { gsub(/[^0-9.]/, "", $2); q = $2 + 0 }
    /"pending_shared"/ { gsub(/[^0-9.]/, "", $2); n++; if (q > $2 + 1e-6) bad++ }
    END { exit !(n >= 1 && bad == 0) }' RS=',' FS=':'; then ok las-auto-delay-le-pending
else not_ok las-auto-delay-le-pending "queue_shared above pending_shared: $OUT"; fi
if printf '%s' "$OUT" | awk '
    /"queue_shared"/ { gsub(/[^0-9.]/, "", $2); q = $2 + 0 }
    /"pending_shared"/ { gsub(/[^0-9.]/, "", $2); if ($2 > q + 60) more++ }
    END { exit !(more >= 1) }' RS=',' FS=':'; then ok las-auto-requeue-waits
else not_ok las-auto-requeue-waits "no VC waited after preemptions: $OUT"; fi

# The reviewer's windows (issue 20; cellar(1) anomaly explains them): on
# synth:600 at load 4 with 2 h windows, fifo has no window worse under
# hived; las has some (its first-queue jobs spread over more of a VC's
# nodes after a different history, and las does not preempt inside a
# queue, so a gang waits), but no VC is worse on average.
run "$CELLAR" anomaly synth:600 --policy fifo --load 4 --window 2h -o json
check_rc fifo-windows-rc 0
if printf '%s' "$OUT" | grep -q '"worse":[1-9]'; then
	not_ok fifo-no-worse-window "$OUT"
else ok fifo-no-worse-window; fi
run "$CELLAR" anomaly synth:600 --policy las --load 4 --window 2h -o json
check_json_field las-windows-mean-ok anomalous_vcs 0
if printf '%s' "$OUT" | grep -q '"worse":[1-9]'; then ok las-worse-windows-known
else not_ok las-worse-windows-known "no worse window: update cellar(1)'s account"; fi

# The report's shape.
run "$CELLAR" replay "$T60" --spec specs/tiresias-n2g4.yaml --policy las
check_rc replay-table-rc 0
check_out_has replay-table-header "GROUP"
check_out_has replay-table-all "all "
check_out_has replay-table-vc "default"
check_out_has replay-table-legend "makespan"
check_err_has replay-note "las/hived: 60 jobs"
run "$CELLAR" replay "$T60" --spec specs/tiresias-n2g4.yaml --policy las --sort -group -o name
check_out replay-sort "default
all
(guaranteed)"

# Failures: a node that fails restarts its jobs, which lose work.
run "$CELLAR" replay synth:300 --fault r0n00@1h-3h --fault r0n01@1h -o json
check_rc fault-rc 0
failures=$(json_get groups.0.failures)
if [ "${failures:-0}" -ge 1 ] 2>/dev/null; then ok fault-restarts
else not_ok fault-restarts "failures [$failures]"; fi
check_json_field fault-all-done groups.0.never 0

# The time series.
series="$TMP/series.csv"
run "$CELLAR" replay synth:200 --series "$series"
check_rc series-rc 0
if head -1 "$series" | grep -q '^time,pending,running,gpus_guaranteed' &&
    [ "$(wc -l <"$series")" -gt 2 ]; then ok series-file
else not_ok series-file "$(head -3 "$series" 2>&1)"; fi
check_err_has series-note "samples to"

# Bad input: a clear error and the right exit status, nothing else.
run "$CELLAR" replay "$T60" --spec specs/tiresias-n2g4.yaml --policy nosuch
check_rc bad-policy-rc 2
check_err_has bad-policy-msg "unknown policy 'nosuch' (policies: fifo"
run "$CELLAR" replay /nonexistent/trace.csv
check_rc missing-trace-rc 1
check_err_has missing-trace-msg "/nonexistent/trace.csv"
printf 'job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,1,0,10,vgg16,x,1\n' >"$TMP/bad.csv"
run "$CELLAR" replay "$TMP/bad.csv" --spec specs/tiresias-n2g4.yaml
check_rc bad-row-rc 1
check_err_has bad-row-msg "bad.csv:2:"
run "$CELLAR" replay "$PHILLY" --spec specs/philly.yaml
check_rc unmapped-vc-rc 1
check_err_has unmapped-vc-msg "23dbec"
run "$CELLAR" replay synth:10 --fault nosuch@1h
check_rc bad-fault-rc 2
check_err_has bad-fault-msg "no node 'nosuch'"
run "$CELLAR" replay synth:10 --sample 0
check_rc bad-sample-rc 2
run "$CELLAR" replay synth:10 --from soon
check_rc bad-from-rc 2
check_err_has bad-from-msg "'soon' is not a duration"
run "$CELLAR" replay synth:10 --policy las,fifo
check_rc replay-one-run-rc 2
check_err_has replay-one-run-msg "use compare"
run "$CELLAR" anomaly synth:10 --sharing private
check_rc anomaly-private-rc 2
run "$CELLAR" replay "$T60" --spec /nonexistent.yaml
check_rc bad-spec-rc 3

# The speed model's share of the service is said, with the way to turn it
# off; under --ideal the service is the trace's own GPU-hours.
run "$CELLAR" --spec specs/tiresias-n32g4.yaml replay synth:480 --load 4 -o json
check_rc speed-note-rc 0
check_err_has speed-note "over the trace's"
check_err_has speed-note-ideal "--ideal runs without it"
trace_h=$(printf '%s\n' "$ERR" | sed -n "s/.*% over the trace's \([0-9]*\):.*/\1/p")
run "$CELLAR" --spec specs/tiresias-n32g4.yaml replay synth:480 --load 4 --ideal -o json
check_rc speed-ideal-rc 0
case $ERR in
*"over the trace's"*) not_ok speed-ideal-no-note "$ERR" ;;
*) ok speed-ideal-no-note ;;
esac
got=$(json_get groups.0.gpu_hours)
awk -v g="$got" -v t="$trace_h" 'BEGIN { exit !(t > 0 && g > 0.99 * t && g < 1.01 * t) }' &&
    ok speed-ideal-trace-hours || not_ok speed-ideal-trace-hours "ideal $got, trace [$trace_h]"

# --units: the table's times in hours, the same numbers as seconds / 3600
run "$CELLAR" replay "$T60" --spec specs/tiresias-n2g4.yaml -o json
secs=$(json_get groups.0.jct.avg)
run "$CELLAR" replay "$T60" --spec specs/tiresias-n2g4.yaml --units h -o csv
hours=$(printf '%s\n' "$OUT" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print $c["jct_avg"] }')
awk -v s="$secs" -v h="$hours" 'BEGIN { exit !(s > 0 && (h - s / 3600)^2 < 1e-4) }' &&
    ok units-hours || not_ok units-hours "jct $secs s, [$hours] h"
run "$CELLAR" replay "$T60" --spec specs/tiresias-n2g4.yaml --units h
check_out_has units-legend "in hours, over completed jobs"
expect_exit units-bad 2 "$CELLAR" replay "$T60" --spec specs/tiresias-n2g4.yaml --units w
check_err_has units-bad-msg "invalid --units 'w' (s, m, h or d)"

done_testing
