#!/bin/sh
# t0408-store-readonly.sh — stores a reader cannot or must not write beside
# (issue 23, F8). A WAL store needs its -wal and -shm files, which SQLite
# makes beside it when no process has it open. On a read-only mount every
# read failed ("No such file or directory"); another user in a directory
# it cannot write was told the store "cannot be written"; another user in
# a shared writable directory left -wal and -shm of its own beside the
# owner's store. Now each reads the file as it is (SQLite's immutable
# open) and leaves nothing behind; a reader beside a writer that has the
# store open reads through the writer's files; a write to a read-only
# mount says why it fails. Needs root (a mount namespace, a second user);
# without, it fails rather than skips.
. tests/scenarios/lib.sh
unset CELLAR_DB

if [ "$(id -u)" != 0 ]; then
	not_ok root "needs root: a read-only bind mount and a second user"
	done_testing
fi
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --"
chmod 755 "$TMP"

# make DIR: a store of two jobs in DIR, 0644 so others may read it
make() {
	mkdir -p "$1"
	run "$CELLAR" --db "$1/x.db" -c 'alloc a --vc prod --gpus 1; alloc b --vc dev --gpus 2'
	check_rc "made-$(basename "$1")" 0
	chmod 644 "$1/x.db"
}
# reads NAME WHO...: jobs, events and db check as WHO; each exits 0 with
# the store's content
reads() {
	name=$1; shift
	run "$@" "$CELLAR" --db "$dir/x.db" jobs -o name
	[ "$RC" -eq 0 ] && [ "$OUT" = "$(printf 'a\nb')" ] && ok "$name-jobs" ||
	    not_ok "$name-jobs" "exit $RC: $OUT $ERR"
	run "$@" "$CELLAR" --db "$dir/x.db" events -o csv --no-header
	[ "$RC" -eq 0 ] && [ "$(printf '%s\n' "$OUT" | grep -c ',start,')" = 2 ] &&
	    ok "$name-events" || not_ok "$name-events" "exit $RC: $OUT $ERR"
	run "$@" "$CELLAR" --db "$dir/x.db" db check
	check_rc "$name-db-check" 0
}
# only_store NAME: the directory holds x.db and nothing else
only_store() {
	got=$(ls -A "$dir" | tr '\n' ' ')
	[ "$got" = "x.db " ] && ok "$1" || not_ok "$1" "left behind: $got"
}

# 1. A read-only mount (a bind mount in a mount namespace of its own).
dir=$TMP/ro
make "$dir"
if unshare -m true 2>/dev/null; then
	cat >"$TMP/ro.sh" <<EOF
mount --bind "$dir" "$dir" && mount -o remount,bind,ro "$dir" || exit 99
touch "$dir/probe" 2>/dev/null && exit 98
"$CELLAR" --db "$dir/x.db" jobs -o name >"$TMP/ro.jobs" 2>&1; echo \$? >"$TMP/ro.jobs.rc"
"$CELLAR" --db "$dir/x.db" db check >"$TMP/ro.check" 2>&1; echo \$? >"$TMP/ro.check.rc"
"$CELLAR" --db "$dir/x.db" alloc c --vc prod --gpus 1 >"$TMP/ro.alloc" 2>&1; echo \$? >"$TMP/ro.alloc.rc"
EOF
	unshare -m sh "$TMP/ro.sh"
	rc=$?
	if [ $rc -ne 0 ]; then
		not_ok ro-mount "could not make a read-only bind mount (status $rc)"
	else
		[ "$(cat "$TMP/ro.jobs.rc")" = 0 ] &&
		    [ "$(cat "$TMP/ro.jobs")" = "$(printf 'a\nb')" ] && ok ro-jobs ||
		    not_ok ro-jobs "$(cat "$TMP/ro.jobs.rc"): $(cat "$TMP/ro.jobs")"
		[ "$(cat "$TMP/ro.check.rc")" = 0 ] && ok ro-db-check ||
		    not_ok ro-db-check "$(cat "$TMP/ro.check")"
		[ "$(cat "$TMP/ro.alloc.rc")" = 4 ] &&
		    grep -q "cannot be written: it is on a read-only file system" "$TMP/ro.alloc" &&
		    ok ro-write-says-why || not_ok ro-write-says-why "$(cat "$TMP/ro.alloc.rc"): $(cat "$TMP/ro.alloc")"
	fi
