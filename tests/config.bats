#!/usr/bin/env bats
# Config validation: every error names file, place and value, exits 78, and
# creates nothing (no database, no run row, no scratch file).

load test_helper

bats_require_minimum_version 1.5.0

cfg() { printf '%s\n' "$1" > "$T/c.json"; }

# Run with $T/c.json; the database must not appear.
run_cfg() {
	run "$BENCH" run --config "$T/c.json" --db "$DB"
	assert_failure 78
	[ ! -e "$DB" ]
}

@test "malformed JSON reports line and column" {
	cfg '{ "runs": 2,
  "suite": [ { "workload": "shmem-remove", } ] }'
	run_cfg
	assert_output "bench: $T/c.json: line 2, column 45: malformed JSON near ' ] }'"
}

@test "a truncated file is an unexpected end of file" {
	cfg '{ "suite": [ '
	run_cfg
	assert_output --regexp "^bench: $T/c.json: line 2, column 1: malformed JSON: unexpected end of file\$"
}

@test "trailing garbage after the JSON value is an error" {
	cfg '{ "suite": [ { "workload": "shmem-remove" } ] } xyz'
	run_cfg
	assert_output "bench: $T/c.json: line 1, column 49: trailing garbage after the JSON value: 'xyz'"
}

@test "an unknown top-level key suggests the nearest" {
	cfg '{ "rusn": 3, "suite": [ { "workload": "shmem-remove" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: rusn: unknown key in the top level; did you mean \"runs\"?"
}

@test "an unknown workload parameter suggests the nearest" {
	cfg '{ "suite": [ { "workload": "shmem-remove", "szie": "64M" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: suite[0].szie: unknown key in shmem-remove; did you mean \"size\"?"
}

@test "an unknown workload is named" {
	cfg '{ "suite": [ { "workload": "shmem-remov" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: suite[0].workload: unknown workload \"shmem-remov\"; did you mean \"shmem-remove\"?"
}

@test "a size that does not parse names the key path and value" {
	cfg '{ "suite": [ { "workload": "shmem-remove", "size": "8Q" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: suite[0].size: \"8Q\" is not a size (a whole number of bytes, or with k, M, G, T: \"64M\", \"8G\")"
}

@test "a size inside a sweep names its index" {
	cfg '{ "suite": [ { "workload": "shmem-remove", "size": ["64M", "x"] } ] }'
	run_cfg
	assert_output --partial "suite[0].size[1]: \"x\" is not a size"
}

@test "a negative size is an error" {
	cfg '{ "suite": [ { "workload": "shmem-remove", "size": -1 } ] }'
	run_cfg
	assert_output --partial "suite[0].size: -1 is not a size"
}

@test "an out-of-range size gives the range" {
	cfg '{ "suite": [ { "workload": "shmem-remove", "size": "4k" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: suite[0].size: \"4k\" is out of range (1M to 1T)"
}

@test "a wrong type is an error" {
	cfg '{ "suite": [ { "workload": "shmem-remove", "op": 3 } ] }'
	run_cfg
	assert_output "bench: $T/c.json: suite[0].op: 3 is not one of the listed choices"
}

@test "an enum value outside its choices lists them" {
	cfg '{ "suite": [ { "workload": "shmem-remove", "op": "truncate" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: suite[0].op: \"truncate\" is not one of: ftruncate, punch-hole, memfd-close, unlink"
}

@test "runs must be a positive whole number" {
	cfg '{ "runs": 0, "suite": [ { "workload": "shmem-remove" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: runs: 0 is not a whole number from 1 to 100000"
	cfg '{ "runs": 2.5, "suite": [ { "workload": "shmem-remove" } ] }'
	run_cfg
}

@test "duplicate keys are an error" {
	cfg '{ "suite": [ { "workload": "shmem-remove", "size": "64M", "size": "8G" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: suite[0].size: duplicate key"
}

@test "an empty sweep runs nothing and is an error" {
	cfg '{ "suite": [ { "workload": "shmem-remove", "op": [] } ] }'
	run_cfg
	assert_output "bench: $T/c.json: suite[0].op: an empty sweep runs nothing"
}

