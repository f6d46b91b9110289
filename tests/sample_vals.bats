#!/usr/bin/env bats
# Schema 15 (issue 31): a sample's values in its own row (samples.vals,
# named by value_layouts); sample_values a view of them, which the sqlite3
# shell reads and writes as it did the table.  Nothing is lost by the
# migration: every value (its type and bits), metric, unit, better,
# supported, in the order the workload gave.

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

# Every value as the table or the view gives it, in the order stored.
all_values() {
	sqlite3 "$1" "SELECT sample_id, metric, quote(value), typeof(value),
	  unit, better, supported FROM sample_values $2"
}

@test "schema 15: the migration from 14 keeps every value, bit for bit, with its marks and order" {
	fx_known "$DB"
	"$BENCH" runs --db "$DB" > /dev/null
	fb_to_schema14 "$DB"
	# values no report accepts, and the edges of a double, kept as they are
	q "UPDATE sample_values SET value = 0.1 + 0.2 WHERE sample_id = 1 AND metric = 'wall';
	   UPDATE sample_values SET value = '101 ms' WHERE sample_id = 2 AND metric = 'wall';
	   UPDATE sample_values SET value = x'00ff10' WHERE sample_id = 3 AND metric = 'wall';
	   UPDATE sample_values SET value = -1e-300 WHERE sample_id = 4 AND metric = 'wall';
	   UPDATE sample_values SET value = 9e999 WHERE sample_id = 5 AND metric = 'wall';
	   UPDATE sample_values SET value = NULL, supported = 0 WHERE sample_id = 6 AND metric = 'wall';
	   UPDATE sample_values SET value = NULL WHERE sample_id = 7 AND metric = 'wall';
	   UPDATE sample_values SET value = 123456789.12345679 WHERE sample_id = 8 AND metric = 'wall';
	   UPDATE sample_values SET value = 1.7976931348623157e308 WHERE sample_id = 9 AND metric = 'wall';
	   UPDATE sample_values SET value = 4.9e-324 WHERE sample_id = 10 AND metric = 'wall';
	   INSERT INTO sample_values VALUES (11, 'zz_first', 5, 'ns', 'higher', 1);
	   INSERT INTO sample_values VALUES (11, 'aa_last', 6, 'count', 'lower', 1)"
	before=$(all_values "$DB" "ORDER BY sample_id, rowid")
	[ "$(echo "$before" | grep -c .)" -gt 40 ]
	run --separate-stderr "$BENCH" runs --db "$DB"
	assert_equal "$(q 'PRAGMA user_version')" "$(fb_schema_latest)"
	assert_equal "$(q "SELECT type FROM sqlite_master WHERE name = 'sample_values'")" view
	# a blob reads back as the text that keeps it (SQLite 3.40's shell has
	# no unhex()); bench reads its bytes (bad_rows.bats)
	assert_equal "$(all_values "$DB" | grep -v '^3|wall|')" \
		"$(echo "$before" | grep -v '^3|wall|')"
	assert_equal "$(all_values "$DB" | grep '^3|wall|')" \
		"3|wall|'{\"blob\":\"00FF10\"}'|text|ns|lower|1"
	run --separate-stderr "$BENCH" merge "$T/out.db" "$DB"
	assert_failure 65
	assert_equal "$stderr" "bench: cannot merge $DB: sample_values row of sample 2 (run 1), metric wall, holds text, not a number: '101 ms'"
	q "UPDATE sample_values SET value = 1 WHERE sample_id = 2 AND metric = 'wall'"
	run --separate-stderr "$BENCH" merge "$T/out.db" "$DB"
	assert_failure 65
	assert_equal "$stderr" "bench: cannot merge $DB: sample_values row of sample 3 (run 1), metric wall, holds a blob, not a number: '\\x00\\xff\\x10'"
	# a sample's values: one row, its layout shared
	assert_equal "$(q "SELECT json_array_length(vals), vals ->> '\$[4]' FROM samples WHERE id = 11")" "5|6.0"
	assert_equal "$(q 'SELECT metrics FROM value_layouts l JOIN samples s ON s.layout = l.id WHERE s.id = 11')" \
		'[["wall","ns","lower",1],["ns_per_folio","ns/folio","lower",1],["folios","count","lower",1],["zz_first","ns","higher",1],["aa_last","count","lower",1]]'
	[ "$(q 'SELECT count(*) FROM value_layouts')" -lt "$(q 'SELECT count(*) FROM samples')" ]
	# no table of a row a value is left
	assert_equal "$(q "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'sample_values'")" 0
	run q "PRAGMA integrity_check; PRAGMA foreign_key_check"
	assert_output ok
}

