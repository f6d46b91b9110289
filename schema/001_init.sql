-- foliobench results, version 1.
-- A run is one invocation of `bench run`; a case is one point of a sweep
-- (workload + canonical params); a sample is one repetition of a case; a
-- value is one metric of a sample.  A boot (runs.boot_id) is the
-- statistical unit of reports: medians within a boot, then across boots.

CREATE TABLE runs (
	id		INTEGER PRIMARY KEY,
	uuid		TEXT NOT NULL UNIQUE,
	label		TEXT NOT NULL,
	kernel_release	TEXT NOT NULL,
	kernel_version	TEXT NOT NULL,
	boot_id		TEXT NOT NULL,
	hostname	TEXT NOT NULL,
	cpu_model	TEXT NOT NULL,
	vcpus		INTEGER NOT NULL,
	mem_bytes	INTEGER NOT NULL,
	cmdline		TEXT NOT NULL,
	thp		TEXT NOT NULL,	-- JSON: THP and shmem knobs at start
	tmpfs		TEXT NOT NULL,	-- mount options of /dev/shm
	topology	TEXT NOT NULL,	-- JSON: hwloc summary
	tool_version	TEXT NOT NULL,
	config		TEXT NOT NULL,	-- JSON: effective config
	pid		INTEGER NOT NULL,
	started_at	TEXT NOT NULL,	-- ISO 8601 UTC
	ended_at	TEXT,
	status		TEXT NOT NULL DEFAULT 'running'
			CHECK (status IN ('running', 'complete', 'aborted', 'failed')),
	status_reason	TEXT
);
CREATE INDEX runs_label ON runs(label, status);

CREATE TABLE cases (
	id		INTEGER PRIMARY KEY,
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	seq		INTEGER NOT NULL,	-- order within the run
	workload	TEXT NOT NULL,
	params		TEXT NOT NULL,	-- canonical JSON, keys in table order
	status		TEXT NOT NULL DEFAULT 'pending'
			CHECK (status IN ('pending', 'done', 'skipped', 'failed', 'aborted')),
	reason		TEXT,		-- why skipped / failed
	info		TEXT,		-- what preflight adapted (asked vs used size)
	UNIQUE (run_id, seq)
);
CREATE INDEX cases_key ON cases(workload, params);

CREATE TABLE samples (
	id		INTEGER PRIMARY KEY,
	case_id		INTEGER NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
	rep		INTEGER NOT NULL,	-- 0-based, warm-ups included
	warmup		INTEGER NOT NULL CHECK (warmup IN (0, 1)),
	valid		INTEGER NOT NULL CHECK (valid IN (0, 1)),
	invalid_reason	TEXT,
	cpu		INTEGER,		-- PU it ran on (checked after)
	verify		TEXT NOT NULL,		-- JSON: what verify found
	taken_at	TEXT NOT NULL,
	UNIQUE (case_id, rep)
);

CREATE TABLE sample_values (
	sample_id	INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
	metric		TEXT NOT NULL,
	value		REAL,			-- NULL when unsupported
	unit		TEXT NOT NULL,
	better		TEXT NOT NULL CHECK (better IN ('lower', 'higher')),
	supported	INTEGER NOT NULL DEFAULT 1 CHECK (supported IN (0, 1)),
	PRIMARY KEY (sample_id, metric)
);

CREATE TABLE uploads (
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	target		TEXT NOT NULL,
	state		TEXT NOT NULL DEFAULT 'pending'
			CHECK (state IN ('pending', 'sent', 'failed')),
	attempts	INTEGER NOT NULL DEFAULT 0,
	last_error	TEXT,
	next_try	TEXT,
	PRIMARY KEY (run_id, target)
);
