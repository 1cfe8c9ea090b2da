# tests/scenarios/lib-tmux.sh — sourced (after lib.sh) by the REPL scripts
# tests/scenarios/t01*-repl-*.sh and the dashboard's (t0510): run cellar on
# a pseudo-terminal inside a private tmux server, type at it and read the
# screen.
#
#   term_start NAME [VAR=VALUE...] [-- ARGS...]
#                                   start "$CELLAR" ARGS in window NAME,
#                                   120x40, cwd the repo root, HOME=$TMP/home,
#                                   CELLAR_HISTFILE, XDG_STATE_HOME and EDITRC
#                                   unset unless given
#   type_keys NAME KEYS...          tmux send-keys (key names: Enter Tab C-c)
#   type_text NAME TEXT             send TEXT literally
#   screen NAME                     the visible screen, wrapped lines joined
#   wait_screen NAME TEXT           poll until the screen shows TEXT (a fixed
#                                   string); 1 if it never does
#   wait_prompt NAME PROMPT         poll until the screen's last line is
#                                   PROMPT and nothing after it: cellar is
#                                   reading a line again (keys typed earlier
#                                   would meet the terminal in cooked mode,
#                                   where Ctrl-D and Tab mean other things)
#   enter NAME TEXT                 wait_prompt NAME "$PROMPT", type TEXT, Enter
#   press NAME KEYS...              wait_prompt NAME "$PROMPT", type_keys
#   wait_exit NAME                  poll until cellar exits; its status -> $RC
#   expect_screen CHECK NAME TEXT   wait_screen + ok/not_ok with the screen
#   screen_e NAME                   the screen with its colours and attributes
#                                   (SGR escapes, capture-pane -e)
#   expect_screen_e CHECK NAME TEXT poll screen_e for TEXT (escapes included)
#   expect_gone CHECK NAME TEXT     poll until the screen no longer shows TEXT
#   resize NAME W H                 resize the window (the program gets SIGWINCH)
#   pane_pid NAME                   the pid of the program in the pane
#
# Polls sleep 0.05 s between looks and give up after POLL_MAX looks (20 s
# at the least): a cap on iterations, not a deadline, so a loaded machine
# only makes the tests slower.

POLL_MAX=${POLL_MAX:-400}
PROMPT="cellar default/hived> "
SOCK=cellar-$T-$$

if ! command -v tmux >/dev/null 2>&1; then
	not_ok tmux "tmux is not installed (make deps installs it as root)"
	exit 0
fi

# The server's socket lives in $TMP, so nothing outlives the test.
TMUX_TMPDIR=$TMP
export TMUX_TMPDIR
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$TMP"' EXIT
mkdir -p "$TMP/home"

term_start() {
	name=$1; shift
	vars= args=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do vars="$vars '$1'"; shift; done
	[ "$1" = -- ] && shift
	for a in "$@"; do args="$args '$a'"; done
	rm -f "$TMP/$name.status"
	# The wrapper records cellar's exit status once it leaves.
	tmux -L "$SOCK" -f /dev/null new-session -d -x 120 -y 40 -s "$name" \
	    -c "$(pwd)" \
	    "env -u CELLAR_HISTFILE -u XDG_STATE_HOME -u EDITRC HOME='$TMP/home' \
	    NO_COLOR=1 LC_ALL=C.UTF-8 $vars '$CELLAR' $args; echo \$? >'$TMP/$name.status'"
}

type_keys() {
	name=$1; shift
	tmux -L "$SOCK" send-keys -t "$name" "$@"
}

type_text() {
	tmux -L "$SOCK" send-keys -t "$1" -l -- "$2"
}

screen() {
	tmux -L "$SOCK" capture-pane -p -J -t "$1" 2>/dev/null
}

wait_screen() {
	i=0
	while [ "$i" -lt "$POLL_MAX" ]; do
		case $(screen "$1") in
		*"$2"*) return 0 ;;
		esac
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# The last non-empty line of the screen, trailing blanks dropped.
last_line() {
	screen "$1" | sed -e 's/[[:space:]]*$//' -e '/^$/d' | tail -n 1
}

wait_prompt() {
	want=$(printf '%s' "$2" | sed 's/[[:space:]]*$//')
	i=0
	while [ "$i" -lt "$POLL_MAX" ]; do
		[ "$(last_line "$1")" = "$want" ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	not_ok "prompt-$1" "no prompt [$2] at the end: [$(screen "$1")]"
	return 1
}

enter() {
	wait_prompt "$1" "$PROMPT"
	type_text "$1" "$2"
	type_keys "$1" Enter
}

press() {
	name=$1; shift
	wait_prompt "$name" "$PROMPT"
	type_keys "$name" "$@"
}

wait_exit() {
	i=0
	while [ ! -s "$TMP/$1.status" ] && [ "$i" -lt "$POLL_MAX" ]; do
		sleep 0.05
		i=$((i + 1))
	done
	RC=$(cat "$TMP/$1.status" 2>/dev/null || echo "none")
	ERR=$(screen "$1")
}

expect_screen() {
	if wait_screen "$2" "$3"; then ok "$1"
	else not_ok "$1" "screen lacks [$3]: [$(screen "$2")]"; fi
}

screen_e() {
	tmux -L "$SOCK" capture-pane -p -e -t "$1" 2>/dev/null
}

expect_screen_e() {
	i=0
	while [ "$i" -lt "$POLL_MAX" ]; do
		case $(screen_e "$2") in
		*"$3"*) ok "$1"; return 0 ;;
		esac
		sleep 0.05
		i=$((i + 1))
	done
	not_ok "$1" "screen lacks [$3] (with escapes): [$(screen_e "$2" | od -c | head -20)]"
}

expect_gone() {
	i=0
	while [ "$i" -lt "$POLL_MAX" ]; do
		case $(screen "$2") in
		*"$3"*) ;;
		*) ok "$1"; return 0 ;;
		esac
		sleep 0.05
		i=$((i + 1))
	done
	not_ok "$1" "screen still shows [$3]: [$(screen "$2")]"
}

resize() {
	tmux -L "$SOCK" resize-window -t "$1" -x "$2" -y "$3"
}

# The wrapper shell's child: env execs cellar, so it is cellar itself.
pane_pid() {
	pgrep -P "$(tmux -L "$SOCK" display-message -p -t "$1" '#{pane_pid}')" | head -n 1
}
