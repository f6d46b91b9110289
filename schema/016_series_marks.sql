-- foliobench results, version 16: a mark alone goes with its run's pack.
-- Since 15's merge (schema/merge_copy.c), a run copied with its pack keeps
-- only its mark (ord -1) in run_series: readers take the pack.  Should the
-- pack go (a hand edit of the run's run_series rows drops it, 14's
-- triggers), the mark alone would tell readers that the run's series rows
-- are there where there are none, and a label would be read from rows that
-- are missing.  So the mark goes too where the run has no other row: the
-- label is then read from its samples, and db_series_missing makes the
-- run's series anew at the next merge.  A run with its rows (the runner's
-- own, or one without a pack) keeps its mark: its rows hold its series.
-- (Merge runs with the triggers off and copies marks before packs.)
CREATE TRIGGER run_series_mark_alone AFTER DELETE ON run_packs
WHEN NOT EXISTS (SELECT 1 FROM run_series
		 WHERE run_id = OLD.run_id AND ord >= 0)
BEGIN
	DELETE FROM run_series WHERE run_id = OLD.run_id AND ord = -1;
END;
