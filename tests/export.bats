#!/usr/bin/env bats
# bench export: one kernel's results for a changelog, from databases of
# known samples (tests/fixtures): the median of each boot, the mean across
# boots and its spread, in every format.

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

@test "text: mean of boot medians, spread and CI; aborted runs left out" {
	fx_known "$DB"
	run --separate-stderr "$BENCH" export --db "$DB" 6.18.0-patch
	assert_success
	assert_equal "$stderr" ""
	assert_output - <<EOF
label  6.18.0-patch  4 boots, 4 complete runs, kernel 6.18.0-patch

shmem-remove     value   ±sd   95% CI of the value  boots  runs
op=unlink     80.25 ms  0.8%  79.27 ms to 81.23 ms      4     3
op=ftruncate  50.17 ms  0.4%  49.82 ms to 50.53 ms      4     3

$(fb_method export-text median=3 boots=4 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate")
EOF
}

@test "changelog: at most 75 plain columns" {
	fx_known "$DB"
	run --separate-stderr "$BENCH" export --db "$DB" --format changelog \
		6.18.0-patch
	assert_success
	assert_output - <<EOF
6.18.0-patch

shmem-remove         value  spread
unlink()          80.25 ms  +-0.8%
ftruncate() to 0  50.17 ms  +-0.4%

$(fb_method export-changelog median=3 boots=4 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate")
EOF
	narrow_ascii 75
}

@test "markdown" {
	fx_known "$DB"
	run --separate-stderr "$BENCH" export --db "$DB" --format markdown \
		6.18.0-patch
	assert_success
	assert_output - <<EOF
| shmem-remove | 6.18.0-patch | ±sd | 95% CI | boots | runs |
| --- | ---: | ---: | ---: | ---: | ---: |
| unlink() | 80.25 ms | 0.8% | 79.27 ms to 81.23 ms | 4 | 3 |
| ftruncate() to 0 | 50.17 ms | 0.4% | 49.82 ms to 50.53 ms | 4 | 3 |

$(fb_method export-markdown median=3 boots=4 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate")
EOF
}

@test "csv: every metric, raw values" {
	fx_known "$DB"
	run --separate-stderr "$BENCH" export --db "$DB" --format csv \
		6.18.0-patch
	assert_success
	assert_output - <<'EOF'
workload,params,asked,metric,unit,better,primary,label,boots,runs_min,runs_max,mean,sd,spread_units,spread,ci_low,ci_high
shmem-remove,"{""op"":""unlink"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,wall,ns,lower,yes,6.18.0-patch,4,3,3,80250000,613731.7547,boots,613731.7547,79273415.82,81226584.18
shmem-remove,"{""op"":""unlink"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,ns_per_folio,ns/folio,lower,no,6.18.0-patch,4,3,3,4898.071289,37.4592134,boots,37.4592134,4838.465321,4957.677257
shmem-remove,"{""op"":""unlink"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,folios,count,lower,no,6.18.0-patch,4,3,3,16384,0,boots,0,16384,16384
shmem-remove,"{""op"":""ftruncate"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,wall,ns,lower,yes,6.18.0-patch,4,3,3,50175000,221735.5783,boots,221735.5783,49822169.21,50527830.79
shmem-remove,"{""op"":""ftruncate"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,ns_per_folio,ns/folio,lower,no,6.18.0-patch,4,3,3,3062.438965,13.53366556,boots,13.53366556,3040.903883,3083.974047
shmem-remove,"{""op"":""ftruncate"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,folios,count,lower,no,6.18.0-patch,4,3,3,16384,0,boots,0,16384,16384
EOF
}

@test "json: versioned, valid against its schema, the result in its fields" {
	fx_begin "$DB"
	fx_unlink_boots A a 98
	fx_end
	run --separate-stderr "$BENCH" export --db "$DB" --format json A
	assert_success
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out.json"
	fb_json_valid export "$T/out.json"
	fb_json_head "$T/out.json" export "$(fb_method export-json median=3 boots=2 "case=64 MiB file")"
	run jq -r '.label | [.label, .db_label, .boots,
		([.runs[] | .uuid[-1:] + ":" + .boot_id + ":" + .hostname] |
		 join(" "))] | @tsv' "$T/out.json"
	assert_output "A	A	2	1:a1:testhost 2:a2:testhost"
	# the row: the mean of the boot medians, their sd, the CI of the mean
	# (t with 1 df: 101e6 +- 12.706 * 1e6)
	run jq -r '.rows | length, (.[0] | [.workload, .params.op, .name,
		.metric, .unit, .better, .primary, .units, .value.boots,
		.value.runs_min, .value.runs_max,
		(.value.boot_medians | map(tostring) | join(" ")), .value.mean,
		(.value.sd | round), (.spread | round),
		(.ci95 | map(round) | map(tostring) | join(" "))] | @tsv)' \
		"$T/out.json"
	assert_output "1
shmem-remove	unlink	op=unlink	wall	ns	lower	true	boots	2	3	3	100000000 102000000	101000000	1414214	1414214	88293795 113706205"
	run jq -r '[(.unmeasurable | length), (.kernel_warnings | length),
		has("patch"), has("geometric_mean")] | @tsv' "$T/out.json"
	assert_output "0	0	false	false"
}

