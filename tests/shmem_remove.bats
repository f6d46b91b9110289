#!/usr/bin/env bats
# shmem-remove at small sizes: every op, 4K and PMD folios, stored with the
# kernel and boot it ran on, verified, and nothing left behind.

load test_helper

@test "all four ops with 4K and PMD folios land in the database" {
	fb_config '[ { "workload": "shmem-remove", "op": ["ftruncate", "punch-hole", "memfd-close", "unlink"], "size": "64M", "folio": ["4k", "pmd"] } ]' 1
	run "$BENCH" run --config "$T/config.json" --label base
	assert_success
	assert_line --regexp '^shmem-remove op=unlink size=64M folio=4k: wall median [0-9.]+ (ms|us) \(min .*, max .*\), [0-9]+ ns/folio \[2 valid(, [12] noisy)?\]$'
	# 8 cases, 3 samples each (1 warm-up), 4 values per sample
	run q "select count(*) from cases where status = 'done'"
	assert_output 8
	run q "select count(*), sum(warmup), sum(valid) from samples"
	assert_output "24|8|24"
	run q "select label, kernel_release, boot_id, status from runs"
	assert_output "base|$(uname -r)|$(cat /proc/sys/kernel/random/boot_id)|complete"
	# the effective config, as JSON
	run q "select json_extract(config, '$.suite[0].workload'), json_extract(config, '$.runs') from runs"
	assert_output "shmem-remove|2"
	run q "select count(*) from runs where cmdline = '$(cat /proc/cmdline)' and json_extract(thp, '$.shmem_enabled') is not null and tmpfs like 'tmpfs %'"
	assert_output 1
	run q "select count(*) from sample_values where metric = 'wall' and value > 0"
	assert_output 24
	# what verify found is stored: fully allocated, the folios asked for
	run q "select json_extract(verify, '$.allocated_bytes'), json_extract(verify, '$.large_folios_of_size') from samples s join cases c on s.case_id = c.id where c.params like '%\"pmd\"%' limit 1"
	assert_output "67108864|32"
	run q "select count(*) from samples s join cases c on s.case_id = c.id where c.params like '%\"4k\"%' and json_extract(verify, '$.large_folios_other_sizes') = 0"
	assert_output 12
	# the folios column: 64M of 4K is 16384, of PMD 32
	run q "select distinct value from sample_values v join samples s on v.sample_id = s.id join cases c on s.case_id = c.id where metric = 'folios' order by value"
	assert_output "32.0
16384.0"
}

@test "the canonical params name every parameter, defaults included" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select params from cases"
	assert_output '{"op":"unlink","size":"64M","folio":"4k","dir":"/dev/shm","populate":"fallocate","threads":"1","mode":"threads"}'
}

@test "each sample records the CPU it ran on, the pinned one" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M", "op": "ftruncate" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	pinned=$(q "select json_extract(topology, '$.measuring_pu') from runs")
	run q "select distinct cpu from samples"
	assert_output "$pinned"
	run q "select json_extract(topology, '$.pus') > 0 from runs"
	assert_output 1
}

@test "populate=write fills with real data and is verified the same way" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M", "populate": "write", "op": "punch-hole" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select count(*) from samples where valid = 1 and json_extract(verify, '$.allocated_bytes') >= 67108864"
	assert_output 2
}

@test "a memfd of PMD folios sets shmem_enabled only for the run" {
	before=$(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled)
	fb_config '[ { "workload": "shmem-remove", "size": "64M", "op": "memfd-close", "folio": "pmd" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select min(json_extract(verify, '$.large_folios_of_size')) from samples"
	assert_output "32"
	[ "$(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled)" = "$before" ]
}

@test "PMD folios on a kernel without per-size THP counters (6.1) run, counted by thp_file_alloc" {
	# 6.1 has PMD shmem folios (shmem_enabled, huge= mounts) but no
	# hugepages-*kB directories; FOLIOBENCH_NO_MTHP=1 hides this kernel's
	fb_config '[ { "workload": "shmem-remove", "size": "64M", "op": ["unlink", "memfd-close"], "folio": ["pmd", "64k"] } ]'
	FOLIOBENCH_NO_MTHP=1 run "$BENCH" run --config "$T/config.json"
	assert_success
	assert_line "shmem-remove op=unlink size=64M folio=64k: skipped: this kernel offers no 64k shmem folios (no /sys/kernel/mm/transparent_hugepage/hugepages-64kB)"
	run q "select c.status, count(s.id) from cases c left join samples s on s.case_id = c.id group by c.id order by c.id"
	assert_output "done|2
skipped|0
done|2
skipped|0"
	# 32 PMD folios each (others' allocations can only add to the
	# machine-wide count), and ShmemHugePages grew by the file
	run q "select count(*) from samples where valid = 1 and json_extract(verify, '$.folios_by_thp_file_alloc') = 1 and json_extract(verify, '$.large_folios_of_size') >= 32 and json_extract(verify, '$.shmem_huge_bytes') >= 67108864"
	assert_output 4
}

