#!/bin/sh
# t0110-repl-complete — Tab completion on a pseudo-terminal (tmux): a VC
# name after --vc, a command name, a family's subcommand, a node name, a job
# name, an option, a spec file, cells one level at a time, and the list
# shown when several words match.
. tests/scenarios/lib.sh
. tests/scenarios/lib-tmux.sh

P=$PROMPT
term_start a -- repl

# A VC name, then the command runs as completed.
wait_prompt a "$P"
type_text a "alloc j1 --vc re"; type_keys a Tab
expect_screen vc-name a "${P}alloc j1 --vc research "
type_text a "--gpus 1"; type_keys a Enter
expect_screen vc-name-runs a "job 'j1' started in vc 'research'"

# A command name; the blank after it shows it is complete.
wait_prompt a "$P"
type_text a "sta"; type_keys a Tab
expect_screen command-name a "${P}status "
type_keys a Enter
expect_screen command-name-runs a "guaranteed"

# A subcommand of a family, then node names listed.
wait_prompt a "$P"
type_text a "node b"; type_keys a Tab
expect_screen subcommand a "${P}node bad "
type_text a "r1n0"; type_keys a Tab
expect_screen node-list a "r1n00  r1n01"
type_keys a C-u

# A job name for release.
wait_prompt a "$P"
type_text a "release j"; type_keys a Tab
expect_screen job-name a "${P}release j1 "
type_keys a C-u

# An option of the command, then a spec file.
wait_prompt a "$P"
type_text a "load --mo"; type_keys a Tab
expect_screen option a "${P}load --mode "
type_text a "quota specs/hived-f"; type_keys a Tab
expect_screen spec-file a "${P}load --mode quota specs/hived-fig3.yaml "
type_keys a C-u

# Ambiguous: nothing more to add, so the choices are listed and the line
# is drawn again below them.
wait_prompt a "$P"
type_text a "s"; type_keys a Tab
expect_screen list a "spec    status  submit"
expect_screen list-redraws a "submit
${P}s"
type_keys a C-u

# Cells one level at a time.
wait_prompt a "$P"
type_text a "cells r0/r0n03/"; type_keys a Tab
expect_screen cells a "r0/r0n03/0  r0/r0n03/1"
type_keys a C-u
press a C-d
wait_exit a
check_rc exit 0

done_testing
