#!/usr/bin/env bats
# Rows no report can use (issue 18, item 18): a value stored as text or a
# blob (it would read as 0), a negative time, a run with a NULL or empty
# boot id (it would pool two boots).  Every command that reads samples
# refuses them with 65 and names the row; nothing is written.

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

# Each reading command on $DB, base against patch where it takes two.
reading_cmds() {
	CMDS=(
		"compare 6.18.0-base 6.18.0-patch"
		"compare --format json 6.18.0-base 6.18.0-patch"
		"compare --aa 6.18.0-base"
		"export 6.18.0-base"
		"export --format benchstat 6.18.0-base"
		"export --format csv 6.18.0-base"
		"plan 6.18.0-base 6.18.0-patch"
		"report -o $T/r.html 6.18.0-base 6.18.0-patch")
}

# Every reading command must exit 65 with the line in $1 on stderr.
all_refuse() {
	local want=$1 cmd
	reading_cmds
	for cmd in "${CMDS[@]}"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$BENCH" ${cmd%% *} --db "$DB" ${cmd#* }
		if [ "$status" != 65 ] || [ "$stderr" != "bench: $DB: $want" ]; then
			echo "bench $cmd: exit $status, stderr:" >&2
			echo "$stderr" >&2
			return 1
		fi
		[ ! -e "$T/r.html" ] || { echo "bench $cmd wrote a page" >&2; return 1; }
	done
}

@test "a value stored as text is refused, not read as 0" {
	fx_known "$DB"
	local id
	id=$(q "SELECT min(s.id) FROM samples s JOIN cases c ON c.id = s.case_id
		JOIN runs r ON r.id = c.run_id WHERE r.label = '6.18.0-base'
		AND s.warmup = 0 AND s.valid = 1")
	q "UPDATE sample_values SET value = '101 ms' WHERE sample_id = $id AND metric = 'wall'"
	all_refuse "sample_values row of sample $id (run 1), metric wall, holds text, not a number: '101 ms'"
}

@test "a value stored as a blob is refused" {
	fx_known "$DB"
	q "UPDATE sample_values SET value = x'0102' WHERE sample_id = (SELECT max(s.id) FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.run_id = 8 AND s.valid = 1) AND metric = 'wall'"
	run --separate-stderr "$BENCH" compare --db "$DB" 6.18.0-base 6.18.0-patch
	assert_equal "$status" 65
	assert_equal "$stderr" "bench: $DB: sample_values row of sample $(q "SELECT max(s.id) FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.run_id = 8 AND s.valid = 1") (run 8), metric wall, holds a blob, not a number: '\\x01\\x02'"
}

@test "a negative time is refused, not shown as +18100%" {
	fx_known "$DB"
	local id
	id=$(q "SELECT min(s.id) FROM samples s JOIN cases c ON c.id = s.case_id
		WHERE c.run_id = 2 AND s.warmup = 0 AND s.valid = 1")
	q "UPDATE sample_values SET value = -100200000 WHERE sample_id = $id AND metric = 'wall'"
	all_refuse "sample_values row of sample $id (run 2), metric wall, holds a negative time: -1.002e+08 ns"
	# a time per folio is a time too
	q "UPDATE sample_values SET value = 100200000 WHERE sample_id = $id AND metric = 'wall';
	   UPDATE sample_values SET value = -1 WHERE sample_id = $id AND metric = 'ns_per_folio'"
	run --separate-stderr "$BENCH" compare --db "$DB" 6.18.0-base 6.18.0-patch
	assert_equal "$status" 65
	assert_equal "$stderr" "bench: $DB: sample_values row of sample $id (run 2), metric ns_per_folio, holds a negative time: -1 ns/folio"
}

@test "a run with a NULL or empty boot id is refused, not pooled" {
	fx_known "$DB"
	q "UPDATE runs SET boot_id = '' WHERE id = 3"
	all_refuse "runs row 3 has an empty or non-text boot_id: its runs cannot be told from another boot's"
	# a database whose runs table lost NOT NULL (written by another tool)
	q "PRAGMA writable_schema = ON;
	   UPDATE sqlite_schema SET sql = replace(sql, 'boot_id		TEXT NOT NULL', 'boot_id TEXT') WHERE name = 'runs';"
	q "UPDATE runs SET boot_id = 'base-boot-2' WHERE id = 3;
	   UPDATE runs SET boot_id = NULL WHERE id IN (2, 4)"
	[ "$(q "SELECT count(*) FROM runs WHERE boot_id IS NULL")" = 2 ]
	all_refuse "runs row 2 has a NULL boot_id: its runs cannot be told from another boot's"
}

# Every reading command's exit, stderr and output (the page for report).
all_read() {
	local cmd
	reading_cmds
	for cmd in "${CMDS[@]}"; do
		rm -f "$T/r.html"
		# shellcheck disable=SC2086
		run --separate-stderr "$BENCH" ${cmd%% *} --db "$DB" ${cmd#* }
		printf '%s\nexit %s\n%s\n%s\n' "$cmd" "$status" "$stderr" "$output"
		[ ! -e "$T/r.html" ] || cat "$T/r.html"
	done
}

@test "the same rows in a label not read are no concern of the reading" {
	fx_known "$DB"
	q "UPDATE runs SET label = 'other' WHERE id = 9"
	all_read > "$T/clean"
	q "UPDATE sample_values SET value = 'x' WHERE sample_id IN (SELECT s.id FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.run_id = 9)"
	[ "$(q "SELECT count(*) FROM sample_values WHERE value = 'x'")" -gt 0 ]
	all_read > "$T/bad"
	# every command succeeds, and says what it said before the rows broke
	run grep -c '^exit 0$' "$T/bad"
	assert_output "${#CMDS[@]}"
	run diff "$T/clean" "$T/bad"
	assert_success
}

@test "merge refuses an input holding a value as text, a blob or a negative time (65), nothing copied" {
	local id bad want
	fx_known "$T/in.db"
	id=$(sqlite3 "$T/in.db" "SELECT max(s.id) FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.run_id = 3")
	for bad in "'101 ms'" "x'0102'" "-5"; do
		cp "$T/in.db" "$T/bad.db"
		sqlite3 "$T/bad.db" "UPDATE sample_values SET value = $bad WHERE sample_id = $id AND metric = 'wall'"
		case $bad in
		"'101 ms'") want="holds text, not a number: '101 ms'" ;;
		"x'0102'") want="holds a blob, not a number: '\\x01\\x02'" ;;
		*) want="holds a negative time: -5 ns" ;;
		esac
		rm -f "$DB"
		run --separate-stderr "$BENCH" merge "$DB" "$T/bad.db"
		assert_equal "$status" 65
		assert_equal "$stderr" "bench: cannot merge $T/bad.db: sample_values row of sample $id (run 3), metric wall, $want"
		[ ! -e "$DB" ]
		# into a database that holds runs already, too
		run "$BENCH" merge "$DB" "$T/in.db"
		assert_success
		run --separate-stderr "$BENCH" merge "$DB" "$T/bad.db"
		assert_equal "$status" 65
		[ "$(q "SELECT count(*) FROM runs")" = "$(sqlite3 "$T/in.db" "SELECT count(*) FROM runs")" ]
	done
}