@test "a missing suite is an error" {
	cfg '{ "runs": 3 }'
	run_cfg
	assert_output "bench: $T/c.json: missing key \"suite\" (the list of workloads to run)"
}

@test "a bad folio names what is allowed" {
	cfg '{ "suite": [ { "workload": "shmem-remove", "folio": "3k" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: suite[0].folio: \"3k\": not a folio size (4k, pmd, or a power of two such as 64k)"
}

@test "a cpu this process may not use is a config error" {
	cfg '{ "cpu": 4000, "suite": [ { "workload": "shmem-remove" } ] }'
	run_cfg
	assert_output --partial "cpu: 4000 is not a logical CPU this process may use"
}

@test "a missing config file is an error naming it" {
	run "$BENCH" run --config "$T/nope.json" --db "$DB"
	assert_failure 78
	assert_output "bench: cannot read $T/nope.json: No such file or directory"
	[ ! -e "$DB" ]
}

@test "comment keys are ignored and the example config is valid" {
	run "$BENCH" check --config "$BATS_TEST_DIRNAME/../config.example.json"
	# ok, or refused for size on a small machine: nothing else (no config
	# error, no crash)
	[ "$status" -eq 0 ] || [ "$status" -eq 69 ]
	assert_line --regexp '^(ok|refuse) +shmem-remove op=ftruncate size=8G folio=4k'
	# every line is a case, a refusal, a mend, or the summary
	run grep -cvE '^(ok|skip|refuse) |^bench: (refused|mended|marked|would run)|^[0-9]+ cases: |^topology: |^[0-9]+ workers?: |^noise: ' <<< "$output"
	assert_output 0
}

@test "the example config on a machine with a small /dev/shm runs what fits and skips the 8G files it cannot hold" {
	# a 7.8 GiB /dev/shm (16 GiB VM) as a 3 GiB tmpfs of the test's own
	mkdir "$T/shm"
	mount -t tmpfs -o size=3G fbtest-shm "$T/shm"
	fb_after "umount '$T/shm'"
	sed "s|\"scratch\": \"/dev/shm\"|\"scratch\": \"$T/shm\"|" \
		"$BATS_TEST_DIRNAME/../config.example.json" > "$T/example.json"
	grep -q "\"scratch\": \"$T/shm\"" "$T/example.json"
	run "$BENCH" check --config "$T/example.json" --db "$DB"
	assert_success
	assert_line --regexp "^refuse shmem-remove op=ftruncate size=8G folio=4k: needs 8 GiB free in $T/shm, has [0-9.]+ [GM]iB: short by [0-9.]+ GiB$"
	# the 4K files of the three ops that keep them in /dev/shm; PMD files
	# go on a private mount and memfds nowhere, sized by memory alone
	run grep -c "^refuse shmem-remove .*size=8G folio=4k" <<< "$output"
	assert_output 3
	run "$BENCH" check --config "$T/example.json" --db "$DB"
	assert_line --regexp "^ok +seq-read size=1G"
	assert_line --regexp "^ok +shmem-remove op=memfd-close size=8G folio=4k$"
	assert_line --regexp "^bench: would run the [0-9]+ cases that fit; the [0-9]+ refused would be skipped$"
	assert_line --regexp "^topology: "
	umount "$T/shm"
}

@test "a sweep expands to the cartesian product" {
	cfg '{ "suite": [ { "workload": "shmem-remove", "op": ["ftruncate", "unlink"], "size": "64M", "folio": ["4k", "pmd"] } ] }'
	run "$BENCH" check --config "$T/c.json"
	assert_success
	assert_line --index 0 "ok     shmem-remove op=ftruncate size=64M folio=4k"
	assert_line --index 1 "ok     shmem-remove op=ftruncate size=64M folio=pmd"
	assert_line --index 2 "ok     shmem-remove op=unlink size=64M folio=4k"
	assert_line --index 3 "ok     shmem-remove op=unlink size=64M folio=pmd"
}

# Bad input of every kind: each is 78, names the key (or line and column)
# and the problem, and nothing is cut short or made.
@test "a string with \\u0000 is refused, not cut short" {
	cfg '{ "suite": [ { "workload": "seq-read", "file": "/dev/shm/a\u0000b" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: line 1, column 59: a string holds \\u0000, which would cut it short"
}

