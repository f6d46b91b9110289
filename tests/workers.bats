#!/usr/bin/env bats
# Parallel workers and placement on this machine: 1 and 2 workers in each
# mode and placement, a restricted affinity, a sweep past the PU count, the
# release of the barrier, a worker moved off its PU during its timed call,
# and the noise record.

load test_helper

npus() { nproc; }

# run_poking TRIES FN: bench run (quiet, output in $T/out) in the
# background as $pid, FN called every 10 ms until it succeeds (ok=1) or
# has failed TRIES times (ok=0); the caller waits for $pid.
run_poking() {
	local tries=$1 fn=$2 i
	"$BENCH" run --config "$T/config.json" --quiet > "$T/out" 2>&1 &
	pid=$!
	ok=0
	for i in $(seq 1 "$tries"); do
		if "$fn"; then
			ok=1
			return
		fi
		sleep 0.01
	done
}

@test "1 and 2 workers in threads and processes under scatter and compact" {
	[ "$(npus)" -ge 2 ] || skip "needs 2 PUs"
	for place in scatter compact; do
		rm -f "$DB"
		fb_config '[ { "workload": "shmem-remove", "size": "32M", "op": ["unlink", "memfd-close"], "threads": [1, 2], "mode": ["threads", "processes"] }, { "workload": "small-truncate", "count": 300, "pages": 16, "threads": [1, 2], "mode": ["threads", "processes"] } ]' 0 2 "\"placement\": \"$place\""
		run "$BENCH" run --config "$T/config.json" --quiet
		assert_success
		run q "select count(*) from cases where status = 'done'"
		assert_output 12
		# every sample valid, with as many workers as asked
		run q "select count(*), sum(valid) from samples"
		assert_output "24|24"
		run q "select count(*) from samples s join cases c on s.case_id = c.id where s.workers != json_extract(c.params, '$.threads')"
		assert_output 0
		run q "select count(*) from sample_workers"
		assert_output 36
		# each worker on its own PU, and seen there after its timed call
		run q "select count(*) from sample_workers where pu_checked != pu or valid != 1"
		assert_output 0
		run q "select count(distinct pu) from sample_workers w join samples s on w.sample_id = s.id where s.workers = 2 group by w.sample_id having count(distinct pu) != 2"
		assert_output ""
		run q "select json_extract(topology, '$.placement') from runs"
		assert_output "$place"
		# the aggregate is the time until the last worker finished
		run q "select count(*) from samples s join sample_values v on v.sample_id = s.id and v.metric = 'wall' where s.workers = 2 and v.value < (select max(start_ns + wall_ns) from sample_workers w where w.sample_id = s.id) - 1000"
		assert_output 0
		run q "select count(*) from samples s join sample_values v on v.sample_id = s.id and v.metric = 'folios' join cases c on s.case_id = c.id where c.workload = 'shmem-remove' and s.workers = 2 and v.value != 16384"
		assert_output 0
		run q "select count(*) from samples s join sample_values v on v.sample_id = s.id and v.metric = 'truncates_per_s' where s.workers = 2 and json_extract(s.verify, '$.truncates') = 600 and v.value > 0"
		assert_output 4
	done
}

@test "explicit placement puts the workers on the list, in its order" {
	[ "$(npus)" -ge 2 ] || skip "needs 2 PUs"
	fb_config '[ { "workload": "shmem-remove", "size": "32M", "threads": [1, 2], "mode": ["threads", "processes"] } ]' 0 2 '"cpus": "1,0", "placement": "explicit"'
	run "$BENCH" check --config "$T/config.json"
	assert_success
	assert_line "1 worker: PU 1"
	assert_line "2 workers: PUs 1,0"
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select distinct worker || ':' || pu || ':' || pu_checked from sample_workers w join samples s on w.sample_id = s.id where s.workers = 2 order by 1"
	assert_output "0:1:1
1:0:0"
	run q "select distinct pu from sample_workers w join samples s on w.sample_id = s.id where s.workers = 1"
	assert_output 1
}

