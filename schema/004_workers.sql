-- foliobench results, version 4: parallel workers, the noise record and the
-- machine's topology.  A sample of a parallel case stores its aggregate in
-- sample_values (time until the last worker finished) and each worker in
-- sample_workers: where it was placed, where it was seen after its timed
-- call, its own wall time and metrics.  Rows before this version have one
-- worker and no noise record.
ALTER TABLE samples ADD COLUMN workers INTEGER NOT NULL DEFAULT 1;
ALTER TABLE samples ADD COLUMN noise TEXT;	-- JSON: steal, context switches, frequency
ALTER TABLE samples ADD COLUMN noisy INTEGER NOT NULL DEFAULT 0
	CHECK (noisy IN (0, 1));		-- steal above steal_max
ALTER TABLE runs ADD COLUMN topology_shape TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN topology_xml BLOB;	-- hwloc XML export
ALTER TABLE runs ADD COLUMN topology_xml_zlib INTEGER NOT NULL DEFAULT 0
	CHECK (topology_xml_zlib IN (0, 1));	-- 1: zlib-compressed
ALTER TABLE runs ADD COLUMN topology_xml_len INTEGER;	-- bytes uncompressed

CREATE TABLE sample_workers (
	sample_id	INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
	worker		INTEGER NOT NULL,	-- 0-based
	pu		INTEGER NOT NULL,	-- placed on (OS index)
	pu_checked	INTEGER,		-- sched_getcpu after the timed call
	node		INTEGER,		-- NUMA node of pu
	start_ns	INTEGER NOT NULL,	-- after the release of the barrier
	wall_ns		INTEGER NOT NULL,	-- its own timed region
	nvcsw		INTEGER,
	nivcsw		INTEGER,		-- involuntary context switches
	migrations	INTEGER,		-- NULL: not known here
	valid		INTEGER NOT NULL CHECK (valid IN (0, 1)),
	invalid_reason	TEXT,
	metrics		TEXT NOT NULL,		-- JSON: the worker's own values
	PRIMARY KEY (sample_id, worker)
);
