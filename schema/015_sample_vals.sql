-- foliobench results, version 15: a sample's values in its own row, not a
-- row a value (issue 31: a lab's database of 10^6 samples held 9.2 * 10^6
-- rows of sample_values, and the bare copy of them alone took 16 s of CPU
-- of every merge into a lab's database).  samples.vals holds the values,
-- a JSON array in the metric order the workload gave: a number (written
-- with the fewest digits that read back as the same double), null (unsupported, or not measured), a string (a
-- text value no report accepts, kept as it was written) or {"blob": hex}
-- (a blob value, the same).  samples.layout names the metrics: a row of
-- value_layouts, whose text is the JSON array of [metric, unit, better,
-- supported] in the same order, shared by the samples of a workload and
-- kept once (merge maps them by text).  sample_values is now a view of
-- them, a row a value as before, for the sqlite3 shell: its INSTEAD OF
-- triggers write a value, a metric or a row through to samples, so that
-- what was done to the table is done to the view.
CREATE TABLE value_layouts (
	id		INTEGER PRIMARY KEY,
	metrics		TEXT NOT NULL UNIQUE	-- [[metric, unit, better,
						--   supported], ...]
);

ALTER TABLE samples ADD COLUMN layout INTEGER REFERENCES value_layouts(id);
ALTER TABLE samples ADD COLUMN vals TEXT;	-- NULL: no value

-- The values of every sample, in their rowid order; a real as quote()
-- writes it (15 digits where SQLite reads them back as the same double,
-- else 20: JSON's reader, strtod, reads either back as it was; SQLite's
-- printf of 16 or 17 digits is not exact), always with a point or an
-- exponent (a real, not an integer, when read back); an infinity as a
-- number JSON reads back as one.
CREATE TEMP TABLE fb_vals (
	sample_id	INTEGER PRIMARY KEY,
	metrics		TEXT NOT NULL,
	vals		TEXT NOT NULL
);
INSERT INTO fb_vals
SELECT sample_id, json_group_array(json_array(metric, unit, better,
					       supported)),
	json_group_array(CASE typeof(value)
		WHEN 'real' THEN json(CASE
			WHEN value > 1.7976931348623157e308 THEN '9e999'
			WHEN value < -1.7976931348623157e308 THEN '-9e999'
			ELSE quote(value) END)
		WHEN 'blob' THEN json_object('blob', hex(value))
		ELSE value END)
FROM (SELECT * FROM sample_values ORDER BY sample_id, rowid)
GROUP BY sample_id;
INSERT INTO value_layouts (metrics) SELECT DISTINCT metrics FROM fb_vals;

-- the series are made from the values: they stay as they are
DROP TRIGGER run_series_samples_upd;
UPDATE samples SET vals = v.vals, layout = l.id
FROM fb_vals v JOIN value_layouts l ON l.metrics = v.metrics
WHERE v.sample_id = samples.id;
DROP TABLE fb_vals;
CREATE TRIGGER run_series_samples_upd AFTER UPDATE ON samples BEGIN
	DELETE FROM run_series WHERE run_id IN (SELECT run_id FROM cases
		WHERE id IN (OLD.case_id, NEW.case_id));
END;

DROP TABLE sample_values;	-- its index and triggers with it

-- The values that may be ones no report accepts, for merge's and upload's
-- check (schema 13's partial index, the same job): text and blobs hold a
-- quote, a negative number starts with a minus.
CREATE INDEX samples_suspect ON samples(id)
	WHERE instr(vals, '"') OR instr(vals, '[-') OR instr(vals, ',-');

CREATE VIEW sample_values (sample_id, metric, value, unit, better,
			   supported) AS
SELECT s.id, json_extract(l.metrics, '$[' || v.key || '][0]'),
	CASE v.type WHEN 'object' THEN v.value ELSE v.atom END,
	json_extract(l.metrics, '$[' || v.key || '][1]'),
	json_extract(l.metrics, '$[' || v.key || '][2]'),
	json_extract(l.metrics, '$[' || v.key || '][3]')
FROM samples s JOIN value_layouts l ON l.id = s.layout, json_each(s.vals) v;

-- What the table took, the view takes: a row inserted (appended to its
-- sample's values), updated in place, deleted; the constraints the table
-- had, checked.  A sample's values of the shell's writes are the same
-- JSON as the runner's.  A value's layout that no sample holds any more
-- stays: a few rows, and merge copies only those of the samples it copies.
CREATE TRIGGER sample_values_ins INSTEAD OF INSERT ON sample_values BEGIN
	SELECT RAISE(ABORT, 'NOT NULL constraint failed: sample_values.metric, unit or better')
	WHERE NEW.metric IS NULL OR NEW.unit IS NULL OR NEW.better IS NULL;
	SELECT RAISE(ABORT, 'CHECK constraint failed: better IN (''lower'', ''higher'')')
	WHERE NEW.better NOT IN ('lower', 'higher');
	SELECT RAISE(ABORT, 'CHECK constraint failed: supported IN (0, 1)')
	WHERE coalesce(NEW.supported, 1) NOT IN (0, 1);
	SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: sample_values.sample_id names no sample')
	WHERE NOT EXISTS (SELECT 1 FROM samples WHERE id = NEW.sample_id);
	SELECT RAISE(ABORT, 'UNIQUE constraint failed: sample_values.sample_id, sample_values.metric')
	WHERE EXISTS (SELECT 1 FROM sample_values WHERE sample_id = NEW.sample_id
		      AND metric = NEW.metric);
	INSERT OR IGNORE INTO value_layouts (metrics)
	SELECT json_insert(coalesce((SELECT metrics FROM value_layouts WHERE id = samples.layout), '[]'), '$[#]', json_array(NEW.metric, NEW.unit, NEW.better, coalesce(NEW.supported, 1)))
	FROM samples WHERE id = NEW.sample_id;
	UPDATE samples SET
		layout = (SELECT id FROM value_layouts WHERE metrics =
			json_insert(coalesce((SELECT metrics FROM value_layouts WHERE id = samples.layout), '[]'), '$[#]', json_array(NEW.metric, NEW.unit, NEW.better, coalesce(NEW.supported, 1)))),
		vals = json_insert(coalesce(vals, '[]'), '$[#]', CASE typeof(NEW.value)
		WHEN 'real' THEN json(CASE
			WHEN NEW.value > 1.7976931348623157e308 THEN '9e999'
			WHEN NEW.value < -1.7976931348623157e308 THEN '-9e999'
			ELSE quote(NEW.value) END)
		WHEN 'integer' THEN json(quote(CAST(NEW.value AS REAL)))
		WHEN 'blob' THEN json_object('blob', hex(NEW.value))
		ELSE NEW.value END)
	WHERE id = NEW.sample_id;
END;

CREATE TRIGGER sample_values_upd INSTEAD OF UPDATE ON sample_values BEGIN
	SELECT RAISE(ABORT, 'sample_values: a value moves to another sample by a DELETE and an INSERT')
	WHERE NEW.sample_id IS NOT OLD.sample_id;
	SELECT RAISE(ABORT, 'NOT NULL constraint failed: sample_values.metric, unit or better')
	WHERE NEW.metric IS NULL OR NEW.unit IS NULL OR NEW.better IS NULL;
	SELECT RAISE(ABORT, 'CHECK constraint failed: better IN (''lower'', ''higher'')')
	WHERE NEW.better NOT IN ('lower', 'higher');
	SELECT RAISE(ABORT, 'CHECK constraint failed: supported IN (0, 1)')
	WHERE coalesce(NEW.supported, 1) NOT IN (0, 1);
	SELECT RAISE(ABORT, 'UNIQUE constraint failed: sample_values.sample_id, sample_values.metric')
	WHERE NEW.metric IS NOT OLD.metric AND EXISTS (SELECT 1 FROM sample_values
		WHERE sample_id = OLD.sample_id AND metric = NEW.metric);
	INSERT OR IGNORE INTO value_layouts (metrics)
	SELECT json_set((SELECT metrics FROM value_layouts WHERE id = samples.layout), '$[' || (SELECT m.key FROM value_layouts l, json_each(l.metrics) m
		WHERE l.id = samples.layout AND m.value ->> 0 = OLD.metric) || ']', json_array(NEW.metric, NEW.unit, NEW.better, coalesce(NEW.supported, 1)))
	FROM samples WHERE id = OLD.sample_id;
	UPDATE samples SET
		layout = (SELECT id FROM value_layouts WHERE metrics =
			json_set((SELECT metrics FROM value_layouts WHERE id = samples.layout), '$[' || (SELECT m.key FROM value_layouts l, json_each(l.metrics) m
		WHERE l.id = samples.layout AND m.value ->> 0 = OLD.metric) || ']', json_array(NEW.metric, NEW.unit, NEW.better, coalesce(NEW.supported, 1)))),
		vals = json_set(vals, '$[' || (SELECT m.key FROM value_layouts l, json_each(l.metrics) m
		WHERE l.id = samples.layout AND m.value ->> 0 = OLD.metric) || ']', CASE typeof(NEW.value)
		WHEN 'real' THEN json(CASE
			WHEN NEW.value > 1.7976931348623157e308 THEN '9e999'
			WHEN NEW.value < -1.7976931348623157e308 THEN '-9e999'
			ELSE quote(NEW.value) END)
		WHEN 'integer' THEN json(quote(CAST(NEW.value AS REAL)))
		WHEN 'blob' THEN json_object('blob', hex(NEW.value))
		ELSE NEW.value END)
	WHERE id = OLD.sample_id;
END;

CREATE TRIGGER sample_values_del INSTEAD OF DELETE ON sample_values BEGIN
	INSERT OR IGNORE INTO value_layouts (metrics)
	SELECT json_remove((SELECT metrics FROM value_layouts WHERE id = samples.layout), '$[' || (SELECT m.key FROM value_layouts l, json_each(l.metrics) m
		WHERE l.id = samples.layout AND m.value ->> 0 = OLD.metric) || ']')
	FROM samples WHERE id = OLD.sample_id AND json_array_length(vals) > 1;
	UPDATE samples SET
		layout = CASE WHEN json_array_length(vals) > 1 THEN
			(SELECT id FROM value_layouts WHERE metrics =
			 json_remove((SELECT metrics FROM value_layouts WHERE id = samples.layout), '$[' || (SELECT m.key FROM value_layouts l, json_each(l.metrics) m
		WHERE l.id = samples.layout AND m.value ->> 0 = OLD.metric) || ']')) END,
		vals = CASE WHEN json_array_length(vals) > 1 THEN
			json_remove(vals, '$[' || (SELECT m.key FROM value_layouts l, json_each(l.metrics) m
		WHERE l.id = samples.layout AND m.value ->> 0 = OLD.metric) || ']') END
	WHERE id = OLD.sample_id;
END;
