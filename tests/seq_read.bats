#!/usr/bin/env bats
# seq-read at small sizes: bandwidth, latency percentiles and perf counters
# stored, unsupported counters marked so, readers and files as asked, bad
# parameters refused, and nothing left after SIGINT or SIGKILL.

load test_helper

@test "bandwidth, IOPS, latency percentiles and counters are stored" {
	fb_config '[ { "workload": "seq-read", "size": "16M", "duration": "300ms" } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_success
	assert_line --regexp '^seq-read size=16M duration=300ms: bw median [0-9]+ MiB/s \(min [0-9]+ MiB/s, max [0-9]+ MiB/s\) \[2 valid(, [12] noisy)?\]$'
	run q "select count(*) from samples where valid = 1"
	assert_output 2
	for m in bw iops lat_p50 lat_p99 lat_p999 lat_max task_clock cpus_utilized; do
		run q "select count(*) from sample_values where metric = '$m' and supported = 1 and value > 0"
		assert_output 2
	done
	for m in context_switches cpu_migrations page_faults; do
		run q "select count(*) from sample_values where metric in ('$m', '${m}_per_s') and supported = 1 and value >= 0"
		assert_output 4
	done
	for id in $(q "select id from samples"); do
		p50=$(val $id lat_p50); p99=$(val $id lat_p99)
		p999=$(val $id lat_p999); max=$(val $id lat_max)
		awk -v a="$p50" -v b="$p99" -v c="$p999" -v d="$max" \
			'BEGIN { exit !(a <= b && b <= c && c <= d) }'
		# 4k reads: IOPS is bandwidth in pages
		awk -v bw="$(val $id bw)" -v iops="$(val $id iops)" \
			'BEGIN { d = bw * 256 - iops; if (d < 0) d = -d; exit !(d / iops < 0.001) }'
		# one reader cannot use more than one CPU, nor count far past the wall
		awk -v u="$(val $id cpus_utilized)" -v tc="$(val $id task_clock)" \
			'BEGIN { exit !(u <= 1.01 && tc <= 0.31e9) }'
	done
	# verify: every read in the histogram, the whole file cached, passes made
	run q "select count(*) from samples where json_extract(verify, '$.reads') > 0 and json_extract(verify, '$.passes') > 0 and json_extract(verify, '$.cached_before_bytes') = 16777216 and json_extract(verify, '$.cached_after_bytes') = 16777216 and json_extract(verify, '$.allocated_bytes') >= 16777216"
	assert_output 2
	run q "select params from cases"
	assert_output '{"dir":"/dev/shm","size":"16M","bs":"4k","duration":"300ms","populate":"write","threads":"1","shared":"no","file":"","lat_every":"1"}'
	# every read timed, on the TSC where it is invariant
	run q "select count(*) from samples where json_extract(verify, '$.timed_reads') = json_extract(verify, '$.reads') and json_extract(verify, '$.lat_every') = 1"
	assert_output 2
	if grep -qw constant_tsc /proc/cpuinfo && grep -qw nonstop_tsc /proc/cpuinfo; then
		run q "select count(*) from samples where json_extract(verify, '$.clock_tsc') = 1"
		assert_output 2
	fi
}

@test "lat_every: every Nth read timed and said; 0 times none and stores no percentile" {
	fb_config '[ { "workload": "seq-read", "size": "8M", "duration": "200ms", "lat_every": [61, 0] } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select count(*) from samples where valid = 1"
	assert_output 4
	# ceil(reads / 61) timed reads, their percentiles ordered
	run q "select count(*) from samples where json_extract(verify, '$.lat_every') = 61 and json_extract(verify, '$.timed_reads') = (json_extract(verify, '$.reads') + 60) / 61 and json_extract(verify, '$.reads') > 61"
	assert_output 2
	run q "select count(*) from sample_values v join samples s on s.id = v.sample_id where json_extract(s.verify, '$.lat_every') = 61 and v.metric in ('lat_p50', 'lat_p99', 'lat_max') and v.supported = 1 and v.value > 0"
	assert_output 6
	for id in $(q "select id from samples where json_extract(verify, '$.lat_every') = 61"); do
		awk -v a="$(val $id lat_p50)" -v b="$(val $id lat_p99)" -v d="$(val $id lat_max)" \
			'BEGIN { exit !(a <= b && b <= d) }'
	done
	# none timed: bandwidth only, the percentiles unsupported, not 0
	run q "select count(*) from samples where json_extract(verify, '$.lat_every') = 0 and json_extract(verify, '$.timed_reads') = 0 and json_extract(verify, '$.reads') > 0"
	assert_output 2
	run q "select count(*) from sample_values v join samples s on s.id = v.sample_id where json_extract(s.verify, '$.lat_every') = 0 and v.metric like 'lat_%' and v.supported = 0 and v.value is null"
	assert_output 8
	run q "select count(*) from sample_values v join samples s on s.id = v.sample_id where json_extract(s.verify, '$.lat_every') = 0 and v.metric = 'bw' and v.value > 0"
	assert_output 2
}

