#!/bin/sh
# t0527-dash-live-phases.sh — the dashboard's queues on a live cluster, on
# a terminal (tmux), show a job's live phase beside its state: a job
# suspended by a higher priority one reads S and "suspended", a job whose
# pod is being migrated (a slow migrate hook) R and "migrating", and both
# go back to plain rows (resumed, migrated) by the refreshes alone. A
# cellar server runs the cluster; the dashboard is its client (the phases
# are the server's word, asked at each refresh; the ':' commands go to it).
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
. tests/scenarios/lib-tmux.sh
# both libraries set an EXIT trap: stop the server and tmux's
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; live_cleanup' EXIT
cat >"$TMP/slowmig.sh" <<EOF2
sleep 4
exec $(pwd)/specs/hooks/process/migrate
EOF2
live_spec "$TMP/two.yaml" 0.2 "migrate: sh $TMP/slowmig.sh"
serve_start "$TMP/two.yaml"
db=$CELLAR_DB

# poll (a cap on looks) for a screen line matching an ERE
expect_re() {
	i=0
	while [ "$i" -lt "$POLL_MAX" ]; do
		screen "$2" | grep -Eq -- "$3" && { ok "$1"; return 0; }
		sleep 0.05
		i=$((i + 1))
	done
	not_ok "$1" "screen lacks /$3/: [$(screen "$2")]"
}
# cmd NAME TEXT: a ':' command, confirmed
cmd() {
	type_text d ":$2"
	type_keys d Enter
	expect_screen "$1-asked" d "$2"
	type_keys d y
}

term_start d -- --db "$db" --spec "$TMP/two.yaml" dash --panel queues
expect_screen live-status d "policy priority  local  "
type_text d ":admin"
type_keys d Enter
expect_screen live-admin d "ADMIN"
# low on n1, m (above high's priority) on n2: high takes low's GPUs,
# which is suspended there
cmd submit-low "submit low --vc a --gpus 4 --priority 1 -- $trainer 300 0.05"
expect_re low-running d ' low  *R  *4 prio 1 '
cmd submit-m "submit m --vc a --gpus 2 --priority 9 -- $trainer 300 0.05"
expect_re m-running d ' m  *R  *2 prio 9 '
cmd submit-high "submit high --vc a --gpus 4 --priority 5 -- $trainer 60 0.05"
expect_re low-suspended d ' low  *S  *4 prio 1 .* suspended *$'
expect_re high-running d ' high  *R  *4 prio 5 '
# m moves to the other GPUs of n2: migrating while the slow hook runs
cmd migrate-m "job migrate m --node n2"
expect_re m-migrating d ' m  *R  *2 prio 9 .* migrating *$'
expect_re m-migrated d ' m  *R  *2 prio 9 .* [0-9]s *$'
# high ends, low resumes on its GPUs: a plain running row again
expect_gone high-done d " high "
expect_re low-resumed d ' low  *R  *4 prio 1 .* [0-9]s *$'
type_keys d q
wait_exit d
[ "$RC" = 0 ] && ok quit-status || not_ok quit-status "exit $RC: $(screen d)"
# quitting stopped neither: the server still runs both
run "$CELLAR" queue -o csv --no-header
printf '%s\n' "$OUT" | grep -q '^a,-,low,[0-9]*,[^,]*,R,running,' &&
    printf '%s\n' "$OUT" | grep -q '^a,-,m,[0-9]*,[^,]*,R,running,' && ok quit-kept ||
    not_ok quit-kept "$OUT"
run "$CELLAR" --db "$db" --spec "$TMP/two.yaml" -c "events --run last -o csv --no-header; cancel low; cancel m; wait --timeout 60s"
check_out_has store-suspend "suspend,low"
check_out_has store-migrate "migrate,m,a,-,pod 0: n2:[0-1] -> n2:[2-3]"
check_out_has store-resume "resume,low"
done_testing
