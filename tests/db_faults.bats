#!/usr/bin/env bats
# The database survives faults: a disk that fills mid-run, a read-only
# file system, a file that is not SQLite, a truncated one, one locked by
# another process.  The database lives on a small tmpfs of the test's own,
# always unmounted at teardown.

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

setup() {
	fb_setup
	MNT=$T/small
	mkdir -p "$MNT"
	mount -t tmpfs -o size=4M fbtest-db "$MNT"
	DB=$MNT/results.db
}

teardown() {
	[ -n "$LOCKER" ] && { exec 8>&-; wait "$LOCKER" || true; }
	[ -n "$BG" ] && { kill "$BG" 2>/dev/null; wait "$BG" || true; }
	umount "$MNT"
	fb_teardown
}

# run on the test's database: bench_run [RUNS]
bench_run() {
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]' 0 "${1:-2}"
	run "$BENCH" run --config "$T/config.json" --db "$DB" --quiet
}

@test "disk full mid-run: exit 74, what was committed is kept, integrity ok, the run shown dead, the next run works" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]' 0 1000
	"$BENCH" run --config "$T/config.json" --db "$DB" --quiet >"$T/out" 2>"$T/err" &
	BG=$!
	for _ in $(seq 400); do
		# no table yet, or the runner holds the lock: ask again
		n=$(q "select count(*) from samples" 2>/dev/null) || n=0
		[ "${n:-0}" -ge 3 ] && break
		sleep 0.05
	done
	[ "${n:-0}" -ge 3 ]
	# fill what is left of the file system
	dd if=/dev/zero of="$MNT/filler" bs=64k 2>/dev/null || true
	rc=0; wait $BG || rc=$?
	BG=
	[ "$rc" -eq 74 ]
	run cat "$T/err"
	assert_line "bench: cannot store a sample in $DB: the disk is full (database or disk is full); what was stored before is kept"
	# the run's end cannot be written either: said, with who sees it dead
	assert_line --regexp "^bench: cannot mark the run failed in $DB: the disk is full \(.*\); it stays 'running' there: \`bench runs\` shows it dead, and the next \`bench run\` or \`bench check\` marks it aborted\$"
	run --separate-stderr "$BENCH" runs --db "$DB"
	assert_success
	assert_line --index 1 --regexp "^1 +[-0-9a-f]{36} .* dead +[-0-9T:]+Z "
	assert_equal "$stderr" "bench: warning: 1 run stored as running is dead: its runner is gone (it died, or could not write the end: a full disk); the next \`bench run\` or \`bench check\` marks it aborted"
	run q "PRAGMA integrity_check"
	assert_output ok
	# every sample committed before is there, whole, with its values
	run q "select count(*) >= $n, count(*) < 1000 from samples"
	assert_output "1|1"
	run q "select count(distinct n), min(n) > 0 from (select (select count(*) from sample_values v where v.sample_id = s.id) n from samples s)"
	assert_output "1|1"
	kept=$(q "select count(*) from samples")
	# with space again, the next run works and marks the dead one aborted
	rm "$MNT/filler"
	bench_run
	assert_success
	assert_line "bench: marked 1 run that died as aborted"
	run q "select status from runs order by id"
	assert_output "aborted
complete"
	run q "select count(*) from samples s join cases c on s.case_id = c.id where c.run_id = 1"
	assert_output "$kept"
	run q "PRAGMA integrity_check"
	assert_output ok
}

@test "a database on a read-only file system: exit 74, said so, nothing written" {
	bench_run
	assert_success
	before=$(md5sum "$DB")
	mount -o remount,ro "$MNT"
	bench_run
	assert_failure 74
	assert_line "bench: cannot open database $DB: it cannot be written (its file system is mounted read-only)"
	mount -o remount,rw "$MNT"
	[ "$(md5sum "$DB")" = "$before" ]
}

@test "a file that is not SQLite: exit 65, left as it was" {
	echo "not a database, but somebody's notes" > "$DB"
	bench_run
	assert_failure 65
	assert_line "bench: cannot open database $DB: not a foliobench database, or a damaged one (file is not a database); see sqlite3 $DB 'PRAGMA integrity_check'"
	run cat "$DB"
	assert_output "not a database, but somebody's notes"
}

@test "a truncated database: exit 65 naming the damage, never written to" {
	bench_run
	assert_success
	truncate -s 8192 "$DB"
	bench_run
	assert_failure 65
	assert_line "bench: cannot open database $DB: not a foliobench database, or a damaged one (database disk image is malformed); see sqlite3 $DB 'PRAGMA integrity_check'"
	[ "$(stat -c %s "$DB")" = 8192 ]
}

@test "a database another process holds locked: a busy wait, then exit 75 saying so" {
	bench_run
	assert_success
	mkfifo "$T/fifo"
	sqlite3 "$DB" < "$T/fifo" > "$T/locker" 2>&1 &
	LOCKER=$!
	exec 8>"$T/fifo"
	echo "BEGIN IMMEDIATE; UPDATE runs SET label = label; SELECT 'locked';" >&8
	for _ in $(seq 100); do
		grep -q locked "$T/locker" && break
		sleep 0.05
	done
	t0=$(date +%s)
	bench_run
	t1=$(date +%s)
	assert_failure 75
	assert_line "bench: cannot write $DB: another process holds it locked, still after 10 s (write: database is locked)"
	# it waited for the lock before giving up
	[ $((t1 - t0)) -ge 9 ]
	exec 8>&-
	wait $LOCKER
	LOCKER=
	bench_run
	assert_success
	run q "select count(*), sum(status = 'complete') from runs"
	assert_output "2|2"
}

@test "compare -o DIR on a full disk: exit 74 saying the disk is full, for benchstat and ministat" {
	local fmt
	fx_known "$T/k.db"
	dd if=/dev/zero of="$MNT/filler" bs=64k 2>/dev/null || true
	for fmt in benchstat ministat; do
		run "$BENCH" compare --db "$T/k.db" --format "$fmt" -o "$MNT/$fmt" 6.18.0-base 6.18.0-patch
		assert_failure 74
		assert_line --regexp "^bench: cannot write $MNT/$fmt/.*: No space left on device\$"
	done
}