else
	not_ok ro-mount "unshare -m is not available"
fi
only_store ro-nothing-left

# 2. Another user, in a directory it may not write.
dir=$TMP/other
make "$dir"
chmod 755 "$dir"
reads other $NOBODY env XDG_STATE_HOME="$TMP/nobody"
only_store other-nothing-left

# 3. Another user, in a shared writable directory (sticky, like /tmp):
# nothing of its own left beside root's store.
dir=$TMP/shared
make "$dir"
chmod 1777 "$dir"
reads shared $NOBODY env XDG_STATE_HOME="$TMP/nobody"
only_store shared-nothing-left
# ... and root's next write still works (no -shm it cannot use)
run "$CELLAR" --db "$dir/x.db" alloc c --vc prod --gpus 1
check_rc shared-owner-writes 0
run "$CELLAR" --db "$dir/x.db" release c
check_rc shared-owner-releases 0

# 4. Beside a writer that has the store open (its -wal and -shm there):
# the reader reads through them, the writer's last commit included.
mkfifo "$TMP/fifo"
"$CELLAR" --db "$dir/x.db" -f - <"$TMP/fifo" >"$TMP/w.out" 2>&1 &
wpid=$!
exec 7>"$TMP/fifo"
echo 'alloc d --vc prod --gpus 1' >&7
i=0
while [ $i -lt 500 ] && ! grep -q "job 'd' started" "$TMP/w.out"; do
	sleep 0.02
	i=$((i + 1))
done
[ -e "$dir/x.db-wal" ] && ok writer-has-wal || not_ok writer-has-wal "$(ls -A "$dir")"
run $NOBODY env XDG_STATE_HOME="$TMP/nobody" "$CELLAR" --db "$dir/x.db" jobs -o name
[ "$RC" -eq 0 ] && [ "$OUT" = "$(printf 'a\nb\nd')" ] && ok beside-writer-reads ||
    not_ok beside-writer-reads "exit $RC: $OUT $ERR"
echo 'release d' >&7
exec 7>&-
wait $wpid
check_rc writer-ends 0
owners=$(stat -c %U "$dir"/* | sort -u | tr '\n' ' ')
[ "$owners" = "root " ] && ok beside-writer-owners || not_ok beside-writer-owners "$owners"

# 5. A -wal holding changes, but no -shm, where the reader cannot make one:
# a message saying so, not "cannot be written" (the writer killed, its
# -shm removed).
dir=$TMP/hot
make "$dir"
chmod 755 "$dir"
"$CELLAR" --db "$dir/x.db" -f - <"$TMP/fifo" >"$TMP/h.out" 2>&1 &
hpid=$!
exec 7>"$TMP/fifo"
echo 'alloc e --vc prod --gpus 1' >&7
i=0
while [ $i -lt 500 ] && ! grep -q "job 'e' started" "$TMP/h.out"; do
	sleep 0.02
	i=$((i + 1))
done
kill -KILL $hpid
wait $hpid 2>/dev/null
exec 7>&-
rm -f "$dir/x.db-shm"
chmod 644 "$dir/x.db-wal"
if [ -s "$dir/x.db-wal" ]; then
	run $NOBODY env XDG_STATE_HOME="$TMP/nobody" "$CELLAR" --db "$dir/x.db" jobs
	check_rc hot-wal-rc 4
	check_err_has hot-wal-msg "cannot be read here: its write-ahead log '$dir/x.db-wal' holds changes not yet in the file"
else
	not_ok hot-wal-made "the killed writer left no -wal"
fi
# its owner reads it (and folds the -wal in)
run "$CELLAR" --db "$dir/x.db" jobs -o name
[ "$RC" -eq 0 ] && [ "$OUT" = "$(printf 'a\nb\ne')" ] && ok hot-wal-owner-reads ||
    not_ok hot-wal-owner-reads "exit $RC: $OUT $ERR"

done_testing
