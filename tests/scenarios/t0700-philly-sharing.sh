#!/bin/sh
# t0700-philly-sharing — the GPU-sharing policies on a Philly window (the
# public sample compressed 1000x so that jobs queue, as in t0300), in hived
# mode: gandiva starts waiting jobs at once by time-slicing, so its mean
# early feedback (time until a job has run --feedback) is well below
# fifo's, it reports the suspensions that cost, and anomaly finds no VC
# worse off than alone on its own cells. The report's gandiva options are
# checked to act (--no-pack, --no-slice, --slice, --feedback, --no-migrate,
# --defrag-every) and to refuse bad values.
# antman (auto-classification by default: jobs that cannot start run as
# opportunistic guests) raises GPU and SM utilization over the submission
# window above fifo's, and anomaly finds no VC worse off for it either.
. tests/scenarios/lib.sh

PHILLY=tests/fixtures/traces/philly-sample.csv
WIN="--spec specs/philly.yaml --vc-map *=- --load 1000"

# $1 < $2 x $3 (floating point)
lt_times() {
	awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { exit !(a + 0 < b * f) }'
}

# shellcheck disable=SC2086 # WIN is a word list on purpose
run "$CELLAR" compare "$PHILLY" $WIN --policy fifo,gandiva,antman -o json
check_rc compare-rc 0
check_json compare-json
check_json_field compare-fifo runs.0.policy fifo
check_json_field compare-gandiva runs.1.policy gandiva
check_json_field compare-antman runs.2.policy antman
# the window is the trace's: the same for every policy
check_json_field window-same-start runs.2.window.start "$(json_get runs.0.window.start)"
check_json_field window-same-end runs.2.window.end "$(json_get runs.0.window.end)"
wu_fifo=$(json_get runs.0.window.util)
wu_antman=$(json_get runs.2.window.util)
ws_fifo=$(json_get runs.0.window.sm_util)
ws_antman=$(json_get runs.2.window.sm_util)
q_fifo=$(json_get runs.0.queue.avg)
echo "# submission window: GPU util fifo $wu_fifo, antman $wu_antman;" \
    "SM util fifo $ws_fifo, antman $ws_antman (fifo's mean queuing $q_fifo s)"
if lt_times 0 "$q_fifo" 1; then ok fifo-jobs-queue
else not_ok fifo-jobs-queue "fifo's mean queuing delay [$q_fifo]: no load"; fi
if lt_times "$wu_fifo" "$wu_antman" 1; then ok antman-raises-gpu-util
else not_ok antman-raises-gpu-util "antman [$wu_antman] not above fifo [$wu_fifo]"; fi
if lt_times "$ws_fifo" "$ws_antman" 1; then ok antman-raises-sm-util
else not_ok antman-raises-sm-util "antman [$ws_antman] not above fifo [$ws_fifo]"; fi
check_json_field antman-done runs.2.done 3044
opp=$(json_get runs.2.antman.opportunistic_starts)
if [ "${opp:-0}" -gt 0 ] 2>/dev/null; then ok antman-opportunistic-starts
else not_ok antman-opportunistic-starts "opportunistic starts [$opp]"; fi
fb_fifo=$(json_get runs.0.feedback.avg)
fb_gandiva=$(json_get runs.1.feedback.avg)
echo "# early feedback (mean, s): fifo $fb_fifo, gandiva $fb_gandiva"
if lt_times "$fb_gandiva" "$fb_fifo" 0.8; then ok gandiva-feedback-sooner
else not_ok gandiva-feedback-sooner "gandiva $fb_gandiva not below 0.8 x fifo $fb_fifo"; fi
# the same jobs completed, the time-slicing visible in the counters
check_json_field fifo-done runs.0.done 3044
check_json_field gandiva-done runs.1.done 3044
check_json_field fifo-no-suspensions runs.0.suspensions 0
susp=$(json_get runs.1.suspensions)
sliced=$(json_get runs.1.time_sliced_starts)
packs=$(json_get runs.1.packs)
echo "# gandiva: $sliced time-sliced starts, $susp suspensions, $packs pack trials"
if [ "${susp:-0}" -gt 0 ] 2>/dev/null && [ "${sliced:-0}" -gt 0 ] 2>/dev/null; then
	ok gandiva-time-sliced
