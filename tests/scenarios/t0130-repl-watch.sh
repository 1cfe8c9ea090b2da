#!/bin/sh
# t0130-repl-watch — watch and Ctrl-C: in the REPL (tmux) watch repeats
# with a header until Ctrl-C brings the prompt back, and Ctrl-C on a line
# being typed cancels it; outside a terminal watch needs --count, runs
# that many times and keeps stdout machine-readable.
. tests/scenarios/lib.sh
. tests/scenarios/lib-tmux.sh

P=$PROMPT
term_start a -- repl
enter a "watch -n 0.1 vcs -o name"
expect_screen watch-header a "watch: vcs -o name, every 0.1s, run 1 (Ctrl-C stops)"
# Any run from 3 on: under load a poll can miss run 3's 0.1 s on screen.
i=0 r=0
while [ "$i" -lt "$POLL_MAX" ]; do
	s=$(screen a)
	r=$(printf '%s\n' "$s" |
	    sed -n 's/^watch: .*, run \([0-9][0-9]*\) (Ctrl-C stops)$/\1/p' | tail -n 1)
	[ "${r:-0}" -ge 3 ] && break
	sleep 0.05
	i=$((i + 1))
done
[ "${r:-0}" -ge 3 ] && ok watch-repeats || not_ok watch-repeats "no run 3 or later: [$s]"
# The screen is cleared between runs: the capture that shows a later run
# holds one header, not one per run.
n=$(printf '%s\n' "$s" | grep -c '^watch: ')
[ "$n" -eq 1 ] && ok watch-clears || not_ok watch-clears "$n headers: [$s]"
type_keys a C-c
expect_screen ctrl-c-prompt a "$P"
# The REPL goes on: the next command runs, and no more watch rounds come.
press a C-l
enter a "status"
expect_screen after-watch a "guaranteed"
# The REPL reads a line only once watch has returned, so status's output
# proves watch stopped; a round still running would have redrawn its
# header over the cleared screen before status could run.
case $(screen a) in
*"watch: "*) not_ok watch-stopped "[$(screen a)]" ;;
*) ok watch-stopped ;;
esac

# Ctrl-C on a line being typed drops it; the REPL stays.
wait_prompt a "$P"
type_text a "release nope"
wait_screen a "${P}release nope"
type_keys a C-c
expect_screen ctrl-c-line a "release nope^C"
press a C-d
wait_exit a
# The last command run was status: the dropped line ran nothing.
check_rc ctrl-c-line-status 0

# An interrupted watch is the last command: Ctrl-D then exits 130.
term_start b -- repl
enter b "watch jobs"
wait_screen b "run 1 (Ctrl-C stops)"
type_keys b C-c
press b C-d
wait_exit b
check_rc interrupted-watch-status 130

# Outside a terminal: --count, no header, one JSON document per run.
run "$CELLAR" -c 'watch -n 0 --count 3 -o json status'
check_rc count-rc 0
check_json count-json
[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 3 ] && ok count-runs ||
    not_ok count-runs "[$OUT]"
check_out_lacks count-no-header "watch:"
run "$CELLAR" -c 'watch jobs'
check_rc batch-needs-count 2
check_err_has batch-needs-count-why "cellar: command 'watch' runs until interrupted: give --count N when not on a terminal"
check_err_has batch-needs-count-usage "usage: watch [-n SECONDS] [--count N] COMMAND"
# One-shot with stdout not a terminal is not interactive either.
run "$CELLAR" watch status
check_rc oneshot-pipe-needs-count 2
run "$CELLAR" watch -n 0 --count 2 release nope
check_rc failing-runs-status 1
[ "$(printf '%s\n' "$ERR" | grep -c "unknown job 'nope'")" -eq 2 ] &&
    ok failing-runs-shown || not_ok failing-runs-shown "[$ERR]"

done_testing
