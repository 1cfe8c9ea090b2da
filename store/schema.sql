-- store/schema.sql — the cellar state store, schema version 11.
--
-- This file is the whole schema of a new database. The Makefile embeds it
-- into the binary (build/VARIANT/gen/store-schema.c); store-migrate.c runs it in
-- one transaction on a database whose user_version is 0 and that holds no
-- table, then sets user_version to 11 (STORE_SCHEMA_VERSION) and
-- application_id to 0x43656c6c ("Cell"). A database of an older version
-- is brought forward by the migrations in store-migrate.c (from version N to
-- N + 1), each one transaction; this file always creates the newest.
--
-- History: 1, the first (job heads as a row per job); 2, job heads as one
-- checkpoint row per run, and the events index covering the job; 3, a
-- session run's engine state (runs.engine) and the specs a run was on
-- before a reconfiguration (run_specs); 4, the event log as packed
-- blocks (event_blocks, read through the `events` virtual table); 5, a live
-- job's log (job_logs); 6, a job row's change number (jobs.chg and an
-- index on it); 7, the change numbers as one row per transaction
-- (job_changes) instead; 8, a job's priority and time-slice weight
-- (jobs.priority, jobs.weight: a trace's columns, kept for a replay); 9,
-- the names of a replay's jobs out of the unique name index (jobs.traced,
-- jobs_name); 10, HiveD's fragmentation in the series (series.frag_node);
-- 11, the uid and gid a live job runs as (jobs.uid, jobs.gid), a
-- server's refusals in the audit (audit.reason, refused, count), a
-- session's job names reusable once their job has ended (jobs_name no
-- longer unique: a job is its id).
--
-- Conventions:
--  - In events, placements and the audit, "none" is NULL (a record's job
--    -1 is stored as NULL). Jobs keep struct job's own conventions (-1 for
--    an unknown duration, a start not yet made, any leaf type) so that
--    every field reads back exactly as written.
--  - Enumerations are stored by name ('running', 'preempt', 'las'), not by
--    number, so that reordering an enum in the code cannot change stored
--    meaning; the names are those of src/job and src/engine.
--  - Times: `t`, `now`, `submit`... are on the run's clock (virtual seconds
--    for a replay, Unix seconds for a session); `created`, `updated`, `at`
--    are wall-clock Unix seconds (REAL).
--  - Integer arrays (placements) are BLOBs of little-endian int32, so a
--    database moves between machines unchanged.
--  - Every row below `runs` belongs to one run and goes when it goes
--    (ON DELETE CASCADE).

-- A cluster spec, stored once per distinct text. `hash` is the FNV-1a-64
-- of the text (src/spec: spec->hash) as 16 lowercase hex digits; two specs
-- are the same when hash and text are equal (the text is compared, so a
-- hash collision cannot merge two specs).
CREATE TABLE specs (
	id		INTEGER PRIMARY KEY,
	hash		TEXT NOT NULL,
	path		TEXT NOT NULL,		-- as first given (or the embedded label)
	text		TEXT NOT NULL,
	created		REAL NOT NULL
);
CREATE INDEX specs_hash ON specs(hash);

-- The virtual clusters of a spec, by their index in the spec (records and
-- jobs refer to VCs by index), with the GPUs each is assigned.
CREATE TABLE spec_vcs (
	spec		INTEGER NOT NULL REFERENCES specs(id) ON DELETE CASCADE,
	idx		INTEGER NOT NULL,
	name		TEXT NOT NULL,
	gpus		INTEGER NOT NULL,
	PRIMARY KEY (spec, idx)
) WITHOUT ROWID;