else not_ok gandiva-time-sliced "suspensions [$susp], time-sliced starts [$sliced]"; fi
swh=$(json_get runs.1.suspend_gpu_hours)
if awk -v x="$swh" 'BEGIN { exit !(x + 0 > 0) }'; then ok gandiva-suspend-cost
else not_ok gandiva-suspend-cost "suspend_gpu_hours [$swh]"; fi

# HiveD's sharing safety holds with gandiva's over-subscription: guests
# borrow their own VC's slots only.
# shellcheck disable=SC2086
run "$CELLAR" anomaly "$PHILLY" $WIN --sharing hived --policy gandiva -o json
check_rc anomaly-rc 0
got=$(json_get anomalous_vcs)
echo "# gandiva, hived: $got anomalous VCs"
if [ "$got" = 0 ]; then ok gandiva-hived-no-anomaly
else not_ok gandiva-hived-no-anomaly "$got VCs worse than private: $OUT"; fi

# antman's guests borrow any VC's GPUs in hived mode, but a host runs as
# if alone (less 3% x its guests' SM): no VC is worse off than private.
# shellcheck disable=SC2086
run "$CELLAR" anomaly "$PHILLY" $WIN --sharing hived --policy antman -o json
check_rc antman-anomaly-rc 0
got=$(json_get anomalous_vcs)
echo "# antman, hived: $got anomalous VCs"
if [ "$got" = 0 ]; then ok antman-hived-no-anomaly
else not_ok antman-hived-no-anomaly "$got VCs worse than private: $OUT"; fi

# the text report says what the window figures are percentages of
run "$CELLAR" replay synth:50 --policy fifo
check_out_has text-window-legend "submission window (first to last arrival"
check_out_has text-window-of "of its GPU-time"

# The options act: no packing, no pack trials; a shorter slice, more
# suspensions; a longer --feedback, a later early feedback (fifo too).
run "$CELLAR" replay synth:300 --policy gandiva --load 4 -o json
check_rc synth-rc 0
susp60=$(json_get groups.0.suspensions)
packs60=$(json_get packs)
fb600=$(json_get groups.0.feedback.avg)
run "$CELLAR" replay synth:300 --policy gandiva --load 4 --no-pack -o json
check_json_field no-pack-no-trials packs 0
if [ "${packs60:-0}" -gt 0 ] 2>/dev/null; then ok packs-by-default
else not_ok packs-by-default "packs [$packs60] without --no-pack"; fi
# --no-slice (AntMan's Gandiva baseline): packs, never time-slices; a
# lost pack's later job is checkpointed (a preemption) and waits
run "$CELLAR" replay synth:300 --policy gandiva --load 4 --no-slice -o json
check_rc no-slice-rc 0
check_json_field no-slice-no-suspensions groups.0.suspensions 0
check_json_field no-slice-no-sliced-starts time_sliced_starts 0
check_json_field no-slice-config config.time_slicing false
nspacks=$(json_get packs)
nsunpacks=$(json_get unpacks)
nspre=$(json_get groups.0.preemptions)
echo "# synth:300 gandiva --no-slice: $nspacks packs, $nsunpacks undone, $nspre evictions"
if [ "${nspacks:-0}" -gt 0 ] && [ "${nsunpacks:-0}" -gt 0 ] &&
    [ "${nspre:-0}" -ge "${nsunpacks:-0}" ] 2>/dev/null; then ok no-slice-packs-and-evicts
