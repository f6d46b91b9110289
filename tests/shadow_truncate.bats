#!/usr/bin/env bats
# shadow-truncate at small sizes: shadow entries really there before the
# timed call, a sample below the coverage threshold stored invalid, and the
# FUSE mount, the cgroup and the reader gone after a run, after SIGINT, and
# after SIGKILL at the next start.  The expectations hold on both cgroup
# versions: what differs (the version, how the page cache is reclaimed) is
# taken from which one holds the memory controller here.

load test_helper

CG_V1=/sys/fs/cgroup/memory

# 2 where cgroup v2 holds the memory controller (as the runner decides:
# a cgroup2 mount whose root offers it), else 1
cg_version() {
	local v2
	v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -n "$v2" ] && grep -qw memory "$v2/cgroup.controllers" 2>/dev/null; then
		echo 2
	else
		echo 1
	fi
}
CGV=$(cg_version)
# how reclaim=auto and reclaim=limit empty the page cache on this version
if [ "$CGV" = 2 ]; then
	RECLAIM_AUTO=memory.reclaim RECLAIM_LIMIT=memory.max
else
	RECLAIM_AUTO=memory.limit_in_bytes RECLAIM_LIMIT=memory.limit_in_bytes
fi

# cachestat(2) came in 6.5 (6.1 LTS lacks it): before it the shadow
# entries are bounded by mincore(2) and workingset_nodereclaim, a bound that
# meets the count where nothing else empties a slot, as on an idle machine
# (FOLIOBENCH_NO_CACHESTAT=1 bats tests/shadow_truncate.bats: as on 6.1)
if [ "$FOLIOBENCH_NO_CACHESTAT" != 1 ] &&
   printf '6.5\n%s\n' "$(uname -r)" | sort -V -C; then
	CACHESTAT=1 COUNTED="counted with cachestat(2)"
else
	CACHESTAT=0
	COUNTED="no cachestat(2): shadow entries bounded by mincore(2) and workingset_nodereclaim"
fi
BOUNDED="no cachestat(2): shadow entries bounded by mincore(2) and workingset_nodereclaim"

# the value of a note of every sample, one a line
notes() { q "select json_extract(verify, '\$.$1') from samples order by id"; }

@test "shadow entries cover the file before the truncate, counted with cachestat (bounded before 6.5)" {
	fb_config '[ { "workload": "shadow-truncate", "size": "512M" } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_success
	assert_line --regexp '^shadow-truncate size=512M: wall median [0-9.]+ (ms|us) \(min .*, max .*\), [0-9.]+ ns/entry \[2 valid(, [12] noisy)?\]$'
	# 131072 pages; the one pinned page per 64 went without a shadow
	run notes evicted_pages
	assert_output "129024
129024"
	run notes cached_pages
	assert_output "0
0"
	run q "select count(*) from sample_values where metric = 'coverage' and value = 98.4375"
	assert_output 2
	run q "select count(*) from sample_values where metric = 'shadow_entries' and value = 129024"
	assert_output 2
	run q "select count(*) from sample_values where metric = 'ns_per_shadow' and value > 0"
	assert_output 2
	# the size used, the cgroup
	run q "select json_extract(verify, '$.size_used'), json_extract(verify, '$.cachestat'), json_extract(verify, '$.cgroup_version') from samples limit 1"
	assert_output "536870912|$CACHESTAT|$CGV"
	# the shrinker left them alone: with cachestat the count above says
	# so, and workingset_nodereclaim is machine-wide (6.12 with 32 vCPUs
	# showed 4 nodes of other files reclaimed while every entry of this
	# one stayed); without it the bound stands on no node reclaimed
	run q "select count(*) from samples where json_extract(verify, '$.nodereclaim_setup') >= 0 and ($CACHESTAT = 1 or json_extract(verify, '$.nodereclaim_setup') = 0)"
	assert_output 2
	# it ran as asked: nothing kept beside the params
	run q "select json_extract(params, '$.size'), asked is null from cases"
	assert_output "512M|1"
	run q "select json_extract(verify, '$.text') from samples limit 1"
	assert_output "cgroup v$CGV; keep=pin; reclaim=$RECLAIM_AUTO; $COUNTED"
	run q "select count(*) from samples where valid = 1"
	assert_output 2
	# every vmstat counter read was folded first (stat_refresh): unfolded,
	# 32 CPUs' drift exceeds the nodes of a small file
	run notes vmstat_refreshed
	assert_output "1
1"
	# filled by readahead(2) through the mount's 1 MiB window (by read(2)
	# without cachestat, which caches every page for the bound); the phases
	# timed; the wait for reclaim to stop recorded: 3 still looks 100 ms
	# apart at least, or the 10 s timeout with what moved
	run q "select count(*) from samples where json_extract(verify, '$.fill_readahead') = $CACHESTAT and json_extract(verify, '$.pin_mappings') = 1 and json_extract(verify, '$.pin_s') > 0 and json_extract(verify, '$.unpin_s') > 0 and json_extract(verify, '$.read_mib_s') > 0 and json_extract(verify, '$.reader_cpu_s') > 0 and json_extract(verify, '$.server_cpu_s') >= 0"
	assert_output 2
	run q "select count(*) from samples where (json_extract(verify, '$.quiet') = 1 and json_extract(verify, '$.quiet_wait_s') >= 0.3) or (json_extract(verify, '$.quiet') = 0 and json_extract(verify, '$.quiet_wait_s') >= 10)"
	assert_output 2
	run q "select count(*) from samples where json_extract(verify, '$.during_pgscan_kswapd') >= 0 and json_extract(verify, '$.during_preemptions') >= 0 and json_extract(verify, '$.during_steal_ns') >= 0 and json_extract(verify, '$.during_kswapd_ns') >= 0 and json_extract(verify, '$.wait_workingset_nodereclaim') >= 0"
	assert_output 2
}

