#!/usr/bin/env bats
# One --db rule for every command that reads a database: --db PATH when
# given, else the "database" of the config (--config, else the one `bench
# run` finds), else results.db.  Which database a command opened shows in
# what it says of a missing one.

load test_helper
load fixtures/fixture

# The commands that read a database, each with arguments it accepts.
READERS=(
	"compare a b"
	"export a"
	"export --run 00000000-0000-0000-0000-000000000001 --format run-json"
	"report -o - a"
	"runs"
	"plan a b"
)

# A config at $1 whose database is $2.
db_config() {
	fb_config -o "$1" -d "$2" '[ { "workload": "shmem-remove", "size": "64M" } ]' - -
}

# `bench $2...` opened the database at $1, which is not there: every reader
# says so (plan: that nothing is recorded yet).
opened() {
	local db=$1 cmd=$2
	shift
	run "$BENCH" "$@"
	if [ "$cmd" = plan ]; then
		assert_success
		assert_line "no database at $db yet: nothing recorded"
	else
		assert_failure 66
		assert_output "bench: no database at $db (record runs with \`bench run\` first)"
	fi
}

@test "--db wins over the config's database, for every reader" {
	db_config "$T/config.json" "$T/cfg.db"
	local c
	for c in "${READERS[@]}"; do
		# shellcheck disable=SC2086
		opened "$T/arg.db" $c --db "$T/arg.db"
		# shellcheck disable=SC2086
		opened "$T/arg.db" $c --db "$T/arg.db" --config "$T/config.json"
	done
	[ ! -e "$T/cfg.db" ] && [ ! -e "$T/arg.db" ]
}

@test "without --db, the database of the config bench run finds (./config.json)" {
	db_config "$T/config.json" "$T/cfg.db"
	local c
	for c in "${READERS[@]}"; do
		# shellcheck disable=SC2086
		opened "$T/cfg.db" $c
	done
	[ ! -e "$T/cfg.db" ]
}

@test "without --db, the database of the config --config names" {
	db_config "$T/config.json" "$T/cfg.db"
	db_config "$T/other.json" "$T/other.db"
	local c
	for c in "${READERS[@]}"; do
		# shellcheck disable=SC2086
		opened "$T/other.db" $c --config "$T/other.json"
	done
}

@test "without --db or a config of its own, results.db" {
	mkdir "$T/empty" && cd "$T/empty"
	local c
	for c in "${READERS[@]}"; do
		# shellcheck disable=SC2086
		opened results.db $c
	done
	[ ! -e results.db ]
}

@test "a config that does not load is a bad config (78), unless --db is given" {
	echo '{ "database": ' > "$T/config.json"
	local c
	for c in "${READERS[@]}"; do
		[ "${c%% *}" = plan ] && continue	# its plan is in the config
		# shellcheck disable=SC2086
		run "$BENCH" $c
		assert_failure 78
		assert_output --partial "bench: config.json: line "
		# shellcheck disable=SC2086
		opened "$T/arg.db" $c --db "$T/arg.db"
	done
	run "$BENCH" runs --config "$T/none.json"
	assert_failure 78
	assert_output --partial "bench: cannot read $T/none.json: "
}

@test "the config's database is the one read: its runs, its comparison" {
	fx_known "$T/cfg.db"
	db_config "$T/config.json" "$T/cfg.db"
	run "$BENCH" runs
	assert_success
	assert_line --regexp '^1 +00000000-0000-0000-0000-000000000001 +6\.18\.0-base '
	run "$BENCH" compare --db "$T/cfg.db" --format csv 6.18.0-base 6.18.0-patch
	assert_success
	local by_db=$output
	run "$BENCH" compare --format csv 6.18.0-base 6.18.0-patch
	assert_success
	assert_equal "$output" "$by_db"
}

@test "each reader's --help states the rule" {
	local c
	for c in compare export report runs plan; do
		run "$BENCH" "$c" --help
		assert_success
		assert_output --partial "--db FILE"
		assert_output --partial "results database (default: the config's, else"
		assert_output --partial "--config FILE"
	done
}