@test "schema 15: the shell writes through the view as into the table, its constraints kept" {
	fx_known "$DB"
	"$BENCH" runs --db "$DB" > /dev/null
	before=$(all_values "$DB" "WHERE sample_id <> 2")
	# a value updated, then a metric's unit: a new layout, the others kept
	q "UPDATE sample_values SET value = 100 WHERE sample_id = 2 AND metric = 'wall'"
	q "UPDATE sample_values SET value = value * 2 WHERE sample_id = 2 AND metric = 'wall'"
	assert_equal "$(q "SELECT value FROM sample_values WHERE sample_id = 2 AND metric = 'wall'")" 200.0
	n=$(q 'SELECT count(*) FROM value_layouts')
	q "UPDATE sample_values SET unit = 'us' WHERE sample_id = 2 AND metric = 'wall'"
	assert_equal "$(q 'SELECT count(*) FROM value_layouts')" $((n + 1))
	assert_equal "$(q "SELECT group_concat(unit, ' ') FROM sample_values WHERE sample_id = 2")" "us ns/folio count"
	# appended in the order inserted; deleted; the last one takes the row's
	q "INSERT INTO sample_values (sample_id, metric, value, unit, better) VALUES (2, 'b', 1.5, 'ns', 'lower');
	   INSERT INTO sample_values (sample_id, metric, value, unit, better, supported) VALUES (2, 'a', NULL, 'ns', 'lower', 0)"
	assert_equal "$(q "SELECT group_concat(metric || '=' || ifnull(value, 'NULL') || ':' || supported, ' ') FROM sample_values WHERE sample_id = 2 AND metric IN ('wall', 'a', 'b')")" \
		"wall=200.0:1 b=1.5:1 a=NULL:0"
	q "DELETE FROM sample_values WHERE sample_id = 2 AND metric IN ('b', 'ns_per_folio', 'folios')"
	assert_equal "$(q 'SELECT vals FROM samples WHERE id = 2')" "[200.0,null]"
	q "DELETE FROM sample_values WHERE sample_id = 2"
	assert_equal "$(q 'SELECT quote(vals), quote(layout) FROM samples WHERE id = 2')" "NULL|NULL"
	# the table's constraints
	run sqlite3 "$DB" "INSERT INTO sample_values VALUES (1, 'wall', 1, 'ns', 'lower', 1)"
	assert_failure
	assert_output --partial "UNIQUE constraint failed: sample_values.sample_id, sample_values.metric"
	run sqlite3 "$DB" "INSERT INTO sample_values VALUES (1, 'x', 1, 'ns', 'sideways', 1)"
	assert_failure
	assert_output --partial "CHECK constraint failed: better IN ('lower', 'higher')"
	run sqlite3 "$DB" "INSERT INTO sample_values VALUES (1, 'x', 1, NULL, 'lower', 1)"
	assert_failure
	assert_output --partial "NOT NULL constraint failed"
	run sqlite3 "$DB" "UPDATE sample_values SET sample_id = 3 WHERE sample_id = 1"
	assert_failure
	assert_output --partial "a value moves to another sample by a DELETE and an INSERT"
	# the other samples untouched
	assert_equal "$(all_values "$DB" "WHERE sample_id <> 2")" "$before"
}