@test "under taskset -c 1 no worker runs on PU 0, and 2 workers are skipped" {
	[ "$(npus)" -ge 2 ] || skip "needs 2 PUs"
	fb_config '[ { "workload": "shmem-remove", "size": "32M", "threads": [1, 2], "mode": ["threads", "processes"] }, { "workload": "small-truncate", "count": 200, "pages": 16, "threads": [1, 2] } ]'
	run taskset -c 1 "$BENCH" run --config "$T/config.json"
	assert_success
	assert_line --regexp "^shmem-remove size=32M threads=2 mode=threads: skipped: threads=2: 2 workers need 2 PUs, 1 is usable here \(cpus [-0-9,]+, affinity 1(, cgroup cpuset [-0-9,]+)?\)$"
	run q "select count(*) from sample_workers"
	assert_output 6
	run q "select count(*) from sample_workers where pu = 0 or pu_checked = 0"
	assert_output 0
	run q "select count(*) from samples where cpu = 0"
	assert_output 0
	run q "select json_extract(topology, '$.usable') from runs"
	assert_output 1
	run q "select count(*) from cases where status = 'skipped' and reason like 'threads=2: 2 workers need 2 PUs, 1 is usable here (%'"
	assert_output 3
}

@test "a sweep past the PU count skips those counts with the reason" {
	n=$(npus)
	fb_config "[ { \"workload\": \"shmem-remove\", \"size\": \"32M\", \"threads\": [1, $((n + 1)), 1024] } ]"
	run "$BENCH" run --config "$T/config.json"
	assert_success
	assert_line --regexp "^shmem-remove size=32M threads=$((n + 1)): skipped: threads=$((n + 1)): $((n + 1)) workers need $((n + 1)) PUs, $n are usable here \(cpus .*\)$"
	assert_line --regexp "^shmem-remove size=32M threads=1024: skipped: threads=1024: 1024 workers need 1024 PUs, $n are usable here"
	assert_line --regexp "^shmem-remove +size=32M threads=$((n + 1)) +skipped$"
	run q "select status, count(*) from cases group by status order by 1"
	assert_output "done|1
skipped|2"
	run q "select count(*) from samples"
	assert_output 2
}

@test "the workers start together from the barrier" {
	[ "$(npus)" -ge 2 ] || skip "needs 2 PUs"
	fb_config '[ { "workload": "shmem-remove", "size": "512M", "threads": 2, "mode": ["threads", "processes"] } ]'
	sed -i 's/"runs": 2/"runs": 5/' "$T/config.json"
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	# one worker starts at 0 and the other typically tens of microseconds
	# later; on a 2-vCPU machine with a load of 16 a woken worker waits up
	# to ~17 ms for its PU (measured).  Started one after the other, the
	# second would start after the first one's unlink of 512 MiB (100+ ms).
	run q "select count(*) from sample_workers where start_ns = 0"
	assert_output 10
	run q "select count(*) from (select sample_id, max(start_ns) m from sample_workers group by sample_id) where m < 50000000"
	assert_output 10
	run q "select count(*) from samples where json_extract(verify, '$.start_spread_ns') = (select max(start_ns) from sample_workers w where w.sample_id = samples.id)"
	assert_output 10
}

