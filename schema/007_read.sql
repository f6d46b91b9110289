-- foliobench results, version 7: indexes for the reports' read path on a
-- lab's database (a year of many machines merged into one), so that a
-- label's values come in the order reports take them with no sort: a
-- label's complete runs in time order (this replaces runs_label, its
-- prefix), and a sample's values in the order stored (an index on
-- sample_id alone keeps rowid order within a sample, the metric order the
-- workload gave; the primary key keeps metric name order).
CREATE INDEX runs_label_time ON runs(label, status, started_at, id);
DROP INDEX runs_label;
CREATE INDEX sample_values_sample ON sample_values(sample_id);
