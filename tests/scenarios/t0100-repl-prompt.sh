#!/bin/sh
# t0100-repl-prompt — the REPL on a pseudo-terminal (tmux): the banner and
# the prompt with spec and mode, output and one-line errors that do not end
# it (usage errors with the usage line, spec errors with file:line:col), the
# prompt following `load`, and the exit status on Ctrl-D: the last
# command's, as a shell's.
. tests/scenarios/lib.sh
. tests/scenarios/lib-tmux.sh

term_start a -- repl
expect_screen banner a "cellar 0.1.0 on default/hived; 'help' lists commands, Tab completes, Ctrl-D leaves"
expect_screen prompt a "$PROMPT"

enter a "vcs -o name"
expect_screen output a "research
prod
dev
infer
$PROMPT"

enter a "release nope"
expect_screen error-one-line a "cellar: unknown job 'nope'
$PROMPT"

enter a "alloc"
expect_screen usage-error a "cellar: missing argument for 'alloc'"
expect_screen usage-line a "usage: alloc NAME --vc VC"

enter a "help watch"
expect_screen help a "usage: watch [-n SECONDS] [--count N] COMMAND [ARGS...]"

enter a "load specs/hived-fig3.yaml --mode quota"
PROMPT="cellar hived-fig3/quota> "
expect_screen prompt-follows-load a "$PROMPT"

enter a "load tests/fixtures/bad/syntax.yaml"
expect_screen spec-error-where a "tests/fixtures/bad/syntax.yaml:4:16: error:"
expect_screen spec-error-keeps-spec a "syntax.yaml': 1 error
$PROMPT"

# Ctrl-D on an empty line leaves with the last command's status: 3.
press a C-d
wait_exit a
check_rc exit-last-status-spec 3

# An earlier failure does not count once a later command succeeds.
PROMPT="cellar default/hived> "
term_start b -- repl
enter b "release nope"
enter b "status"
expect_screen b-status b "guaranteed"
press b C-d
wait_exit b
check_rc exit-after-recovery 0

term_start c -- repl
enter c "release nope"
press c C-d
wait_exit c
check_rc exit-last-failure 1

# Nothing run: 0. With --spec, the prompt names that spec.
term_start d -- --spec specs/philly.yaml repl
expect_screen spec-option d "cellar philly/hived> "
PROMPT="cellar philly/hived> "
press d C-d
wait_exit d
check_rc exit-nothing-run 0

done_testing
