#!/usr/bin/env bats
# The command line: help, version, usage errors and exit codes.

load test_helper
load fixtures/fixture

@test "--help lists the commands and exits 0" {
	run "$BENCH" --help
	assert_success
	assert_output --partial "usage: bench <command> [options]"
	assert_output --partial "  run       run the suite and store every sample"
	assert_output --partial "  list      workloads, their parameters and defaults"
}

@test "--version prints the tool version" {
	run "$BENCH" --version
	assert_success
	assert_output --regexp '^foliobench [0-9a-f]'
}

@test "no command is a usage error (64)" {
	run "$BENCH"
	assert_failure 64
	assert_output --partial "usage: bench"
}

@test "an unknown command names itself and exits 64" {
	run "$BENCH" frobnicate
	assert_failure 64
	assert_output "bench: 'frobnicate' is not a command; see 'bench --help'"
}

@test "run rejects an unknown option with 64" {
	run "$BENCH" run --frob
	assert_failure 64
	assert_line --index 0 "bench: unknown option '--frob'"
}

@test "run --runs must be a positive whole number" {
	run "$BENCH" run --runs 0
	assert_failure 64
	assert_output "bench: --runs: '0' is not a whole number from 1 to 100000"
	run "$BENCH" run --runs abc
	assert_failure 64
}

@test "run --help shows its options" {
	run "$BENCH" run --help
	assert_success
	assert_output --partial "--config FILE"
	assert_output --partial "--quiet"
}

@test "list shows every workload with typed parameters and defaults" {
	run "$BENCH" list
	assert_success
	assert_line "shmem-remove"
	assert_line --regexp '^    op +choice +default unlink +the timed removal \(ftruncate, punch-hole, memfd-close, unlink\)$'
	assert_line --regexp '^    size +size +default 8G '
	assert_line --regexp '^    wall +ns +lower is better'
}

@test "runs on a missing database says so and exits 66" {
	run "$BENCH" runs --db "$T/none.db"
	assert_failure 66
	assert_output "bench: no database at $T/none.db (record runs with \`bench run\` first)"
	[ ! -e "$T/none.db" ]
}

@test "runs on a file that is not a database exits 65" {
	echo "hello" > "$T/x.db"
	run "$BENCH" runs --db "$T/x.db"
	assert_failure 65
	assert_output --partial "bench: $T/x.db is not a foliobench database"
}

@test "a database of a newer schema is refused, not touched" {
	sqlite3 "$DB" "PRAGMA user_version = 99; CREATE TABLE t(x);"
	run "$BENCH" runs --db "$DB"
	assert_failure 76
	assert_output "bench: cannot read $DB: schema version 99 is newer than this tool's $(fb_schema_latest); use a newer foliobench"
	run sqlite3 "$DB" "PRAGMA user_version"
	assert_output "99"
}

@test "a user who is not root is refused with 69 before anything is made" {
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$BENCH" ||
		skip "nobody cannot reach $BENCH"
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]'
	# nobody cannot reach bats' private directory: a readable copy
	cfgfile=$(mktemp /tmp/foliobench-test.XXXXXX)
	cp "$T/config.json" "$cfgfile"; chmod 644 "$cfgfile"
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$BENCH" run --config "$cfgfile"
	assert_failure 69
	assert_output "bench: refused: foliobench needs root (it mounts, makes cgroups and sets THP knobs); run it with sudo"
	[ ! -e "$DB" ]
	# check shows the machine all the same
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$BENCH" check --config "$cfgfile"
	rm -f "$cfgfile"
	assert_failure 69
	assert_line --regexp "^topology: [0-9]+ packages?, .*; usable PUs [-0-9,]+ \(cpus .*\); placement scatter$"
	assert_line "bench: refused: foliobench needs root (it mounts, makes cgroups and sets THP knobs); run it with sudo"
	[ ! -e "$DB" ]
}

