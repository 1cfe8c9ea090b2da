#!/bin/sh
# t0400-store-faults — the state store when things go wrong: a store that
# cannot be created (its parent is a file; a directory we may not write),
# a read-only file, a locked store (another process holds BEGIN EXCLUSIVE:
# tests/helpers/sqlexec), a truncated file, garbage, a damaged page, a
# SQLite file of another program, a newer schema, and a full disk. Each
# gives one clear line on stderr naming the file, exit status 4, and leaves
# the store byte for byte as it was (or creates none) — but for a replay,
# which keeps its committed checkpoints and resumes from them.
#
# Read-only as root: chmod does not stop root, so the command runs as
# nobody (setpriv) on files root owns; as another user, chmod does it.
# Disk full: a file size limit (ulimit -f, SIGXFSZ ignored so the write
# fails with EFBIG instead of killing the process) — it needs no mount and
# no test hook in cellar, and makes SQLite fail a write exactly as a full
# disk does (its WAL grows past the limit mid-transaction).
. tests/scenarios/lib.sh
unset CELLAR_DB	# these test the store files themselves

SQLEXEC=$(dirname "$CELLAR")/tests/helpers/sqlexec
if [ ! -x "$SQLEXEC" ]; then
	not_ok helper "'$SQLEXEC' is missing (make variant-tests builds it)"
	done_testing
fi

# A store with some of everything: a session run and a replay.
base=$TMP/base.db
"$CELLAR" --db "$base" -q -c 'alloc a --vc prod --gpus 8' \
    -c 'alloc b --vc dev --gpus 1' -c 'release b' -c 'replay synth:200'
[ -f "$base" ] && ok base-made || not_ok base-made "no $base"

# same NAME FILE COPY: FILE is byte for byte COPY (no -wal left over either).
same() {
	if cmp -s "$2" "$3" && [ ! -s "$2-wal" ]; then ok "$1"
	else not_ok "$1" "'$2' changed"; fi
}

# fault NAME WANT-ERR CMD...: exit 4 with WANT-ERR on stderr, one line.
fault() {
	name=$1 want=$2; shift 2
	run "$@"
	check_rc "$name-rc" 4
	check_err_has "$name-msg" "$want"
	[ "$(printf '%s\n' "$ERR" | wc -l)" -eq 1 ] && ok "$name-one-line" ||
	    not_ok "$name-one-line" "[$ERR]"
}

# 1. Cannot be created: the parent is a regular file. Nothing appears.
: >"$TMP/plain"
fault notdir "cellar: cannot open state store '$TMP/plain/cellar.db': Not a directory" \
    "$CELLAR" --db "$TMP/plain/cellar.db" alloc x --vc prod --gpus 1
[ ! -e "$TMP/plain/cellar.db" ] && ok notdir-nothing || not_ok notdir-nothing "created"
# A directory that does not exist is not created for an explicit --db.
fault nodir "cellar: cannot open state store '$TMP/none/cellar.db': No such file or directory" \
    "$CELLAR" --db "$TMP/none/cellar.db" alloc x --vc prod --gpus 1
[ ! -e "$TMP/none" ] && ok nodir-nothing || not_ok nodir-nothing "created"

# 2. Read-only: a directory we may not write, and a file we may not write.
mkdir "$TMP/ro"
cp "$base" "$TMP/ro/x.db"
if [ "$(id -u)" = 0 ]; then
	chmod 711 "$TMP"
	chmod 755 "$TMP/ro"
	chmod 644 "$TMP/ro/x.db"
	as() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
else
	chmod 555 "$TMP/ro"
	chmod 444 "$TMP/ro/x.db"
	as() { "$@"; }
fi
fault ro-dir "cellar: cannot open state store '$TMP/ro/new.db': Permission denied" \
    as "$CELLAR" --db "$TMP/ro/new.db" alloc x --vc prod --gpus 1
[ ! -e "$TMP/ro/new.db" ] && ok ro-dir-nothing || not_ok ro-dir-nothing "created"
fault ro-file "cellar: state store '$TMP/ro/x.db' cannot be written" \
    as "$CELLAR" --db "$TMP/ro/x.db" alloc x --vc prod --gpus 1
same ro-file-same "$TMP/ro/x.db" "$base"
chmod 700 "$TMP/ro" "$TMP"

