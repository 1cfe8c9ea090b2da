#!/bin/sh
# t0405-store-upgrade — an operator who upgrades cellar is not locked out
# by an older store: the first command, even one that only reads (every
# command's start-up recovery reads the default store), migrates a store
# it may write and goes on; one it may not write fails with status 4, a
# line saying what to run, and the file as it was. The old store here is
# version 3 (events as rows), made from a new one by tests/helpers/sqlexec.
. tests/scenarios/lib.sh
unset CELLAR_DB
XDG_STATE_HOME=$TMP/state
export XDG_STATE_HOME
db=$XDG_STATE_HOME/cellar/cellar.db
SQLEXEC=$(dirname "$CELLAR")/tests/helpers/sqlexec
if [ ! -x "$SQLEXEC" ]; then
	not_ok helper "'$SQLEXEC' is missing (make variant-tests builds it)"
	done_testing
fi

run "$CELLAR" -c 'node bad r0n05'
check_rc made 0
# Version 3: the event log as one row per event, no blocks (and no job
# logs: version 5; no job_changes table: version 7; no jobs.priority and
# jobs.weight: version 8; no jobs.traced and its partial name index:
# version 9; no series.frag_node: version 10; no audit.reason, refused,
# count, jobs.uid, gid, jobs_name unique: version 11).
"$SQLEXEC" "$db" "DROP TABLE job_logs; DROP TABLE event_blocks; DELETE FROM heads;
DROP TABLE job_changes; ALTER TABLE jobs DROP COLUMN priority;
ALTER TABLE jobs DROP COLUMN weight; DROP INDEX jobs_name;
ALTER TABLE jobs DROP COLUMN traced; ALTER TABLE series DROP COLUMN frag_node;
ALTER TABLE audit DROP COLUMN reason; ALTER TABLE audit DROP COLUMN refused;
ALTER TABLE audit DROP COLUMN count;
CREATE TABLE events (seq INTEGER PRIMARY KEY, run INTEGER NOT NULL
 REFERENCES runs(id) ON DELETE CASCADE, t REAL NOT NULL, kind TEXT NOT NULL,
 job INTEGER, vc INTEGER, cell INTEGER, by_job INTEGER, detail TEXT NOT NULL
 DEFAULT '', prev INTEGER);
CREATE INDEX events_run ON events(run, seq, job);
INSERT INTO events VALUES (1, 1, 0, 'node-bad', NULL, NULL, NULL, NULL,
 'old-r0n05', NULL);
PRAGMA user_version = 3; PRAGMA journal_mode = DELETE;" >/dev/null && ok made-v3 || not_ok made-v3 "sqlexec failed"
cp "$db" "$TMP/v3.db"
[ ! -e "$db-wal" ] && ok no-wal || not_ok no-wal "a WAL is left"

# Not writable by this user: status 4, what to run, the file unchanged.
# (Out of WAL mode above: another user can read a WAL store only where it
# may create the -shm file, so this is the case where reading works and
# writing does not.)
if [ "$(id -u)" = 0 ]; then
	chmod 755 "$TMP" "$XDG_STATE_HOME" "$XDG_STATE_HOME/cellar"
	chmod 644 "$db"
	run setpriv --reuid=65534 --regid=65534 --clear-groups -- \
	    env XDG_STATE_HOME="$XDG_STATE_HOME" "$CELLAR" events -o csv --no-header
else
	chmod 444 "$db"
	run "$CELLAR" events -o csv --no-header
fi
check_rc ro-rc 4
check_err_has ro-msg "has schema version 3, older than this cellar"
check_err_has ro-what "cannot be migrated here"
check_err_has ro-run "'cellar --db $db db vacuum', as a user who may write it"
cmp -s "$db" "$TMP/v3.db" && ok ro-unchanged || not_ok ro-unchanged "the file changed"
chmod 700 "$TMP" "$XDG_STATE_HOME" "$XDG_STATE_HOME/cellar"
chmod 600 "$db"

# Writable: a command that only reads migrates it and reads.
run "$CELLAR" events -o csv --no-header
check_rc rw-rc 0
check_out_has rw-event "node-bad"
check_out_has rw-old-detail "old-r0n05"
run "$CELLAR" export "$TMP/dump.json"
check_rc export 0
grep -q '"store_version":11,' "$TMP/dump.json" && ok migrated-11 ||
    not_ok migrated-11 "$(head -c 300 "$TMP/dump.json")"
run "$CELLAR" db check
check_rc db-check 0
# And it stays usable: a writing command appends after the old event.
run "$CELLAR" node ok r0n05
check_rc write-after 0
run "$CELLAR" events -o csv --no-header
[ "$(printf '%s\n' "$OUT" | wc -l)" = 2 ] && ok two-events || not_ok two-events "$OUT"

# A tampered user_version (issue 23, F9): the tables are at 9, the file
# says 5, so the migration's SQL fails for anyone. Not "run db vacuum as a
# user who may write it" (the writer here is root, or the owner, and
# vacuum fails the same way), but what is wrong; the file as it was.
"$SQLEXEC" "$db" "PRAGMA user_version = 5" >/dev/null && ok tampered-made ||
    not_ok tampered-made "sqlexec failed"
cp "$db" "$TMP/tampered.db"
for c in "events" "db vacuum" "db check"; do
	n=$(echo "$c" | tr ' ' -)
	run "$CELLAR" $c
	check_rc "tampered-$n-rc" 4
	check_err_has "tampered-$n-msg" "says it has schema version 5, but its tables do not match it"
	case $ERR in
	*vacuum*) not_ok "tampered-$n-no-vacuum" "$ERR" ;;
	*) ok "tampered-$n-no-vacuum" ;;
	esac
done
cmp -s "$db" "$TMP/tampered.db" && ok tampered-unchanged ||
    not_ok tampered-unchanged "the file changed"

done_testing
