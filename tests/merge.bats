#!/usr/bin/env bats
# bench merge: several machines' databases in one, idempotent by run uuid,
# inputs never written, older schemas migrated in a copy, newer refused.

load test_helper
load fixtures/fixture

# Two "machines": the same kernels, different CPUs, distinct run uuids.
# (Machine A's patch kernel printed a soft lockup.)
two_machines() {
	fx_begin "$T/a.db"
	FX_CPU="CPU of machine A" fx_run base a-boot-0
	fx_remove_case unlink; fx_wall w120 100 101 99
	FX_CPU="CPU of machine A" fx_run patch a-boot-1
	fx_remove_case unlink; fx_wall 80 81 79
	fx_kwarn "BUG: soft lockup - CPU#1 stuck for 22s! [bench:1]"
	fx_end
	fx_begin "$T/b.db"
	FX_CPU="CPU of machine B" fx_run base b-boot-0
	fx_remove_case unlink; fx_wall 102 103 101
	FX_CPU="CPU of machine B" fx_run patch b-boot-1
	fx_remove_case unlink; fx_wall 82 83 81
	fx_end
	# the fixture numbers runs from 1 in each file: other uuids for B
	sqlite3 "$T/b.db" "UPDATE runs SET uuid = 'b' || substr(uuid, 2)"
}

# The lab's database $DB (machine A's runs; a copy in before.db) and $big,
# one grown from machine B's, 3*10^4 samples: seconds of merge ($nbig runs).
lab_and_big() {
	two_machines
	"$BENCH" merge "$DB" "$T/a.db" > /dev/null
	cp "$DB" "$T/before.db"
	mkdir -p "$T/scale"
	cp "$T/b.db" "$T/scale/seed.db"
	big=$(sh "$BATS_TEST_DIRNAME/../bench/scale_db.sh" "$BENCH" "$T/scale" 30000)
	nbig=$(sqlite3 "$big" "select count(*) from runs")
}

@test "merge adds each machine's runs with everything under them, and twice adds nothing" {
	two_machines
	sum_before=$(md5sum "$T/a.db" "$T/b.db")
	run "$BENCH" merge "$DB" "$T/a.db" "$T/b.db"
	assert_success
	assert_output "$T/a.db: added 2 runs (cases 2, samples 7, uploads 0, sample_workers 0, kernel_warnings 1, run_vm 0, profile_stacks 0); 0 already there
$T/b.db: added 2 runs (cases 2, samples 6, uploads 0, sample_workers 0, kernel_warnings 0, run_vm 0, profile_stacks 0); 0 already there"
	run "$BENCH" merge "$DB" "$T/a.db" "$T/b.db"
	assert_success
	assert_output "$T/a.db: added 0 runs (cases 0, samples 0, uploads 0, sample_workers 0, kernel_warnings 0, run_vm 0, profile_stacks 0); 2 already there
$T/b.db: added 0 runs (cases 0, samples 0, uploads 0, sample_workers 0, kernel_warnings 0, run_vm 0, profile_stacks 0); 2 already there"
	[ "$(md5sum "$T/a.db" "$T/b.db")" = "$sum_before" ]
	# every sample under its own run, values under their sample
	run q "select r.uuid, c.seq, group_concat(s.rep || ':' || s.warmup, ' ')
	       from runs r join cases c on c.run_id = r.id
	       join samples s on s.case_id = c.id group by r.id order by r.uuid"
	assert_output "00000000-0000-0000-0000-000000000001|1|0:1 1:0 2:0 3:0
00000000-0000-0000-0000-000000000002|1|0:0 1:0 2:0
b0000000-0000-0000-0000-000000000001|1|0:0 1:0 2:0
b0000000-0000-0000-0000-000000000002|1|0:0 1:0 2:0"
	run q "select r.uuid, k.line, r.kernel_warnings from kernel_warnings k join runs r on r.id = k.run_id"
	assert_output "00000000-0000-0000-0000-000000000002|BUG: soft lockup - CPU#1 stuck for 22s! [bench:1]|1"
	run q "select count(*) from sample_values v left join samples s on s.id = v.sample_id where s.id is null"
	assert_output 0
	run q "PRAGMA foreign_key_check"
	assert_output ""
	# the boots of both machines count on each side
	run "$BENCH" compare --db "$DB" base patch
	assert_success
	assert_line "base   base   2 boots, 2 complete runs, kernel base"
}