@test "case params that are not a JSON object (text, an array, a number) are refused (65), never read as keys 0, 1" {
	local p
	fx_known "$DB"
	for p in "not json" "[1,2]" "5" '"op=unlink"'; do
		q "UPDATE cases SET params = '$p' WHERE id = (SELECT min(c.id) FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.label = '6.18.0-patch')"
		run --separate-stderr "$BENCH" compare --db "$DB" 6.18.0-base 6.18.0-patch
		assert_equal "$status" 65
		assert_equal "$stderr" "bench: case shmem-remove of label '6.18.0-patch' has params that are not a JSON object: $p"
	done
}

@test "export --run: a run document that would break run.schema.json is refused (65) with the place, never printed: a text cpu, negative vcpus, bytes that are not UTF-8" {
	fx_known "$DB"
	local u=00000000-0000-0000-0000-000000000001 id
	run -0 --separate-stderr "$BENCH" export --db "$DB" --run "$u" --format run-json
	printf '%s\n' "$output" > "$T/good.json"
	fb_json_valid run "$T/good.json"
	id=$(q "SELECT min(s.id) FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.run_id = 1")
	check_refused() {
		run --separate-stderr "$BENCH" export --db "$DB" --run "$u" --format run-json
		[ "$status" -eq 65 ] || { echo "exit $status: $stderr" >&2; return 1; }
		[ -z "$output" ] || { echo "printed: $output" >&2; return 1; }
		[[ $stderr == *"its run document would break run.schema.json: $1"* ]] ||
			{ echo "stderr: $stderr" >&2; return 1; }
	}
	q "UPDATE samples SET cpu = 'three' WHERE id = $id"
	check_refused "/cases/0/samples/0/cpu: \"three\" is"
	q "UPDATE samples SET cpu = 1 WHERE id = $id"
	q "UPDATE runs SET vcpus = -4 WHERE id = 1"
	check_refused "/run/machine/vcpus: -4 is below"
	q "UPDATE runs SET vcpus = 2, hostname = CAST(X'68C3' AS TEXT) WHERE id = 1"
	check_refused "/run/machine/hostname:"
	q "UPDATE runs SET hostname = 'testhost' WHERE id = 1"
	run -0 "$BENCH" export --db "$DB" --run "$u" --format run-json
}

@test "schema 13 and 15: the check finds a bad value through its partial index, and without the index too" {
	local id
	fx_known "$T/in.db"
	"$BENCH" runs --db "$T/in.db" > /dev/null
	id=$(sqlite3 "$T/in.db" "SELECT max(s.id) FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.run_id = 3")
	sqlite3 "$T/in.db" "UPDATE sample_values SET value = -5 WHERE sample_id = $id AND metric = 'wall'"
	# the index holds that sample alone
	run sqlite3 "$T/in.db" "SELECT id FROM samples INDEXED BY samples_suspect WHERE instr(vals, '\"') OR instr(vals, '[-') OR instr(vals, ',-')"
	assert_output "$id"
	run --separate-stderr "$BENCH" merge "$DB" "$T/in.db"
	assert_equal "$status" 65
	assert_equal "$stderr" "bench: cannot merge $T/in.db: sample_values row of sample $id (run 3), metric wall, holds a negative time: -5 ns"
	sqlite3 "$T/in.db" "DROP INDEX samples_suspect"
	run --separate-stderr "$BENCH" merge "$DB" "$T/in.db"
	assert_equal "$status" 65
	assert_equal "$stderr" "bench: cannot merge $T/in.db: sample_values row of sample $id (run 3), metric wall, holds a negative time: -5 ns"
	[ ! -e "$DB" ]
}
