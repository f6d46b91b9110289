#!/usr/bin/env bats
# bench run --profile (issue 30): the kernel sampled during each timed call,
# stored per case as folded stacks of real kernel functions, carried by
# merge and the run document, exported folded; and the runs that cannot
# have a profile going on without one.

load test_helper

# The run's samples' kernel functions that /proc/kallsyms does not name as
# text: none is expected.
unknown_functions() {
	awk '$2 ~ /^[tT]$/ { print $3 }' /proc/kallsyms | sort -u > "$T/names"
	q "select stack from profile_stacks" | tr ';' '\n' | sort -u > "$T/used"
	comm -23 "$T/used" "$T/names" | grep -vx '\[unknown\]'
}

@test "a profiled unlink stores stacks of real kernel functions, its timed calls only" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M", "op": "unlink" } ]' 1 3
	run "$BENCH" run --config "$T/config.json" --profile
	assert_success
	assert_line --regexp '^shmem-remove op=unlink size=64M: .*; profile [0-9]+ samples in 3 calls$'
	# the warm-up is not profiled, every timed call is
	run q "select warmup, profiled from samples order by rep"
	assert_output "1|0
0|1
0|1
0|1"
	# the case's sums are its stacks', and each sample's count adds up
	run q "select json_extract(profile, '$.calls') = 3,
		json_extract(profile, '$.samples') = (select sum(count) from profile_stacks),
		json_extract(profile, '$.samples') = (select sum(json_extract(verify, '$.profile_samples')) from samples),
		json_extract(profile, '$.event'), json_extract(profile, '$.unit'),
		json_extract(profile, '$.period'), json_extract(profile, '$.symbols') like '/proc/kallsyms of $(uname -r) (%'
		from cases"
	assert_output "1|1|1|cpu-clock|ns|100000|1"
	run unknown_functions
	assert_output ""
	# most of the call is the unlink's eviction of the file's folios
	run q "select 2 * sum(count) > (select sum(count) from profile_stacks)
		from profile_stacks
		where stack like '%do_unlinkat;%shmem_evict_inode;shmem_undo_range%'"
	assert_output 1
	# outermost first: the system call's entry begins the call's stacks
	run q "select count(*) from profile_stacks where stack like '%do_unlinkat%'
		and stack not like 'entry_SYSCALL_64%'"
	assert_output 0
}

@test "profiled samples stay out of the series reports compare; an unprofiled run has no profile" {
	fb_config '[ { "workload": "shmem-remove", "size": "16M", "op": "ftruncate" } ]' 0 2
	run "$BENCH" run --config "$T/config.json" --label prof --profile --quiet
	assert_success
	run "$BENCH" run --config "$T/config.json" --label plain --quiet
	assert_success
	run q "select r.label, c.profile is null, sum(s.profiled),
		(select count(*) from profile_stacks p where p.case_id = c.id) > 0
		from runs r join cases c on c.run_id = r.id
		join samples s on s.case_id = c.id group by r.id order by r.id"
	assert_output "prof|0|2|1
plain|1|0|0"
	# the series hold the unprofiled run's samples alone
	run q "select r.label, x.samples, (select count(*) from run_series v
		where v.run_id = r.id and v.ord >= 0) > 0 from runs r
		join run_series x on x.run_id = r.id and x.ord = -1 order by r.id"
	assert_output "prof|0|0
plain|2|1"
	# and so does the samples-level read, once the series are gone
	q "delete from run_series"
	run "$BENCH" export --db "$DB" --format csv prof
	refute_output --partial 'shmem-remove'
	run "$BENCH" export --db "$DB" --format csv plain
	assert_success
	assert_output --partial 'shmem-remove'
}

@test "parallel workers in processes are profiled on their PUs" {
	[ "$(nproc)" -ge 2 ] || skip "two workers need two CPUs; this machine has $(nproc)"
	fb_config '[ { "workload": "shmem-remove", "size": "32M", "op": "ftruncate", "threads": 2, "mode": "processes" } ]' 0 2
	run "$BENCH" run --config "$T/config.json" --profile --quiet
	assert_success
	run q "select count(*) from samples where profiled = 1"
	assert_output 2
	run q "select 2 * sum(count) > (select sum(count) from profile_stacks)
		from profile_stacks where stack like '%do_ftruncate;%shmem_undo_range%'"
	assert_output 1
	run unknown_functions
	assert_output ""
}

