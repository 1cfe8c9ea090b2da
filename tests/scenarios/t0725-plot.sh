#!/bin/sh
# t0725-plot — plots (issue 20, item 6): `plot` draws a run's stored series
# in the terminal, its peak in the column the samples put it, with axis
# labels and a legend, braille in a UTF-8 locale and ASCII marks otherwise;
# bad input is a clear error. anomaly and compare --figure draw SVG and PNG
# through gnuplot, read back here: one bar per VC and series, a PNG of the
# stated size; a missing gnuplot names its package.
. tests/scenarios/lib.sh

# 2 nodes x 4 GPUs, one VC. An 8-GPU job holds the cluster from 00:00 to
# 09:30; nine 1-GPU jobs come at 08:30 and wait: 9 pending at the 9 h
# sample, none at 8 h, 1 at 10 h (eight start at 09:30). The peak is sharp.
{
	echo "timestamp,duration,num_gpus,gpu_time,cluster"
	echo "2017-10-01 00:00:00,34200,8,273600,a"
	for i in 1 2 3 4 5 6 7 8 9; do
		echo "2017-10-01 08:30:00,3600,1,3600,a"
	done
} >"$TMP/peak.csv"
DB="$TMP/p.db"
SET="--spec specs/tiresias-n2g4.yaml --vc-map *=default --policy fifo --ideal"

# shellcheck disable=SC2086 # SET is a word list on purpose
run "$CELLAR" --db "$DB" replay "$TMP/peak.csv" $SET
check_rc replay-rc 0