@test "an input of an older schema is migrated in a copy and left as it was" {
	fx_schema1 "$T/old.db" old-1
	sum=$(md5sum < "$T/old.db")
	run "$BENCH" merge "$DB" "$T/old.db"
	assert_success
	assert_output "$T/old.db: added 1 run (cases 1, samples 0, uploads 0, sample_workers 0, kernel_warnings 0, run_vm 0, profile_stacks 0); 0 already there; read from schema 1, migrated in a copy"
	[ "$(md5sum < "$T/old.db")" = "$sum" ]
	run sqlite3 "$T/old.db" "PRAGMA user_version"
	assert_output 1
	run q "select uuid, virt, kernel_warnings is null from runs"
	assert_output "old-1||1"
	run ls "$T"
	refute_output --partial foliobench-merge
}

@test "an input of schema 15 is read as it is, not migrated in a copy (16 added a trigger alone)" {
	two_machines
	"$BENCH" runs --db "$T/b.db" > /dev/null
	"$BENCH" merge "$DB" "$T/a.db" > /dev/null
	cp "$DB" "$T/lab16.db"
	"$BENCH" merge "$T/lab16.db" "$T/b.db" > /dev/null
	sqlite3 "$T/b.db" "DROP TRIGGER run_series_mark_alone; PRAGMA user_version = 15"
	sum=$(md5sum < "$T/b.db")
	run "$BENCH" merge "$DB" "$T/b.db"
	assert_success
	assert_output --partial "$T/b.db: added 2 runs"
	refute_output --partial "migrated in a copy"
	[ "$(md5sum < "$T/b.db")" = "$sum" ]
	# the same rows as from the input of 16, and the output's trigger kept
	assert_equal "$(q 'PRAGMA user_version')" "$(fb_schema_latest)"
	assert_equal "$(q "SELECT count(*) FROM sqlite_master WHERE name = 'run_series_mark_alone'")" 1
	assert_equal "$("$BENCH" compare --db "$DB" --format csv base patch 2>&1)" \
		"$("$BENCH" compare --db "$T/lab16.db" --format csv base patch 2>&1)"
	assert_equal "$(q 'SELECT count(*) FROM samples')" \
		"$(sqlite3 "$T/lab16.db" 'SELECT count(*) FROM samples')"
}

@test "merge refuses a newer schema, a file that is not a database, a missing one" {
	two_machines
	sqlite3 "$T/new.db" "PRAGMA user_version = 99; CREATE TABLE runs (uuid TEXT);"
	run "$BENCH" merge "$DB" "$T/new.db"
	assert_failure 76
	assert_output "bench: cannot merge $T/new.db: schema version 99 is newer than this tool's $(fb_schema_latest); use a newer foliobench"
	echo hello > "$T/x.db"
	run "$BENCH" merge "$DB" "$T/x.db"
	assert_failure 65
	assert_output --partial "bench: $T/x.db is not a foliobench database: "
	run "$BENCH" merge "$DB" "$T/none.db" "$T/a.db"
	assert_failure 66
	assert_line "bench: cannot merge $T/none.db: No such file or directory"
	assert_line --partial "$T/a.db: added 2 runs"
	run "$BENCH" merge "$DB"
	assert_failure 64
	run q "select count(*) from runs"
	assert_output 2
}

