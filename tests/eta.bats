#!/usr/bin/env bats
# The progress line's estimate of the time left: with FOLIOBENCH_ETA_LOG the
# runner appends, per case begun, the estimate it gave at the case's start
# and the real time left from then (the arithmetic is in test_eta.c).

load test_helper

@test "FOLIOBENCH_ETA_LOG: the estimate at each case's start and the real time left" {
	fb_config '[ { "workload": "seq-read", "size": "8M", "duration": ["200ms", "300ms"] } ]' 1 2
	FOLIOBENCH_ETA_LOG="$T/eta.log" run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run cat "$T/eta.log"
	assert_line --index 0 '# case  eta_at_start_s  real_left_s  eta/real'
	assert_line --index 1 --regexp '^seq-read size=8M duration=200ms  [0-9]+\.[0-9]  [0-9]+\.[0-9]  [0-9]+\.[0-9]{3}$'
	assert_line --index 2 --regexp '^seq-read size=8M duration=300ms  [0-9]+\.[0-9]  [0-9]+\.[0-9]  [0-9]+\.[0-9]{3}$'
	[ "${#lines[@]}" -eq 3 ]
	# real time left: three reps of 200 ms and three of 300 ms at least
	# from the first case's start, the three of 300 ms from the second's
	awk 'NR == 2 { r1 = $5; if (r1 < 1.5) bad = 1 }
	     NR == 3 { if (!($5 >= 0.9 && $5 < r1)) bad = 1 }
	     END { exit bad }' "$T/eta.log"
}

@test "without FOLIOBENCH_ETA_LOG no log is written" {
	fb_config '[ { "workload": "seq-read", "size": "8M", "duration": "100ms" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	[ -z "$(ls "$T" | grep -i eta)" ]
}
