-- foliobench results, version 5: the kernel log lines that showed a kernel
-- problem (WARNING:, BUG:, Oops, ...) while a run ran, read from /dev/kmsg
-- from the run's start to its end.  runs.kernel_warnings counts them; NULL
-- where the log was not read (runs recorded before this version, or
-- /dev/kmsg unreadable).
ALTER TABLE runs ADD COLUMN kernel_warnings INTEGER;

CREATE TABLE kernel_warnings (
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	seq		INTEGER NOT NULL,	-- the kernel log's sequence number
	at_us		INTEGER NOT NULL,	-- microseconds since boot
	prio		INTEGER NOT NULL,	-- syslog facility * 8 + level
	line		TEXT NOT NULL,		-- as /dev/kmsg escapes it
	PRIMARY KEY (run_id, seq)
);
