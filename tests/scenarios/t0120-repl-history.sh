#!/bin/sh
# t0120-repl-history — history on a pseudo-terminal (tmux): a line typed in
# one session comes back with Up in the next; the file's place
# ($XDG_STATE_HOME, ~/.local/state, CELLAR_HISTFILE, empty = off) and
# modes (0700 directory, 0600 file); !!, !-N and !prefix.
. tests/scenarios/lib.sh
. tests/scenarios/lib-tmux.sh

P=$PROMPT
mode_of() { stat -c %a "$1" 2>/dev/null || echo none; }

# Session 1 under XDG_STATE_HOME.
term_start one "XDG_STATE_HOME=$TMP/state" -- repl
enter one "vcs -o name"
wait_screen one "infer"
enter one "jobs"
wait_screen one "NAME"
press one C-d
wait_exit one
h=$TMP/state/cellar/history
[ -f "$h" ] && ok file-in-state-home || not_ok file-in-state-home "no $h"
[ "$(mode_of "$h")" = 600 ] && ok file-mode || not_ok file-mode "$(mode_of "$h")"
[ "$(mode_of "$TMP/state/cellar")" = 700 ] && ok dir-mode ||
    not_ok dir-mode "$(mode_of "$TMP/state/cellar")"

# Session 2: Up twice recalls session 1's first line.
term_start two "XDG_STATE_HOME=$TMP/state" -- repl
press two Up
expect_screen up-last two "${P}jobs"
type_keys two Up
expect_screen up-across-sessions two "${P}vcs -o name"
type_keys two Enter
expect_screen recalled-runs two "research"

# !! runs the last line again (shown first); !-N and !prefix too.
enter two "status"
wait_screen two "guaranteed"
press two C-l
enter two "!! -o json"
expect_screen bang-bang-shown two "status -o json
{"
expect_screen bang-bang-runs two '"kind":"status"'
press two C-l
enter two "!v"
expect_screen bang-prefix two "vcs -o name
research"
press two C-l
enter two "!zz"
expect_screen bang-missing two "cellar: history event '!zz' not found"
press two C-d
wait_exit two
check_rc bang-missing-status 0
grep -q 'status -o json\|status\\040-o\\040json' "$h" && ok expanded-in-history ||
    not_ok expanded-in-history "$(cat "$h")"

# Without XDG_STATE_HOME: ~/.local/state/cellar/history.
term_start three -- repl
enter three "vcs"
wait_screen three "USED%"
press three C-d
wait_exit three
[ -f "$TMP/home/.local/state/cellar/history" ] && ok default-place ||
    not_ok default-place "$(find "$TMP/home" 2>&1)"
[ "$(mode_of "$TMP/home/.local/state")" = 700 ] && ok default-dirs-mode ||
    not_ok default-dirs-mode "$(mode_of "$TMP/home/.local/state")"

# CELLAR_HISTFILE wins; set but empty, no history at all.
term_start four "CELLAR_HISTFILE=$TMP/mine" "XDG_STATE_HOME=$TMP/other" -- repl
enter four "vcs"
wait_screen four "USED%"
press four C-d
wait_exit four
[ -f "$TMP/mine" ] && [ ! -e "$TMP/other" ] && ok histfile ||
    not_ok histfile "$(ls "$TMP")"
rm -rf "$TMP/home/.local"
term_start five "CELLAR_HISTFILE=" -- repl
enter five "vcs"
wait_screen five "USED%"
type_keys five Up
expect_screen no-history-still-recalls five "${P}vcs"
type_keys five C-u
press five C-d
wait_exit five
[ ! -e "$TMP/home/.local" ] && ok histfile-empty-off ||
    not_ok histfile-empty-off "$(find "$TMP/home")"

done_testing