@test "pins in mappings of their own: max_map_count raised for them and put back" {
	local before
	before=$(cat /proc/sys/vm/max_map_count)
	# 2G: 8192 pins and 4096 spare need more than 10000
	echo 10000 > /proc/sys/vm/max_map_count
	fb_config '[ { "workload": "shadow-truncate", "size": "2G" } ]' 0 1
	run "$BENCH" run --config "$T/config.json" --quiet
	local now
	now=$(cat /proc/sys/vm/max_map_count)
	echo "$before" > /proc/sys/vm/max_map_count
	assert_success
	[ "$now" = 10000 ]
	run q "select json_extract(verify, '$.pin_mappings'), json_extract(verify, '$.evicted_pages'), json_extract(verify, '$.cached_pages'), valid from samples"
	assert_output "1|516096|0|1"
}

@test "unlink removes the file with its shadow entries, verified gone" {
	fb_config '[ { "workload": "shadow-truncate", "size": "256M", "op": "unlink" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select count(*) from samples where valid = 1 and json_extract(verify, '$.evicted_pages') = 64512"
	assert_output 2
}

@test "a mlocked ballast keeps every shadow entry" {
	fb_config '[ { "workload": "shadow-truncate", "size": "512M", "keep": "ballast" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select json_extract(verify, '$.keep_bytes'), count(*) from samples where valid = 1 and json_extract(verify, '$.evicted_pages') >= 131072 * 9 / 10 group by 1"
	assert_output "67108864|2"
}

@test "fs=dir: a sparse file on the disk scratch, kept by a ballast, removed afterwards" {
	# the disk scratch (/var/tmp) must be a disk: fs=dir refuses tmpfs
	[ "$(stat -f -c %T /var/tmp)" != tmpfs ] ||
		skip "/var/tmp (the disk scratch) is on tmpfs here"
	fb_config '[ { "workload": "shadow-truncate", "size": "512M", "fs": "dir" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select count(*) from samples where valid = 1 and json_extract(verify, '$.coverage') >= 90 and json_extract(verify, '$.text') like '%keep=ballast%'"
	assert_output 2
	[ -z "$(ls -d /var/tmp/foliobench* 2>/dev/null)" ]
}

@test "a coverage above what the pins allow makes invalid samples with the reason" {
	local least=""
	[ "$CACHESTAT" = 1 ] || least=" (the least count without cachestat(2))"
	fb_config '[ { "workload": "shadow-truncate", "size": "256M", "coverage": 100 } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_success
	assert_line "shadow-truncate size=256M coverage=100: rep 0 invalid: shadow coverage 98.4% is below the 100% threshold: 64512 of 65536 pages left a shadow entry, 0 are cached$least"
	assert_line --regexp '^shadow-truncate +size=256M coverage=100 +no valid sample$'
	run q "select valid, invalid_reason from samples order by id limit 1"
	assert_output "0|shadow coverage 98.4% is below the 100% threshold: 64512 of 65536 pages left a shadow entry, 0 are cached$least"
	run q "select count(*) from samples where valid = 0"
	assert_output 2
}