# 3. Locked: another process holds an exclusive transaction. Writers wait
# CELLAR_BUSY_TIMEOUT ms and give up; readers go on, consistently.
cp "$base" "$TMP/lock.db"
"$SQLEXEC" "$TMP/lock.db" "SELECT 1" 4 >"$TMP/lock.out" 2>&1 &
helper=$!
i=0
while [ "$i" -lt 50 ] && ! grep -q locked "$TMP/lock.out"; do
	sleep 0.1
	i=$((i + 1))
done
grep -q locked "$TMP/lock.out" && ok lock-held || not_ok lock-held "$(cat "$TMP/lock.out")"
CELLAR_BUSY_TIMEOUT=200
export CELLAR_BUSY_TIMEOUT
fault locked "cellar: state store '$TMP/lock.db' is locked by another process (waited 0.2 s)" \
    "$CELLAR" --db "$TMP/lock.db" alloc x --vc prod --gpus 1
fault locked-replay "is locked by another process (waited 0.2 s)" \
    "$CELLAR" --db "$TMP/lock.db" -q replay synth:20
run "$CELLAR" --db "$TMP/lock.db" runs -o name
check_rc locked-reader-rc 0
check_out locked-reader "1
2"
unset CELLAR_BUSY_TIMEOUT
wait "$helper"
same locked-same "$TMP/lock.db" "$base"

# 4. Truncated: the file is shorter than its header says.
cp "$base" "$TMP/trunc.db"
size=$(wc -c <"$base")
truncate -s $((size / 2)) "$TMP/trunc.db"
cp "$TMP/trunc.db" "$TMP/trunc.copy"
fault truncated-read "cellar: state store '$TMP/trunc.db' is damaged" \
    "$CELLAR" --db "$TMP/trunc.db" jobs --run 2
fault truncated-write "cellar: state store '$TMP/trunc.db' is damaged" \
    "$CELLAR" --db "$TMP/trunc.db" alloc x --vc prod --gpus 1
same truncated-same "$TMP/trunc.db" "$TMP/trunc.copy"

# 5. Garbage, and a database with damaged pages.
awk 'BEGIN { srand(7); for (i = 0; i < 20000; i++) printf "%c", 32 + int(rand() * 90) }' \
    >"$TMP/garbage.db"
cp "$TMP/garbage.db" "$TMP/garbage.copy"
fault garbage-read "cellar: '$TMP/garbage.db' is not a cellar state store (file is not a database)" \
    "$CELLAR" --db "$TMP/garbage.db" runs
fault garbage-write "cellar: '$TMP/garbage.db' is not a cellar state store (file is not a database)" \
    "$CELLAR" --db "$TMP/garbage.db" alloc x --vc prod --gpus 1
same garbage-same "$TMP/garbage.db" "$TMP/garbage.copy"
cp "$base" "$TMP/pages.db"
dd if="$TMP/garbage.copy" of="$TMP/pages.db" bs=4096 seek=2 count=3 conv=notrunc 2>/dev/null
cp "$TMP/pages.db" "$TMP/pages.copy"
fault damaged-read "cellar: state store '$TMP/pages.db' is damaged" \
    "$CELLAR" --db "$TMP/pages.db" jobs --run 2
fault damaged-check "cellar: state store '$TMP/pages.db' is damaged" \
    "$CELLAR" --db "$TMP/pages.db" db check
same damaged-same "$TMP/pages.db" "$TMP/pages.copy"

# 6. A SQLite database of another program.
: >"$TMP/other.db"
"$SQLEXEC" "$TMP/other.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1)"
cp "$TMP/other.db" "$TMP/other.copy"
fault other "cellar: '$TMP/other.db' is not a cellar state store (a SQLite database of something else)" \
    "$CELLAR" --db "$TMP/other.db" alloc x --vc prod --gpus 1
same other-same "$TMP/other.db" "$TMP/other.copy"

# 7. A newer schema: refused for reading and writing.
cp "$base" "$TMP/newer.db"
"$SQLEXEC" "$TMP/newer.db" "PRAGMA user_version = 12"
cp "$TMP/newer.db" "$TMP/newer.copy"
fault newer-read "cellar: state store '$TMP/newer.db' has schema version 12, newer than this cellar (11): upgrade cellar" \
    "$CELLAR" --db "$TMP/newer.db" runs
fault newer-write "has schema version 12, newer than this cellar (11): upgrade cellar" \
    "$CELLAR" --db "$TMP/newer.db" alloc x --vc prod --gpus 1
same newer-same "$TMP/newer.db" "$TMP/newer.copy"