@test "control characters in a string or a key are refused" {
	cfg '{ "suite": [ { "workload": "seq-read", "dir": "/dev/shm\u001b[2J" } ] }'
	run_cfg
	assert_output 'bench: '"$T"'/c.json: suite[0].dir: "/dev/shm\u001b[2J" holds a control character (U+001B) at offset 8'
	cfg '{ "ru\nns": 2, "suite": [ { "workload": "shmem-remove" } ] }'
	run_cfg
	assert_output 'bench: '"$T"'/c.json: key "ru\u000ans" holds a control character (U+000A) at offset 2'
}

@test "a string that is not UTF-8 is refused without echoing it" {
	printf '{ "database": "r\xffs.db", "suite": [ { "workload": "shmem-remove" } ] }' > "$T/c.json"
	run_cfg
	assert_output "bench: $T/c.json: database: the string is not valid UTF-8 (byte 0xff at offset 1)"
}

@test "an absurdly long string or a file over 1 MiB is refused" {
	long=$(head -c 5000 /dev/zero | tr '\0' a)
	cfg "{ \"database\": \"/tmp/$long\", \"suite\": [ { \"workload\": \"shmem-remove\" } ] }"
	run_cfg
	assert_output --regexp "^bench: $T/c.json: database: \"/tmp/a{54}\\.\\.\\. is 5005 bytes long, more than 4000\$"
	{ printf '{ "#": "'; head -c 1100000 /dev/zero | tr '\0' a; printf '", "suite": [] }'; } > "$T/c.json"
	run_cfg
	assert_output "bench: cannot read $T/c.json: larger than 1 MiB, not a config"
}

@test "nesting deeper than a config needs is refused" {
	cfg '{ "#": [[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]], "suite": [ { "workload": "shmem-remove" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: line 1, column 23: nested deeper than 16 levels"
}

@test "numbers beyond 2^53, infinite, or with a fraction where a whole number is meant" {
	cfg '{ "suite": [ { "workload": "shmem-remove", "size": 18014398509481984 } ] }'
	run_cfg
	assert_output "bench: $T/c.json: suite[0].size: 18014398509481984 is beyond 2^53 (9007199254740992), where JSON numbers stop being exact; write sizes as \"8G\""
	cfg '{ "warmup": 1e999, "suite": [ { "workload": "shmem-remove" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: warmup: a number too large to hold"
	cfg '{ "suite": [ { "workload": "shmem-remove", "size": 1048576.5 } ] }'
	run_cfg
	assert_output --partial "suite[0].size: 1048576.5 is not a size"
}

@test "sizes and durations that overflow say so" {
	cfg '{ "suite": [ { "workload": "shmem-remove", "size": "16777216T" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: suite[0].size: \"16777216T\" is too large (more than 2^64 bytes)"
	cfg '{ "suite": [ { "workload": "seq-read", "duration": "99999999999h" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: suite[0].duration: \"99999999999h\" is too long a duration (more than 292 years)"
	cfg '{ "suite": [ { "workload": "seq-read", "duration": "1e3s" } ] }'
	run_cfg
	assert_output --partial "suite[0].duration: \"1e3s\" is not a duration"
}

@test "a label with a newline, a quote, ../ or a shell metacharacter is refused" {
	for bad in '../x' 'a\"b' 'a;rm -rf' '$(id)' 'a b' '-x' '.hidden'; do
		cfg "{ \"label\": \"$bad\", \"suite\": [ { \"workload\": \"shmem-remove\" } ] }"
		run_cfg
		assert_output --regexp "^bench: $T/c.json: label: .*a label "
	done
	cfg '{ "label": "a\nb", "suite": [ { "workload": "shmem-remove" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: label: \"a\\u000ab\" holds a control character (U+000A) at offset 1"
	cfg '{ "label": "6.18.0-rc3+", "suite": [ { "workload": "shmem-remove", "size": "64M" } ] }'
	run "$BENCH" check --config "$T/c.json"
	assert_success
}

