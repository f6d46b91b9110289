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

@test "merge adds each machine's runs with everything under them, and twice adds nothing" {
	two_machines
	sum_before=$(md5sum "$T/a.db" "$T/b.db")
	run "$BENCH" merge "$DB" "$T/a.db" "$T/b.db"
	assert_success
	assert_output "$T/a.db: added 2 runs (cases 2, samples 7, sample_values 21, uploads 0, sample_workers 0, kernel_warnings 1, run_vm 0); 0 already there
$T/b.db: added 2 runs (cases 2, samples 6, sample_values 18, uploads 0, sample_workers 0, kernel_warnings 0, run_vm 0); 0 already there"
	run "$BENCH" merge "$DB" "$T/a.db" "$T/b.db"
	assert_success
	assert_output "$T/a.db: added 0 runs (cases 0, samples 0, sample_values 0, uploads 0, sample_workers 0, kernel_warnings 0, run_vm 0); 2 already there
$T/b.db: added 0 runs (cases 0, samples 0, sample_values 0, uploads 0, sample_workers 0, kernel_warnings 0, run_vm 0); 2 already there"
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
	assert_output "$T/old.db: added 1 run (cases 1, samples 0, sample_values 0, uploads 0, sample_workers 0, kernel_warnings 0, run_vm 0); 0 already there; read from schema 1, migrated in a copy"
	[ "$(md5sum < "$T/old.db")" = "$sum" ]
	run sqlite3 "$T/old.db" "PRAGMA user_version"
	assert_output 1
	run q "select uuid, virt, kernel_warnings is null from runs"
	assert_output "old-1||1"
	run ls "$T"
	refute_output --partial foliobench-merge
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
