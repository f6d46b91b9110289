#!/usr/bin/env bats
# A lab's database (issue 20): what the reading commands do with many
# samples.  The timings are a benchmark (make bench-scale), not a test;
# these pin what must hold whatever the size.

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

# N more measured samples of unlink in each of the 8 complete runs of
# fx_known (24 of its own): 700 make 5624, past what a plot shows one by
# one.
many_samples() {
	q "WITH RECURSIVE n(k) AS (SELECT 100 UNION ALL SELECT k + 1 FROM n
	   WHERE k < 99 + $1)
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
	many_samples 700
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

# Points gnuplot drew on the page $1.
points() { grep -o "<use xlink:href='#p[0-9]*_gpPt[0-9]*'" "$1" | wc -l; }

# Valid measured samples of unlink in the complete runs: what its plot holds.
nvalid_unlink() {
	q "SELECT count(*) FROM samples s JOIN cases c ON c.id = s.case_id
	   JOIN runs r ON r.id = c.run_id WHERE r.status = 'complete'
	   AND s.warmup = 0 AND s.valid = 1 AND c.params LIKE '%\"unlink\"%'"
}

@test "report: up to 5000 samples every sample is a point" {
	local n0
	fx_known "$DB"
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/r0.html" 6.18.0-base 6.18.0-patch
	assert_success
	n0=$(points "$T/r0.html")
	# unlink's plot at 5000 samples: 4976 more points, nothing thinned
	many_samples 622
	[ "$(nvalid_unlink)" = 5000 ]
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/r.html" 6.18.0-base 6.18.0-patch
	assert_success
	run grep -c "one point a boot median" "$T/r.html"
	assert_output 0
	[ "$(points "$T/r.html")" = $((n0 + 4976)) ] ||
		{ echo "$(points "$T/r.html") points drawn, not $n0 + 4976" >&2; return 1; }
	# one more, and the plot shows boot medians
	q "INSERT INTO samples (case_id, rep, warmup, valid, verify, taken_at)
	   SELECT case_id, 1000, 0, 1, '{}', taken_at FROM samples WHERE rep = 100 LIMIT 1;
	   INSERT INTO sample_values (sample_id, metric, value, unit, better)
	   VALUES (last_insert_rowid(), 'wall', 9.6e7, 'ns', 'lower')"
	[ "$(nvalid_unlink)" = 5001 ]
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/r.html" 6.18.0-base 6.18.0-patch
	assert_success
	run grep -c "one point a boot median (the plot shows every sample only up to 5000)" "$T/r.html"
	assert_output 1
}

# N more boots of each kernel of fx_known (runs copied from its first run
# of each, with other uuids and boot ids), 11 samples of unlink each.
many_boots() {
	q "WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n
	   WHERE k < $1)
	   INSERT INTO runs (uuid, label, kernel_release, kernel_version,
	     boot_id, hostname, cpu_model, vcpus, mem_bytes, cmdline, thp,
	     tmpfs, topology, tool_version, config, pid, started_at, ended_at,
	     status, virt)
	   SELECT printf('%s-%05d', r.uuid, n.k), r.label, r.kernel_release,
	     r.kernel_version, printf('%s-%05d', r.boot_id, n.k), r.hostname,
	     r.cpu_model, r.vcpus, r.mem_bytes, r.cmdline, r.thp, r.tmpfs,
	     r.topology, r.tool_version, r.config, r.pid,
	     printf('2026-12-%02dT00:00:00Z', 1 + n.k % 28), r.ended_at,
	     'complete', r.virt
	   FROM runs r, n WHERE r.id IN (1, 5);
	   INSERT INTO cases (run_id, seq, workload, params, status)
	   SELECT r.id, 1, c.workload, c.params, 'done' FROM runs r
	   JOIN cases c ON c.run_id = 1 AND c.params LIKE '%\"unlink\"%'
	   WHERE r.id > 9;
	   WITH RECURSIVE n(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM n
	   WHERE k < 10)
	   INSERT INTO samples (case_id, rep, warmup, valid, verify, taken_at)
	   SELECT c.id, n.k, 0, 1, '{}', '2026-12-01T00:00:00Z'
	   FROM cases c JOIN runs r ON r.id = c.run_id, n WHERE r.id > 9;
	   INSERT INTO sample_values (sample_id, metric, value, unit, better)
	   SELECT s.id, 'wall', (CASE r.label WHEN '6.18.0-base' THEN 1e8
	     ELSE 8e7 END) + (s.id % 13) * 1e5, 'ns', 'lower'
	   FROM samples s JOIN cases c ON c.id = s.case_id
	   JOIN runs r ON r.id = c.run_id WHERE r.id > 9;"
}

@test "report: past 400 boots a kernel a plot shows groups of boots, and says so" {
	fx_known "$DB"
	many_boots 900
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/r.html" 6.18.0-base 6.18.0-patch
	assert_success
	run grep -c "6.18.0-base: <span class=\"nvalid\">99[0-9][0-9]</span> valid samples in 904 boots" "$T/r.html"
	assert_output 1
	run grep -c "past 400 boots a kernel, one point a group of up to 3 consecutive boots: the median of their boot medians" "$T/r.html"
	assert_output 1
	# about 302 groups a kernel, a point and a bar each, not 1808 boots
	n=$(grep -o "<use xlink:href='#p[0-9]*_gpPt[0-9]*'" "$T/r.html" | wc -l)
	[ "$n" -lt 700 ] || { echo "$n points drawn" >&2; return 1; }
	[ "$n" -gt 500 ] || { echo "$n points drawn" >&2; return 1; }
}

@test "report: up to 400 boots a kernel every boot median is a point" {
	fx_known "$DB"
	many_boots 396
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/r.html" 6.18.0-base 6.18.0-patch
	assert_success
	run grep -c "one point a boot median" "$T/r.html"
	assert_output 1
	run grep -c "past 400 boots" "$T/r.html"
	assert_output 0
	n=$(grep -o "<use xlink:href='#p[0-9]*_gpPt[0-9]*'" "$T/r.html" | wc -l)
	[ "$n" -gt 750 ] || { echo "$n points drawn" >&2; return 1; }
}
