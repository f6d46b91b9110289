#!/usr/bin/env bats
# The fidelity benchmarks (make bench-shmem, bench-smalltrunc, bench-shadow,
# bench-seqread) at the smallest sizes, one block each: they run end to end,
# print their summary line and leave nothing behind (their own scratch in
# /dev/shm, mount, loop device, cgroup; the THP knob).  Whether the ratios
# are near 1 is the benchmarks' question, on a quiet machine, not a test's.

load test_helper

PROBES=$(dirname "$BENCH")/probe
SCRIPTS=$BATS_TEST_DIRNAME/../bench

# what the scripts make, named fb-fidelity*, must be gone
fidelity_left() {
	ls -d /dev/shm/fb-fidelity* /sys/fs/cgroup/memory/fb-fidelity* \
	      /sys/fs/cgroup/fb-fidelity* 2>/dev/null
	awk '$2 ~ /fb-fidelity/' /proc/mounts
	losetup -a 2>/dev/null | grep fb-fidelity
	return 0
}

setup() {
	fb_setup
	[ -x "$PROBES/bare_shadow" ] || skip "no probes in $PROBES (make probes)"
}

@test "bench-shmem: one block of unlink, 4K folios, 1 and 2 workers, one line a case" {
	SIZES=16M ROUNDS=1 REPS=1 CASES="unlink:4k unlink:4k:2:processes" \
		run sh "$SCRIPTS/shmem_vs_bare.sh" "$BENCH" "$PROBES"
	assert_success
	assert_line --regexp '^unlink:4k:16M +[0-9.]+ ms +[0-9.]+ ms +[0-9.]+  \[[0-9.]+, [0-9.]+\] 1  \(one block: no interval\)$'
	assert_line --regexp '^unlink:4k:16M:t2:processes +[0-9.]+ ms'
	run fidelity_left
	assert_output ""
}

@test "bench-smalltrunc: one block on ext4 on a loop device, mount and device gone" {
	COUNT=20 PAGES=16 ROUNDS=1 REPS=1 CASES=1 \
		run sh "$SCRIPTS/smalltrunc_vs_bare.sh" "$BENCH" "$PROBES"
	assert_success
	assert_line --regexp '^small-truncate:t1 +[0-9.]+ ms +[0-9.]+ ms +[0-9.]+  \['
	run fidelity_left
	assert_output ""
}

@test "bench-shadow: the bare call and the workload find the same shadow entries (FUSE and dir)" {
	SIZE=64M ROUNDS=1 REPS=1 run sh "$SCRIPTS/shadow_vs_bare.sh" \
		"$BENCH" "$PROBES"
	assert_success
	assert_line --regexp '^shadow-truncate:fuse:64M +[0-9.]+ ms +[0-9.]+ ms +[0-9.]+  \['
	# 16384 pages, every one evicted with a shadow on both sides
	assert_line "shadow entries found by the timed call (median): bare 16384, foliobench 16384"
	FS=dir DIR=$T SIZE=64M ROUNDS=1 REPS=1 run sh \
		"$SCRIPTS/shadow_vs_bare.sh" "$BENCH" "$PROBES"
	assert_success
	assert_line --regexp '^shadow-truncate:dir:64M +[0-9.]+ ms'
	run ls "$T"
	refute_output --partial fb-bare-shadow
	run fidelity_left
	assert_output ""
}

@test "the fidelity scripts refuse bad settings, naming them" {
	ROUNDS=0 run sh "$SCRIPTS/shadow_vs_bare.sh" "$BENCH" "$PROBES"
	assert_failure
	assert_output "shadow_vs_bare: ROUNDS 0 is not a count"
	FS=nfs run sh "$SCRIPTS/shadow_vs_bare.sh" "$BENCH" "$PROBES"
	assert_failure
	assert_output "shadow_vs_bare: FS nfs is not fuse or dir"
	REPS=x run sh "$SCRIPTS/shmem_vs_bare.sh" "$BENCH" "$PROBES"
	assert_failure
	assert_output "shmem_vs_bare: REPS x is not a count"
	run sh "$SCRIPTS/smalltrunc_vs_bare.sh" "$BENCH" "$T/none"
	assert_failure
	assert_output "smalltrunc_vs_bare: no $T/none/bare_truncate: run make $T/none/bare_truncate"
	run fidelity_left
	assert_output ""
}

@test "bench-seqread: three rounds of the five readers, ratios printed, the file gone" {
	command -v fio >/dev/null || skip "fio is not installed"
	# timed turns of fixed length: the sanitizers would add time, not checks
	case $BENCH in */san/*) skip "the sanitizer build: it runs in the SAN=0 pass" ;; esac
	RUNTIME=1 SIZE=16M ROUNDS=3 run sh "$SCRIPTS/seqread_vs_fio.sh" "$BENCH"
	assert_success
	assert_line --regexp '^fb-nolat / bare +[0-9.]+  \[[0-9.]+, [0-9.]+\]$'
	assert_line --regexp '^fio / fb +[0-9.]+  \['
	run ls -d /dev/shm/fb-seqread*
	assert_failure
}