@test "a database of an older schema is migrated in place, its rows kept" {
	fx_schema1 "$DB" u1
	run "$BENCH" runs --db "$DB"
	assert_success
	assert_line --regexp '^1 +u1 +old +6.1 +b1 +complete '
	run q "PRAGMA user_version"
	assert_output "$(fb_schema_latest)"
	run q "select label, virt = '' from runs"
	assert_output "old|1"
	# cases gained the params asked beside those that ran (version 6)
	run q "select count(*) from pragma_table_info('cases') where name = 'asked'"
	assert_output 1
}

@test "a run records whether it ran in a VM" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]'
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	# from the kernel's own boot message, not the cpuinfo flag the code
	# reads (test_meta checks it against CPUID)
	if dmesg 2>/dev/null | grep -q 'Booting paravirtualized kernel\|Hypervisor detected'; then
		want=VM
	elif command -v systemd-detect-virt >/dev/null; then
		want="bare metal"
		systemd-detect-virt --quiet --vm && want=VM
	else
		skip "neither dmesg nor systemd-detect-virt can say"
	fi
	run q "select virt from runs"
	assert_output "$want"
}

@test "--only keeps the named workloads' cases and drops the others" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M" }, { "workload": "seq-read", "size": "1M", "duration": "100ms" } ]'
	run "$BENCH" check --config "$T/config.json" --only seq-read
	assert_success
	assert_line --index 0 "ok     seq-read size=1M duration=100ms"
	assert_line --index 1 --regexp "^1 cases: "
	refute_line --partial "shmem-remove"
	run "$BENCH" run --config "$T/config.json" --only shmem-remove --quiet
	assert_success
	run q "select distinct workload from cases"
	assert_output "shmem-remove"
	run "$BENCH" run --config "$T/config.json" --only nope
	assert_failure 64
	assert_output 'bench: --only: unknown workload "nope" (see `bench list`)'
}

@test "--runs N overrides the runs of every case" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M", "op": ["ftruncate", "unlink"], "runs": 4 } ]' 0 5
	run "$BENCH" run --config "$T/config.json" --runs 3 --quiet
	assert_success
	run q "select c.params, count(*) from samples s join cases c on c.id = s.case_id group by c.id order by c.id"
	assert_output --regexp '^\{"op":"ftruncate",[^|]*\|3
\{"op":"unlink",[^|]*\|3$'
}

@test "a label with a newline, a quote, ../ or a shell metacharacter is refused (64)" {
	for bad in '../x' 'a"b' "a'b" 'a;b' '$(id)' 'a b' '-x' '.x'; do
		run "$BENCH" run --label "$bad"
		assert_failure 64
		assert_output --regexp '^bench: --label ".*": a label '
	done
	run "$BENCH" run --label $'a\nb'
	assert_failure 64
	assert_output 'bench: --label "a\u000ab": a label holds only letters, digits and . _ + ~ : @ - (byte 0x0a at offset 1)'
	[ ! -e "$DB" ]
}

@test "list shows the range of every parameter that has one, as config checks it" {
	run "$BENCH" list
	assert_success
	assert_line --regexp '^    size +size +default 8G +file size \(range 1M to 1T\)$'
	assert_line --regexp '^    duration +duration +default 10s +how long to read \(fio.s runtime\) \(range 10ms to 86400s\)$'
	assert_line --regexp '^    coverage +percent +default 90 .* \(range 0 to 100\)$'
	# every range listed is the one a value past it is refused with
	local w='' line name type lo hi n=0
	while IFS= read -r line; do
		if [[ $line =~ ^[a-z] ]]; then
			w=$line
			continue
		fi
		[[ $line =~ ^\ \ \ \ ([a-z_]+)\ +(size|count|duration|percent)\ .*\(range\ ([0-9a-zA-Z]+)\ to\ ([0-9a-zA-Z]+)\)$ ]] || continue
		name=${BASH_REMATCH[1]} type=${BASH_REMATCH[2]}
		lo=${BASH_REMATCH[3]} hi=${BASH_REMATCH[4]}
		case $type in
		size) past="$(numfmt --from=iec "$hi")"; past=$((past + 1)) ;;
		duration) past="\"$((${hi%s} + 1))s\"" ;;
		*) past=$((hi + 1)) ;;
		esac
		printf '{ "suite": [ { "workload": "%s", "%s": %s } ] }\n' \
			"$w" "$name" "$past" > "$T/c.json"
		run "$BENCH" run --config "$T/c.json" --db "$DB"
		assert_failure 78
		assert_output --regexp "^bench: $T/c.json: suite\[0\]\.$name: .* is out of range \($lo to $hi\)\$"
		n=$((n + 1))
	done < <("$BENCH" list)
	[ "$n" -ge 12 ]
	[ ! -e "$DB" ]
}