@test "a bad merge input is said for what it is: empty, a negative user_version (never 'not an error')" {
	local f
	two_machines
	: > "$T/empty.db"
	run "$BENCH" merge "$DB" "$T/empty.db"
	assert_failure 65
	assert_output "bench: $T/empty.db is not a foliobench database: it is empty (0 bytes)"
	# SQLite keeps any 32-bit number as user_version: -1 read as a failed
	# read, whose message was "not an error"
	sqlite3 "$T/neg.db" "PRAGMA user_version = -1; CREATE TABLE runs (uuid TEXT);"
	cp "$T/a.db" "$T/aneg.db"
	sqlite3 "$T/aneg.db" "PRAGMA user_version = -2147483648"
	for f in neg aneg; do
		run "$BENCH" merge "$DB" "$T/$f.db"
		assert_failure 65
		assert_output --regexp "^bench: $T/$f.db is not a foliobench database: its user_version is -[0-9]+, and no foliobench schema version is negative\$"
		# the commands that read a database say the same
		run "$BENCH" runs --db "$T/$f.db"
		assert_failure 65
		assert_output --regexp "^bench: $T/$f.db is not a foliobench database: its user_version is -[0-9]+, and no foliobench schema version is negative\$"
	done
	[ ! -e "$DB" ]
}

@test "compare of merged machines warns where the sides ran on different machines" {
	two_machines
	sqlite3 "$T/b.db" "DELETE FROM runs WHERE label = 'base'"
	sqlite3 "$T/a.db" "DELETE FROM runs WHERE label = 'patch'"
	"$BENCH" merge "$DB" "$T/a.db" "$T/b.db"
	run "$BENCH" compare --db "$DB" base patch
	assert_success
	assert_output --partial "bench: warning: CPU model differs: base has 'CPU of machine A'; patch has 'CPU of machine B'"
	run "$BENCH" compare --db "$DB" --strict base patch
	assert_failure 69
}

@test "an input that lacks a column or a table is refused, naming file, table and column" {
	two_machines
	# SQLite would read a double-quoted name it cannot find as a string
	sqlite3 "$T/a.db" "DROP INDEX runs_label_time; ALTER TABLE runs DROP COLUMN label"
	run "$BENCH" merge "$DB" "$T/a.db"
	assert_failure 65
	assert_output "bench: $T/a.db is not a foliobench database: table runs has no column label"
	cp "$T/b.db" "$T/c.db"
	sqlite3 "$T/b.db" "DROP VIEW sample_values; DROP INDEX samples_suspect; ALTER TABLE samples DROP COLUMN vals"
	run "$BENCH" merge "$DB" "$T/b.db"
	assert_failure 65
	assert_output "bench: $T/b.db is not a foliobench database: table samples has no column vals"
	sqlite3 "$T/c.db" "DROP TABLE sample_workers"
	run "$BENCH" merge "$DB" "$T/c.db"
	assert_failure 65
	assert_output "bench: $T/c.db is not a foliobench database: no table sample_workers"
	fx_schema1 "$T/old.db" old-1
	sqlite3 "$T/old.db" "DROP TABLE samples"
	run "$BENCH" merge "$DB" "$T/old.db"
	assert_failure 65
	assert_output "bench: $T/old.db is not a foliobench database: cannot migrate it in memory: migration 004_workers.sql: no such table: samples"
	# nothing merged: no output made
	[ ! -e "$DB" ]
}

# A WAL database on a tmpfs of the test's own: wal_input DIR NAME
wal_input() {
	mkdir -p "$1"
	mount -t tmpfs -o size=8M fbtest-merge "$1"
	fb_after umount "$1"
	two_machines
	cp "$T/a.db" "$1/$2"
	sqlite3 "$1/$2" "PRAGMA journal_mode = WAL" > /dev/null
}

