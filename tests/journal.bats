#!/usr/bin/env bats
# The journal of system changes: what a dead runner left is mended at the
# next start, once, and only what is still ours.  These tests write the
# journal a killed runner would have left, in a state dir of their own.

load test_helper

setup() {
	fb_setup
	export FOLIOBENCH_STATE=$T/state
	mkdir -p "$FOLIOBENCH_STATE"
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]'
	# a stand-in for a sysfs knob: any file takes a write
	echo changed > "$T/knob"
	DEAD=/dev/shm/foliobench.999999999
	mkdir -p "$DEAD"
	BOOT=$(cat /proc/sys/kernel/random/boot_id)
}

teardown() {
	rm -rf "$DEAD"
	fb_teardown
}

journal() {
	printf '%s\n' "$@" | tr '|' '\t' > "$FOLIOBENCH_STATE/journal"
}

@test "a journal of this boot: the knob is restored and the dir removed" {
	journal "0|boot|$BOOT" "1|dir|$DEAD|" "2|knob|$T/knob|old"
	run "$BENCH" check --config "$T/config.json"
	assert_success
	assert_line "bench: mended what an earlier run left: knob $T/knob, dir $DEAD"
	[ "$(cat "$T/knob")" = old ]
	[ ! -e "$DEAD" ]
	# mended once: the next start finds nothing to do
	echo changed-again > "$T/knob"
	run "$BENCH" check --config "$T/config.json"
	refute_line --partial "mended"
	[ "$(cat "$T/knob")" = changed-again ]
}

@test "what was undone before the runner died is not undone again" {
	rmdir "$DEAD"
	journal "0|boot|$BOOT" "1|knob|$T/knob|old" "1|done"
	run "$BENCH" check --config "$T/config.json"
	assert_success
	refute_line --partial "mended"
	[ "$(cat "$T/knob")" = changed ]
}

@test "a journal of an earlier boot: only its directories are removed" {
	journal "0|boot|not-this-boot" "1|dir|$DEAD|" "2|knob|$T/knob|old"
	run "$BENCH" check --config "$T/config.json"
	assert_success
	assert_line "bench: mended what an earlier run left: dir $DEAD"
	[ "$(cat "$T/knob")" = changed ]
	[ ! -e "$DEAD" ]
}

@test "a loop device that no longer holds our file is left alone" {
	img=$(mktemp /dev/shm/fbtest.XXXXXX)
	fb_after rm -f "$img"
	truncate -s 16M "$img"
	dev=$(losetup --find --show "$img")
	fb_after losetup -d "$dev"
	journal "0|boot|$BOOT" "1|loop|$dev|/dev/shm/foliobench.999999999/small-truncate.img"
	run "$BENCH" check --config "$T/config.json"
	assert_success
	run losetup "$dev"
	losetup -d "$dev"
	rm -f "$img"
	assert_output --partial "$img"
}
