# tests/scenarios/lib-sshd.sh — sourced (after lib.sh and lib-live.sh) by
# the scripts that run real jobs over real ssh: a private sshd on loopback
# that plays eight nodes, and the client side cellar's ssh backend uses.
#
#   sshd_start                      start /usr/sbin/sshd -D on a free
#                                   unprivileged port bound to 127.0.0.2
#                                   ... 127.0.0.9, with a throw-away host
#                                   key and user key in $SSHD_DIR; killed
#                                   (and every ssh master closed) at exit.
#                                   No sshd: one "not ok" and exit 1, never
#                                   a skip. Sets SSHD_PORT, SSHD_DIR,
#                                   SSH_KEY, SSH_CONFIG, SSHD_LOG.
#   ssh_spec FILE INTERVAL NODES [LINE...]
#                                   like live_spec with NODES nodes n1..nN
#                                   (4 GPUs each, VC a owns them all), the
#                                   ssh backend reaching node k at
#                                   127.0.0.(k+1) through the private sshd
#   sshd_connections                how many connections sshd accepted
#
# Works as root (PermitRootLogin prohibit-password: keys only; sshd needs
# its privilege separation directory, which the package's service unit
# would make) and as any other user (an unprivileged sshd can log in only
# the user it runs as, which is who the client is).
#
# The client sends SHLVL=1 and this sshd accepts it: bash, as a login
# shell run by sshd, then skips ~/.bashrc. The machine's own dotfiles are
# not the node under test (a root .bashrc that runs `pyenv init` cost
# 0.65 s per hook run, more than the hang test's 1 s hook timeout).

SSHD=${SSHD:-/usr/sbin/sshd}
SSHD_DIR=$TMP/sshd
SSHD_PID=
# cellar's ControlPath directory lives in XDG_RUNTIME_DIR: a short private
# one (socket paths are limited to ~100 bytes), removed at exit
XDG_RUNTIME_DIR=$(mktemp -d /tmp/crt.XXXXXX)
export XDG_RUNTIME_DIR