@test "runs and list exit 74 when their output cannot be written" {
	fx_known "$DB"
	run bash -c '"$0" runs --db "$1" > /dev/full' "$BENCH" "$DB"
	assert_failure 74
	assert_output "bench: cannot write the output: No space left on device"
	run bash -c '"$0" list > /dev/full' "$BENCH"
	assert_failure 74
	assert_output "bench: cannot write the output: No space left on device"
	run bash -c '"$0" list --help > /dev/full' "$BENCH"
	assert_failure 74
	# bench's own --help and --version too
	local opt
	for opt in --help -h help --version -V; do
		run bash -c '"$0" "$1" > /dev/full' "$BENCH" "$opt"
		assert_failure 74
		assert_output "bench: cannot write the output: No space left on device"
	done
	# a closed stdout is no place to write either
	run bash -c '"$0" runs --db "$1" >&-' "$BENCH" "$DB"
	assert_failure 74
	assert_output --regexp '^bench: cannot write the output: '
	# an error already said stays the exit code
	run bash -c '"$0" runs --db "$1" > /dev/full' "$BENCH" "$T/none.db"
	assert_failure 66
}

@test "a directory or a device named as the database is said to be one (65), for every command that reads it and merge" {
	local db cmd want
	mkdir "$T/dir"
	fx_known "$DB"
	for db in "$T/dir" /dev/null; do
		want="it is a directory"
		[ "$db" = /dev/null ] && want="it is not a regular file"
		for cmd in runs "compare 6.18.0-base 6.18.0-patch" "export 6.18.0-base"; do
			# shellcheck disable=SC2086
			run "$BENCH" $cmd --db "$db"
			assert_failure 65
			assert_output "bench: $db is not a foliobench database: $want"
		done
		run "$BENCH" merge "$T/out.db" "$db"
		assert_failure 65
		assert_output "bench: $db is not a foliobench database: $want"
		run "$BENCH" merge "$db" "$DB"
		assert_failure 65
		assert_output "bench: cannot open $db: $want"
	done
	[ -c /dev/null ] && [ ! -e "$T/out.db" ]
}

@test "run and merge say why a database cannot be opened or made: a directory, a device, no directory for it" {
	local db
	mkdir "$T/dir"
	touch "$T/file"
	fb_config '[ { "workload": "seq-read", "size": "1M", "duration": "10ms" } ]' 0 1
	# said as the reading commands say it, not "a damaged one" and
	# integrity_check, not "unable to open database file"
	for db in "$T/dir|65|it is a directory" "/dev/null|65|it is not a regular file" \
		  "$T/no/sub/r.db|74|its directory $T/no/sub does not exist" \
		  "$T/file/r.db|74|$T/file, where it would be, is not a directory"; do
		IFS='|' read -r db code want <<< "$db"
		run "$BENCH" run --config "$T/config.json" --db "$db" --quiet
		assert_failure "$code"
		assert_output "bench: cannot open database $db: $want"
	done
	run "$BENCH" merge "$T/no/out.db" "$DB"
	assert_failure 74
	assert_output "bench: cannot open $T/no/out.db: its directory $T/no does not exist"
	[ ! -e "$T/no" ] && [ -c /dev/null ]
}