# the samples' times, from the plot's JSON: the peak's column is
# floor((32400 - t0) / (t1 - t0) * 49 + 0.5) of 50 (58 - 8 for the y axis)
run "$CELLAR" --db "$DB" plot --chart queue -o json
check_rc json-rc 0
check_json json
n=$(json_get t.#)
t0=$(json_get t.0)
t1=$(json_get "t.$((n - 1))")
check_json_field json-pending-name charts.0.curves.0.name pending
want=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", int((32400 - a) / (b - a) * 49 + 0.5) }')
echo "# $n samples from $t0 to $t1: the peak in column $want"

run env LANG=C LC_ALL= LC_CTYPE= "$CELLAR" --db "$DB" plot --chart queue --size 58x24
check_rc ascii-rc 0
printf '%s\n' "$OUT" >"$TMP/ascii.txt"
# line 1 is the heading, line 2 the title; the plot rows follow
if sed -n 2p "$TMP/ascii.txt" | grep -qx 'jobs pending and running (jobs)'; then ok title
else not_ok title "$(sed -n 2p "$TMP/ascii.txt")"; fi
# the top row with a pending mark: one '*', in the peak's column
top=$(awk 'NR > 2 && index(substr($0, 9), "*") { print NR; exit }' "$TMP/ascii.txt")
got=$(awk -v r="$top" 'NR == r { s = substr($0, 9); n = gsub(/\*/, "*", s);
	print n ":" index(substr($0, 9), "*") - 1 }' "$TMP/ascii.txt")
if [ "$got" = "1:$want" ]; then ok peak-column
else not_ok peak-column "marks:column [$got], want 1:$want, row $top: $(sed -n "${top}p" "$TMP/ascii.txt")"; fi
# the y axis: 9 rounds up to 10 at the top, 0 at the bottom; the x axis in
# hours; the legend names both curves with their marks
check_out_has y-top "     10|"
check_out_has y-bottom "      0|"
check_out_has x-axis "       +-----"
if grep -Eq '^ +0 +.* h$' "$TMP/ascii.txt"; then ok x-labels
else not_ok x-labels "$(tail -2 "$TMP/ascii.txt")"; fi
check_out_has legend "* pending  + running"
check_out_lacks ascii-only "$(printf '\342\243\277')"

# the same run's --series CSV draws the same chart (below the heading)
# shellcheck disable=SC2086
run "$CELLAR" replay "$TMP/peak.csv" $SET --series "$TMP/peak-series.csv"
check_rc series-rc 0
run env LANG=C LC_ALL= LC_CTYPE= "$CELLAR" plot "$TMP/peak-series.csv" --chart queue --size 58x24
check_rc csv-rc 0
if [ "$(printf '%s\n' "$OUT" | sed 1d)" = "$(sed 1d "$TMP/ascii.txt")" ]; then ok csv-same-chart
else not_ok csv-same-chart "$(printf '%s\n' "$OUT" | head -3)"; fi
run "$CELLAR" plot "$TMP/peak-series.csv" --chart delay --window 2h
check_rc csv-window-rc 2
run "$CELLAR" plot "$TMP/none.csv"
check_rc csv-missing-rc 1
check_err_has csv-missing "cannot read"

# the delay curve from the stored jobs is the CSV's queue_default column
# (replay --series computes it its own way), in hours, null where empty
run "$CELLAR" --db "$DB" plot --chart delay -o json
check_rc delay-json-rc 0
i=0 bad=
while [ "$i" -lt "$n" ]; do
	y=$(json_get "charts.0.curves.0.y.$i")
	c=$(awk -F, -v r=$((i + 2)) 'NR == r { print $9 }' "$TMP/peak-series.csv")
	if [ -z "$c" ]; then [ "$y" = null ] || bad="$bad [$i: $y, csv empty]"
	elif ! awk -v y="$y" -v c="$c" 'BEGIN { d = y * 3600 - c; exit !(d < 1 && d > -1) }'; then
		bad="$bad [$i: $y h, csv $c s]"
	fi
	i=$((i + 1))
done
nonempty=$(awk -F, 'NR > 1 && $9 != "" && $9 > 0' "$TMP/peak-series.csv" | wc -l)
if [ -z "$bad" ] && [ "$nonempty" -gt 0 ]; then ok delay-matches-series
else not_ok delay-matches-series "$bad ($nonempty non-zero rows)"; fi

# a UTF-8 locale: braille, the same peak column (two dots a cell)
run env LANG=C.UTF-8 LC_ALL= LC_CTYPE= "$CELLAR" --db "$DB" plot --chart queue --size 58x24
check_rc braille-rc 0
check_out_has braille-legend "$(printf '\342\243\277') pending"
check_out_has braille-axis "$(printf '\342\224\224\342\224\200')"
run "$CELLAR" --db "$DB" plot --ascii --size 80x30
check_rc default-charts-rc 0
check_out_has default-util "GPUs in use (GPUs)"
check_out_has default-delay "queuing delay per VC"
check_out_has default-delay-legend "* default"

# bad input
run "$CELLAR" --db "$DB" plot 99
check_rc unknown-run-rc 1
check_err_has unknown-run "no run 99"
run "$CELLAR" --db "$DB" plot --size 20x5
check_rc small-rc 2
check_err_has small "needs at least"
run "$CELLAR" --db "$DB" plot --size wide
check_rc size-bad-rc 2
run "$CELLAR" --db "$DB" plot --chart pie
check_rc chart-bad-rc 2
check_err_has chart-bad "unknown chart 'pie'"
run "$CELLAR" --db "$TMP/s.db" alloc j1 --vc prod --gpus 1
run "$CELLAR" --db "$TMP/s.db" plot
check_rc no-series-rc 1
check_err_has no-series "has no time series"

# ---- figures ----
if ! command -v gnuplot >/dev/null 2>&1; then
	not_ok gnuplot "gnuplot is missing (make deps installs gnuplot-nox)"
	done_testing
fi
run "$CELLAR" anomaly synth:300 --policy fifo --sharing quota --figure "$TMP/a.svg" -o json
check_rc anomaly-svg-rc 0
check_err_has anomaly-note "wrote a figure of"
# every VC in the table is one cluster of bars: its name on the x axis, one
# bar per series where the value is not 0 (gnuplot draws none for 0; the
# first polygon of each series' group is its key)
nv=$(json_get vcs.#)
nz_s=0 nz_p=0 i=0
while [ "$i" -lt "$nv" ]; do
	awk -v v="$(json_get "vcs.$i.queue_shared")" 'BEGIN { exit !(v > 0) }' && nz_s=$((nz_s + 1))
	awk -v v="$(json_get "vcs.$i.queue_private")" 'BEGIN { exit !(v > 0) }' && nz_p=$((nz_p + 1))
	name=$(json_get "vcs.$i.vc")
	grep -q ">$name</tspan>" "$TMP/a.svg" || not_ok "svg-label-$name" "no x label"
	i=$((i + 1))
done
bars() {   # bars GROUP-ID: polygons in that plot's group, less the key's
	awk -v id="$1" '/<g id="gnuplot_plot_/ { on = index($0, "\"" id "\"") > 0 }
	    on && /<polygon/ { n++ } END { print n - 1 }' "$TMP/a.svg"
}
if [ "$nv" -ge 2 ] && [ "$(bars gnuplot_plot_1a)" = "$nz_s" ] &&
    [ "$(bars gnuplot_plot_2a)" = "$nz_p" ]; then ok svg-bars-per-vc
else not_ok svg-bars-per-vc "vcs $nv: shared $(bars gnuplot_plot_1a) of $nz_s, private $(bars gnuplot_plot_2a) of $nz_p"; fi
# the curves: one per VC and run (shared, private), each a drawn path
curves=$(grep -c '<g id="gnuplot_plot_[0-9]*b" ><title>.* \(shared\|private\)</title>' "$TMP/a.svg")
if [ "$curves" -eq $((2 * nv)) ]; then ok svg-curves
else not_ok svg-curves "$curves curves for $nv VCs"; fi
if [ -s "$TMP/a.svg" ] && grep -q '<path stroke=' "$TMP/a.svg"; then ok svg-drawn
else not_ok svg-drawn "empty or blank"; fi

run "$CELLAR" compare synth:200 --policy fifo,las --sharing hived,quota --figure "$TMP/c.png"
check_rc compare-png-rc 0
# PNG: the signature, 900 x 900 (two panels), and not one colour
if python3 - "$TMP/c.png" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n", "signature"
w, h = struct.unpack(">II", d[16:24])
assert (w, h) == (900, 900), (w, h)
i, idat = 8, b""
while i < len(d):
    n, = struct.unpack(">I", d[i:i + 4]); t = d[i + 4:i + 8]
    if t == b"IDAT": idat += d[i + 8:i + 8 + n]
    i += 12 + n
raw = zlib.decompress(idat)
assert len(set(raw[1:4096])) > 2, "blank"
PY
then ok png-read-back
else not_ok png-read-back "$(file "$TMP/c.png" 2>&1)"; fi

# errors: not .svg or .png; gnuplot missing (a PATH without it)
run "$CELLAR" anomaly synth:100 --figure "$TMP/a.pdf"
check_rc figure-ext-rc 2
check_err_has figure-ext "must end in .svg or .png"
run env PATH=/nonexistent "$CELLAR" anomaly synth:100 --figure "$TMP/b.svg"
check_rc no-gnuplot-rc 3
check_err_has no-gnuplot "gnuplot-nox"
[ ! -e "$TMP/b.svg" ] && ok no-gnuplot-no-file || not_ok no-gnuplot-no-file "a file was left"

done_testing