else not_ok no-slice-packs-and-evicts "packs [$nspacks] unpacks [$nsunpacks] preemptions [$nspre]"; fi
if [ "${susp60:-0}" -gt 0 ] 2>/dev/null; then ok slices-by-default
else not_ok slices-by-default "suspensions [$susp60] without --no-slice"; fi
# a compare's reader cannot tell the switch from the numbers: its header
# and its JSON name it (and stay as they were without it)
run "$CELLAR" compare synth:50 --policy fifo,gandiva --no-slice
check_out_has no-slice-compare-header "seed 1, gandiva without time-slicing"
run "$CELLAR" compare synth:50 --policy fifo,gandiva --no-slice -o json
check_json_field no-slice-compare-json time_slicing false
run "$CELLAR" compare synth:50 --policy fifo,gandiva
check_out_lacks no-slice-compare-default "without time-slicing"
run "$CELLAR" replay synth:50 --policy gandiva --no-slice --no-pack
check_rc no-slice-no-pack-rc 2
check_err_has no-slice-no-pack-msg "leave gandiva no way to share"
run "$CELLAR" compare synth:50 --policy fifo,las --no-slice
check_rc no-slice-not-gandiva-rc 2
check_err_has no-slice-not-gandiva-msg "--no-slice applies to gandiva only"
run "$CELLAR" replay synth:300 --policy gandiva --load 4 --slice 10s -o json
susp10=$(json_get groups.0.suspensions)
echo "# synth:300 gandiva: $susp60 suspensions at 60 s slices, $susp10 at 10 s"
if [ "${susp10:-0}" -gt "${susp60:-0}" ] 2>/dev/null; then ok shorter-slice-more-suspensions
else not_ok shorter-slice-more-suspensions "10 s: [$susp10], 60 s: [$susp60]"; fi
run "$CELLAR" replay synth:300 --policy gandiva --load 4 --feedback 1h -o json
fb3600=$(json_get groups.0.feedback.avg)
if lt_times "$fb600" "$fb3600" 1; then ok feedback-option
else not_ok feedback-option "--feedback 1h gave [$fb3600], 10m [$fb600]"; fi
run "$CELLAR" replay synth:300 --policy gandiva --load 4 --migrate-cost 0 --suspend-cost 0 -o json
check_json_field free-switches groups.0.suspend_gpu_hours 0
run "$CELLAR" replay synth:300 --policy gandiva --load 4
check_out_has text-feedback-column FB_AVG
check_out_has text-feedback-legend "FB: early feedback, seconds until a job has run 600 s"

# migrations: by default gandiva also empties the most-free busy node
# every minute (and compacts spread jobs on departures), which lowers
# the window's fragmentation below --no-migrate's and costs GPU time
run "$CELLAR" replay "$PHILLY" $WIN --policy gandiva -o json
mig_on=$(json_get groups.0.migrations)
migh_on=$(json_get groups.0.migrate_gpu_hours)
frag_on=$(json_get frag_avg)
run "$CELLAR" replay "$PHILLY" $WIN --policy gandiva --no-migrate -o json
mig_off=$(json_get groups.0.migrations)
migh_off=$(json_get groups.0.migrate_gpu_hours)
frag_off=$(json_get frag_avg)
echo "# gandiva on the window: $mig_on migrations ($migh_on GPU-h), frag $frag_on;" \
    "--no-migrate: $mig_off ($migh_off GPU-h), frag $frag_off"
if [ "${mig_on:-0}" -gt "${mig_off:-0}" ] 2>/dev/null; then ok migrations-by-default
else not_ok migrations-by-default "[$mig_on] by default, [$mig_off] with --no-migrate"; fi
if lt_times "$migh_off" "$migh_on" 1; then ok migrations-cost-gpu-time
else not_ok migrations-cost-gpu-time "[$migh_on] GPU-h by default, [$migh_off] without"; fi
if lt_times "$frag_on" "$frag_off" 1; then ok migrations-defragment
else not_ok migrations-defragment "frag [$frag_on] by default, [$frag_off] without"; fi
run "$CELLAR" replay "$PHILLY" $WIN --policy gandiva --defrag-every 10m -o json
mig_10m=$(json_get groups.0.migrations)
if [ "${mig_10m:-0}" -lt "${mig_on:-0}" ] 2>/dev/null; then ok defrag-every-option
else not_ok defrag-every-option "[$mig_10m] every 10m, [$mig_on] every minute"; fi

expect_exit bad-slice 2 "$CELLAR" replay synth:10 --policy gandiva --slice 0
expect_exit bad-feedback 2 "$CELLAR" replay synth:10 --feedback soon
expect_exit bad-migrate-cost 2 "$CELLAR" replay synth:10 --migrate-cost -1
check_err_has bad-migrate-cost-msg "--migrate-cost '-1'"
expect_exit bad-defrag-every 2 "$CELLAR" replay synth:10 --defrag-every soon
check_err_has bad-defrag-every-msg "--defrag-every 'soon'"

done_testing