sshd_stop() {
	serve_stop	# lib-live.sh's server first: it runs the ssh hooks
	for s in "$XDG_RUNTIME_DIR"/cellar-ssh/*; do
		[ -S "$s" ] && ssh -o ControlPath="$s" -O exit x >/dev/null 2>&1
	done
	if [ -n "$SSHD_PID" ]; then
		kill "$SSHD_PID" 2>/dev/null
		wait "$SSHD_PID" 2>/dev/null	# no zombie left for init
	fi
	rm -rf "$TMP" "$XDG_RUNTIME_DIR"
}
trap sshd_stop EXIT

sshd_start() {
	if [ ! -x "$SSHD" ] || ! command -v ssh >/dev/null 2>&1 ||
	    ! command -v ssh-keygen >/dev/null 2>&1; then
		not_ok sshd "no $SSHD or ssh client: install openssh-server and openssh-client (the Makefile's TESTPKGS)"
		exit 1
	fi
	mkdir -p "$SSHD_DIR" && chmod 700 "$SSHD_DIR"
	ssh-keygen -q -t ed25519 -N '' -C cellar-test-host -f "$SSHD_DIR/host_key" &&
	    ssh-keygen -q -t ed25519 -N '' -C cellar-test-user -f "$SSHD_DIR/user_key" ||
	    { not_ok sshd "ssh-keygen failed"; exit 1; }
	cp "$SSHD_DIR/user_key.pub" "$SSHD_DIR/authorized_keys"
	SSH_KEY=$SSHD_DIR/user_key
	SSH_CONFIG=$SSHD_DIR/ssh_config
	SSHD_LOG=$SSHD_DIR/log
	# the known hosts filled in advance: every address, this host key
	: >"$SSHD_DIR/known_hosts"
	if [ "$(id -u)" = 0 ] && [ ! -d /run/sshd ]; then
		mkdir -p /run/sshd && chmod 755 /run/sshd
	fi
	try=0
	while [ $try -lt 20 ]; do
		SSHD_PORT=$((20000 + ($$ * 7 + try * 1009) % 40000))
		{
			echo "Port $SSHD_PORT"
			for k in 2 3 4 5 6 7 8 9; do
				echo "ListenAddress 127.0.0.$k:$SSHD_PORT"
			done
			cat <<EOF
HostKey $SSHD_DIR/host_key
AuthorizedKeysFile $SSHD_DIR/authorized_keys
PidFile $SSHD_DIR/pid
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AllowTcpForwarding no
X11Forwarding no
PrintMotd no
MaxSessions 100
MaxStartups 100:30:200
LogLevel VERBOSE
AcceptEnv SHLVL
EOF
		} >"$SSHD_DIR/sshd_config"
		: >"$SSHD_LOG"
		"$SSHD" -D -f "$SSHD_DIR/sshd_config" -E "$SSHD_LOG" &
		SSHD_PID=$!
		i=0
		while [ "$(grep -c 'Server listening' "$SSHD_LOG")" -lt 8 ] &&
		    kill -0 "$SSHD_PID" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		[ "$(grep -c 'Server listening' "$SSHD_LOG")" = 8 ] && break
		kill "$SSHD_PID" 2>/dev/null
		wait "$SSHD_PID" 2>/dev/null
		SSHD_PID=
		try=$((try + 1))
	done
	if [ -z "$SSHD_PID" ]; then
		not_ok sshd "sshd did not listen on 127.0.0.2-9: $(cat "$SSHD_LOG")"
		exit 1
	fi
	for k in 2 3 4 5 6 7 8 9; do
		printf '[127.0.0.%s]:%s %s\n' "$k" "$SSHD_PORT" \
		    "$(cut -d' ' -f1-2 "$SSHD_DIR/host_key.pub")" >>"$SSHD_DIR/known_hosts"
	done
	cat >"$SSH_CONFIG" <<EOF
Host *
  UserKnownHostsFile $SSHD_DIR/known_hosts
  StrictHostKeyChecking yes
  LogLevel ERROR
  SetEnv SHLVL=1
EOF
	# one plain login proves keys, config and known hosts before cellar
	if ! out=$(ssh -F "$SSH_CONFIG" -o BatchMode=yes -o ControlMaster=no \
	    -i "$SSH_KEY" -o IdentitiesOnly=yes -p "$SSHD_PORT" 127.0.0.5 \
	    'echo $((6 * 7))' 2>&1) || [ "$out" != 42 ]; then
		not_ok sshd "cannot log in to the test sshd: $out; $(cat "$SSHD_LOG")"
		exit 1
	fi
	ok sshd
}

ssh_spec() {
	f=$1 interval=$2 nodes=$3
	shift 3
	{
		cat <<YAML
physicalCluster:
  cellTypes:
    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}
  physicalCells:
YAML
		k=1
		while [ $k -le "$nodes" ]; do
			echo "  - {cellType: NODE, cellAddress: n$k}"
			k=$((k + 1))
		done
		cat <<YAML
virtualClusters:
  a: {virtualCells: [{cellType: NODE, cellNumber: $nodes}]}
backend:
  type: ssh
  hooks: $(pwd)/specs/hooks/process
  rundir: $TMP/run
  statusInterval: $interval
  ssh: {port: $SSHD_PORT, identityFile: $SSH_KEY, config: $SSH_CONFIG}
  nodes:
YAML
		k=1
		while [ $k -le "$nodes" ]; do
			echo "    n$k: {host: 127.0.0.$((k + 1))}"
			k=$((k + 1))
		done
	} >"$f"
	for l in "$@"; do printf '  %s\n' "$l" >>"$f"; done
}

sshd_connections() {
	grep -c '^Connection from ' "$SSHD_LOG"
}
