#!/bin/sh
# t0407-two-writers — writers of one store without a server work on the
# store's current state (issue 23 F1): a session whose engine was built
# before another process wrote finds that out under the write lock (the
# store's newest session run and its newest event moved) and runs the
# command again on a reloaded session. Before, each writer placed jobs on
# its own stale engine and GPUs were held twice.
#
#   1. the issue's reproducer: a long-lived `cellar -f -` allocs, a
#      one-shot allocs, the first allocs again: three jobs, three nodes;
#   2. 4 processes (two -f FILE, whose commands share commits, and two
#      -f - pipes, one commit each) x ~440 allocs and releases, three
#      times: db check clean (no leaf held twice), one session run.
. tests/scenarios/lib.sh
unset CELLAR_DB
cd "$TMP" || exit 1

# 1. a long-lived writer and a one-shot one
mkfifo f
"$CELLAR" --db m.db -f - <f >m.out 2>&1 &
pid=$!
exec 7>f
echo 'alloc a1 --vc prod --gpus 8' >&7
i=0
while ! grep -q "job 'a1' started" m.out && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
run "$CELLAR" --db m.db alloc b1 --vc prod --gpus 8
echo 'alloc a2 --vc prod --gpus 8' >&7
exec 7>&-
wait $pid
run "$CELLAR" --db m.db jobs -o csv --no-header
if [ "$(printf '%s\n' "$OUT" | wc -l)" = 3 ] && "$CELLAR" --db m.db db check >chk 2>&1; then
	ok fifo-reproducer
else
	not_ok fifo-reproducer "$OUT $(cat chk m.out)"
fi
# job,id,vc,st,class,prio,...,chain,NODES: three jobs on three nodes
[ "$(printf '%s\n' "$OUT" | cut -d, -f11 | sort -u | wc -l)" = 3 ] &&
    ok fifo-three-nodes || not_ok fifo-three-nodes "$OUT"

# 2. four writers at once; a quarter of each one's jobs are kept, so
# GPUs held twice would stay held twice
for p in 1 2 3 4; do
	awk -v p="$p" 'BEGIN { srand(p); for (i = 0; i < 250; i++) {
	    printf "alloc p%d_%d --vc %s --gpus %d\n", p, i,
	        (rand() < 0.5 ? "prod" : "dev"), 2 ^ int(rand() * 3)
	    if (i >= 3 && (i - 3) % 4 != 0) printf "release p%d_%d\n", p, i - 3 } }' >p$p.cmds
done
bad=
for round in 1 2 3; do
	rm -f s.db s.db-*
	"$CELLAR" --db s.db -k -f p1.cmds >o1 2>e1 &
	a=$!
	"$CELLAR" --db s.db -k -f p2.cmds >o2 2>e2 &
	b=$!
	"$CELLAR" --db s.db -k -f - <p3.cmds >o3 2>e3 &
	c=$!
	"$CELLAR" --db s.db -k -f - <p4.cmds >o4 2>e4 &
	d=$!
	wait $a $b $c $d
	"$CELLAR" --db s.db db check >chk 2>&1 || bad="$bad [round $round: $(head -3 chk)]"
	n=$("$CELLAR" --db s.db runs -o csv --no-header | wc -l)
	[ "$n" = 1 ] || bad="$bad [round $round: $n runs]"
	# every failure is a placement or a name, never the store
	grep -hv "cannot place job\|unknown job" e1 e2 e3 e4 >other
	[ -s other ] && bad="$bad [round $round: $(head -3 other)]"
	[ "$(cat o1 o2 o3 o4 | grep -c "started")" -gt 40 ] ||
	    bad="$bad [round $round: few jobs started]"
done
[ -z "$bad" ] && ok four-writers || not_ok four-writers "$bad"

done_testing
