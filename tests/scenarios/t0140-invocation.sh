#!/bin/sh
# t0140-invocation — how cellar is started, beyond one-shot and batch
# (t0010, t0020): `cellar repl` off a terminal reads plain lines (no prompt,
# banner or history) and exits with the last command's status; `repl` takes
# no arguments; --db and CELLAR_DB name the state store, shown by status.
. tests/scenarios/lib.sh

run_stdin 'release nope
vcs -o name
' env HOME="$TMP" "$CELLAR" repl
check_rc repl-plain-last-status 0
check_out repl-plain-output "research
prod
dev
infer"
check_err_has repl-plain-error "cellar: unknown job 'nope'"
case $ERR in
*"cellar default/hived>"*|*"Ctrl-D leaves"*) not_ok repl-plain-quiet "[$ERR]" ;;
*) ok repl-plain-quiet ;;
esac
[ ! -e "$TMP/.local" ] && ok repl-plain-no-history || not_ok repl-plain-no-history "$(find "$TMP/.local")"

run_stdin 'vcs
release nope
' "$CELLAR" repl
check_rc repl-plain-last-failure 1

run "$CELLAR" repl status
check_rc repl-args 2
check_err_has repl-args-why "cellar: unexpected argument 'status' after 'repl'"
check_err_has repl-args-usage "[repl | COMMAND [ARGS...]]"

run "$CELLAR" --help
check_out_has help-db "--db PATH"
# it is used, and says so (issue 21: "not used yet")
check_out_has help-db-store "--db PATH              state store (also CELLAR_DB)"
check_out_lacks help-db-used "not used"
check_out_has help-repl "repl | COMMAND"

# --db: kept and shown; CELLAR_DB when --db is absent; empty means unset
# (the default path). Reading the status creates no store.
run "$CELLAR" --db "$TMP/state.db" status
check_out_has db-status "store          $TMP/state.db (nothing recorded yet)"
[ ! -e "$TMP/state.db" ] && ok db-not-created || not_ok db-not-created "created"
run env CELLAR_DB="$TMP/env.db" "$CELLAR" status -o json
check_json_field db-env db "$TMP/env.db"
run env CELLAR_DB="$TMP/env.db" "$CELLAR" --db "$TMP/opt.db" status -o json
check_json_field db-option-wins db "$TMP/opt.db"
run env CELLAR_DB= "$CELLAR" status -o json
check_json_field db-none db "$XDG_STATE_HOME/cellar/cellar.db"
check_json_field db-none-run db_run null
run "$CELLAR" --db "$TMP/state.db" -c 'alloc a --vc dev --gpus 1' -c 'status -o json'
check_json_field db-run db_run 1 '$'
# the next process recovers that session (job a still runs) and goes on in run 1
run "$CELLAR" --db "$TMP/state.db" -c 'alloc b --vc dev --gpus 1' -c status
check_out_has db-run-table "store          $TMP/state.db (session run 1)"
run "$CELLAR" --db "$TMP/state.db" jobs -o name
check_out db-recovered-jobs "a
b"

done_testing