-- A run: one stream of cluster state on one spec. A 'session' is the
-- operator's live cluster; a 'replay' is an emulator replay of a trace.
-- `now` is the run's clock at its last committed write. `spec` is the spec
-- the run is on now: a reconfiguration (`load` of another spec while a
-- session runs) moves it, and run_specs keeps the ones before.
CREATE TABLE runs (
	id		INTEGER PRIMARY KEY,
	kind		TEXT NOT NULL CHECK (kind IN ('session', 'replay')),
	spec		INTEGER NOT NULL REFERENCES specs(id),
	mode		TEXT NOT NULL,		-- hived, quota, private
	policy		TEXT,			-- replays: the scheduling policy
	trace		TEXT,			-- replays: the trace as given
	params		TEXT NOT NULL DEFAULT '{}',	-- a JSON object
	seed		INTEGER NOT NULL DEFAULT 0,
	state		TEXT NOT NULL CHECK (state IN ('running', 'done', 'interrupted')),
	now		REAL NOT NULL DEFAULT 0,
	created		REAL NOT NULL,
	updated		REAL NOT NULL,
	user		TEXT NOT NULL,		-- Unix user who created it
	report		TEXT,			-- a JSON object, once there is one
	emu		BLOB,			-- the emulator's saved state (opaque)
	engine		BLOB			-- sessions: bad marks, counters (session-log.c)
);

-- The specs a run was on before its reconfigurations, oldest first: the
-- run's events with seq <= upto (and > the previous row's upto) were
-- recorded on `spec`, so their VC and cell indices are that spec's; later
-- events are on the next row's spec, the newest on runs.spec. `upto` is
-- the seq of the reconfiguration's own event (kind reconfig, about no job).
CREATE TABLE run_specs (
	run		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	upto		INTEGER NOT NULL,
	spec		INTEGER NOT NULL REFERENCES specs(id),
	PRIMARY KEY (run, upto)
) WITHOUT ROWID;

-- Jobs: every field of struct job (src/job/job.h), the request and the
-- lifecycle. `id` is the job's id in its run (struct job.id), `vc` and
-- `leaf_type` indices in the run's spec, `members` the gang as "PxN,...".
CREATE TABLE jobs (
	run		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	id		INTEGER NOT NULL,
	name		TEXT NOT NULL,
	user		TEXT NOT NULL DEFAULT '',
	vc		INTEGER NOT NULL,
	submit		REAL NOT NULL,
	members		TEXT NOT NULL,
	gpus		INTEGER NOT NULL,
	leaf_type	INTEGER NOT NULL,	-- -1: any type
	class		TEXT NOT NULL,		-- guaranteed, opportunistic, auto
	soft_affinity	INTEGER NOT NULL,
	duration	REAL NOT NULL,		-- < 0: unknown
	model		TEXT,			-- model class name (src/sim/model.c)
	elastic_min	INTEGER NOT NULL,
	elastic_max	INTEGER NOT NULL,
	state		TEXT NOT NULL,		-- pending, running, ... (job_state_name)
	reason		TEXT NOT NULL,		-- None, Resources, ... (job_reason_name)
	state_since	REAL NOT NULL,
	first_start	REAL NOT NULL,		-- < 0 until it first runs
	end_time	REAL NOT NULL,		-- < 0 until final
	queued		REAL NOT NULL,
	attained	REAL NOT NULL,
	run_time	REAL NOT NULL,
	work_done	REAL NOT NULL,
	ckpt_work	REAL NOT NULL,
	lost_work	REAL NOT NULL,
	restarts	INTEGER NOT NULL,
	preemptions	INTEGER NOT NULL,
	suspensions	INTEGER NOT NULL,
	opportunistic	INTEGER NOT NULL,
	engine_id	INTEGER NOT NULL,	-- -1 unless it holds cells
	emu		BLOB,			-- the emulator's per-job state (opaque)
	priority	INTEGER NOT NULL DEFAULT 0,	-- struct job's (version 8)
	weight		INTEGER NOT NULL DEFAULT 1,	-- time-slice weight (version 8)
	traced		INTEGER NOT NULL DEFAULT 0,	-- 1: a replay's (version 9)
	uid		INTEGER NOT NULL DEFAULT -1,	-- runs as (a live job's; -1:
	gid		INTEGER NOT NULL DEFAULT -1,	-- unknown; version 11)
	PRIMARY KEY (run, id)
);
-- A job is its id; its name says which job a person means. In a
-- session's run a name is held by one job at a time: a name whose job
-- has not ended is refused (the console and the engine check), and a
-- name whose job has ended names a new job (a new id) while the old one
-- keeps its row and events (version 11; before, the old row was renamed
-- NAME~ID, as rows of older stores still are). By name, the newest of
-- that name (the highest id) is meant: this index finds it in one probe.
-- A replay's names (traced = 1, exactly the jobs of runs of kind
-- 'replay') are unique by their trace, whose reader refuses a name given
-- twice, and `db check` verifies it. They stay out of the index because
-- they arrive in no relation to the order of the rows, so each
-- checkpoint inserted them all over it: for the Philly trace a quarter
-- of the writer's work (2.28 G instructions with UNIQUE (run, name) on
-- every row, as in version 8; 1.72 G without, callgrind). A lookup by
-- name in a replay's run reads the run's rows instead.
CREATE INDEX jobs_name ON jobs(run, name, id) WHERE traced = 0;