@test "merge carries the profiles and the run document holds them" {
	fb_config '[ { "workload": "shmem-remove", "size": "16M", "op": "unlink" } ]' 0 2
	run "$BENCH" run --config "$T/config.json" --db "$T/a.db" --profile --quiet
	assert_success
	run "$BENCH" merge "$DB" "$T/a.db"
	assert_success
	for db in "$T/a.db" "$DB"; do
		sqlite3 "$db" "select c.profile, p.stack, p.count from cases c
			join profile_stacks p on p.case_id = c.id order by p.stack" > "$db.txt"
		sqlite3 "$db" "select rep, profiled from samples order by rep" >> "$db.txt"
	done
	run cmp "$T/a.db.txt" "$DB.txt"
	assert_success
	[ -s "$DB.txt" ]
	uuid=$(q "select uuid from runs")
	"$BENCH" export --db "$DB" --run "$uuid" --format run-json > "$T/run.json"
	fb_json_valid run "$T/run.json"
	run python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["cases"][0]
print(d["profile"]["calls"], sum(s["count"] for s in d["profile_stacks"]) == d["profile"]["samples"],
      [s["profiled"] for s in d["samples"]])' "$T/run.json"
	assert_output "2 True [True, True]"
}

@test "export --format folded is read back by a folded parser, its sums the database's" {
	fb_config '[ { "workload": "shmem-remove", "size": "16M", "op": ["unlink", "ftruncate"] } ]' 0 2
	run "$BENCH" run --config "$T/config.json" --label k --profile --quiet
	assert_success
	run "$BENCH" run --config "$T/config.json" --label k --profile --quiet
	assert_success
	"$BENCH" export --db "$DB" --format folded k > "$T/k.folded"
	# flamegraph.pl's reading: the count after the last space, the stack
	# before it, frames between ';'; the first frame names the case
	awk '
		!/^[^;]+(;[^;]+)+ [0-9]+$/ { bad++; next }
		{
			n = $NF; s = $0; sub(/ [0-9]+$/, "", s)
			split(s, f, ";"); sum[f[1]] += n; lines++
			if (seen[s]++) dup++
		}
		END {
			for (c in sum) print c "|" sum[c]
			print "lines " lines " bad " bad + 0 " dup " dup + 0
		}' "$T/k.folded" | sort > "$T/parsed"
	q "select c.workload || (select group_concat(' ' || key || '=' || value, '')
			from json_each(c.params)) || '|' || sum(p.count)
		from cases c join profile_stacks p on p.case_id = c.id
		group by c.workload, c.params" > "$T/db"
	q "select 'lines ' || count(*) || ' bad 0 dup 0' from (select distinct c.params, p.stack
		from cases c join profile_stacks p on p.case_id = c.id)" >> "$T/db"
	sort -o "$T/db" "$T/db"
	run diff "$T/db" "$T/parsed"
	assert_success
	run grep -c '^shmem-remove op=unlink size=16M ' "$T/k.folded"
	assert_success
}

@test "export --format folded of a label without a profile says so" {
	fb_config '[ { "workload": "shmem-remove", "size": "16M", "op": "unlink" } ]' 0 2
	run "$BENCH" run --config "$T/config.json" --label plain --quiet
	assert_success
	run "$BENCH" export --db "$DB" --format folded plain
	assert_failure 69
	assert_output "bench: label 'plain' has no kernel profile: its runs were not profiled (bench run --profile), or the kernel would not give one (cases.profile says why)"
}