@test "one boot: the spread comes from its runs, and says so" {
	fx_begin "$DB"
	fx_run A boot-a
	fx_remove_case unlink
	fx_wall w120 100.0 101.2 99.6 100.4 100.8
	fx_end
	run --separate-stderr "$BENCH" export --db "$DB" --format changelog A
	assert_success
	assert_output - <<EOF
A

shmem-remove     value  spread
unlink()      100.4 ms  +-0.6%

$(fb_method export-changelog mean=5 boots=1 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate" within=all)
EOF
	narrow_ascii 75
	run --separate-stderr "$BENCH" export --db "$DB" A
	assert_success
	assert_output - <<EOF
label  A  1 boot, 1 complete run, kernel A

shmem-remove     value   ±sd  95% CI of the value  boots  runs
op=unlink     100.4 ms  0.6%  99.6 ms to 101.2 ms      1     5

$(fb_method export-text mean=5 boots=1 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate" within=all)
EOF
}

@test "two boots: the boot-to-boot variance cannot be judged" {
	fx_begin "$DB"
	fx_run A a1; fx_remove_case unlink; fx_wall 100.0 101.2 99.6
	fx_run A a2; fx_remove_case unlink; fx_wall 101.5 100.9 102.3
	fx_end
	run --separate-stderr "$BENCH" export --db "$DB" --format changelog A
	assert_success
	assert_output - <<EOF
A

shmem-remove     value  spread
unlink()      100.8 ms  +-1.1%

$(fb_method export-changelog median=3 boots=2 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate" few)
EOF
}

@test "two workloads, a throughput and a metric not measurable here" {
	fx_mixed "$DB"
	run --separate-stderr "$BENCH" export --db "$DB" --format changelog K2
	assert_success
	assert_output - <<EOF
K2

                                                     value  spread
shmem-remove                                      90.33 ms  +-0.7%
seq-read, pattern=sequential-with-readahead     4420 MiB/s  +-0.8%
seq-read, pattern=sequential-without-readahead  3008 MiB/s  +-0.4%

$(fb_method export-changelog median=3 boots=3 "case=shmem-remove: 64 MiB file of 4K folios, op=unlink, dir=/dev/shm, populate=fallocate; seq-read: 1 GiB file")
Not measurable on these machines: shmem-remove cycles.
EOF
	narrow_ascii 75
	"$BENCH" export --db "$DB" --format json K2 > "$T/out.json"
	fb_json_valid export "$T/out.json"
	run jq -r '.unmeasurable[], (.rows[] | [.workload, .metric, .unit,
		.better, .value.boots] | @tsv)' "$T/out.json"
	assert_output "shmem-remove cycles
shmem-remove	wall	ns	lower	3
seq-read	bandwidth	MiB/s	higher	3
seq-read	bandwidth	MiB/s	higher	3"
}

@test "changelog: a label, names and paths too long for a line are broken" {
	fx_long "$DB"
	run --separate-stderr "$BENCH" export --db "$DB" --format changelog \
		"$FX_LONG_LABEL"
	assert_success
	assert_equal "$stderr" ""
	assert_output - <<EOF
6.18.0-rc3-next-20261128-mm-unstable-folio-batch-truncate-v4-kasan-lockdep-
dbg1+

seq-read       value  spread
dir=/var/tmp/foliobench/scratch/ext4-on-nvme0n1p3/
  a-mount-point-with-a-rather-long-name/fast
          4010 MiB/s  +-0.9%
dir=/var/tmp/foliobench/scratch/ext4-on-nvme0n1p3/
  a-mount-point-with-a-rather-long-name/slow
          1003 MiB/s  +-0.8%

$(fb_method export-changelog median=3 boots=3 "case=1 GiB file, file=/srv/benchmarks/page-cache/datasets/one-gibibyte-of-random-bytes-for-sequential-reads.bin")
EOF
	narrow_ascii 75
}

@test "one boot among several: that row is the mean of its runs, and says so" {
	fx_begin "$DB"
	local b
	for b in 0 1 2; do
		fx_run A "a-boot-$b"
		fx_remove_case unlink
		fx_wall "80.$b" "81.$b" "79.$b"
		[ $b != 0 ] && continue
		# ftruncate in the first boot only: 1, 2 and 6 ms, median
		# 2 ms, mean 3 ms; the CI (3 +- 4.303 * sqrt(7) / sqrt(3)) is of
		# the mean, so the value must be the mean too
		fx_remove_case ftruncate
		fx_wall 1 2 6
	done
	fx_end
	run --separate-stderr "$BENCH" export --db "$DB" A
	assert_success
	assert_output - <<EOF
label  A  3 boots, 3 complete runs, kernel A

shmem-remove     value    ±sd    95% CI of the value  boots  runs
op=unlink     80.10 ms   0.1%   79.85 ms to 80.35 ms      3     3
op=ftruncate  3.000 ms  88.2%  -3.572 ms to 9.572 ms      1     3

$(fb_method export-text median=3 boots=1-3 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate" within=some)
EOF
}

@test "errors: each its own exit code" {
	run "$BENCH" export --db "$T/none.db" A
	assert_failure 66
	assert_output "bench: no database at $T/none.db (record runs with \`bench run\` first)"
	fx_begin "$DB"
	fx_end
	run "$BENCH" export --db "$DB" A
	assert_failure 72
	assert_output "bench: $DB holds no runs yet (record some with \`bench run\`)"
	fx_known "$DB.k"
	run "$BENCH" export --db "$DB.k" 6.18.0-patc
	assert_failure 67
	assert_output "bench: no run has the label '6.18.0-patc' in $DB.k; did you mean '6.18.0-patch'?"
	fx_begin "$DB.a"
	fx_run broken b1 aborted
	fx_end
	run "$BENCH" export --db "$DB.a" broken
	assert_failure 68
	assert_output "bench: label 'broken' has 1 run in $DB.a but none complete (see \`bench runs\`)"
	sqlite3 "$DB.k" "PRAGMA user_version = 99"
	run "$BENCH" export --db "$DB.k" 6.18.0-patch
	assert_failure 76
	assert_output "bench: cannot read $DB.k: schema version 99 is newer than this tool's $(fb_schema_latest); use a newer foliobench"
}

@test "usage errors: 64" {
	run "$BENCH" export
	assert_failure 64
	assert_line --index 0 "bench: export takes one label"
	run "$BENCH" export A B
	assert_failure 64
	run "$BENCH" export --format yaml A
	assert_failure 64
	assert_output "bench: unknown format 'yaml' (text, changelog, markdown, csv, json, benchstat, folded, run-json)"
	run "$BENCH" export ''
	assert_failure 64
	assert_output "bench: empty label: name one (make export LABEL=...)"
}

@test "end to end: a real run exported" {
	fb_config '[{"workload":"shmem-remove","op":["unlink","ftruncate"],"size":"64M","folio":"4k"}]'
	run "$BENCH" run --config "$T/config.json" --label A --quiet
	assert_success
	run --separate-stderr "$BENCH" export --db "$DB" --format changelog A
	assert_success
	assert_line --index 0 "A"
	assert_line --index 1 --regexp '^shmem-remove +value +spread$'
	assert_line --index 2 --regexp '^unlink\(\) +[0-9.]+ ms +\+-[0-9.]+%$'
	assert_line --index 3 --regexp '^ftruncate\(\) to 0 +[0-9.]+ ms +\+-[0-9.]+%$'
	local notes=${output//$'\n'/ }
	[[ $notes == *"Mean of 2 runs in one boot, $(fx_where); 64 MiB file of 4K folios"* ]]
	[[ $notes == *"Spread: standard deviation of the runs of a single boot, which does not show how much boots differ."* ]]
	narrow_ascii 75
}

# A sample's values set in its row as JSON (schema 15), as a writer other
# than the runner may have: quote()'s digits, an integer, -0, null.
set_vals() {
	q "UPDATE samples SET vals = '$2' WHERE id = $1"
}

first_base_sample() {
	q "SELECT min(s.id) FROM samples s JOIN cases c ON c.id = s.case_id
	   WHERE c.run_id = 1 AND s.valid = 1 AND s.warmup = 0"
}

@test "export --format benchstat: values read from each sample's row as json_each reads them: digits, integers, -0, null" {
	fx_known "$DB"
	local id
	id=$(first_base_sample)
	# 20 digits as quote() writes them, an integer, a -0; null: not measured
	set_vals "$id" '[1.0000000000000000209e8, 6103, -0.0]'
	set_vals $((id + 1)) '[ 99000000 ,null , 16384.0 ]'
	run --separate-stderr "$BENCH" export --db "$DB" --format benchstat \
		6.18.0-base
	assert_success
	assert_equal "$stderr" ""
	assert_line "BenchmarkShmemRemove/op=unlink/size=64M/folio=4k/dir=%2Fdev%2Fshm/populate=fallocate 1 0.1 sec/op 6.103e-06 ns_per_folio-sec/folio -0 folios/op"
	assert_line "BenchmarkShmemRemove/op=unlink/size=64M/folio=4k/dir=%2Fdev%2Fshm/populate=fallocate 1 0.099 sec/op 16384 folios/op"
	# the view reads the same values (its quote() drops -0's sign)
	assert_equal "$(q "SELECT group_concat(quote(value), ' ') FROM sample_values WHERE sample_id = $id")" \
		"100000000.0 6103 0.0"
	assert_equal "$(q "SELECT group_concat(ifnull(value, 'NULL'), ' ') FROM sample_values WHERE sample_id = $((id + 1))")" \
		"99000000 NULL 16384.0"
}

@test "export --format benchstat: an infinite value is refused; values that are no JSON are SQLite's error" {
	fx_known "$DB"
	local id
	id=$(first_base_sample)
	set_vals "$id" '[9e999, 6103, 16384]'
	run --separate-stderr "$BENCH" export --db "$DB" --format benchstat \
		6.18.0-base
	assert_equal "$status" 65
	assert_equal "$stderr" "bench: shmem-remove {\"op\":\"unlink\",$FX_PARAMS_BASE}: metric wall has a value that is not a finite number"
	set_vals "$id" '[1e8, 6103,'
	run --separate-stderr "$BENCH" export --db "$DB" --format benchstat \
		6.18.0-base
	assert_equal "$status" 74
	assert_equal "$stderr" "bench: cannot read $DB: cannot read samples: malformed JSON"
}
