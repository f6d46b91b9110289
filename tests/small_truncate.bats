#!/usr/bin/env bats
# small-truncate at small counts: percentiles stored from ext4 on a loop
# device and from tmpfs, the loop mount and device gone afterwards, also
# after SIGINT and SIGKILL, bad parameters refused.

load test_helper

EXT4_MAGIC=61267	# 0xEF53
TMPFS_MAGIC=16914836	# 0x01021994

# Our loop devices are backed by images in foliobench scratch dirs.
our_loops() { losetup -a | grep foliobench || true; }

ordered() {
	local id=$1
	awk -v a="$(val $id p1)" -v b="$(val $id p50)" -v c="$(val $id p95)" \
	    -v d="$(val $id p99)" -v m="$(val $id mean)" \
	    'BEGIN { exit !(a > 0 && a <= b && b <= c && c <= d && m >= a) }'
}

@test "200 truncates on ext4 on a loop device: percentiles stored, mount and device gone" {
	fb_config '[ { "workload": "small-truncate", "count": 200, "pages": 256 } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_success
	assert_line --regexp '^small-truncate count=200 pages=256: p50 median [0-9.]+ us \(min .*, max .*\) \[2 valid(, [12] noisy)?\]$'
	run q "select count(*) from sample_values where metric in ('p1', 'p50', 'p95', 'p99', 'mean') and supported = 1 and value > 0"
	assert_output 10
	for id in $(q "select id from samples"); do
		ordered $id
	done
	# it ran on ext4 (not /dev/shm's tmpfs), the file cached before each
	# checked truncate and gone after it
	run q "select count(*) from samples where valid = 1 and json_extract(verify, '$.fs_magic') = $EXT4_MAGIC and json_extract(verify, '$.truncates') = 200 and json_extract(verify, '$.cache_checks') >= 2 and json_extract(verify, '$.checks_short') = 0 and json_extract(verify, '$.checks_left_after') = 0 and json_extract(verify, '$.min_cached_pages') = 256"
	assert_output 2
	run q "select params from cases"
	assert_output '{"count":"200","pages":"256","dir":"ext4-loop","op":"truncate","wsize":"64k","threads":"1","mode":"threads"}'
	# the folios one fill makes are counted (ext4 has large folios)
	run q "select count(*) from samples where json_extract(verify, '$.folios') between 1 and 256"
	assert_output 2
	run our_loops
	assert_output ""
}

@test "wsize=4k writes one 4K folio per page" {
	fb_config '[ { "workload": "small-truncate", "count": 50, "pages": 128, "wsize": "4k" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select count(*) from samples where valid = 1 and json_extract(verify, '$.folios') = 128"
	assert_output 2
}

@test "any directory: tmpfs itself" {
	fb_config '[ { "workload": "small-truncate", "count": 200, "pages": 64, "dir": "/dev/shm" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select count(*) from samples where valid = 1 and json_extract(verify, '$.fs_magic') = $TMPFS_MAGIC"
	assert_output 2
	for id in $(q "select id from samples"); do
		ordered $id
	done
}

@test "bad parameters are configuration errors (78)" {
	fb_config '[ { "workload": "small-truncate", "count": 0 } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 78
	assert_output --partial 'count: 0 is out of range (1 to 100000000)'
	fb_config '[ { "workload": "small-truncate", "pages": 0 } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 78
	assert_output --partial 'pages: 0 is out of range'
	fb_config '[ { "workload": "small-truncate", "dir": "shm" } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 78
	assert_output --partial '"shm": not "ext4-loop" nor an absolute path'
	fb_config '[ { "workload": "small-truncate", "op": "unlink" } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 78
	[ ! -e "$DB" ]
}

@test "a file too large for the scratch space is refused, saying by how much" {
	fb_config '[ { "workload": "small-truncate", "pages": 67108864 } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 69
	assert_output --regexp 'needs 512[.0-9]* GiB free in /dev/shm for the ext4 image, has [0-9.]+ [KMGT]iB: short by [0-9.]+ [KMGT]iB$'
	[ ! -e "$DB" ]
}

# The ext4 mounted, and its file written and truncated over and over
# (64 pages a time: 1 MiB is four rounds).
truncating() {
	grep -q "foliobench.$PID/small-truncate.mnt" /proc/mounts &&
		[ "$(fb_io_bytes $PID wchar)" -gt $((1 << 20)) ]
}

# A long run; returns once the ext4 is mounted and truncating.
start_truncating() {
	fb_config '[ { "workload": "small-truncate", "count": 10000000, "pages": 64 } ]'
	fb_run_until "truncated on its ext4" truncating
}

@test "SIGINT mid-run: exit 130, unmounted, loop device detached" {
	start_truncating
	[ -n "$(our_loops)" ]
	kill -INT $PID
	rc=0; wait $PID || rc=$?
	[ "$rc" -eq 130 ]
	run q "select status from runs"
	assert_output "aborted"
	run our_loops
	assert_output ""
	! grep -q foliobench /proc/mounts
}

@test "SIGKILL mid-run: the next start unmounts and detaches" {
	start_truncating
	kill -KILL $PID
	wait $PID || true
	# left by the killed run: the mount, its loop device, the image
	grep -q "foliobench.$PID/small-truncate.mnt" /proc/mounts
	[ -n "$(our_loops)" ]
	fb_config '[ { "workload": "small-truncate", "count": 10, "pages": 16 } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	assert_line --regexp "^bench: mended what an earlier run left: mount /dev/shm/foliobench.$PID/small-truncate.mnt, loop /dev/loop[0-9]+, .*dir /dev/shm/foliobench.$PID"
	run our_loops
	assert_output ""
	[ ! -e /dev/shm/foliobench.$PID ]
}