@test "without cachestat (before 6.5) the shadow entries are bounded, stored valid and marked bounded" {
	fb_config '[ { "workload": "shadow-truncate", "size": "256M" } ]'
	FOLIOBENCH_NO_CACHESTAT=1 run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select distinct json_extract(verify, '$.cachestat'), json_extract(verify, '$.coverage_bounded'), json_extract(verify, '$.fill_readahead'), json_extract(verify, '$.vmstat_refreshed'), json_extract(verify, '$.text') from samples"
	assert_output "0|1|0|1|cgroup v$CGV; keep=pin; reclaim=$RECLAIM_AUTO; $BOUNDED"
	# the least count: the 65536 pages not cached (mincore) less the 1024
	# dropped pins and 64 a node the shrinker freed; it is the count that
	# cachestat gives (64512) when the shrinker freed none
	run q "select count(*) from samples where valid = 1 and json_extract(verify, '$.cached_pages') = 0 and json_extract(verify, '$.evicted_pages_max') = 65536 and json_extract(verify, '$.evicted_pages') = 64512 - 64 * (json_extract(verify, '$.nodereclaim_setup') + json_extract(verify, '$.nodereclaim_run')) and json_extract(verify, '$.coverage') >= 90"
	assert_output 2
	run q "select count(*) from sample_values where metric = 'shadow_entries' and value <= 64512 and value > 0"
	assert_output 2
}

@test "compare says which side's shadow-truncate rows rest on a bound" {
	fb_config '[ { "workload": "shadow-truncate", "size": "256M" } ]' 0 1
	FOLIOBENCH_NO_CACHESTAT=1 run "$BENCH" run --config "$T/config.json" --quiet --label base
	assert_success
	run "$BENCH" run --config "$T/config.json" --quiet --label patch
	assert_success
	run "$BENCH" compare --db "$DB" base patch
	assert_success
	assert_line "bench: warning: base's shadow entries are bounded, not counted (its kernel has no cachestat(2), 6.5+): coverage and shadow_entries are their least count in shadow-truncate size=256M fs=fuse dir=scratch op=truncate keep=auto ballast=auto reclaim=auto limit=auto coverage=90"
	if [ "$CACHESTAT" = 1 ]; then
		refute_line --partial "patch's shadow entries are bounded"
	else
		assert_line --partial "patch's shadow entries are bounded"
	fi
}

@test "without cachestat a coverage the least count misses is invalid, said to be the least count" {
	fb_config '[ { "workload": "shadow-truncate", "size": "256M", "coverage": 100 } ]'
	FOLIOBENCH_NO_CACHESTAT=1 run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select distinct valid, invalid_reason from samples"
	assert_output --regexp "^0\|shadow coverage [0-9.]+% is below the 100% threshold: [0-9]+ of 65536 pages left a shadow entry, 0 are cached \(the least count without cachestat\(2\)\)$"
}

@test "without cachestat and with counters that cannot be folded, no bound: invalid with the reason" {
	fb_config '[ { "workload": "shadow-truncate", "size": "256M" } ]' 0 1
	FOLIOBENCH_NO_STAT_REFRESH=1 FOLIOBENCH_NO_CACHESTAT=1 run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select valid, invalid_reason, json_extract(verify, '$.vmstat_refreshed'), json_extract(verify, '$.evicted_pages') from samples"
	assert_output "0|no cachestat(2), and the shadow entries cannot be bounded: /proc/sys/vm/stat_refresh cannot be written (not root?): unfolded, workingset_nodereclaim may lag by a threshold per CPU|0|0"
	# cachestat counts without the fold: valid
	[ "$CACHESTAT" = 1 ] || skip "cachestat(2) needs 6.5; this is $(uname -r)"
	rm -f "$DB"
	FOLIOBENCH_NO_STAT_REFRESH=1 run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select valid, json_extract(verify, '$.vmstat_refreshed') from samples"
	assert_output "1|0"
}

