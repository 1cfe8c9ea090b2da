#!/bin/sh
# p-gandiva-feedback — Gandiva (OSDI'18) §6: time-slicing gives every job
# early feedback sooner (up to 77% less time to early feedback). The Philly
# sample compressed 1000x (a queue forms, as in t0700) on the Philly
# spec; early feedback is the time until a job has run 10 minutes.
# Claim: direction; band: gandiva's mean at 0.2-0.8 of fifo's (cellar
# gives ~0.62 here; the paper's 0.23 is its best case, a multi-job; see
# tests/papers/README.md).
. tests/scenarios/lib.sh

PHILLY=tests/fixtures/traces/philly-sample.csv
# shellcheck disable=SC2086
run "$CELLAR" compare "$PHILLY" --spec specs/philly.yaml --vc-map '*=-' --load 1000 \
    --policy fifo,gandiva -o json
check_rc rc 0
fifo=$(json_get runs.0.feedback.avg)
gan=$(json_get runs.1.feedback.avg)
echo "# early feedback (mean, s): fifo $fifo, gandiva $gan"
if awk -v f="$fifo" -v g="$gan" 'BEGIN { exit !(g >= 0.2 * f && g <= 0.8 * f) }'; then
	ok gandiva-feedback-sooner
else not_ok gandiva-feedback-sooner "fifo $fifo gandiva $gan"; fi
check_json_field same-jobs-done runs.1.done "$(json_get runs.0.done)"

done_testing
