-- foliobench results, version 13: the values no report accepts found
-- without reading every value.  Merge checks every value of its input
-- before it copies anything, upload every value of a run before it sends
-- it (schema/db_values.c): a text or blob value, or one below zero (a
-- negative time).  At 10^6 samples that check read 9.2 * 10^6 rows, 1.5 s
-- of CPU of every merge, one that adds nothing too (issue 31); this
-- partial index holds only such rows, none in a healthy database.
CREATE INDEX sample_values_suspect ON sample_values(sample_id)
	WHERE typeof(value) IN ('text', 'blob') OR value < 0;