@test "a size memory cannot hold is shrunk to what fits, and both are said" {
	fb_config '[ { "workload": "shadow-truncate", "size": "1T", "keep": "ballast" } ]'
	run "$BENCH" check --config "$T/config.json"
	assert_success
	assert_line --regexp '^ok +shadow-truncate size=1T keep=ballast; asked 1T, using [0-9]+G: the cgroup would need 13[0-9.]+ GiB \(ballast, shadow nodes, 256 MiB of cache\), more than the [0-9.]+ GiB it may take here \(half of MemTotal in whole GiB\)$'
}

@test "a shrunk case is stored under the size that ran, the asked one beside it" {
	# a 1 GiB machine as the size rule sees it: 2G with a ballast needs
	# 520 MiB in the cgroup, more than half of 1 GiB, so 1G runs
	fb_config '[ { "workload": "shadow-truncate", "size": "2G", "keep": "ballast" } ]'
	FOLIOBENCH_MEMTOTAL=1G run "$BENCH" run --config "$T/config.json" --runs 1
	assert_success
	assert_line "shadow-truncate size=2G keep=ballast: asked 2G, using 1G: the cgroup would need 520 MiB (ballast, shadow nodes, 256 MiB of cache), more than the 512 MiB it may take here (half of MemTotal in whole GiB)"
	run q "select json_extract(params, '$.size'), json_extract(asked, '$.size'), json_extract(asked, '$.keep'), info from cases"
	assert_output "1G|2G|ballast|asked 2G, using 1G: the cgroup would need 520 MiB (ballast, shadow nodes, 256 MiB of cache), more than the 512 MiB it may take here (half of MemTotal in whole GiB)"
	run q "select distinct json_extract(verify, '$.size_used'), json_extract(verify, '$.file_pages') from samples"
	assert_output "1073741824|262144"
}

@test "a size that MemTotal allows but free memory does not is refused, not shrunk" {
	# a 1 TiB machine as the size rule sees it: 200G with a ballast fits
	# its half, but not 3/4 of what this machine has free
	fb_config '[ { "workload": "shadow-truncate", "size": "200G", "keep": "ballast" } ]'
	FOLIOBENCH_MEMTOTAL=1T run "$BENCH" check --config "$T/config.json"
	assert_failure 69
	assert_line --regexp '^bench: refused: shadow-truncate size=200G keep=ballast: the cgroup needs 26.0 GiB of memory for 200G \(the size this machine.s MemTotal gives\), but only [0-9.]+ GiB is free now \(3/4 of MemAvailable\): something else holds memory; free it rather than measure another size$'
}

@test "memory.reclaim on cgroup v1 is skipped with the reason" {
	[ "$CGV" = 1 ] || skip "cgroup v2 here: see the next test"
	fb_config '[ { "workload": "shadow-truncate", "size": "256M", "reclaim": "memory.reclaim" } ]'
	run "$BENCH" run --config "$T/config.json"
	assert_success
	assert_line "shadow-truncate size=256M reclaim=memory.reclaim: skipped: reclaim=memory.reclaim needs cgroup v2; this machine has the memory controller on cgroup v1 (reclaim=limit works on both)"
	run q "select status from cases"
	assert_output skipped
}

@test "reclaim=memory.reclaim runs on cgroup v2, and limit uses memory.max" {
	[ "$CGV" = 2 ] || skip "cgroup v1 here: see the test before"
	fb_config '[ { "workload": "shadow-truncate", "size": "256M", "reclaim": ["memory.reclaim", "limit"] } ]' 0 1
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select json_extract(verify, '$.text'), valid from samples order by id"
	assert_output "cgroup v2; keep=pin; reclaim=memory.reclaim; $COUNTED|1
cgroup v2; keep=pin; reclaim=memory.max; $COUNTED|1"
}

@test "reclaim=limit uses the version's limit file" {
	fb_config '[ { "workload": "shadow-truncate", "size": "256M", "reclaim": "limit" } ]' 0 1
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select json_extract(verify, '$.text'), json_extract(verify, '$.cgroup_version'), valid from samples"
	assert_output "cgroup v$CGV; keep=pin; reclaim=$RECLAIM_LIMIT; $COUNTED|$CGV|1"
}