# 8. Disk full: a replay's checkpoint does not fit. The replay stops with
# status 4; what stays is its last committed checkpoint, a sound state the
# same replay resumes from once there is room, ending with the report of
# an uninterrupted run. A new store that cannot be written leaves no file
# (the limit of one 512-byte block still lets stderr through).
cp "$base" "$TMP/full.db"
fault full "cellar: state store '$TMP/full.db': disk full" \
    sh -c "trap '' XFSZ; ulimit -f 400; exec \"\$0\" -q --db \"\$1\" replay synth:3000" \
    "$CELLAR" "$TMP/full.db"
check_err_has full-kept "(the replay stopped; its last checkpoint is kept)"
run "$CELLAR" --db "$TMP/full.db" db check
check_rc full-check 0
run "$CELLAR" --db "$TMP/full.db" runs -o csv --no-header --filter kind=replay --filter state!=done
check_out_has full-running ",interrupted,"
run "$CELLAR" replay synth:3000 -o json
cp "$TMP/out" "$TMP/full-plain.json"
run "$CELLAR" --db "$TMP/full.db" replay synth:3000 -o json
check_rc full-resume-rc 0
check_err_has full-resumed "resuming run"
cmp -s "$TMP/out" "$TMP/full-plain.json" && ok full-resume-report ||
    not_ok full-resume-report "the resumed report differs"
run sh -c "trap '' XFSZ; ulimit -f 1; exec \"\$0\" --db \"\$1\" alloc x --vc prod --gpus 1" \
    "$CELLAR" "$TMP/full-new.db"
check_rc full-new-rc 4
check_err_has full-new-msg "cellar: state store '$TMP/full-new.db': disk full"
if ls "$TMP"/full-new.db* >/dev/null 2>&1; then
	not_ok full-new-nothing "$(ls "$TMP"/full-new.db*)"
else
	ok full-new-nothing
fi

# A command's audit row commits with its change, or neither does: every
# write step of an alloc fails in turn, and an exit 4 leaves no job and no
# row (the row once came in a second transaction: a failure there turned
# a committed, running alloc into exit 4, and a retry made a second job).
"$CELLAR" --db "$TMP/au.db" alloc seed --vc dev --gpus 1 >/dev/null 2>&1
n=1 bad= hits=0
while [ "$n" -le 30 ]; do
	rm -f "$TMP"/au2.db*
	cp "$TMP/au.db" "$TMP/au2.db"
	CELLAR_STORE_FAIL=$n "$CELLAR" --db "$TMP/au2.db" alloc j1 --vc prod --gpus 1 \
	    >/dev/null 2>&1
	rc=$?
	jobs=$("$CELLAR" --db "$TMP/au2.db" -o csv --no-header jobs 2>&1 | grep -c '^j1,')
	rows=$("$CELLAR" --db "$TMP/au2.db" export - 2>/dev/null |
	    grep -c '"alloc j1 --vc prod --gpus 1",0')
	case $rc in
	0) [ "$jobs" = 1 ] && [ "$rows" = 1 ] || bad="$bad [$n: exit 0, $jobs jobs, $rows rows]" ;;
	4) hits=$((hits + 1))
	   [ "$jobs" = 0 ] && [ "$rows" = 0 ] || bad="$bad [$n: exit 4, $jobs jobs, $rows rows]" ;;
	*) bad="$bad [$n: exit $rc]" ;;
	esac
	n=$((n + 1))
done
[ -z "$bad" ] && [ "$hits" -gt 0 ] && ok audit-with-change ||
    not_ok audit-with-change "$hits failures injected;$bad"

# The base store was never touched by any of this, and is sound.
run "$CELLAR" --db "$base" db check
check_rc base-check 0

# An empty event block (a damaged store): a clear error, no crash (under
# make asan, UBSan once saw memcpy and memcmp from NULL here; issue 23 F9)
rm -f "$TMP"/eb.db*
"$CELLAR" --db "$TMP/eb.db" alloc a --vc prod --gpus 1 >/dev/null
"$SQLEXEC" "$TMP/eb.db" "INSERT INTO event_blocks(seq, run, first, data) VALUES (1000000, 1, 1000000, x'')"
run "$CELLAR" --db "$TMP/eb.db" events
check_rc empty-block-rc 4
check_err_has empty-block-msg "events 1000000-1000000 are malformed"
run "$CELLAR" --db "$TMP/eb.db" db check
check_out_has empty-block-check "run 1: events 1000000-1000000 are malformed"

done_testing