@test "merge writes nothing beside its input and reads a WAL input on a read-only file system" {
	[ "$(id -u)" = 0 ] || skip "mounting needs root"
	wal_input "$T/ro" a.db
	sum=$(md5sum < "$T/ro/a.db")
	"$BENCH" merge "$DB" "$T/b.db"
	run "$BENCH" merge "$DB" "$T/ro/a.db"
	assert_success
	assert_output --partial "$T/ro/a.db: added 2 runs (cases 2, samples 7"
	run ls -A "$T/ro"
	assert_output "a.db"
	mount -o remount,ro "$T/ro"
	rm -f "$DB" "$DB"-*
	run "$BENCH" merge "$DB" "$T/ro/a.db"
	assert_success
	assert_output --partial "$T/ro/a.db: added 2 runs (cases 2, samples 7"
	run ls -A "$T/ro"
	assert_output "a.db"
	[ "$(md5sum < "$T/ro/a.db")" = "$sum" ]
	run q "select count(*) from sample_values"
	assert_output 21
}

@test "a WAL input whose -wal holds commits not yet in the file is read with them" {
	two_machines
	sqlite3 "$T/a.db" "PRAGMA journal_mode = WAL" > /dev/null
	# a writer still open: its commit is only in a.db-wal
	exec 9> >(sqlite3 "$T/a.db" > /dev/null)
	fb_after "exec 9>&-"
	echo "PRAGMA wal_autocheckpoint = 0;" >&9
	echo "UPDATE runs SET label = 'late' WHERE id = 2;" >&9
	for _ in $(seq 100); do
		[ -s "$T/a.db-wal" ] && break
		sleep 0.1
	done
	[ -s "$T/a.db-wal" ]
	run "$BENCH" merge "$DB" "$T/a.db"
	assert_success
	run q "select label from runs order by id"
	assert_output "base
late"
}

@test "a merge killed midway, or with its TMPDIR full, leaves nothing behind" {
	[ "$(id -u)" = 0 ] || skip "mounting needs root"
	lab_and_big
	[ "$nbig" -gt 9000 ]
	mkdir -p "$T/tmp"
	size=$(stat -c %s "$T/before.db")
	mine=$(q "select group_concat(uuid) from runs")
	for sig in KILL TERM INT; do
		rm -f "$DB" "$DB"-*
		cp "$T/before.db" "$DB"
		TMPDIR=$T/tmp "$BENCH" merge "$DB" "$big" > /dev/null 2>&1 &
		pid=$!
		# killed once it writes: the file grows past its rollback
		# journal's pages (or a WAL, or a copy of the input)
		for _ in $(seq 500); do
			[ "$(stat -c %s "$DB-wal" 2>/dev/null || echo 0)" -gt 1000000 ] && break
			[ "$(stat -c %s "$DB")" -gt $((size + 1000000)) ] && break
			[ -n "$(ls -A "$T/tmp")" ] && break
			sleep 0.01
		done
		kill -$sig $pid 2>/dev/null || true
		wait $pid || true
		run ls -A "$T/tmp"
		assert_output ""
		run ls -A "$T/scale"
		refute_output --partial "scale-30000.db-"
		# a hot journal is played back by the next opener, bench's
		# reader too (as a writer), which puts the file back in WAL
		"$BENCH" runs --db "$DB" > /dev/null
		assert_equal "$(q "PRAGMA journal_mode")" wal
		[ ! -e "$DB-journal" ]
		# all or nothing, the output's own runs kept
		run q "PRAGMA integrity_check; select count(*) in (2, 2 + $nbig) from runs"
		assert_output "ok
1"
		assert_equal "$(q "select group_concat(uuid) from runs where uuid in (select uuid from runs limit 2)")" "$mine"
	done
	# a full TMPDIR is no obstacle: nothing goes there
	mount -t tmpfs -o size=64k fbtest-merge "$T/tmp"
	fb_after umount "$T/tmp"
	dd if=/dev/zero of="$T/tmp/fill" bs=4k 2>/dev/null || true
	run env TMPDIR=$T/tmp "$BENCH" merge "$DB" "$big"
	assert_success
	assert_output --partial "$big: added "
	run ls -A "$T/tmp"
	assert_output "fill"
	run q "PRAGMA integrity_check"
	assert_output ok
	run q "select count(*) from runs"
	assert_output $((2 + nbig))
}