-- Which jobs each transaction changed (store.h invariant 7): one row per
-- transaction that wrote a job row or placement of the run, numbered
-- above every row of the run before it; `jobs` holds their ids as
-- little-endian int32, ascending, each once. A follower that has read the
-- run up to change number c reads the rows above c and then those jobs
-- (store_job_load_since). One row per transaction, not a column of each
-- job row with an index on it (version 6): that index cost a recorded
-- Philly replay's writer a tenth of its time or more. Not in dumps: it
-- orders one database's writes, and an import starts it over.
CREATE TABLE job_changes (
	run		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	chg		INTEGER NOT NULL,
	jobs		BLOB NOT NULL,
	PRIMARY KEY (run, chg)
) WITHOUT ROWID;

-- Where a job that holds cells runs: struct engine_placement, enough to
-- re-create it in a fresh engine of the same spec and mode, plus `nodes`
-- (a hostlist) and `gpus` (GPU addresses per node) for people. In their
-- own table rather than in jobs: only jobs holding cells have one, and a
-- job's frequent updates do not rewrite its arrays (bench-store measures
-- both loads).
CREATE TABLE placements (
	run		INTEGER NOT NULL,
	job		INTEGER NOT NULL,
	engine_id	INTEGER NOT NULL,
	chain		INTEGER NOT NULL,
	pin		INTEGER,		-- spec pin index, NULL none
	priority	INTEGER NOT NULL,	-- -1 when running opportunistic
	orig_priority	INTEGER NOT NULL,
	lazy		INTEGER NOT NULL,
	downgraded	INTEGER NOT NULL,
	pod_first	BLOB NOT NULL,		-- npods + 1 int32 offsets into leaves
	leaves		BLOB NOT NULL,		-- physical leaf cells, int32 each
	vleaves		BLOB,			-- bound virtual leaves, or NULL
	nodes		TEXT NOT NULL,
	gpus		TEXT NOT NULL,
	PRIMARY KEY (run, job),
	FOREIGN KEY (run, job) REFERENCES jobs(run, id) ON DELETE CASCADE
) WITHOUT ROWID;

-- A live job's log (src/console.h invariant 3): what its hooks printed and
-- cellar's notes on it, the newest 65,536 bytes at most (STORE_LOG_MAX;
-- store_job_log_put keeps the tail of anything longer), written in the
-- live tick's transactions so that `job log` outlives the console.
CREATE TABLE job_logs (
	run		INTEGER NOT NULL,
	job		INTEGER NOT NULL,
	text		BLOB NOT NULL,
	PRIMARY KEY (run, job),
	FOREIGN KEY (run, job) REFERENCES jobs(run, id) ON DELETE CASCADE
) WITHOUT ROWID;

