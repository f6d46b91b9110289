#!/usr/bin/env bats
# Interruptions: SIGINT and SIGTERM clean up and mark the run aborted;
# after SIGKILL the next start mends what was left; one runner at a time.

load test_helper

KNOB=/sys/kernel/mm/transparent_hugepage/shmem_enabled

# A run slow enough to interrupt: memfds of PMD folios (the runner changes
# shmem_enabled while each is filled), written, not fallocated.
slow_config() {
	fb_config '[ { "workload": "shmem-remove", "op": "memfd-close", "folio": "pmd", "size": "1G", "populate": "write" } ]' 0 200
}

# The runner has changed the knob: it is filling a file.
filling() { [ "$(cat $KNOB)" != "$THP_BEFORE_KNOB" ]; }

# Start a run in the background; wait until it is filling a file.
start_bg() { fb_run_until "started filling" filling; }

setup() {
	fb_setup
	THP_BEFORE_KNOB=$(cat $KNOB)
}

@test "SIGINT mid-run: exit 130, run aborted, nothing left, knob restored" {
	slow_config
	start_bg
	kill -INT $PID
	rc=0; wait $PID || rc=$?
	[ "$rc" -eq 130 ]
	run cat "$T/err"
	assert_output --regexp "^bench: interrupted by Interrupt: run [0-9a-f-]+ marked aborted\$"
	run q "select status, status_reason from runs"
	assert_output "aborted|Interrupt"
	run q "select status from cases"
	assert_output "aborted"
	[ "$(cat $KNOB)" = "$THP_BEFORE_KNOB" ]
	[ -z "$(ls -d /dev/shm/foliobench* 2>/dev/null)" ]
}

@test "SIGTERM mid-run: exit 143 and the same cleanup" {
	slow_config
	start_bg
	kill -TERM $PID
	rc=0; wait $PID || rc=$?
	[ "$rc" -eq 143 ]
	run q "select status from runs"
	assert_output "aborted"
	[ "$(cat $KNOB)" = "$THP_BEFORE_KNOB" ]
}

@test "SIGKILL mid-run: the next start mends the knob, scratch and run" {
	slow_config
	start_bg
	kill -KILL $PID
	wait $PID || true
	# what a killed run leaves: a changed knob, its scratch dir, a running run
	[ "$(cat $KNOB)" != "$THP_BEFORE_KNOB" ]
	[ -d /dev/shm/foliobench.$PID ]
	run q "PRAGMA integrity_check"
	assert_output "ok"
	run q "select status from runs"
	assert_output "running"
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	assert_line --regexp "^bench: mended what an earlier run left: .*knob $KNOB"
	assert_line --partial "dir /dev/shm/foliobench.$PID"
	assert_line "bench: marked 1 run that died as aborted"
	[ "$(cat $KNOB)" = "$THP_BEFORE_KNOB" ]
	[ ! -e /dev/shm/foliobench.$PID ]
	run q "select status, status_reason from runs order by id"
	assert_output "aborted|the runner died (found at the next start)
complete|"
}

@test "a second runner is told another one is running, and exits 75" {
	slow_config
	start_bg
	run "$BENCH" run --config "$T/config.json" --db "$T/other.db"
	assert_failure 75
	assert_output "bench: another foliobench runner (pid $PID) is running on this machine; wait for it to finish"
	[ ! -e "$T/other.db" ]
	kill -INT $PID
	wait $PID || true
}

@test "one runner per machine: another state dir, or the state dir removed, does not let a second runner in (75)" {
	local st
	export FOLIOBENCH_STATE=$T/state-a
	slow_config
	start_bg
	for st in "$T/state-b" "$T/state-a"; do
		rm -rf "$T/state-a"
		FOLIOBENCH_STATE=$st run "$BENCH" run --config "$T/config.json" --db "$T/other.db"
		assert_failure 75
		assert_output "bench: another foliobench runner (pid $PID) is running on this machine; wait for it to finish"
		FOLIOBENCH_STATE=$st run "$BENCH" check --config "$T/config.json"
		assert_failure 75
	done
	[ ! -e "$T/other.db" ]
	kill -INT $PID
	wait $PID || true
	# the first gone, the next one runs
	FOLIOBENCH_STATE=$T/state-b run "$BENCH" check --config "$T/config.json"
	assert_success
}
