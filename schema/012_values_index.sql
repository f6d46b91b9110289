-- foliobench results, version 12: sample_values loses the index on
-- sample_id alone that version 7 gave the reports' read path.  The reports
-- read run_series (version 10), not sample_values; what still reads a
-- sample's values (a run's series when it ends, export, upload, a run
-- without its series) finds them through the primary key (sample_id,
-- metric) and puts a sample's few values in rowid order with a small sort.
-- Every value a merge or a run writes went into three b-trees, the table
-- and two indexes that both start with sample_id: a third of the time of
-- a merge's largest copy (10^7 rows into a lab's database, issue 31).
DROP INDEX sample_values_sample;