@test "a counter the machine does not expose is stored as unsupported, never 0" {
	fb_config '[ { "workload": "seq-read", "size": "8M", "duration": "100ms" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	hw="instructions cycles branches branch_misses"
	if ls -d /sys/bus/event_source/devices/cpu* >/dev/null 2>&1; then
		# a hardware PMU: the counters are counted
		for m in $hw; do
			run q "select count(*) from sample_values where metric = '$m' and supported = 1 and value > 0"
			assert_output 2
		done
	else
		# this VM: no PMU, so NULL and supported = 0, rates too
		for m in $hw; do
			run q "select count(*) from sample_values where metric in ('$m', '${m}_per_s') and supported = 0 and value is null"
			assert_output 4
		done
		run q "select json_extract(verify, '$.text') from samples limit 1"
		assert_output --partial "perf counters not supported here: instructions: "
	fi
	run q "select count(*) from sample_values where supported = 0 and value is not null"
	assert_output 0
	run q "select count(*) from sample_values where metric in ('instructions', 'cycles', 'branches', 'task_clock') and value = 0"
	assert_output 0
}

@test "two readers on their own files and on one shared file" {
	fb_config '[ { "workload": "seq-read", "size": "8M", "duration": "200ms", "threads": 2, "shared": ["no", "yes"] } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select c.params like '%\"shared\":\"yes\"%', count(*), min(json_extract(verify, '$.threads')), min(json_extract(verify, '$.cached_before_bytes')) from samples s join cases c on s.case_id = c.id where s.valid = 1 group by 1 order by 1"
	assert_output "0|2|2|16777216
1|2|2|8388608"
	run q "select count(*) from sample_values where metric = 'cpus_utilized' and value > 0 and value <= 2.02"
	assert_output 4
	run q "select count(*) from sample_values where metric = 'bw' and value > 0"
	assert_output 4
}

@test "populate=fallocate in a given directory, which is left as it was" {
	mkdir "$T/d"
	fb_config "[ { \"workload\": \"seq-read\", \"size\": \"8M\", \"duration\": \"100ms\", \"populate\": \"fallocate\", \"dir\": \"$T/d\" } ]"
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select count(*) from samples where valid = 1 and json_extract(verify, '$.allocated_bytes') >= 8388608"
	assert_output 2
	run ls -A "$T/d"
	assert_output ""
}

@test "file= reads an existing file and leaves it untouched" {
	head -c 8388608 /dev/urandom > "$T/f"
	sum=$(md5sum < "$T/f")
	fb_config "[ { \"workload\": \"seq-read\", \"file\": \"$T/f\", \"size\": \"8M\", \"duration\": \"100ms\" } ]"
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select count(*) from samples where valid = 1 and json_extract(verify, '$.bytes') > 0"
	assert_output 2
	[ "$(md5sum < "$T/f")" = "$sum" ]
}

@test "bad parameters are configuration errors (78) naming the problem" {
	fb_config '[ { "workload": "seq-read", "bs": 0 } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 78
	assert_output --partial 'bs: 0 is out of range (1 to 64M)'
	fb_config '[ { "workload": "seq-read", "threads": 0 } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 78
	assert_output --partial 'threads: 0 is out of range (1 to 1024)'
	fb_config '[ { "workload": "seq-read", "dir": "tmp" } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 78
	assert_output --partial '"tmp": not an absolute path'
	fb_config '[ { "workload": "seq-read", "populate": "mmap" } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 78
	[ ! -e "$DB" ]
}

@test "what cannot run is refused before anything is made (69)" {
	fb_config '[ { "workload": "seq-read", "size": "4M", "bs": "8M" } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 69
	assert_output --partial "bs 8M is larger than size 4M"
	fb_config '[ { "workload": "seq-read", "size": "1T", "threads": 4 } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 69
	assert_output --regexp 'needs 4 TiB free in /dev/shm, has [0-9.]+ [KMGT]iB: short by [0-9.]+ [KMGT]iB$'
	[ ! -e "$DB" ]
}

# The 16M file written, read once to cache it, and read again, timed.
reading() {
	[ -e /dev/shm/foliobench.$PID/seq-read.0.0 ] &&
		[ "$(fb_io_bytes $PID)" -gt $((40 << 20)) ]
}

# A run that reads for long; returns once it is reading.
start_reading() {
	fb_config '[ { "workload": "seq-read", "size": "16M", "duration": "60s" } ]'
	fb_run_until "read its file" reading
}

@test "SIGINT while reading: exit 130 at once, run aborted, nothing left" {
	start_reading
	t0=$(date +%s%N)
	kill -INT $PID
	rc=0; wait $PID || rc=$?
	[ "$rc" -eq 130 ]
	# the readers look at the stop flag after every read
	[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 2000 ]
	run q "select status from runs"
	assert_output "aborted"
	run q "select count(*) from samples"
	assert_output 0
	[ ! -e /dev/shm/foliobench.$PID ]
}

@test "SIGKILL while reading: the next start removes the file" {
	start_reading
	kill -KILL $PID
	wait $PID || true
	[ -e /dev/shm/foliobench.$PID/seq-read.0.0 ]
	fb_config '[ { "workload": "seq-read", "size": "4M", "duration": "50ms" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	assert_line --partial "dir /dev/shm/foliobench.$PID"
	[ ! -e /dev/shm/foliobench.$PID ]
}