@test "a merge into a lab's database goes through a rollback journal where no one else has it open, through WAL where someone has; readers wait, the file is WAL after" {
	lab_and_big
	size=$(stat -c %s "$DB")
	# alone: a -journal beside it while it runs, no -wal grows
	"$BENCH" merge "$DB" "$big" > "$T/out" 2>&1 &
	pid=$!
	journal=0
	for _ in $(seq 1000); do
		[ -e "$DB-journal" ] && journal=1
		[ "$(stat -c %s "$DB")" -gt $((size + 1000000)) ] && break
		sleep 0.005
	done
	# a reader meanwhile waits for the merge, and reads all of it
	run "$BENCH" runs --db "$DB"
	assert_success
	[ "${#lines[@]}" = "$((3 + nbig))" ]
	wait $pid
	[ "$journal" = 1 ]
	[ "$(stat -c %s "$DB-wal" 2>/dev/null || echo 0)" -lt 1000000 ]
	assert_equal "$(q "PRAGMA journal_mode; PRAGMA integrity_check; select count(*) from runs")" "wal
ok
$((2 + nbig))"
	[ ! -e "$DB-journal" ]
	alone=$(q "select r.uuid, c.seq, s.rep, s.vals, s.verify from runs r join cases c on c.run_id = r.id join samples s on s.case_id = c.id order by r.uuid, c.seq, s.rep" | md5sum)
	# another connection holds it open: WAL, which it cannot leave; the
	# same rows
	rm -f "$DB" "$DB"-*
	cp "$T/before.db" "$DB"
	coproc HOLD { sqlite3 "$DB" 2>&1; }
	echo "select count(*) from runs;" >&"${HOLD[1]}"
	read -r -t 10 held <&"${HOLD[0]}"
	[ "$held" = 2 ]
	run "$BENCH" merge "$DB" "$big"
	assert_success
	[ ! -e "$DB-journal" ]
	echo "select count(*) from runs; PRAGMA journal_mode;" >&"${HOLD[1]}"
	read -r -t 10 held <&"${HOLD[0]}"
	read -r -t 10 mode <&"${HOLD[0]}"
	assert_equal "$held $mode" "$((2 + nbig)) wal"
	exec {HOLD[1]}>&-
	wait "$HOLD_PID" || true
	assert_equal "$(q "select r.uuid, c.seq, s.rep, s.vals, s.verify from runs r join cases c on c.run_id = r.id join samples s on s.case_id = c.id order by r.uuid, c.seq, s.rep" | md5sum)" "$alone"
}

