-- foliobench results, version 14: each run's series in one row, so that
-- compare reads a label's runs and not a row a series of each (issue 31:
-- at 10^6 samples the two labels of a lab's nightly kernels held 760000
-- run_series rows, 85% of a compare's CPU time, read by SQLite).  A run's
-- series are named once in series_layouts, which the runs of one config
-- share: the JSON array of its series in run_series' order, each
-- [workload, params, metric, unit, better, asked]; its id is a hash of
-- that text (schema/db_pack.c), the same in every database, so that merge
-- copies the layouts it lacks and the runs' rows as they are.  run_packs
-- holds what run_series holds a series for the run, in the layout's
-- order: counts, three little-endian 64-bit integers a series (n,
-- unmeasurable, unmeasurable_noisy); vals, the series' vals one after the
-- other; noisy, theirs (a zero byte a value where a series has none; NULL
-- where the run has none); and its mark's counts (samples, noisy_samples,
-- bounded), read by the warnings of compare.  Only a run whose values a
-- report accepts all (the mark's bad 0) has one: a label whose complete
-- runs all have theirs is read from them, and needs no other check.
-- Made with the run's run_series rows (by the
-- runner, merge, this migration) and dropped with them (the triggers), so
-- that a run's pack is there only beside its complete rows; a run without
-- one is read from run_series.
CREATE TABLE series_layouts (
	id		INTEGER PRIMARY KEY,	-- the hash of series
	series		TEXT NOT NULL
);

CREATE TABLE run_packs (
	run_id		INTEGER NOT NULL UNIQUE
			REFERENCES runs(id) ON DELETE CASCADE,
	layout		INTEGER NOT NULL,	-- series_layouts(id), by hash
	samples		INTEGER NOT NULL,	-- the mark's: valid samples,
	noisy_samples	INTEGER NOT NULL,	-- noisy ones, and bounded
	bounded		INTEGER NOT NULL,
	counts		BLOB NOT NULL,
	vals		BLOB,
	noisy		BLOB
);

CREATE TRIGGER run_packs_series_ins AFTER INSERT ON run_series BEGIN
	DELETE FROM run_packs WHERE run_id = NEW.run_id;
END;
CREATE TRIGGER run_packs_series_upd AFTER UPDATE ON run_series BEGIN
	DELETE FROM run_packs WHERE run_id IN (OLD.run_id, NEW.run_id);
END;
CREATE TRIGGER run_packs_series_del AFTER DELETE ON run_series BEGIN
	DELETE FROM run_packs WHERE run_id = OLD.run_id;
END;

-- The invalid samples that report lists (db_report_invalid_each) found
-- without reading every sample of a label: at 10^6 samples, 0.24 s of a
-- report's CPU time read 800000 samples for a few thousand invalid ones.
CREATE INDEX samples_invalid ON samples(case_id)
	WHERE valid = 0 AND warmup = 0;
