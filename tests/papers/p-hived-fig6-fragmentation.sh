#!/bin/sh
# p-hived-fig6-fragmentation — HiveD (OSDI'20) §5.2, Fig. 6 (bottom): the
# fragmentation of GPU affinity (the share of 8-GPU nodes that cannot give
# a high-priority job a whole node) reaches 100% under quota in the
# higher-load 200-node cluster, and is lower under HiveD, whose cells keep
# each tenant's affinity. The paper's setting (--class auto) at the scale
# of p-hived-fig7-quota-anomaly.sh; cellar's frag_node of --series.
# Claim: direction; band: quota's peak >= 0.99, HiveD's peak <= 0.8 and
# its mean below quota's.
. tests/scenarios/lib.sh

PHILLY=tests/fixtures/traces/philly-sample.csv
SET="--spec specs/philly-hived-200.yaml --vc-map *=- --policy fifo --load 162 --class auto"

for mode in quota hived; do
	# shellcheck disable=SC2086 # SET is a word list on purpose
	run "$CELLAR" replay "$PHILLY" $SET --sharing $mode --series "$TMP/$mode.csv" -o json
	check_rc "$mode-rc" 0
	eval "avg_$mode=\$(json_get frag_node_avg)"
	eval "max_$mode=\$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if (\$i == \"frag_node\") c = i }
	    NR > 1 && \$c > m { m = \$c } END { print m + 0 }' \"\$TMP/$mode.csv\")"
done
# shellcheck disable=SC2154 # set by eval above
echo "# HiveD's fragmentation: quota mean $avg_quota peak $max_quota; hived mean $avg_hived peak $max_hived"
# shellcheck disable=SC2154
if awk -v m="$max_quota" 'BEGIN { exit !(m >= 0.99) }'; then ok quota-reaches-full
else not_ok quota-reaches-full "quota's peak [$max_quota]"; fi
# shellcheck disable=SC2154
if awk -v h="$max_hived" -v q="$max_quota" 'BEGIN { exit !(h <= 0.8 && h < q) }'; then
	ok hived-peak-lower
else not_ok hived-peak-lower "hived's peak [$max_hived], quota's [$max_quota]"; fi
# shellcheck disable=SC2154
if awk -v h="$avg_hived" -v q="$avg_quota" 'BEGIN { exit !(h < q) }'; then ok hived-mean-lower
else not_ok hived-mean-lower "hived's mean [$avg_hived], quota's [$avg_quota]"; fi

done_testing