@test "the default config is ./config.json, else the example beside the binary's tree" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M", "op": "punch-hole" } ]'
	run "$BENCH" check
	assert_success
	assert_line "ok     shmem-remove op=punch-hole size=64M"
	rm "$T/config.json"
	run "$BENCH" check
	[ "$status" -eq 0 ] || [ "$status" -eq 69 ]
	assert_line --regexp '^(ok|refuse) +shmem-remove op=ftruncate size=8G folio=4k'
	refute_line --partial "op=punch-hole size=64M"
}

@test "a sweep value given twice, in any spelling, is refused with its place" {
	printf '%s\n' '{ "suite": [ { "workload": "shmem-remove",' \
		'  "size": ["64M", "1G",' '           "1024M"] } ] }' > "$T/c.json"
	run_cfg
	assert_output "bench: $T/c.json: line 3, column 12: suite[0].size[2]: \"1024M\" is the value of suite[0].size[1] (\"1G\") again; a sweep takes each value once"
	# an enum, a count given as a number and a string, a duration; keys
	# and strings with escapes before the value do not move its place
	cfg '{ "#\"x": "a\"b[{", "suite": [ { "workload": "shmem-remove", "op": ["unlink", "ftruncate", "unlink"] } ] }'
	run_cfg
	assert_output "bench: $T/c.json: line 1, column 92: suite[0].op[2]: \"unlink\" is the value of suite[0].op[0] (\"unlink\") again; a sweep takes each value once"
	cfg '{ "suite": [ { "workload": "seq-read" }, { "w\u006frkload": "seq-read", "threads": [2, "2"] } ] }'
	run_cfg
	assert_output "bench: $T/c.json: line 1, column 88: suite[1].threads[1]: \"2\" is the value of suite[1].threads[0] (2) again; a sweep takes each value once"
	cfg '{ "suite": [ { "workload": "seq-read", "duration": ["1s", "2s", "1000ms"] } ] }'
	run_cfg
	assert_output "bench: $T/c.json: line 1, column 65: suite[0].duration[2]: \"1000ms\" is the value of suite[0].duration[0] (\"1s\") again; a sweep takes each value once"
	# values that only look alike are two values
	cfg '{ "suite": [ { "workload": "seq-read", "size": ["1G", "1025M"], "file": ["/a", "/a/"] } ] }'
	run "$BENCH" check --config "$T/c.json"
	refute_output --partial "again"
}

@test "a case that two suite entries both make, in any spelling, is refused with both places (78)" {
	# the same entry three times: the second is named
	cfg '{ "runs": 2, "suite": [ { "workload": "shmem-remove", "size": "16M" },
  { "workload": "shmem-remove", "size": "16384k" },
  { "workload": "shmem-remove", "size": "16M" } ] }'
	run_cfg
	assert_output "bench: $T/c.json: line 2, column 3: suite[1] makes shmem-remove size=16M, a case suite[0] makes too; a suite runs each case once"
	# a point of a sweep made again by a later entry, with other runs
	cfg '{ "suite": [ { "workload": "seq-read" }, { "workload": "shmem-remove", "size": ["16M", "32M"], "op": "unlink" }, { "workload": "shmem-remove", "size": "32768k", "runs": 5 } ] }'
	run_cfg
	assert_output "bench: $T/c.json: line 1, column 114: suite[2] makes shmem-remove size=32M, a case suite[1] makes too; a suite runs each case once"
	# the defaults, once left out and once spelled out
	cfg '{ "suite": [ { "workload": "shmem-remove" }, { "workload": "shmem-remove", "size": "8G", "folio": "4k", "threads": 1 } ] }'
	run_cfg
	assert_output "bench: $T/c.json: line 1, column 46: suite[1] makes shmem-remove size=8G folio=4k threads=1, a case suite[0] makes too; a suite runs each case once"
	# cases that differ in one value, or in their workload, are two
	cfg '{ "suite": [ { "workload": "shmem-remove", "size": "16M" }, { "workload": "shmem-remove", "size": "16M", "folio": "pmd" }, { "workload": "shmem-remove", "size": "17M" }, { "workload": "seq-read", "size": "16M" } ] }'
	run "$BENCH" check --config "$T/c.json"
	refute_output --partial "makes too"
}

