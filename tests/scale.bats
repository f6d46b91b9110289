#!/usr/bin/env bats
# A lab's database (issue 20): what the reading commands do with many
# samples.  The timings are a benchmark (make bench-scale), not a test;
# these pin what must hold whatever the size.

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

# 700 more measured samples of unlink in each of the 8 complete runs of
# fx_known: 5600, past what a plot shows one by one.
many_samples() {
	q "WITH RECURSIVE n(k) AS (SELECT 100 UNION ALL SELECT k + 1 FROM n
	   WHERE k < 799)
	   INSERT INTO samples (case_id, rep, warmup, valid, verify, taken_at)
	   SELECT c.id, n.k, 0, 1, '{}', '2026-11-29T10:00:00Z'
	   FROM cases c JOIN runs r ON r.id = c.run_id, n
	   WHERE r.status = 'complete' AND c.params LIKE '%\"unlink\"%';
	   INSERT INTO sample_values (sample_id, metric, value, unit, better)
	   SELECT s.id, 'wall', 9.5e7 + (s.rep % 7) * 1e6, 'ns', 'lower'
	   FROM samples s WHERE s.rep >= 100;"
}

@test "report: past 5000 samples a plot shows one point a boot median and says so" {
	fx_known "$DB"
	many_samples
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/r.html" 6.18.0-base 6.18.0-patch
	assert_success
	# the unlink plot: 8 boot medians as points, not 5600 samples
	run grep -c "one point a boot median (the plot shows every sample only up to 5000)" "$T/r.html"
	assert_output 1
	# the counts still say every sample
	run grep -c "6.18.0-base: <span class=\"nvalid\">281[0-9]</span> valid samples in 4 boots" "$T/r.html"
	assert_output 1
	n=$(grep -o "<use xlink:href='#p[0-9]*_gpPt[0-9]*'" "$T/r.html" | wc -l)
	[ "$n" -lt 500 ] || { echo "$n points drawn" >&2; return 1; }
	[ "$(stat -c %s "$T/r.html")" -lt 400000 ]
}

@test "report: up to 5000 samples every sample is a point" {
	fx_known "$DB"
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/r.html" 6.18.0-base 6.18.0-patch
	assert_success
	run grep -c "one point a boot median" "$T/r.html"
	assert_output 0
}
