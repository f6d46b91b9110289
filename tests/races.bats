#!/usr/bin/env bats
# Commands run at once on one database: readers migrating an older schema
# together, merges into one new output.  Each waits on the other's lock
# and then does its work; none fails for the other.

load test_helper
load fixtures/fixture

# start N commands at once: all "$@", their exit codes into $T/rc.N
at_once() {
	local n=$1 i
	shift
	rm -f "$T"/rc.*
	for i in $(seq "$n"); do
		( rc=0; "$@" > "$T/out.$i" 2>&1 || rc=$?; echo $rc > "$T/rc.$i" ) &
	done
	wait
}

# every one of the N exited 0
all_ok() {
	local i ok=0
	for i in $(seq "$1"); do
		if [ "$(cat "$T/rc.$i")" != 0 ]; then
			echo "command $i: exit $(cat "$T/rc.$i"): $(cat "$T/out.$i")" >&2
			ok=1
		fi
	done
	return $ok
}

@test "four readers at once on an older schema: one migrates, the others wait, all read it" {
	local turn
	for turn in 1 2 3 4 5; do
		rm -f "$DB" "$DB"-*
		fx_schema1 "$DB" "00000000-0000-0000-0000-00000000000$turn"
		at_once 4 "$BENCH" runs --db "$DB"
		all_ok 4
		[ "$(q 'PRAGMA user_version')" = "$(fb_schema_latest)" ]
	done
}

# N inputs of one run each, distinct uuids: $T/in.1.db ...
inputs() {
	local i
	for i in $(seq "$1"); do
		fx_begin "$T/in.$i.db"
		fx_run "label$i" "boot$i"
		fx_remove_case unlink
		fx_wall 100 101 102
		fx_end
		sqlite3 "$T/in.$i.db" "UPDATE runs SET uuid = '$i' || substr(uuid, 2)"
	done
}

@test "four merges at once into one new output: each waits for the others, every input is merged" {
	local turn i
	inputs 4
	for turn in 1 2 3 4 5; do
		rm -f "$DB" "$DB"-*
		rm -f "$T"/rc.*
		for i in 1 2 3 4; do
			( rc=0; "$BENCH" merge "$DB" "$T/in.$i.db" > "$T/out.$i" 2>&1 || rc=$?; echo $rc > "$T/rc.$i" ) &
		done
		wait
		all_ok 4
		[ "$(q 'SELECT count(*) FROM runs')" = 4 ]
		[ "$(q 'PRAGMA integrity_check')" = ok ]
	done
	run ls -A "$T"
	refute_output --partial results.db-
}