# Move the worker thread or process fbw-0 of runner $1 to PU $2 once it
# shows (it names itself after it has pinned itself).
move_worker() {
	local pid=$1 to=$2 i id
	for i in $(seq 1 600); do
		id=$(grep -lx fbw-0 /proc/"$pid"/task/*/comm 2>/dev/null |
		     sed -n 's|/proc/[0-9]*/task/\([0-9]*\)/comm|\1|p')
		[ -n "$id" ] || id=$(pgrep -P "$pid" -x fbw-0 || true)
		if [ -n "$id" ]; then
			taskset -pc "$to" "$id" >/dev/null && return 0
		fi
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.02
	done
	return 1
}

@test "a worker moved off its PU during the timed call makes the sample invalid" {
	[ "$(npus)" -ge 2 ] || skip "needs 2 PUs"
	for mode in threads processes; do
		rm -f "$DB"
		fb_config "[ { \"workload\": \"small-truncate\", \"count\": 100000, \"pages\": 1, \"wsize\": \"4k\", \"mode\": \"$mode\" } ]" 0 2 '"cpus": "1"'
		sed -i 's/"runs": 2/"runs": 1/' "$T/config.json"
		"$BENCH" run --config "$T/config.json" --quiet > "$T/out" 2>&1 &
		pid=$!
		move_worker "$pid" 0
		wait "$pid"
		cat "$T/out"
		run q "select valid, invalid_reason from samples"
		assert_output --regexp "^0\|worker 0 ran on PU [01] at the start of the timed call and on PU 0 at its end, not on its PU 1$"
		run q "select pu, pu_checked, valid from sample_workers"
		assert_output "1|0|0"
	done
}

@test "every sample has a noise record: steal, context switches, frequency" {
	fb_config '[ { "workload": "shmem-remove", "size": "32M", "threads": 1 }, { "workload": "seq-read", "size": "8M", "duration": "50ms" } ]' 0 2 '"steal_max": 0.5'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "select count(*) from samples where json_type(noise, '$.steal_pct') in ('real', 'integer') and json_type(noise, '$.nivcsw') = 'integer' and json_type(noise, '$.freq_mhz') in ('null', 'real', 'integer') and json_extract(noise, '$.steal_max_pct') = 0.5"
	assert_output 4
	# flagged exactly when steal went over steal_max or the call waited
	# on a run queue over 5% of its time
	run q "select count(*) from samples where noisy != (json_extract(noise, '$.steal_pct') > 0.5 or json_extract(noise, '$.runq_wait_pct') > 5)"
	assert_output 0
	run q "select count(*) from samples where json_type(noise, '$.runq_wait_ns') = 'integer'"
	assert_output 4
	# the topology: its shape and its hwloc XML, compressed
	run q "select topology_shape = json_extract(topology, '$.shape'), topology_xml_zlib, topology_xml_len > 1000 from runs"
	assert_output "1|1|1"
}

# hog PU: a shell loop spinning on PU until the test ends.
hog() {
	taskset -c "$1" sh -c 'while :; do :; done' &
	fb_after "kill $!"
}

@test "a CPU hog on the measuring PU flags every sample noisy with its run queue wait, and the run says so" {
	local pu=$(( $(npus) - 1 ))
	fb_config '[ { "workload": "seq-read", "size": "8M", "duration": "200ms" }, { "workload": "shmem-remove", "size": "256M", "threads": 1, "mode": ["threads", "processes"] } ]' 0 2 "\"cpus\": \"$pu\""
	# a call of 40 ms or more: longer than a slice of the hog's
	hog "$pu"
	run "$BENCH" run --config "$T/config.json"
	assert_success
	# every sample noisy
	assert_line --regexp "^seq-read size=8M duration=200ms: .* \[2 valid, 2 noisy\]$"
	assert_line --regexp "^shmem-remove size=256M threads=1 mode=threads: .* \[2 valid, 2 noisy\]$"
	assert_line --regexp "^shmem-remove size=256M threads=1 mode=processes: .* \[2 valid, 2 noisy\]$"
	# most of them for their wait on the run queue (CI saw 5 of 6 once:
	# one noisy sample's wait stayed under 5%, its cause not known), and
	# the run's count is the database's
	local n
	n=$(q "select count(*) from samples where noisy = 1 and json_extract(noise, '$.runq_wait_pct') > 5 and json_extract(noise, '$.noisy_reason') glob '*waited * ms on a run queue during the timed call (*% of its wall time, * involuntary context switches)*'")
	[ "$n" -ge 4 ]
	assert_line "$n samples waited on a run queue during their timed call (another task on their CPU?): flagged noisy"
}

# A CPU cgroup of the test's own held to a twentieth of a CPU's time (cfs
# quota, v1 or v2), into CG: two workers there share what one alone gets,
# however busy the machine is besides.
half_cpu_cg() {
	if [ -w /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
		CG=/sys/fs/cgroup/cpu/fbtest.$BATS_ROOT_PID.$BATS_TEST_NUMBER
		mkdir "$CG" && fb_after "rmdir $CG"
		echo 20000 > "$CG/cpu.cfs_period_us"
		echo 1000 > "$CG/cpu.cfs_quota_us"
	elif grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
		CG=/sys/fs/cgroup/fbtest.$BATS_ROOT_PID.$BATS_TEST_NUMBER
		mkdir "$CG" && fb_after "rmdir $CG"
		echo "1000 20000" > "$CG/cpu.max"
	else
		skip "no cgroup CPU controller to hold a run to part of a CPU"
	fi
}
# Run "$@" in CG.
in_cg() { sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG" "$@"; }

@test "PUs shared beyond their capacity flag the samples noisy with the reason, steal or none" {
	[ "$(npus)" -ge 2 ] || skip "needs 2 PUs"
	fb_config '[ { "workload": "shmem-remove", "size": "32M", "threads": [1, 2] } ]' 0 2 '"cpus": "0-1"'
	sed -i 's/"runs": 2/"runs": 1/' "$T/config.json"
	half_cpu_cg
	run in_cg "$BENCH" check --config "$T/config.json"
	assert_success
	assert_line --regexp "^noise: 2 workers' PUs are oversubscribed: a fixed loop on all at once ran [0-9.]+x slower than on one alone \(about [0-9.]+ CPUs' worth\)$"
	run in_cg "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	assert_line --regexp "^bench: warning: 2 workers' PUs are oversubscribed: .*; their samples are flagged noisy$"
	run q "select noisy, json_extract(noise, '$.noisy_reason') from samples where workers = 2"
	assert_output --regexp "^1\|([^|]*; )?oversubscribed: 2 PUs at once ran a fixed loop [0-9.]+x slower than one alone \(about [0-9.]+ CPUs' worth\)(; [^|]*)?$"
	run q "select count(*) from samples where workers = 2 and json_extract(noise, '$.parallel_slowdown') > 1.5"
	assert_output 1
	# one worker has nothing to share: no probe
	run q "select json_type(noise, '$.parallel_slowdown') is null from samples where workers = 1"
	assert_output 1
}

@test "check prints the topology, each worker count's PUs and what is noisy now" {
	fb_config '[ { "workload": "shmem-remove", "size": "32M", "threads": [1, 2, 1024] } ]' 0 2 '"placement": "compact"'
	run "$BENCH" check --config "$T/config.json"
	assert_success
	assert_line --regexp "^topology: [0-9]+ packages?, [0-9]+ NUMA nodes?, [0-9]+ cores?, $(npus) PUs?, (no SMT|[0-9]-way SMT); usable PUs [-0-9,]+ \(cpus .*, affinity .*\); placement compact$"
	assert_line --regexp "^1 worker: PU [0-9]+$"
	assert_line --regexp "^skip +shmem-remove size=32M threads=1024: threads=1024: 1024 workers need 1024 PUs"
	assert_line --regexp "^noise: "
}

@test "cpus and placement are checked: bad lists, unknown nodes, empty sets" {
	fb_config '[ { "workload": "shmem-remove" } ]' 0 2 '"cpus": "3-1"'
	run "$BENCH" check --config "$T/config.json"
	assert_failure 78
	assert_output "bench: $T/config.json: cpus: \"3-1\": the range 3-1 runs backwards (all, node:N, or a list such as 2-15,18)"
	fb_config '[ { "workload": "shmem-remove" } ]' 0 2 '"placement": "spread"'
	run "$BENCH" check --config "$T/config.json"
	assert_failure 78
	assert_output "bench: $T/config.json: placement: \"spread\" is not \"scatter\", \"compact\" or \"explicit\""
	fb_config '[ { "workload": "shmem-remove" } ]' 0 2 '"placement": "explicit"'
	run "$BENCH" check --config "$T/config.json"
	assert_failure 78
	assert_output "bench: $T/config.json: placement: \"explicit\" places workers on the list in cpus, which is \"all\""
	fb_config '[ { "workload": "shmem-remove" } ]' 0 2 '"cpus": "node:63"'
	run "$BENCH" check --config "$T/config.json"
	assert_failure 78
	assert_output --regexp "^bench: $T/config.json: cpus: node:63 is not a NUMA node of this machine \(it has [0-9]+\)$"
	fb_config '[ { "workload": "shmem-remove" } ]' 0 2 '"steal_max": 101'
	run "$BENCH" check --config "$T/config.json"
	assert_failure 78
	assert_output "bench: $T/config.json: steal_max: 101 is not a percentage from 0 to 100"
	# a set with nothing usable in it is a refusal, not a fallback
	fb_config '[ { "workload": "shmem-remove" } ]' 0 2 '"cpus": "4000"'
	run "$BENCH" run --config "$T/config.json"
	assert_failure 69
	assert_output --regexp "^bench: refused: no PU is left to measure on: cpus 4000, affinity [-0-9,]+.* have none in common$"
	[ ! -e "$DB" ]
}

@test "compare: --per-worker shows each worker, noisy samples counted and dropped, topology differences warned" {
	[ "$(npus)" -ge 2 ] || skip "needs 2 PUs"
	fb_config '[ { "workload": "shmem-remove", "size": "32M", "threads": [1, 2] } ]'
	sed -i 's/"runs": 2/"runs": 3/' "$T/config.json"
	run "$BENCH" run --config "$T/config.json" --label base --quiet
	assert_success
	run "$BENCH" run --config "$T/config.json" --label patch --quiet
	assert_success
	run "$BENCH" compare --db "$DB" base patch --per-worker
	assert_success
	assert_line "per worker: each worker's own wall time, median over the samples"
	assert_line "shmem-remove op=unlink size=32M folio=4k dir=/dev/shm populate=fallocate threads=2 mode=threads"
	assert_line --regexp "^  worker +PU +base +PU +patch$"
	assert_line --regexp "^  0 +[0-9]+ +[0-9.]+ [mu]?s +[0-9]+ +[0-9.]+ [mu]?s$"
	assert_line --regexp "^  1 +[0-9]+ +[0-9.]+ [mu]?s +[0-9]+ +[0-9.]+ [mu]?s$"
	assert_line --regexp "^  slowest/fastest +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3}$"
	refute_output --partial "threads=1 mode=threads"$'\n'"  worker"
	run "$BENCH" compare --db "$DB" base patch --per-worker --format csv
	assert_failure 64
	# two of the patch's samples flagged noisy: counted, then left out
	# (none else: this busy machine's own may have been flagged)
	q "update samples set noisy = 0"
	q "update samples set noisy = 1 where id in (select s.id from samples s join cases c on s.case_id = c.id join runs r on c.run_id = r.id where r.label = 'patch' and s.workers = 2 limit 2)"
	run "$BENCH" compare --db "$DB" base patch
	assert_success
	assert_line "bench: warning: samples flagged noisy (steal over steal_max, PUs oversubscribed, or a wait on a run queue): base 0 of 6, patch 2 of 6; --drop-noisy leaves them out"
	run "$BENCH" compare --db "$DB" base patch --drop-noisy --format csv
	assert_success
	assert_line "bench: warning: samples flagged noisy (steal over steal_max, PUs oversubscribed, or a wait on a run queue): base 0 of 6, patch 2 of 6; left out (--drop-noisy)"
	assert_line --regexp '^shmem-remove,".*""threads"":""2"".*",[^,]*,wall,ns,lower,yes,base,1,3,3,.*,patch,1,1,1,'
	assert_line --regexp '^shmem-remove,".*""threads"":""1"".*",[^,]*,wall,ns,lower,yes,base,1,3,3,.*,patch,1,3,3,'
	# another machine shape is a difference besides the kernel: one that
	# is not this machine's own (the lab's 32-vCPU VM is the first)
	shape=$(q "select topology_shape from runs where label = 'base'")
	other='2 packages, 2 NUMA nodes, 32 cores, 32 PUs, no SMT'
	[ "$shape" != "$other" ] || other='1 package, 1 NUMA node, 3 cores, 6 PUs, SMT 2'
	q "update runs set topology_shape = '$other' where label = 'patch'"
	run "$BENCH" compare --db "$DB" base patch --strict
	assert_failure 69
	assert_line "bench: warning: CPU topology differs: base has '$shape', patch has '$other'"
	assert_line "bench: refusing to compare base with patch: 1 difference besides the kernel (--strict)"
}

# issue 17: since 05708d7 the runner's thread filled shmem-remove's file on
# the PU it keeps off the workers', and the worker removed it on a PU idle
# through the fill; and it woke to join or reap the first worker done
# while the others were still timed.  Now each worker fills its own file
# (prepare) on its PU, and the runner sleeps until all are done.
@test "each file is filled on its worker's PU and the runner's thread sleeps through every timed call" {
	[ "$(npus)" -ge 2 ] || skip "needs 2 PUs"
	fb_config '[ { "workload": "shmem-remove", "size": "64M", "op": ["unlink", "memfd-close", "ftruncate"], "threads": [1, 2], "mode": ["threads", "processes"] }, { "workload": "small-truncate", "dir": "/dev/shm", "count": 300, "pages": 16, "threads": [1, 2], "mode": ["threads", "processes"] } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	# valid or not (a loaded host's page cache may fail small-truncate's
	# checks), every sample says where its fills and the runner were
	q "select invalid_reason from samples where valid = 0" | sed 's/^/# invalid: /' >&3
	run q "select count(*) from samples"
	assert_output 32
	run q "select count(*) from samples s join cases c on s.case_id = c.id where c.workload = 'shmem-remove' and json_extract(s.verify, '$.fills_off_pu') = 0"
	assert_output 24
	# the runner's thread's CPU time (its schedstat) during every call
	run q "select count(*) from samples where json_extract(verify, '$.runner_ran_ns') = 0"
	assert_output 32
}

@test "a fill moved off its worker's PU makes the sample invalid" {
	[ "$(npus)" -ge 2 ] || skip "needs 2 PUs"
	fb_config '[ { "workload": "shmem-remove", "size": "2G", "op": "unlink" } ]' 0 2 '"cpus": "1"'
	sed -i 's/"runs": 2/"runs": 1/' "$T/config.json"
	# pin worker 0's thread to PU 0 once it exists
	poke() {
		local id
		id=$(grep -lx fbw-0 /proc/"$pid"/task/*/comm 2>/dev/null |
		     sed -n 's|/proc/[0-9]*/task/\([0-9]*\)/comm|\1|p')
		[ -n "$id" ] && taskset -pc 0 "$id" >/dev/null
	}
	run_poking 500 poke
	wait "$pid"
	cat "$T/out"
	[ "$ok" = 1 ]
	run q "select valid, json_extract(verify, '$.fills_off_pu') from samples"
	assert_output "0|1"
	# the first reason is the worker's own check (it moved)
	run q "select invalid_reason from samples"
	assert_output --partial "worker 0 "

}

@test "a worker process killed in its timed call ends the case, the other killed, nothing left waiting" {
	[ "$(npus)" -ge 2 ] || skip "needs 2 PUs"
	fb_config '[ { "workload": "small-truncate", "count": 1000000, "pages": 1, "wsize": "4k", "threads": 2, "mode": "processes" } ]'
	sed -i 's/"runs": 2/"runs": 1/' "$T/config.json"
	# kill worker 1 once both are in their timed loops
	poke() {
		local w
		w=$(pgrep -P "$pid" -x fbw-1 || true)
		[ -n "$w" ] && [ -n "$(pgrep -P "$pid" -x fbw-0)" ] &&
			grep -q '^State:.*R' /proc/"$w"/status &&
			kill -9 "$w"
	}
	run_poking 1000 poke
	timeout 60 tail --pid="$pid" -f /dev/null
	wait "$pid" || true
	cat "$T/out"
	[ "$ok" = 1 ]
	run q "select status, reason from cases"
	assert_output --regexp "^failed\|worker 1 \(pid [0-9]+\) was killed by signal 9$"
	[ -z "$(pgrep -P "$pid")" ]
}