@test "an mTHP size the kernel does not hand to tmpfs files is stored invalid" {
	# (FOLIOBENCH_NO_MTHP=1 bats tests/shmem_remove.bats: as on 6.1)
	[ -d /sys/kernel/mm/transparent_hugepage/hugepages-64kB ] &&
		[ "$FOLIOBENCH_NO_MTHP" != 1 ] ||
		skip "no 64kB mTHP (hugepages-64kB: mTHP came in 6.8, for shmem later)"
	# a tmpfs of the test's own that hands out 4K folios only
	mkdir "$T/nohuge"
	mount -t tmpfs -o size=128M,huge=never fbtest-nohuge "$T/nohuge"
	fb_config "[ { \"workload\": \"shmem-remove\", \"size\": \"64M\", \"op\": \"unlink\", \"folio\": \"64k\", \"dir\": \"$T/nohuge\" } ]"
	run "$BENCH" run --config "$T/config.json" --quiet
	umount "$T/nohuge"
	assert_success
	run q "select valid, invalid_reason, json_extract(verify, '$.large_folios_of_size') from samples"
	assert_output "0|asked for 1024 folios of 64 KiB, the kernel gave 0 of that size and 0 of other sizes|0
0|asked for 1024 folios of 64 KiB, the kernel gave 0 of that size and 0 of other sizes|0"
}

@test "an mTHP sample is valid exactly when the kernel gave that size" {
	# (FOLIOBENCH_NO_MTHP=1 bats tests/shmem_remove.bats: as on 6.1)
	[ -d /sys/kernel/mm/transparent_hugepage/hugepages-64kB ] &&
		[ "$FOLIOBENCH_NO_MTHP" != 1 ] ||
		skip "no 64kB mTHP (hugepages-64kB: mTHP came in 6.8, for shmem later)"
	fb_config '[ { "workload": "shmem-remove", "size": "64M", "op": "unlink", "folio": "64k" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select count(*) from samples"
	assert_output 2
	# valid exactly with 1024 folios of 64k and none of another size
	run q "select count(*) from samples where valid != (
		json_extract(verify, '$.large_folios_of_size') = 1024 and
		json_extract(verify, '$.large_folios_other_sizes') = 0)"
	assert_output 0
	# an invalid one says what the kernel gave, size by size, and when
	# it gave larger folios (on 6.18 tmpfs files get PMD folios: a
	# fallocate of the whole file), why the knob the run set did not do
	got=$(q "select json_extract(verify, '$.large_folios_other_sizes') from samples where valid = 0 limit 1")
	if [ -n "$got" ]; then
		run q "select invalid_reason from samples where valid = 0 limit 1"
		assert_output --regexp "^asked for 1024 folios of 64 KiB, the kernel gave [0-9]+ of that size and $got of other sizes \\([0-9]+ of [0-9]+ [KM]iB(, [0-9]+ of [0-9]+ [KM]iB)*\\): the kernel sized them by each fallocate or write, up to what huge= or shmem_enabled allows; the knob hugepages-64kB/shmem_enabled the run set did not limit it\$"
	fi
	# said, never hidden: what this kernel does with folio=64k
	echo "# folio=64k on $(uname -r): $(q "select sum(valid) from samples") of 2 samples valid; $(q "select invalid_reason from samples where valid = 0 limit 1")" >&3
}

@test "an mTHP size the kernel does not offer is skipped with the reason" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M", "folio": "8192k" } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_success
	assert_line "shmem-remove size=64M folio=8192k: skipped: this kernel offers no 8192k shmem folios (no /sys/kernel/mm/transparent_hugepage/hugepages-8192kB)"
	run q "select status, reason from cases"
	assert_output "skipped|this kernel offers no 8192k shmem folios (no /sys/kernel/mm/transparent_hugepage/hugepages-8192kB)"
}

@test "a file larger than tmpfs free space is refused before anything is made" {
	fb_config '[ { "workload": "shmem-remove", "size": "1T" } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 69
	assert_output --regexp "^bench: refused: shmem-remove size=1T: needs 1 TiB free in /dev/shm, has [0-9.]+ GiB: short by [0-9.]+ GiB\$"
	[ ! -e "$DB" ]
}

