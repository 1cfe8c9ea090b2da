#!/bin/sh
# t0010-oneshot — one command from argv: output, exit codes 0/1/2/3, global
# options, command lookup (alias, exact, unique prefix, ambiguous prefix).
. tests/scenarios/lib.sh

run "$CELLAR" --version
check_rc version-rc 0
check_out_has version "cellar "

run "$CELLAR" --help
check_rc help-rc 0
check_out_has help-usage "usage: cellar"
check_out_has help-options "--keep-going"
check_out_has help-commands "spec check"

run "$CELLAR" status
check_rc status-rc 0
check_out_has status-spec "specs/default.yaml (embedded)"
check_out_has status-mode "hived"
check_err_empty status-quiet-stderr

# Exit 1: a command that fails.
run "$CELLAR" release nosuchjob
check_rc fail-rc 1
check_err_has fail-message "cellar: unknown job 'nosuchjob'"

# Exit 2: usage errors, with the usage line.
run "$CELLAR" frobnicate
check_rc unknown-command-rc 2
check_err_has unknown-command "cellar: unknown command 'frobnicate'"
run "$CELLAR" --frobnicate
check_rc unknown-global-rc 2
check_err_has unknown-global-usage "usage: cellar"
run "$CELLAR" alloc j1 --vc prod
check_rc missing-gpus-rc 2
check_err_has missing-gpus "give either '--gpus' or '--gang'"
check_err_has missing-gpus-usage "usage: alloc NAME"
run "$CELLAR" alloc
check_rc missing-arg-rc 2
check_err_has missing-arg "missing argument for 'alloc'"
run "$CELLAR" jobs extra
check_rc extra-arg-rc 2
check_err_has extra-arg "unexpected argument 'extra' for 'jobs'"
run "$CELLAR" alloc j1 --vc prod --gpus many
check_rc bad-number-rc 2
check_err_has bad-number "invalid --gpus 'many': not a number"
run "$CELLAR" alloc j1 --vc prod --gpus 0
check_err_has number-range "invalid --gpus '0': less than 1"
run "$CELLAR" -o yaml status
check_rc bad-format-rc 2
check_err_has bad-format "unknown output format 'yaml'"
run "$CELLAR" status -o csv
check_rc unsupported-format-rc 2
check_err_has unsupported-format "command 'status' has no 'csv' output"
run "$CELLAR" --mode sideways status
check_rc bad-mode-rc 2
check_err_has bad-mode "unknown mode 'sideways'"
run "$CELLAR" -c status jobs
check_rc command-after-c-rc 2

# Exit 3: spec errors.
run "$CELLAR" spec check tests/fixtures/bad/infeasible.yaml
check_rc spec-invalid-rc 3
run "$CELLAR" --spec tests/fixtures/bad/syntax.yaml status
check_rc global-spec-invalid-rc 3
check_err_has global-spec-invalid "tests/fixtures/bad/syntax.yaml:"
run "$CELLAR" --spec /nonexistent/cellar.yaml status
check_rc global-spec-missing-rc 3

# Lookup: exact, unique prefix, alias, family prefix, ambiguous prefix.
run "$CELLAR" vc
check_rc prefix-rc 0
check_out_has prefix "research"
run "$CELLAR" ps
check_rc alias-rc 0
check_out_has alias "JOB"
run "$CELLAR" n b r0n00
check_rc family-prefix-rc 0
check_out_has family-prefix "r0n00"
run "$CELLAR" s
check_rc ambiguous-rc 2
check_err_has ambiguous "ambiguous command 's': spec, status"
run "$CELLAR" node
check_rc needs-subcommand-rc 2
check_err_has needs-subcommand "command 'node' needs a subcommand: bad, ok"
run "$CELLAR" node frob r0n00
check_err_has unknown-subcommand "unknown command 'node frob' ('node' has: bad, ok)"
run "$CELLAR" alloc --gp 4 j1 --vc prod
check_rc option-prefix-rc 0
run "$CELLAR" alloc --p 4 j1 --vc prod
check_rc ambiguous-option-rc 2
check_err_has ambiguous-option "ambiguous option '--p': --pods, --priority, --pin"

# --help on any command, and on a family.
run "$CELLAR" alloc --help
check_rc cmd-help-rc 0
check_out_has cmd-help-usage "usage: alloc NAME"
check_out_has cmd-help-examples "examples:"
run "$CELLAR" node --help
check_out_has family-help "node bad"

# --no-header, -q.
run "$CELLAR" --no-header jobs
check_out no-header ""
run "$CELLAR" -q status
check_rc quiet-rc 0
check_out quiet ""
run "$CELLAR" -q release nosuchjob
check_err_has quiet-errors "unknown job 'nosuchjob'"

# Arguments may contain anything: nothing crashes. Control bytes are
# echoed escaped; bytes that are not UTF-8 are a usage error.
run "$CELLAR" cells "$(printf 'r0/\001x')"
check_rc odd-bytes-rc 1
check_err_has odd-bytes-escaped "unknown cell, node or chain 'r0/\\x01x'"
run "$CELLAR" cells "$(printf 'r0/\001\377')"
check_rc bad-utf8-rc 2
check_err_has bad-utf8 "cellar: word 2 is not valid UTF-8 (at byte 5)"
run "$CELLAR" alloc "$(printf 'x%.0s' $(seq 1 100))" --vc prod --gpus 1
check_rc long-name-rc 2
run "$CELLAR" alloc j --vc prod --gpus 99999999999999999999
check_rc huge-number-rc 2
run "$CELLAR" node bad 'r0n[0-99999999999]'
check_rc huge-hostlist-rc 2

done_testing