@test "a scratch or disk_scratch that is not a directory is refused by check and run alike (78), naming it" {
	local key
	touch "$T/file"
	mkfifo "$T/fifo"
	for key in scratch disk_scratch; do
		for f in file fifo; do
			cfg "{ \"$key\": \"$T/$f\", \"suite\": [ { \"workload\": \"shmem-remove\", \"size\": \"16M\" } ] }"
			run "$BENCH" check --config "$T/c.json"
			assert_failure 78
			assert_output "bench: $T/c.json: $key: \"$T/$f\" is not a directory"
			run_cfg
			assert_output "bench: $T/c.json: $key: \"$T/$f\" is not a directory"
		done
	done
	[ -f "$T/file" ] && [ -p "$T/fifo" ]
}

@test "a sweep product past the case limit is refused before it is made" {
	python3 -c "
import json
print(json.dumps({'suite': [{'workload': 'seq-read',
	'size': ['%dk' % (4 * (i + 1)) for i in range(64)],
	'bs': ['%dk' % (i + 1) for i in range(64)],
	'threads': list(range(1, 65)), 'lat_every': list(range(1, 65))}]}))" > "$T/c.json"
	# 16.7M cases took 3 GB before running out: 1 GB must be plenty
	# (but for ASan, which reserves terabytes of address space up front)
	local lim='ulimit -v 1048576;'
	ldd "$BENCH" | grep -q libasan && lim=''
	run bash -c "$lim"' exec "$0" run --config "$1" --db "$2"' "$BENCH" "$T/c.json" "$DB"
	assert_failure 78
	[ ! -e "$DB" ]
	assert_output "bench: $T/c.json: suite[0]: its sweeps (size: 64 values x bs: 64 values x threads: 64 values x lat_every: 64 values) make 16777216 cases, more than the 10000 a config may run"
	# the limit counts every entry's cases
	python3 -c "
import json
print(json.dumps({'suite': [{'workload': 'seq-read', 'threads': list(range(1, 65))}] * 200}))" > "$T/c.json"
	run_cfg
	assert_output "bench: $T/c.json: suite[156]: its sweeps (threads: 64 values) make 64 cases, 10048 with the 9984 before it, more than the 10000 a config may run"
	# 10000 cases exactly are a config
	python3 -c "
import json
print(json.dumps({'suite': [{'workload': 'seq-read', 'size': ['%dM' % (50 * k + i + 1) for i in range(50)], 'threads': list(range(1, 51))} for k in range(4)]}))" > "$T/c.json"
	run "$BENCH" check --config "$T/c.json" --db "$DB"
	refute_output --partial "a config may run"
	assert_line --regexp '^10000 cases: '
}

@test "a 1 MiB config of keys loads in linear time, and its duplicate is found" {
	python3 -c "
parts, size, n = [], 2, 0
while True:
	item = '\"#%x\":0,' % n
	if size + len(item) > (1 << 20) - 40:
		break
	parts.append(item)
	size += len(item)
	n += 1
open('$T/c.json', 'w').write('{' + ''.join(parts) + '\"runs\":1}\n')"
	[ "$(stat -c %s "$T/c.json")" -le 1048576 ]
	# 16.6 s of CPU before (n^2 comparisons of 101676 keys), 0.08 s
	# after (0.4 s in the SAN build): CPU time, the machine may be busy
	run --separate-stderr /usr/bin/time -f %U+%S -o "$T/cpu" \
		timeout 300 "$BENCH" run --config "$T/c.json" --db "$DB"
	assert_failure 78
	assert_equal "$stderr" "bench: $T/c.json: missing key \"suite\" (the list of workloads to run)"
	echo "# CPU: $(tail -1 "$T/cpu") s" >&3
	[ "$(echo "$(tail -1 "$T/cpu") < 4" | bc)" = 1 ]
	sed -i 's/"runs":1}/"#2":1}/' "$T/c.json"
	run --separate-stderr timeout 300 "$BENCH" run --config "$T/c.json" --db "$DB"
	assert_failure 78
	assert_equal "$stderr" "bench: $T/c.json: #2: duplicate key"
}