@test "fs=dir on tmpfs and a limit the reader cannot live in are refused" {
	fb_config '[ { "workload": "shadow-truncate", "size": "256M", "fs": "dir", "dir": "/dev/shm" } ]'
	run "$BENCH" run --config "$T/config.json"
	[ "$status" -eq 69 ]
	assert_output --partial "bench: refused: shadow-truncate size=256M fs=dir dir=/dev/shm: fs=dir needs a disk filesystem: /dev/shm is tmpfs, whose sparse files cache nothing and leave no shadow entries"
	fb_config '[ { "workload": "shadow-truncate", "size": "64G", "limit": "512M" } ]'
	run "$BENCH" run --config "$T/config.json"
	[ "$status" -eq 69 ]
	assert_output --partial "limit 512 MiB is below the 1.4 GiB the cgroup holds besides page cache (what keep=pin holds and the shadow nodes, plus 64 MiB): its reader would be OOM-killed"
}

@test "bad ballast and limit values are configuration errors" {
	fb_config '[ { "workload": "shadow-truncate", "ballast": "lots" } ]'
	run "$BENCH" run --config "$T/config.json"
	[ "$status" -eq 78 ]
	assert_output --partial '"lots": not "auto" or a size'
}

# Fails naming the first of the given pids that still runs (a zombie that
# init has not reaped yet is dead).
all_gone() {
	local p st
	for p in "$@"; do
		st=$(ps -o stat= -p "$p" 2>/dev/null || true)
		if [ -n "$st" ] && [ "${st#Z}" = "$st" ]; then
			echo "process $p ($st) still runs" >&2
			return 1
		fi
	done
}

# The reader in its cgroup, the FUSE file mounted, and past 64 MiB of
# page cache charged to the cgroup: it is reading.
reading() {
	CG=$(ls -d $CG_V1/foliobench.$PID.shadow /sys/fs/cgroup/foliobench.$PID.shadow 2>/dev/null | head -1)
	[ -n "$CG" ] && [ -n "$(cat "$CG/cgroup.procs" 2>/dev/null)" ] &&
		grep -q "foliobench.$PID/fuse" /proc/mounts &&
		[ "$(cat "$CG/memory.usage_in_bytes" "$CG/memory.current" 2>/dev/null | head -1)" -gt $((64 << 20)) ]
}

# A setup long enough to interrupt: 64G, stopped once the reader reads.
start_slow() {
	fb_config '[ { "workload": "shadow-truncate", "size": "64G" } ]'
	fb_run_until "read its file" reading || return 1
	CHILDREN=$(pgrep -P $PID)
	# the FUSE server and the reader
	[ "$(echo $CHILDREN | wc -w)" -eq 2 ]
}

@test "SIGINT mid-setup: exit 130; no mount, cgroup, reader or server left" {
	start_slow
	kill -INT $PID
	rc=0; wait $PID || rc=$?
	[ "$rc" -eq 130 ]
	[ ! -e "$CG" ]
	run grep "foliobench.$PID" /proc/mounts
	assert_failure
	all_gone $CHILDREN
	run q "select status from runs"
	assert_output aborted
}

@test "the setup's reader and FUSE server may run on every usable CPU, not only the measuring one" {
	start_slow
	fb_after "kill -INT $PID; while kill -0 $PID; do sleep 0.1; done"
	want=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
	for c in $CHILDREN; do
		got=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$c/status)
		echo "child $c ($(cat /proc/$c/comm)): $got, usable: $want"
		[ "$got" = "$want" ]
	done
	# the runner itself stays on the measuring CPU
	got=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$PID/status)
	[ "$(nproc)" -eq 1 ] || [ "$got" != "$want" ]
	kill -INT $PID
	rc=0; wait $PID || rc=$?
	[ "$rc" -eq 130 ]
	all_gone $CHILDREN
}

@test "SIGKILL mid-setup: the next run mends the mount and the cgroup" {
	start_slow
	kill -KILL $PID
	wait $PID || true
	# the reader and the server die with the runner; their traces stay
	for _ in $(seq 50); do all_gone $CHILDREN 2>/dev/null && break; sleep 0.1; done
	all_gone $CHILDREN
	[ -d "$CG" ]
	grep -q "foliobench.$PID/fuse" /proc/mounts
	fb_config '[ { "workload": "shadow-truncate", "size": "64M" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	assert_line --regexp "^bench: mended what an earlier run left: .*cgroup $CG"
	assert_line --regexp "^bench: mended what an earlier run left: .*mount /dev/shm/foliobench.$PID/fuse"
	[ ! -e "$CG" ]
	run grep "foliobench.$PID" /proc/mounts
	assert_failure
}