@test "check lists what would run and creates nothing" {
	fb_config '[ { "workload": "shmem-remove", "size": ["64M", "1T"] } ]'
	run "$BENCH" check --config "$T/config.json"
	# a case that fits is left: it would run, the refused one skipped
	assert_success
	assert_line --partial "bench: refused: shmem-remove size=1T: needs 1 TiB free in /dev/shm"
	assert_line "ok     shmem-remove size=64M"
	assert_line --regexp "^refuse shmem-remove size=1T: needs 1 TiB free in /dev/shm, has [0-9.]+ GiB: short by [0-9.]+ GiB$"
	assert_line "bench: would run the 1 case that fits; the 1 refused would be skipped"
	assert_line --regexp "^topology: .*; usable PUs .*; placement scatter$"
	[ ! -e "$DB" ]
}

@test "check shows the topology also when no case fits (69)" {
	fb_config '[ { "workload": "shmem-remove", "size": ["1T", "512G"] } ]'
	run "$BENCH" check --config "$T/config.json"
	assert_failure 69
	assert_line "bench: refused: no case fits this machine; nothing would run"
	assert_line --regexp "^topology: .*; usable PUs .*; placement scatter$"
	assert_line --regexp "^noise: "
	[ ! -e "$DB" ]
	# nor when no PU is left to run on
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]'
	sed -i 's/"runs"/"cpus": "4000", "runs"/' "$T/config.json"
	run "$BENCH" check --config "$T/config.json"
	assert_failure 69
	assert_line --regexp "^topology: [0-9]+ packages?, .*; usable PUs none \(cpus 4000, .*\)$"
}

@test "a case that does not fit is skipped with the reason, the others run" {
	fb_config '[ { "workload": "shmem-remove", "size": ["1T", "64M"] } ]' 0 1
	run "$BENCH" run --config "$T/config.json"
	assert_success
	assert_line --regexp "^bench: refused: shmem-remove size=1T: needs 1 TiB free in /dev/shm, has [0-9.]+ GiB: short by [0-9.]+ GiB$"
	assert_line "bench: running the 1 case that fits; the 1 refused are recorded as skipped"
	assert_line --regexp "^shmem-remove size=1T: skipped: needs 1 TiB free in /dev/shm, has [0-9.]+ GiB: short by [0-9.]+ GiB$"
	assert_line --regexp "^shmem-remove +size=1T +skipped$"
	run q "select json_extract(c.params, '$.size'), c.status, coalesce(c.reason like 'needs 1 TiB free in /dev/shm, %', 0), count(s.id) from cases c left join samples s on s.case_id = c.id group by c.id order by c.seq"
	assert_output "1T|skipped|1|0
64M|done|0|1"
	run q "select status from runs"
	assert_output complete
}

@test "runs lists the recorded runs" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]'
	"$BENCH" run --config "$T/config.json" --label first --quiet
	run "$BENCH" runs --db "$DB"
	assert_success
	assert_line --index 0 --regexp '^id +uuid +label +kernel +boot +status +started +samples +kwarn +upload$'
	assert_line --index 1 --regexp "^1 +[0-9a-f-]{36} +first +$(uname -r) +[0-9a-f]{8} +complete +[0-9T:Z-]+ +2 +[0-9]+ +-\$"
}

@test "--only keeps the named workloads and rejects unknown ones" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]'
	run "$BENCH" run --config "$T/config.json" --only nosuch
	assert_failure 64
	assert_output "bench: --only: unknown workload \"nosuch\" (see \`bench list\`)"
}

@test "a dir that is not tmpfs is refused, a relative one is a config error" {
	[ "$(stat -f -c %T /var/tmp)" != tmpfs ] ||
		skip "/var/tmp is on tmpfs here: the test needs a dir that is not"
	fb_config '[ { "workload": "shmem-remove", "size": "64M", "dir": "/var/tmp" } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 69
	assert_output --regexp '^bench: refused: shmem-remove size=64M dir=/var/tmp: /var/tmp is not on tmpfs \(file system magic 0x[0-9a-f]+\): shmem-remove measures tmpfs$'
	[ ! -e "$DB" ]
	fb_config '[ { "workload": "shmem-remove", "size": "64M", "dir": "shm" } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 78
	assert_output --partial 'suite[0].dir: "shm": not an absolute path'
}

@test "a dir of the user's gets a directory of ours, removed afterwards" {
	d=$(mktemp -d /dev/shm/fbtest.XXXXXX)
	fb_after rm -rf "$d"
	touch "$d/shmem-remove.0"	# the user's: never touched
	fb_config "[ { \"workload\": \"shmem-remove\", \"size\": \"64M\", \"op\": \"ftruncate\", \"dir\": \"$d\" } ]"
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run ls -A "$d"
	assert_output "shmem-remove.0"
	rm -rf "$d"
	run q "select count(*) from samples where valid = 1"
	assert_output 2
}

@test "populate=write of a size that is not a whole MiB writes exactly the size" {
	fb_config '[ { "workload": "shmem-remove", "size": "1028k", "populate": "write", "op": "punch-hole" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select count(*) from samples where valid = 1 and json_extract(verify, '$.allocated_bytes') = 1052672"
	assert_output 2
}