@test "a database name with no room for its -journal (over 247 bytes) is refused before anything is made; 247 is used" {
	local long ok
	long=$(printf 'd%.0s' $(seq 1 245)).db	# 248 bytes
	ok=$(printf 'd%.0s' $(seq 1 244)).db	# 247
	fx_known "$DB"
	why="its name is 248 bytes: with -journal beside it, past the 255 a file name may have (at most 247)"
	run "$BENCH" merge "$T/$long" "$DB"
	assert_failure 64
	assert_output "bench: the output database \"$T/$long\": $why"
	fb_config '[ { "workload": "seq-read", "size": "1M", "duration": "10ms" } ]' 0 1
	run "$BENCH" run --config "$T/config.json" --db "$T/$long" --quiet
	assert_failure 64
	assert_output "bench: --db \"$T/$long\": $why"
	sed -i "s|\"database\": \"[^\"]*\"|\"database\": \"$T/$long\"|" "$T/config.json"
	run "$BENCH" check --config "$T/config.json"
	assert_failure 78
	assert_output --partial "$why"
	[ -z "$(find "$T" -name 'ddd*')" ]
	run "$BENCH" merge "$T/$ok" "$DB"
	assert_success
	run "$BENCH" runs --db "$T/$ok"
	assert_success
	assert_line --partial "6.18.0-base"
}

@test "config messages: a CPU listed twice, a number past 2^53 as written" {
	local c
	for c in '"1,1"' '"0-2,1"'; do
		printf '{ "cpus": %s, "suite": [ { "workload": "seq-read" } ] }\n' "$c" > "$T/c.json"
		run "$BENCH" check --config "$T/c.json"
		assert_failure 78
		assert_output "bench: $T/c.json: cpus: $c: CPU 1 is listed twice"
	done
	# a number as written, not as a double holds it (2^53 + 1 reads as
	# 2^53, 1e300 as 1.0000000000000001e+300)
	for c in runs:9007199254740993 runs:-9007199254740993 runs:1e300 \
		 runs:123456789012345678901234567890 steal_max:9007199254740992.5; do
		printf '{ "%s": %s, "suite": [ { "workload": "seq-read" } ] }\n' "${c%%:*}" "${c#*:}" > "$T/c.json"
		run "$BENCH" check --config "$T/c.json"
		assert_failure 78
		assert_output "bench: $T/c.json: ${c%%:*}: ${c#*:} is beyond 2^53 (9007199254740992), where JSON numbers stop being exact; write sizes as \"8G\""
	done
	printf '{ "suite": [ { "workload": "seq-read", "threads": [1, 2e20] } ] }\n' > "$T/c.json"
	run "$BENCH" check --config "$T/c.json"
	assert_failure 78
	assert_output "bench: $T/c.json: suite[0].threads[1]: 2e20 is beyond 2^53 (9007199254740992), where JSON numbers stop being exact; write sizes as \"8G\""
	# the number alone: the control bytes JSON skips after it are not
	# quoted (fuzz_config found them in the message)
	printf '{ "suite": [ { "workload": "seq-read", "size": 18014398509481983\036\036\007 } ] }\n' > "$T/c.json"
	run "$BENCH" check --config "$T/c.json"
	assert_failure 78
	assert_output "bench: $T/c.json: suite[0].size: 18014398509481983 is beyond 2^53 (9007199254740992), where JSON numbers stop being exact; write sizes as \"8G\""
	# 2^53 itself is exact, however written: judged as a value
	for c in 9007199254740992 9007199254740992.0 9.007199254740992e15; do
		printf '{ "runs": %s, "suite": [ { "workload": "seq-read" } ] }\n' "$c" > "$T/c.json"
		run "$BENCH" check --config "$T/c.json"
		assert_failure 78
		assert_output "bench: $T/c.json: runs: 9007199254740992 is not a whole number from 1 to 100000"
	done
	printf '{ "runs": 2.5, "steal_max": 100.25, "suite": [ { "workload": "seq-read" } ] }\n' > "$T/c.json"
	run "$BENCH" check --config "$T/c.json"
	assert_failure 78
	assert_output "bench: $T/c.json: runs: 2.5 is not a whole number from 1 to 100000"
}