-- Node health as the run last saw it.
CREATE TABLE health (
	run		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	node		TEXT NOT NULL,
	bad		INTEGER NOT NULL,
	since		REAL NOT NULL,
	PRIMARY KEY (run, node)
) WITHOUT ROWID;

-- The event log (struct rec, src/job/record.h), append-only: an event is
-- never changed or deleted except with its run. Each event has a `seq`
-- that grows with every append across runs (`events --follow` polls for
-- seq > the last seen), and `prev`, the seq of the same job's previous
-- event in the same run (none for its first, and for events about no
-- job): one job's history is a walk from its newest event (see heads)
-- down the prev links.
--
-- Events are stored in blocks: one row holds the events one transaction
-- appended to one run, seqs `first` to `seq` (the block's newest), packed
-- (store/store-events.c: a version byte; per event t, kind by name, job,
-- vc, cell, by_job as int32 with -1 for none, prev as int64 with 0 for
-- none, detail; a CRC-32 at the end). A replay's checkpoint is one row, a
-- session's tick one; the same for every writer, so there is one format
-- to read. Readers query `events`, a virtual table (store-events.c) with
-- the columns a row per event had: seq, run, t, kind, job, vc, cell,
-- by_job, detail, prev (NULL for none), which finds blocks by these keys.
-- Blocks do not overlap; within one, seq = first + position.
CREATE TABLE event_blocks (
	seq		INTEGER PRIMARY KEY,	-- its newest event's seq
	run		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	first		INTEGER NOT NULL,	-- its oldest event's seq
	data		BLOB NOT NULL
);
-- (run, seq): a run's blocks in order, for its log and its tail.
CREATE INDEX event_blocks_run ON event_blocks(run, seq);

-- Where each job's history starts (its newest event), per run, as of a
-- checkpoint: `seqs` holds one little-endian int64 per job id (0: no event
-- up to then), `upto` the last seq it accounts for. A job's newest event
-- is its newest with seq > upto if it has one (a scan of the run's tail,
-- by event_blocks_run), else seqs[job]. The writer keeps the heads in memory and
-- writes this row every 65,536 events or so: one sequential write, where a
-- row per job would be one random write per event.
CREATE TABLE heads (
	run		INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
	upto		INTEGER NOT NULL,
	seqs		BLOB NOT NULL
);

-- The metric time series of a run (struct emu_sample).
CREATE TABLE series (
	run		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	t		REAL NOT NULL,
	pending		INTEGER NOT NULL,
	running		INTEGER NOT NULL,
	used		INTEGER NOT NULL,	-- GPUs of guaranteed jobs
	opp		INTEGER NOT NULL,	-- GPUs of opportunistic jobs
	bad		INTEGER NOT NULL,
	frag		REAL NOT NULL,		-- partially free nodes / all
	frag_node	REAL NOT NULL DEFAULT 0,	-- HiveD's: not wholly free / all
	PRIMARY KEY (run, t)
) WITHOUT ROWID;

-- Operator commands that change state (flagged CMD_MUTATES), and every
-- request a server refused, with who sent them, when, the command line as
-- typed and its exit status. `run` is the session's run at the time, if
-- it had one (no foreign key: the audit outlives what it talks about).
-- `reason` says why a command failed or was refused (NULL when it
-- succeeded); `refused` is 1 for a request the server did not run (its
-- access rules, a command it runs for nobody, a halted server); `count`
-- is how many refusals of that user the row stands for: the server writes
-- one row per user per second of refusals, the first one's line and
-- reason, and counts the others into it (version 11).
CREATE TABLE audit (
	id		INTEGER PRIMARY KEY,
	at		REAL NOT NULL,
	user		TEXT NOT NULL,
	run		INTEGER,
	cmdline		TEXT NOT NULL,
	status		INTEGER NOT NULL,
	reason		TEXT,
	refused		INTEGER NOT NULL DEFAULT 0,
	count		INTEGER NOT NULL DEFAULT 1
);
