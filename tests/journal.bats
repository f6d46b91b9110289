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
	[ -n "$HOLDER" ] && kill "$HOLDER" 2>/dev/null
	[ -n "$CG" ] && { rmdir "$CG/held" "$CG" 2>/dev/null || true; }
	[ -n "$HELD" ] && { umount "$HELD"; rm -rf "${HELD%/held}"; }
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

# A cgroup that a process of the test keeps busy (a child cgroup holding a
# sleep) cannot be removed: the journal keeps it until it can.
@test "an undo that fails stays in the journal, is retried, and says how to do it by hand" {
	CG=/sys/fs/cgroup/memory/foliobench.999999998.shadow
	[ -d /sys/fs/cgroup/memory ] || CG=/sys/fs/cgroup/foliobench.999999998.shadow
	mkdir "$CG" "$CG/held"
	sleep 300 &
	HOLDER=$!
	echo $HOLDER > "$CG/held/cgroup.procs"
	journal "0|boot|$BOOT" "1|knob|$T/knob|old" "2|cgroup|$CG|"
	run "$BENCH" check --config "$T/config.json"
	assert_failure 70
	# (another runner on this machine may have removed $DEAD first)
	assert_line --regexp "^bench: mended what an earlier run left: knob $T/knob(, dir .*)?\$"
	assert_line "bench: cannot undo what an earlier run left: cgroup $CG: Device or resource busy; by hand: rmdir $CG"
	assert_line "bench: the journal in $FOLIOBENCH_STATE keeps what is left; the next \`bench run\` or \`bench check\` tries again"
	[ "$(cat "$T/knob")" = old ]
	[ -d "$CG" ]
	# kept, renumbered after this boot's line; the knob is gone from it
	run cat "$FOLIOBENCH_STATE/journal"
	assert_output "$(printf '0\tboot\t%s\n1\tcgroup\t%s\t' "$BOOT" "$CG")"
	# tried again at the next start, and said again
	run "$BENCH" check --config "$T/config.json"
	assert_failure 70
	assert_line "bench: cannot undo what an earlier run left: cgroup $CG: Device or resource busy; by hand: rmdir $CG"
	# once nothing holds it, the next start mends it and forgets it
	kill $HOLDER; wait $HOLDER || true
	rmdir "$CG/held"
	run "$BENCH" check --config "$T/config.json"
	assert_success
	assert_line "bench: mended what an earlier run left: cgroup $CG"
	[ ! -d "$CG" ]
	[ ! -e "$FOLIOBENCH_STATE/journal" ]
}

# A file system the test mounts in the run's scratch dir keeps the dir from
# being removed at the end of the run.
@test "a run whose undo fails exits 70, says so, notes it in the run row, and keeps it in the journal" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]' 0 40
	"$BENCH" run --config "$T/config.json" --quiet >"$T/out" 2>"$T/err" &
	PID=$!
	S=/dev/shm/foliobench.$PID
	for _ in $(seq 200); do
		[ -d "$S" ] && break
		sleep 0.02
	done
	mkdir "$S/held"
	mount -t tmpfs -o size=1M fbtest "$S/held"
	HELD=$S/held
	rc=0; wait $PID || rc=$?
	[ "$rc" -eq 70 ]
	run cat "$T/err"
	assert_line "bench: cannot undo: dir $S: Directory not empty ($S/held is mounted in it); by hand: umount $S/held && rm -rf --one-file-system $S"
	run q "select status, status_reason from runs"
	assert_output "complete|could not undo: dir $S: Directory not empty ($S/held is mounted in it); by hand: umount $S/held && rm -rf --one-file-system $S"
	run q "select count(*) from samples"
	assert_output 40
	grep -qF "$(printf 'dir\t%s\t' "$S")" "$FOLIOBENCH_STATE/journal"
	umount "$S/held"
	HELD=
	run "$BENCH" check --config "$T/config.json"
	assert_success
	assert_line "bench: mended what an earlier run left: dir $S"
	[ ! -e "$S" ]
}

@test "check marks the run of a runner killed with -9 aborted, as run does" {
	command -v strace >/dev/null || skip "no strace (mk/deps.sh installs it)"
	rm -rf "$DEAD"
	# no database: check makes none
	run "$BENCH" check --config "$T/config.json"
	assert_success
	[ ! -e "$DB" ]
	fb_config '[ { "workload": "shmem-remove", "size": "64M", "op": "ftruncate", "folio": "pmd" } ]' 0 8
	"$BENCH" run --config "$T/config.json" --runs 1 --quiet > /dev/null
	# killed with a mount and a knob of its own in place
	rc=0
	strace -f -qq -o "$T/trace" -e trace=pwrite64 \
		-e inject=pwrite64:signal=KILL:when=30 \
		"$BENCH" run --config "$T/config.json" --quiet \
		> "$T/out" 2>&1 || rc=$?
	[ "$rc" -eq 137 ]
	[ "$(q "select group_concat(status) from runs")" = complete,running ]
	[ -s "$FOLIOBENCH_STATE/journal" ]
	run "$BENCH" check --config "$T/config.json"
	assert_success
	assert_line --regexp "^bench: mended what an earlier run left: .*foliobench\.[0-9]+"
	assert_line "bench: marked 1 run that died as aborted"
	run q "select status, status_reason, ended_at is not null from runs where id = 2"
	assert_output "aborted|the runner died (found at the next start)|1"
	[ "$(q "select status from runs where id = 1")" = complete ]
	[ ! -e "$FOLIOBENCH_STATE/journal" ]
	# once: the next check finds nothing to mend or mark
	run "$BENCH" check --config "$T/config.json"
	assert_success
	refute_line --partial "mended"
	refute_line --partial "marked"
	[ "$(q "select count(*) from runs")" = 2 ]
}
