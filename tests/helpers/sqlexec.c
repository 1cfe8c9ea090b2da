/*
 * sqlexec.c — a test helper for the state store's fault tests (t0400):
 * run SQL on a database file with SQLite directly, as another program
 * would, so a test can plant a problem cellar itself would never write
 * (a newer schema version, a second job on a GPU) or hold a lock.
 *
 *   sqlexec DB SQL            run SQL (several statements), print the
 *                             rows it returns ('|' between columns), exit
 *   sqlexec DB SQL SECONDS    BEGIN EXCLUSIVE, run SQL, print "locked",
 *                             hold the lock SECONDS, roll back
 *
 * Exit status 0, or 1 with SQLite's message on stderr. A test helper, not
 * part of cellar: it includes <sqlite3.h> like store/ does
 * (tests/layers.sh allows it here).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int
print_row(void *arg, int n, char **v, char **names)
{
	int i;

	(void)arg;
	(void)names;
	for (i = 0; i < n; i++)
		printf("%s%s", i ? "|" : "", v[i] != NULL ? v[i] : "");
	printf("\n");
	return 0;
}

int
main(int argc, char **argv)
{
	sqlite3 *db;
	char *err = NULL;
	int hold = argc > 3 ? atoi(argv[3]) : -1;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: sqlexec DB SQL [SECONDS]\n");
		return 2;
	}
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		fprintf(stderr, "sqlexec: %s: %s\n", argv[1], sqlite3_errmsg(db));
		return 1;
	}
	sqlite3_busy_timeout(db, 5000);
	if ((hold >= 0 && sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, &err) != SQLITE_OK) ||
	    sqlite3_exec(db, argv[2], hold >= 0 ? NULL : print_row, NULL,
	    &err) != SQLITE_OK) {
		fprintf(stderr, "sqlexec: %s\n", err ? err : sqlite3_errmsg(db));
		sqlite3_close(db);
		return 1;
	}
	if (hold >= 0) {
		printf("locked\n");
		fflush(stdout);
		sleep((unsigned)hold);
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	}
	sqlite3_close(db);
	return 0;
}
