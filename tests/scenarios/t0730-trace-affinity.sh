#!/bin/sh
# t0730-trace-affinity — the trace column affinity (issue 20, HiveD §2 and
# Fig. 9: a job's own hard or soft affinity). Two 3-GPU jobs leave one GPU
# free on each of two 4-GPU nodes; then a 2-GPU job marked soft relaxes to
# 1+1 and starts, one marked hard waits for a node. A job's own affinity
# wins over --affinity; an empty field follows it. A bad value is an error
# naming file, line and column. --no-affinity-slowdown spares relaxed soft
# jobs the speed model's penalty.
. tests/scenarios/lib.sh
unset CELLAR_DB

spec_rack2 "$TMP/spec.yaml"
cat >>"$TMP/spec.yaml" <<'SPEC'
virtualClusters:
  A: {virtualCells: [{cellType: RACK.NODE, cellNumber: 2}]}
SPEC
cat >"$TMP/trace.csv" <<'CSV'
timestamp,duration,num_gpus,gpu_time,cluster,affinity
2017-10-01 00:00:00,7200.0,3,21600.0,a,
2017-10-01 00:00:10,7200.0,3,21600.0,a,
2017-10-01 00:10:00,600.0,2,1200.0,a,soft
2017-10-01 00:20:00,600.0,2,1200.0,a,HARD
CSV
cut -d, -f1-5 "$TMP/trace.csv" >"$TMP/plain.csv"
SET="--spec $TMP/spec.yaml --vc-map a=A --policy fifo-skip"

# relaxed NAME WANT TRACE ARGS...: the run's relaxed starts must be WANT
relaxed() {
	name=$1 want=$2 trace=$3
	shift 3
	# shellcheck disable=SC2086 # SET is a word list on purpose
	run "$CELLAR" replay "$trace" $SET "$@" -o json
	check_rc "$name-rc" 0
	check_json_field "$name-relaxed" relaxed_starts "$want"
}
# the soft job relaxes, the hard one waits, whatever --affinity says
relaxed own 1 "$TMP/trace.csv"
relaxed own-over-soft 1 "$TMP/trace.csv" --affinity soft
relaxed own-over-hard 1 "$TMP/trace.csv" --affinity hard
# without the column every job follows --affinity
relaxed plain-hard 0 "$TMP/plain.csv"
relaxed plain-soft 2 "$TMP/plain.csv" --affinity soft

# --no-affinity-slowdown (HiveD Fig. 9's best case): the relaxed soft job
# runs at the speed of its GPUs placed compactly, so the run takes fewer
# GPU-hours; hard jobs (the plain trace) are not touched
gpuh() {
	# shellcheck disable=SC2086
	run "$CELLAR" replay "$@" $SET -o json
	json_get groups.0.gpu_hours
}
slow=$(gpuh "$TMP/trace.csv")
fast=$(gpuh "$TMP/trace.csv" --no-affinity-slowdown)
# shellcheck disable=SC2086
run "$CELLAR" replay "$TMP/trace.csv" --no-affinity-slowdown $SET -o json
check_json_field no-slowdown-config config.no_affinity_slowdown true
hard=$(gpuh "$TMP/plain.csv")
hard_fast=$(gpuh "$TMP/plain.csv" --no-affinity-slowdown)
echo "# GPU-hours: soft job relaxed $slow, without slowdown $fast; hard only $hard / $hard_fast"
if awk -v s="$slow" -v f="$fast" 'BEGIN { exit !(f < s) }'; then ok no-slowdown-faster
else not_ok no-slowdown-faster "GPU-hours $fast with the flag, $slow without"; fi
if [ "$hard" = "$hard_fast" ]; then ok no-slowdown-hard-unchanged
else not_ok no-slowdown-hard-unchanged "hard jobs: $hard, with the flag $hard_fast"; fi

sed 's/,soft$/,loose/' "$TMP/trace.csv" >"$TMP/bad.csv"
# shellcheck disable=SC2086
run "$CELLAR" replay "$TMP/bad.csv" $SET
check_rc bad-rc 1
check_err_has bad-names-line "bad.csv:4:38:"
check_err_has bad-names-value "affinity 'loose' is not hard or soft"

done_testing