@test "kallsyms of zeros (kernel.kptr_restrict=2): the run goes on unprofiled and says so once" {
	before=$(cat /proc/sys/kernel/kptr_restrict)
	fb_after "echo $before > /proc/sys/kernel/kptr_restrict"
	echo 2 > /proc/sys/kernel/kptr_restrict
	fb_config '[ { "workload": "shmem-remove", "size": "16M", "op": ["unlink", "ftruncate"] } ]' 0 2
	run "$BENCH" run --config "$T/config.json" --profile --quiet
	echo "$before" > /proc/sys/kernel/kptr_restrict
	assert_success
	run grep -c 'no kernel profile' <<< "$output"
	assert_output 1
	run q "select distinct profile from cases"
	assert_output '{"off":"/proc/kallsyms shows every address as 0 (kernel.kptr_restrict, or not root)"}'
	run q "select count(*) from samples where profiled = 0"
	assert_output 4
	run q "select count(*) from profile_stacks"
	assert_output 0
}

@test "a kernel that refuses CPU events (no CAP_PERFMON, perf_event_paranoid 2): unprofiled, said once" {
	command -v setpriv > /dev/null || skip "setpriv (util-linux) is not installed"
	before=$(cat /proc/sys/kernel/perf_event_paranoid)
	fb_after "echo $before > /proc/sys/kernel/perf_event_paranoid"
	[ "$before" -ge 1 ] || echo 2 > /proc/sys/kernel/perf_event_paranoid
	fb_config '[ { "workload": "shmem-remove", "size": "16M", "op": ["unlink", "ftruncate"] } ]' 0 2
	run setpriv --inh-caps=-perfmon,-sys_admin --bounding-set=-perfmon,-sys_admin \
		"$BENCH" run --config "$T/config.json" --profile --quiet
	echo "$before" > /proc/sys/kernel/perf_event_paranoid
	assert_success
	run grep -c 'warning: no kernel profile: the kernel refuses a cpu-clock event on CPU [0-9]*: Permission denied (a CPU.s events need CAP_PERFMON or kernel.perf_event_paranoid <= 0; it is [12]); the run goes on unprofiled' <<< "$output"
	assert_output 1
	run q "select count(*) from cases where json_extract(profile, '$.off') like '%Permission denied%'"
	assert_output 2
	run q "select sum(profiled), (select count(*) from profile_stacks) from samples"
	assert_output "0|0"
}

@test "a call too short for a tick says how many samples it has" {
	fb_config '[ { "workload": "shmem-remove", "size": "1M", "op": "ftruncate" } ]' 0 2 \
		'"profile": true, "profile_period": "1s"'
	run "$BENCH" run --config "$T/config.json"
	assert_success
	assert_line --regexp '^shmem-remove op=ftruncate size=1M: .*; profile [0-9]+ samples? in 2 calls \(too few to compare: fewer than 10 a call, a tick is 1s\)$'
	run q "select json_extract(profile, '$.period'), json_extract(profile, '$.calls'),
		json_extract(profile, '$.samples') = (select coalesce(sum(count), 0) from profile_stacks),
		(select count(*) from samples where json_extract(verify, '$.profile_samples') is not null)
		from cases"
	assert_output "1000000000|2|1|2"
}

@test "profile and profile_period are checked where the config gives them" {
	printf '{ "runs": 1,\n  "profile": "yes",\n  "suite": [ { "workload": "shmem-remove" } ] }\n' > "$T/c.json"
	run "$BENCH" run --config "$T/c.json"
	assert_failure 78
	assert_output "bench: $T/c.json: line 2, column 14: profile: \"yes\" is not true or false"
	printf '{ "runs": 1, "profile": true,\n  "profile_period": "5us",\n  "suite": [ { "workload": "shmem-remove" } ] }\n' > "$T/c.json"
	run "$BENCH" run --config "$T/c.json"
	assert_failure 78
	assert_output "bench: $T/c.json: line 2, column 21: profile_period: \"5us\" is not from 10us (the kernel's shortest cpu-clock period) to 1s"
	printf '{ "runs": 1, "profile_period": 100,\n  "suite": [ { "workload": "shmem-remove" } ] }\n' > "$T/c.json"
	run "$BENCH" run --config "$T/c.json"
	assert_failure 78
	assert_output "bench: $T/c.json: line 1, column 32: profile_period: 100 is not a duration (\"100us\", \"1ms\")"
	run "$BENCH" check --profile
	assert_failure 64
}