@test "a first merge into an empty file copies the input whole: the rows a row by row merge copies" {
	two_machines
	mkdir -p "$T/scale"
	cp "$T/b.db" "$T/scale/seed.db"
	lab=$(sh "$BATS_TEST_DIRNAME/../bench/scale_db.sh" "$BENCH" "$T/scale" 3000)
	# the lab's sample ids have gaps (an aborted run's cases have none)
	n=$(sqlite3 "$lab" "select count(*) from samples")
	max=$(sqlite3 "$lab" "select max(id) from samples")
	[ "$max" -gt "$n" ]
	rows="select r.uuid, r.label, r.status, c.seq, c.params, s.rep, s.valid, v.metric, v.value from runs r join cases c on c.run_id = r.id join samples s on s.case_id = c.id join sample_values v on v.sample_id = s.id order by r.uuid, c.seq, s.rep, v.metric"
	want=$(sqlite3 "$lab" "$rows" | md5sum)
	# empty output: the file copied, the input's ids kept
	run "$BENCH" merge "$T/whole.db" "$lab"
	assert_success
	assert_output --partial "; 0 already there"
	[ "$(sqlite3 "$T/whole.db" "$rows" | md5sum)" = "$want" ]
	[ "$(sqlite3 "$T/whole.db" "select count(*), max(id) from samples")" = "$n|$max" ]
	run sqlite3 "$T/whole.db" "PRAGMA journal_mode; PRAGMA integrity_check; PRAGMA foreign_key_check"
	assert_output "wal
ok"
	# the same counts as row by row: an output open elsewhere is not
	# copied over, its rows are numbered 1..n
	out=$output
	coproc HOLD { sqlite3 "$T/rows.db" 2>&1; }
	"$BENCH" merge "$T/rows.db" "$T/a.db" > /dev/null
	sqlite3 "$T/rows.db" "delete from kernel_warnings; delete from sample_values; delete from samples; delete from cases; delete from runs"
	echo "select count(*) from runs;" >&"${HOLD[1]}"
	read -r -t 10 held <&"${HOLD[0]}"
	[ "$held" = 0 ]
	run "$BENCH" merge "$T/rows.db" "$lab"
	assert_success
	[ "$(sqlite3 "$T/rows.db" "$rows" | md5sum)" = "$want" ]
	[ "$(sqlite3 "$T/rows.db" "select count(*), max(id) - (select min(id) from samples) + 1 from samples")" = "$n|$n" ]
	exec {HOLD[1]}>&-
	wait "$HOLD_PID" || true
	[ "$(sqlite3 "$T/whole.db" "select count(*) from runs")" = "$(sqlite3 "$T/rows.db" "select count(*) from runs")" ]
	# a row whose parent is missing is left out, as row by row (a value
	# has no row of its own since schema 15: the view refuses an orphan)
	run sqlite3 "$lab" "insert into sample_values (sample_id, metric, value, unit, better) values (999999999, 'wall', 1, 'ns', 'lower')"
	assert_failure
	assert_output --partial "FOREIGN KEY constraint failed: sample_values.sample_id names no sample"
	sqlite3 "$lab" "insert into samples (id, case_id, rep, warmup, valid, verify, taken_at, layout, vals) select 999999999, 999999999, 0, 0, 1, '{}', taken_at, layout, vals from samples where vals is not null limit 1"
	run "$BENCH" merge "$T/orphan.db" "$lab"
	assert_success
	[ "$(sqlite3 "$T/orphan.db" "$rows" | md5sum)" = "$want" ]
	[ "$(sqlite3 "$T/orphan.db" "select count(*) from sample_values where sample_id = 999999999")" = 0 ]
	[ "$(sqlite3 "$T/orphan.db" "select count(*) from samples where case_id = 999999999")" = 0 ]
}

@test "a first merge into an empty file killed midway leaves it empty and whole" {
	two_machines
	mkdir -p "$T/scale"
	cp "$T/b.db" "$T/scale/seed.db"
	big=$(sh "$BATS_TEST_DIRNAME/../bench/scale_db.sh" "$BENCH" "$T/scale" 60000)
	for sig in KILL TERM; do
		rm -f "$DB" "$DB"-*
		"$BENCH" merge "$DB" "$big" > /dev/null 2>&1 &
		pid=$!
		for _ in $(seq 500); do
			[ "$(stat -c %s "$DB-wal" 2>/dev/null || echo 0)" -gt 1000000 ] && break
			sleep 0.01
		done
		kill -$sig $pid 2>/dev/null || true
		wait $pid || true
		run q "PRAGMA integrity_check; select count(*) in (0, $(sqlite3 "$big" "select count(*) from runs")) from runs"
		assert_output "ok
1"
	done
}

