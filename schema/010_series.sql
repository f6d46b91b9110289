-- foliobench results, version 10: each run's valid values kept per series,
-- so that compare and report read a label's runs, not its samples (a lab's
-- two nightly kernels hold most of a database: 10^6 samples, 9 * 10^6
-- values, read in 6-10 s).  One row per run and series (workload, params,
-- metric, unit): the values of its valid non-warm-up samples in the order
-- the reports take them (case, repetition, the metric order stored), as
-- little-endian doubles; which of them are noisy (one byte each, NULL
-- where none is); how many were not measurable; whether one is a value no
-- report accepts (text, a blob, a negative time, not finite), which sends
-- the reader back to the samples to name it.  ord -1 is the run's mark
-- that its rows are all there (its bad, samples, noisy_samples, bounded:
-- the run's counts): written by the runner when the run ends,
-- by merge, by this migration (schema/db_series.c); a change to the run's
-- cases, samples or values afterwards deletes its rows (the triggers), and
-- a run without its mark is read from its samples.
CREATE TABLE run_series (
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	ord		INTEGER NOT NULL,	-- first value's place in the run
	workload	TEXT NOT NULL,
	params		TEXT NOT NULL,
	metric		TEXT NOT NULL,
	unit		TEXT NOT NULL,
	better		TEXT NOT NULL,
	asked		TEXT,			-- the first case's that has one
	n		INTEGER NOT NULL,	-- measured values in vals
	unmeasurable	INTEGER NOT NULL,	-- values not measurable
	unmeasurable_noisy INTEGER NOT NULL,	-- of them, in noisy samples
	bad		INTEGER NOT NULL,	-- values no report accepts
	vals		BLOB,
	noisy		BLOB,
	bounded		INTEGER NOT NULL DEFAULT 0,	-- a sample of the case
					-- has coverage_bounded (shadow-truncate)
	samples		INTEGER NOT NULL DEFAULT 0,	-- the mark's: valid
	noisy_samples	INTEGER NOT NULL DEFAULT 0,	-- samples, noisy ones
	PRIMARY KEY (run_id, ord)
);

CREATE TRIGGER run_series_values_ins AFTER INSERT ON sample_values BEGIN
	DELETE FROM run_series WHERE run_id = (SELECT c.run_id FROM samples s
		JOIN cases c ON c.id = s.case_id WHERE s.id = NEW.sample_id);
END;
CREATE TRIGGER run_series_values_upd AFTER UPDATE ON sample_values BEGIN
	DELETE FROM run_series WHERE run_id IN (SELECT c.run_id FROM samples s
		JOIN cases c ON c.id = s.case_id
		WHERE s.id IN (OLD.sample_id, NEW.sample_id));
END;
CREATE TRIGGER run_series_values_del AFTER DELETE ON sample_values BEGIN
	DELETE FROM run_series WHERE run_id = (SELECT c.run_id FROM samples s
		JOIN cases c ON c.id = s.case_id WHERE s.id = OLD.sample_id);
END;
CREATE TRIGGER run_series_samples_ins AFTER INSERT ON samples BEGIN
	DELETE FROM run_series WHERE run_id =
		(SELECT run_id FROM cases WHERE id = NEW.case_id);
END;
CREATE TRIGGER run_series_samples_upd AFTER UPDATE ON samples BEGIN
	DELETE FROM run_series WHERE run_id IN (SELECT run_id FROM cases
		WHERE id IN (OLD.case_id, NEW.case_id));
END;
CREATE TRIGGER run_series_samples_del AFTER DELETE ON samples BEGIN
	DELETE FROM run_series WHERE run_id =
		(SELECT run_id FROM cases WHERE id = OLD.case_id);
END;
CREATE TRIGGER run_series_cases_ins AFTER INSERT ON cases BEGIN
	DELETE FROM run_series WHERE run_id = NEW.run_id;
END;
CREATE TRIGGER run_series_cases_upd AFTER UPDATE OF run_id, seq, workload,
	params, asked ON cases BEGIN
	DELETE FROM run_series WHERE run_id IN (OLD.run_id, NEW.run_id);
END;
CREATE TRIGGER run_series_cases_del AFTER DELETE ON cases BEGIN
	DELETE FROM run_series WHERE run_id = OLD.run_id;
END;
