#!/usr/bin/env bats
# The fidelity benchmarks (make bench-shmem, bench-smalltrunc, bench-shadow,
# bench-fill, bench-seqread) at the smallest sizes, one block each: they run
# end to end, print their summary line and leave nothing behind (their own
# scratch in /dev/shm, mount, loop device, cgroup; the THP knob).  Whether
# the ratios are near 1 is the benchmarks' question, on a quiet machine, not
# a test's.

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
	assert_line --regexp '^unlink:4k:16M +[0-9.]+ ms +[0-9.]+ ms +[0-9.]+  \[[0-9.]+, [0-9.]+\] +[0-9.]+  \[[0-9.]+, [0-9.]+\] 1  \(one block: no interval\)$'
	assert_line --regexp '^unlink:4k:16M:t2:processes +[0-9.]+ ms'
	run fidelity_left
	assert_output ""
}

@test "fidelity.sh: each turn read as its median and its least, ratios and intervals of both" {
	. "$SCRIPTS/fidelity.sh"
	run sh -c '. "$1"; printf "4\n1\n3\n2\n" | fid_medmin' sh "$SCRIPTS/fidelity.sh"
	assert_output "2.5 1"
	run sh -c '. "$1"; printf "7\n" | fid_medmin' sh "$SCRIPTS/fidelity.sh"
	assert_output "7 7"
	run sh -c '. "$1"; fid_medmin < /dev/null' sh "$SCRIPTS/fidelity.sh"
	assert_failure
	# two blocks a case; bare turns 10 and 10 (least 9, 9), foliobench
	# turns 11 and 11 (least 9, 9): the median ratio 1.1, the least 1
	printf '%s\n' 10 11 9 > "$T/b" ; printf '%s\n' 11 12 9 > "$T/x"
	bare() { cat "$T/b"; }
	fb() { cat "$T/x"; }
	fid_block "$T/rows" c bare fb > /dev/null
	fid_block "$T/rows" c bare fb > /dev/null
	run cat "$T/rows"
	assert_output "c 10.0000 11.0000 1.10000 9.0000 9.0000 1.00000
c 10.0000 11.0000 1.10000 9.0000 9.0000 1.00000"
	printf 'd 10 10 1.01 9 9 1.001\nd 10 10 0.99 9 9 0.999\n' >> "$T/rows"
	run fid_summary "$T/rows"
	assert_line --regexp '^c +10\.000 ms  11\.000 ms   1\.100  \[1\.100, 1\.100\]   1\.000  \[1\.000, 1\.000\] 2  least within 2%$'
	# logs +-0.01 about their mean, standard error 0.01, t(1) = 12.706:
	# exp(+-0.127), the medians' interval; the least ones' a tenth of it
	assert_line --regexp '^d .*   1\.000  \[0\.881, 1\.135\]   1\.000  \[0\.987, 1\.013\] 2  least within 2%$'
	# a turn that fails or prints nothing fails the block
	nothing() { :; }
	run fid_block "$T/rows" e bare nothing
	assert_failure
	assert_output --partial "nothing printed no time"
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

@test "bench-fill: one round at 64M, a rate a side, foliobench's ratios and CPU, nothing left" {
	SIZE=64M ROUNDS=1 run sh "$SCRIPTS/fill_vs_bare.sh" "$BENCH" "$PROBES"
	assert_success
	assert_line --regexp '^round 1  shm [0-9]+ free [0-9]+ fuse [0-9]+ fb:ballast [0-9]+ fb:pin [0-9]+ fuse [0-9]+ free [0-9]+ shm [0-9]+$'
	assert_line --regexp '^medians \(MiB/s\): shm fallocate [0-9.]+, bare FUSE read without a limit [0-9.]+, bare FUSE read under the limit [0-9.]+$'
	for keep in ballast pin; do
		assert_line --regexp "^foliobench keep=$keep: [0-9]+ MiB/s, [0-9.]+ of the fallocate, [0-9.]+ of the bare FUSE read; CPU s/GiB reader [0-9.]+ server [0-9.]+\$"
	done
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
	SIZE=5000 run sh "$SCRIPTS/fill_vs_bare.sh" "$BENCH" "$PROBES"
	assert_failure
	assert_output "fill_vs_bare: SIZE 5000 is not a positive number of 4 KiB pages"
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

# SCRIPT's process group sent SIGINT (as a terminal's ^C) within a second
# after it has printed a block: it must exit 130 and leave nothing behind.  Started
# with SIGINT at its default (a background job of a script has it ignored).
interrupt_after_a_block() {
	local log=$T/int.out pid i
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp("sh", ["sh"] + sys.argv[1:])' "$@" > "$log" 2>&1 &
	pid=$!
	for i in $(seq 600); do
		grep -q '^round 2 ' "$log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	# anywhere in the next block: a probe, a bench run, fid_pus
	sleep "0.$((RANDOM % 10))"
	kill -INT -- "-$pid"
	wait "$pid"
}

@test "^C during a fidelity benchmark: exit 130, nothing left, the THP knob as it was" {
	SIZES=16M ROUNDS=1000 REPS=1 CASES="memfd-close:pmd unlink:pmd" \
		run interrupt_after_a_block "$SCRIPTS/shmem_vs_bare.sh" \
		"$BENCH" "$PROBES"
	assert_equal "$status" 130
	assert_equal "$(fb_knobs)" "$THP_BEFORE"
	run fidelity_left
	assert_output ""
	COUNT=20 PAGES=16 ROUNDS=1000 CASES=1 run interrupt_after_a_block \
		"$SCRIPTS/smalltrunc_vs_bare.sh" "$BENCH" "$PROBES"
	assert_equal "$status" 130
	run fidelity_left
	assert_output ""
	# a FUSE mount and two cgroups of its own
	SIZE=64M ROUNDS=1000 run interrupt_after_a_block \
		"$SCRIPTS/fill_vs_bare.sh" "$BENCH" "$PROBES"
	assert_equal "$status" 130
	run fidelity_left
	assert_output ""
}