@test "merging an input already merged adds nothing and reads no more than its runs" {
	two_machines
	"$BENCH" merge "$DB" "$T/a.db" "$T/b.db" > /dev/null
	before=$(q "select count(*) from runs; select count(*) from samples; select max(id) from samples")
	run "$BENCH" merge "$DB" "$T/b.db" "$T/a.db"
	assert_success
	assert_line --partial "added 0 runs (cases 0, samples 0, uploads 0"
	[ "$(q "select count(*) from runs; select count(*) from samples; select max(id) from samples")" = "$before" ]
	# a third machine with one run already there and one new: ids go on
	sqlite3 "$T/b.db" "UPDATE runs SET uuid = 'c' || substr(uuid, 2) WHERE id = 2"
	run "$BENCH" merge "$DB" "$T/b.db"
	assert_success
	assert_output "$T/b.db: added 1 run (cases 1, samples 3, uploads 0, sample_workers 0, kernel_warnings 0, run_vm 0, profile_stacks 0); 1 already there"
	run q "select r.uuid, group_concat(s.id, ' ') from runs r join cases c on c.run_id = r.id join samples s on s.case_id = c.id where r.uuid like 'c%' group by r.id"
	assert_output "c0000000-0000-0000-0000-000000000002|14 15 16"
	run q "PRAGMA foreign_key_check"
	assert_output ""
	# one new run among a lab's: read through the maps, the same rows
	mkdir -p "$T/scale"
	cp "$T/b.db" "$T/scale/seed.db"
	c=$(sh "$BATS_TEST_DIRNAME/../bench/scale_db.sh" "$BENCH" "$T/scale" 24)
	"$BENCH" merge "$DB" "$c" > /dev/null
	n=$(sqlite3 "$c" "select count(*) from runs")
	# run 5 of the lab: a complete one, with an upload and a kernel warning
	sqlite3 "$c" "UPDATE runs SET uuid = 'd' || substr(uuid, 2) WHERE id = 5"
	max=$(q "select max(id) from samples")
	run "$BENCH" merge "$DB" "$c"
	assert_success
	assert_output "$c: added 1 run (cases 1, samples 3, uploads 1, sample_workers 0, kernel_warnings 1, run_vm 0, profile_stacks 0); $((n - 1)) already there"
	run q "select group_concat(s.id || ':' || s.rep, ' '), count(v.sample_id) from runs r join cases c on c.run_id = r.id join samples s on s.case_id = c.id left join sample_values v on v.sample_id = s.id and v.metric = 'wall' where r.uuid like 'd%' group by r.id"
	assert_output "$((max + 1)):0 $((max + 2)):1 $((max + 3)):2|3"
	run q "PRAGMA foreign_key_check"
	assert_output ""
}

@test "a merge whose every input fails leaves no output it made; one into an output that was there keeps it" {
	local in
	two_machines
	printf 'not a database\n' > "$T/junk.db"
	for in in "$T/none.db" "$T/junk.db"; do
		run "$BENCH" merge "$T/new.db" "$in"
		assert_failure
		run ls -A "$T"
		refute_output --partial new.db
	done
	# two inputs, both bad
	run "$BENCH" merge "$T/new.db" "$T/none.db" "$T/junk.db"
	assert_failure
	[ ! -e "$T/new.db" ]
	# one good input of two: the output stays, with its runs
	run "$BENCH" merge "$T/new.db" "$T/junk.db" "$T/a.db"
	assert_failure 65
	[ "$(sqlite3 "$T/new.db" "SELECT count(*) FROM runs")" = 2 ]
	# an output that was there stays, empty or not
	run "$BENCH" merge "$T/new.db" "$T/junk.db"
	assert_failure 65
	[ -e "$T/new.db" ]
}

@test "a merge leaves no -journal, -wal or -shm beside its output or its inputs" {
	two_machines
	run "$BENCH" merge "$DB" "$T/a.db"
	assert_success
	run "$BENCH" merge "$DB" "$T/b.db"
	assert_success
	run "$BENCH" merge "$T/c.db" "$T/a.db" "$T/b.db"
	assert_success
	run ls -A "$T"
	assert_output "a.db
b.db
c.db
fixture.sql
results.db"
}
