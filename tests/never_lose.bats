#!/usr/bin/env bats
# Never lose a result: no -o writes over the database, no database name
# keeps the runs in memory, no reading command turns another program's
# SQLite file into a foliobench database, no two benchstat files share a
# name, and one runner at a time even when the state dir is removed under
# a live run.

load test_helper
load fixtures/fixture

setup() {
	fb_setup
	KILL=
	export FOLIOBENCH_STATE=$T/state
	fx_known "$DB"
	SUM=$(sha1sum < "$DB")
}

teardown() {
	local p
	# strace's child first: a tracee outlives its tracer
	for p in $KILL; do
		kill -9 $(pgrep -P "$p") "$p" 2>/dev/null
	done
	for p in $KILL; do
		wait "$p" 2>/dev/null
	done
	fb_teardown
}

# The database is as it was, and still reads.
db_kept() {
	[ "$(sha1sum < "$DB")" = "$SUM" ]
	run "$BENCH" runs --db "$DB"
	assert_success
	assert_equal "${#lines[@]}" 10
}

# A tiny run's config: fb_config's, with FOLIO for shmem-remove.
tiny_config() {
	fb_config "[ { \"workload\": \"shmem-remove\", \"size\": \"16M\", \"folio\": \"${1:-4k}\" } ]" 0 1
}

@test "report -o the database, by any name or link, or its -wal/-shm/-journal: 64, the database kept" {
	ln "$DB" "$T/hard.db"
	ln -s "$DB" "$T/sym.db"
	local out names=(results.db ./results.db "$DB" "$T/../${T##*/}/results.db"
			 hard.db sym.db results.db-wal "$DB-shm" results.db-journal)
	for out in "${names[@]}"; do
		run "$BENCH" report --db "$DB" -o "$out" 6.18.0-base
		assert_failure 64
		case $out in
		*-wal|*-shm|*-journal)
			assert_output "bench: refusing to write $out: it is the -${out##*-} file of the database $DB" ;;
		*)
			assert_output "bench: refusing to write $out: it is the database $DB" ;;
		esac
	done
	# the default --db, named by -o
	run "$BENCH" report -o results.db 6.18.0-base
	assert_failure 64
	assert_output "bench: refusing to write results.db: it is the database results.db"
	[ ! -e results.db-wal ] && [ ! -e results.db-shm ] && [ ! -e results.db-journal ]
	[ -L sym.db ]
	db_kept
}

@test "report -o a device, a FIFO or a directory: 64, left as they were" {
	# a device node of its own (/dev/null's numbers), never /dev/null:
	# a tool that gets this wrong replaces the device with a file
	mknod -m 666 "$T/null" c 1 3
	mkfifo "$T/fifo"
	mkdir "$T/dir"
	run "$BENCH" report --db "$DB" -o "$T/null" 6.18.0-base
	assert_failure 64
	assert_output "bench: refusing to write $T/null: it is not a regular file"
	[ -c "$T/null" ]
	run "$BENCH" report --db "$DB" -o "$T/fifo" 6.18.0-base
	assert_failure 64
	assert_output "bench: refusing to write $T/fifo: it is not a regular file"
	[ -p "$T/fifo" ]
	run "$BENCH" report --db "$DB" -o "$T/dir" 6.18.0-base
	assert_failure 64
	assert_output "bench: refusing to write $T/dir: it is a directory"
	[ -d "$T/dir" ] && [ -z "$(ls -A "$T/dir")" ]
	ls "$T" | grep -q '\.tmp\.' && false
	db_kept
}

@test "report: SIGINT, SIGTERM or SIGHUP while the page is written leaves no temporary file" {
	local sig pid rc want
	# a gnuplot that draws nothing for 30 s
	printf '#!/bin/sh\necho $$ > %s/gp.pid\nexec sleep 30\n' "$T" > "$T/gp"
	chmod +x "$T/gp"
	for sig in INT TERM HUP; do
		rm -f "$T/gp.pid"
		FOLIOBENCH_GNUPLOT=$T/gp "$BENCH" report --db "$DB" -o "$T/page.html" 6.18.0-base 2> "$T/err" &
		pid=$!
		for _ in $(seq 200); do
			[ -s "$T/gp.pid" ] && break
			sleep 0.05
		done
		fb_after "kill $(cat "$T/gp.pid")"
		kill -$sig $pid
		rc=0
		wait $pid || rc=$?
		want=$((128 + $(kill -l $sig)))
		[ "$rc" = "$want" ] || { echo "SIG$sig: exit $rc, not $want" >&2; false; }
		run ls -A "$T"
		refute_output --partial "tmp"
		refute_output --partial "page.html"
		refute_output --partial ".report."
	done
	db_kept
}

@test "report -o: a name of 255 characters is written (its temporary file is named apart)" {
	local name
	name=$(printf 'r%.0s' $(seq 250)).html
	run "$BENCH" report --db "$DB" -o "$T/$name" 6.18.0-base
	assert_success
	[ -s "$T/$name" ]
	run ls -A "$T"
	refute_output --partial ".report."
}

@test "compare -o: a benchstat or ministat file that is the database or a device is refused, the database kept" {
	local fmt
	mkdir -p "$T/b" "$T/m/shmem-remove,op=unlink"
	ln -s "$DB" "$T/b/6.18.0-patch.txt"
	mknod -m 666 "$T/null" c 1 3
	ln -s "$T/null" "$T/m/shmem-remove,op=unlink/6.18.0-patch"
	run "$BENCH" compare --db "$DB" --format benchstat -o "$T/b" 6.18.0-base 6.18.0-patch
	assert_failure 64
	assert_line "bench: refusing to write $T/b/6.18.0-patch.txt: it is the database $DB"
	# neither file is written when one is refused
	[ ! -e "$T/b/6.18.0-base.txt" ]
	run "$BENCH" compare --db "$DB" --format ministat -o "$T/m" 6.18.0-base 6.18.0-patch
	assert_failure 64
	assert_line "bench: refusing to write $T/m/shmem-remove,op=unlink/6.18.0-patch: it is not a regular file"
	[ -c "$T/null" ]
	# -o naming the database itself: a file, not a directory
	for fmt in benchstat ministat; do
		run "$BENCH" compare --db "$DB" --format $fmt -o "$DB" 6.18.0-base 6.18.0-patch
		assert_failure 73
	done
	db_kept
}

@test "compare -o DIR: a symbolic link inside DIR (a case directory, a file) is refused, 64, its target untouched" {
	local fmt link
	echo precious > "$T/target"
	mkdir "$T/elsewhere"
	# benchstat: a file a link, to a plain file or to a name not there yet
	for link in "$T/target" "$T/absent"; do
		rm -rf "$T/b" && mkdir "$T/b"
		ln -s "$link" "$T/b/6.18.0-base.txt"
		run "$BENCH" compare --db "$DB" --format benchstat -o "$T/b" 6.18.0-base 6.18.0-patch
		assert_failure 64
		assert_line "bench: refusing to write $T/b/6.18.0-base.txt: it is a symbolic link"
		[ ! -e "$T/b/6.18.0-patch.txt" ] && [ ! -e "$T/absent" ]
	done
	# ministat: a file a link, then the case's directory a link
	for link in "$T/target" "$T/absent"; do
		rm -rf "$T/m" && mkdir -p "$T/m/shmem-remove,op=unlink"
		ln -s "$link" "$T/m/shmem-remove,op=unlink/6.18.0-patch"
		run "$BENCH" compare --db "$DB" --format ministat -o "$T/m" 6.18.0-base 6.18.0-patch
		assert_failure 64
		assert_line "bench: refusing to write $T/m/shmem-remove,op=unlink/6.18.0-patch: it is a symbolic link"
		[ ! -e "$T/absent" ]
	done
	rm -rf "$T/m" && mkdir "$T/m"
	ln -s "$T/elsewhere" "$T/m/shmem-remove,op=unlink"
	run "$BENCH" compare --db "$DB" --format ministat -o "$T/m" 6.18.0-base 6.18.0-patch
	assert_failure 64
	assert_line "bench: refusing to write into $T/m/shmem-remove,op=unlink: it is a symbolic link"
	[ -z "$(ls -A "$T/elsewhere")" ]
	[ "$(cat "$T/target")" = precious ]
	# DIR itself may be a link: the user named it
	ln -s "$T/elsewhere" "$T/linked"
	for fmt in benchstat ministat; do
		run "$BENCH" compare --db "$DB" --format $fmt -o "$T/linked" 6.18.0-base 6.18.0-patch
		assert_success
	done
	[ -f "$T/elsewhere/6.18.0-base.txt" ] && [ -f "$T/elsewhere/shmem-remove,op=unlink/6.18.0-base" ]
	db_kept
}

@test "compare --format benchstat: labels that give one file name are refused, nothing written" {
	fx_begin "$T/k.db"
	for label in K:1 K_1; do
		for b in 1 2; do
			fx_run "$label" "$label-boot-$b"
			fx_remove_case unlink
			fx_wall 100 101 102
		done
	done
	fx_end
	run "$BENCH" compare --db "$T/k.db" --format benchstat -o "$T/out" K:1 K_1
	assert_failure 64
	assert_output "bench: labels 'K:1' and 'K_1' give the same file name K_1.txt"
	[ ! -e "$T/out" ]
	# as ministat says it
	run "$BENCH" compare --db "$T/k.db" --format ministat -o "$T/out" K:1 K_1
	assert_failure 64
	assert_output "bench: labels 'K:1' and 'K_1' give the same file name K_1"
	# two names that differ are written, one file each
	run "$BENCH" compare --db "$DB" --format benchstat -o "$T/out" 6.18.0-base 6.18.0-patch
	assert_success
	[ "$(ls "$T/out")" = "$(printf '6.18.0-base.txt\n6.18.0-patch.txt')" ]
}

@test "an empty or in-memory database name: 64 on the command line, 78 in the config, before any work" {
	local name cmd
	tiny_config
	for name in "" ":memory:"; do
		run "$BENCH" run --config "$T/config.json" --db "$name"
		assert_failure 64
		case $name in
		"") assert_output 'bench: --db "": an empty name is not a file; name the database file (results.db)' ;;
		*) assert_output 'bench: --db ":memory:": an in-memory database keeps nothing; name a file (results.db)' ;;
		esac
		# nightly refuses before it runs the suite
		run "$BENCH" nightly --config "$T/config.json" --db "$name"
		assert_failure 64
		refute_output --partial "run "
		for cmd in runs "compare A B" "export A" "report -o $T/r.html A" \
			   "plan A B" "export --run u --format run-json" \
			   "upload --config $T/config.json"; do
			# shellcheck disable=SC2086
			run "$BENCH" $cmd --db "$name"
			assert_failure 64
			assert_output --partial "bench: --db \"$name\": "
		done
		run "$BENCH" merge "$name" "$DB"
		assert_failure 64
		assert_output --partial "bench: the output database \"$name\": "
		run "$BENCH" merge "$T/m.db" "$name"
		assert_failure 64
		assert_output --partial "bench: an input \"$name\": "
		[ ! -e "$T/m.db" ]
	done
	sed -i "s|\"database\": \"$DB\"|\"database\": \":memory:\"|" "$T/config.json"
	for cmd in run nightly; do
		run "$BENCH" $cmd --config "$T/config.json"
		assert_failure 78
		assert_output "bench: $T/config.json: database: \":memory:\": an in-memory database keeps nothing; name a file (results.db)"
	done
	[ ! -e "$FOLIOBENCH_STATE" ]
	db_kept
}

@test "a database name SQLite would read as a URI is a file name: the run is kept in that file" {
	local name='file:u.db?mode=memory'
	tiny_config
	run "$BENCH" run --config "$T/config.json" --db "$name" --quiet
	assert_success
	[ -f "$T/$name" ]
	run sqlite3 "$T/$name" "select count(*) from runs where status = 'complete'"
	assert_output 1
	run "$BENCH" runs --db "$name"
	assert_success
	assert_equal "${#lines[@]}" 2
	# merged into a file so named, too
	run "$BENCH" merge 'file:m.db?mode=memory' "$DB"
	assert_success
	[ "$(sqlite3 "$T/file:m.db?mode=memory" 'select count(*) from runs')" = 9 ]
}

@test "reading commands on another program's SQLite file: 65, the file not written" {
	local f=$T/other.db cmd sum
	sqlite3 "$f" "CREATE TABLE t (x); INSERT INTO t VALUES (1);"
	sum=$(sha1sum < "$f")
	tiny_config
	sed -i 's|"suite"|"dashboard": { "target": "json", "url": "http://127.0.0.1:9/runs" }, "suite"|' "$T/config.json"
	for cmd in runs "compare 6.18.0-base 6.18.0-patch" "export 6.18.0-base" \
		   "report -o $T/r.html 6.18.0-base" "plan A B" \
		   "export --run u --format run-json" \
		   "upload --config $T/config.json" \
		   "nightly --config $T/config.json" \
		   "run --config $T/config.json"; do
		# shellcheck disable=SC2086
		FOLIOBENCH_TOKEN=t run "$BENCH" $cmd --db "$f"
		assert_failure 65
		assert_output --partial "$f"
		assert_output --partial "it holds tables of another program and no foliobench schema (user_version 0)"
		[ "$(sha1sum < "$f")" = "$sum" ]
		[ ! -e "$f-wal" ] && [ ! -e "$f-shm" ] && [ ! -e "$f-journal" ]
	done
	run "$BENCH" merge "$f" "$DB"
	assert_failure 65
	assert_output "bench: cannot open $f: it holds tables of another program and no foliobench schema (user_version 0)"
	[ "$(sha1sum < "$f")" = "$sum" ]
	[ ! -e "$T/r.html" ]
}

@test "reading commands on an empty file make no schema; run does" {
	local cmd
	: > "$T/empty.db"
	for cmd in runs "compare A B" "export A" "report -o $T/r.html A" "plan A B"; do
		# shellcheck disable=SC2086
		run "$BENCH" $cmd --db "$T/empty.db"
		assert_failure 65
		assert_output "bench: $T/empty.db is not a foliobench database: it has no foliobench schema yet (an empty SQLite file; \`bench run\` makes one)"
		[ ! -s "$T/empty.db" ]
	done
	tiny_config
	run "$BENCH" run --config "$T/config.json" --db "$T/empty.db" --quiet
	assert_success
	[ "$(sqlite3 "$T/empty.db" 'select count(*) from runs')" = 1 ]
}

@test "reading commands open the database read-only: its journal mode is not switched" {
	local cmd
	# the fixture writes WAL databases: this one is made a rollback-journal one
	[ "$(q 'PRAGMA journal_mode = delete')" = delete ]
	SUM=$(sha1sum < "$DB")
	for cmd in runs "compare 6.18.0-base 6.18.0-patch" "export 6.18.0-base" \
		   "plan 6.18.0-base 6.18.0-patch" \
		   "export --run 00000000-0000-0000-0000-000000000001 --format run-json"; do
		# shellcheck disable=SC2086
		run "$BENCH" $cmd --db "$DB"
		assert_success
		[ "$(q 'PRAGMA journal_mode')" = delete ]
		[ ! -e "$DB-wal" ]
	done
	db_kept
}

# The reading commands, on database $1.
READS=(runs "compare 6.18.0-base 6.18.0-patch" "export 6.18.0-base"
       "plan 6.18.0-base 6.18.0-patch" "report -o REPORT 6.18.0-base"
       "export --run 00000000-0000-0000-0000-000000000001 --format run-json")

@test "reading commands leave no -wal or -shm beside a WAL database they only read" {
	local cmd
	[ "$(q 'PRAGMA journal_mode')" = wal ]
	for cmd in "${READS[@]}"; do
		# shellcheck disable=SC2086
		run "$BENCH" ${cmd/REPORT/$T\/r.html} --db "$DB"
		assert_success
		run ls -A "$T"
		refute_output --partial results.db-
	done
	# those of a writer still open stay, with its commits
	exec 9> >(sqlite3 "$DB" > /dev/null)
	fb_after "exec 9>&-"
	echo "BEGIN; UPDATE runs SET label = 'open' WHERE id = 9; COMMIT;" >&9
	for _ in $(seq 100); do
		[ -s "$DB-wal" ] && break
		sleep 0.05
	done
	run "$BENCH" runs --db "$DB"
	assert_success
	assert_output --partial open
	[ -s "$DB-wal" ] && [ -e "$DB-shm" ]
}

@test "reading commands read a WAL database on a read-only file system, as merge does" {
	local cmd
	[ "$(id -u)" = 0 ] || skip "mounting needs root"
	mkdir "$T/ro"
	mount -t tmpfs -o size=8M fbtest-ro "$T/ro"
	fb_after umount "$T/ro"
	cp "$DB" "$T/ro/r.db"
	mount -o remount,ro "$T/ro"
	for cmd in "${READS[@]}"; do
		# shellcheck disable=SC2086
		run "$BENCH" ${cmd/REPORT/$T\/r.html} --db "$T/ro/r.db"
		assert_success
	done
	run ls -A "$T/ro"
	assert_output r.db
	# a -wal that holds commits cannot be read without its -shm: said
	mount -o remount,rw "$T/ro"
	printf 'x' > "$T/ro/r.db-wal"
	mount -o remount,ro "$T/ro"
	run "$BENCH" runs --db "$T/ro/r.db"
	assert_failure 74
}

# A copy of run 1 of db $1 as a run left 'running': uuid pid started_at boot.
fake_running() {
	sqlite3 "$1" "CREATE TEMP TABLE t AS SELECT * FROM runs WHERE id = 1;
		UPDATE t SET id = NULL, uuid = '$2', status = 'running',
		ended_at = NULL, pid = $3, started_at = '$4', boot_id = '$5';
		INSERT INTO runs SELECT * FROM t;"
}

@test "a run marks dead only the runs whose runner is gone: another boot, a dead pid, a pid taken again" {
	local boot now live dead
	boot=$(cat /proc/sys/kernel/random/boot_id)
	DB=$T/r.db
	tiny_config
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	sleep 1000 & live=$!
	KILL="$KILL $live"
	sh -c 'exit 0' & dead=$!
	wait $dead
	sleep 1
	now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	fake_running "$DB" live "$live" "$now" "$boot"
	fake_running "$DB" dead "$dead" "$now" "$boot"
	fake_running "$DB" reused "$live" 2000-01-01T00:00:00Z "$boot"
	fake_running "$DB" oldboot "$live" "$now" not-this-boot
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	assert_line "bench: marked 3 runs that died as aborted"
	run q "select uuid, status from runs where uuid not like '%-%' order by id"
	assert_output "$(printf 'live|running\ndead|aborted\nreused|aborted\noldboot|aborted')"
	# once the runner is gone, its run is marked too
	kill -9 "$live"
	wait "$live" 2>/dev/null || true
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	assert_line "bench: marked 1 run that died as aborted"
	run q "select status from runs where uuid = 'live'"
	assert_output aborted
}

# held SYSCALL SECONDS OUT ARGS...: bench ARGS in the background, its first
# SYSCALL held SECONDS (strace), stdout and stderr in OUT; its pid in S.
held() {
	local call=$1 secs=$2 out=$3
	shift 3
	# LeakSanitizer cannot run under ptrace: the sanitizer build's leak
	# check would end the traced runner with an error of its own
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -qq -o /dev/null -e trace="$call" \
		-e inject="$call":delay_enter="$secs"s:when=1 \
		"$BENCH" "$@" > "$out" 2>&1 &
	S=$!
	KILL="$KILL $S"
}

@test "a lock taken on a lock file removed meanwhile holds nothing: the runner locks the one there" {
	command -v strace >/dev/null || skip "no strace (mk/deps.sh installs it)"
	command -v flock >/dev/null || skip "no flock(1)"
	local s i holder
	tiny_config
	mkdir -p "$FOLIOBENCH_STATE"
	# the runner opens the lock file, then waits 2 s before it locks it
	held flock 2 "$T/out" check --config "$T/config.json"
	s=$S
	for i in $(seq 100); do
		[ -e "$FOLIOBENCH_STATE/lock" ] && break
		sleep 0.05
	done
	# meanwhile the state dir goes, and another runner locks a new file
	rm -rf "$FOLIOBENCH_STATE"
	mkdir "$FOLIOBENCH_STATE"
	flock "$FOLIOBENCH_STATE/lock" sh -c "echo \$\$ > $FOLIOBENCH_STATE/lock; exec sleep 5" &
	KILL="$KILL $!"
	rc=0
	wait $s || rc=$?
	holder=$(cat "$FOLIOBENCH_STATE/lock")
	[ "$rc" = 75 ]
	[ "$(cat "$T/out")" = "bench: another foliobench runner (pid $holder) is running on this machine; wait for it to finish" ]
}

@test "the state dir removed under a live run: the next runner is refused (75) and leaves A's run be; after A it runs" {
	command -v strace >/dev/null || skip "no strace (mk/deps.sh installs it)"
	local a i apid uuid
	tiny_config
	# A stops 4 s in its first case (fallocate)
	held fallocate 4 "$T/a.out" run --config "$T/config.json"
	a=$S
	for i in $(seq 200); do
		grep -q '^run ' "$T/a.out" && break
		sleep 0.05
	done
	uuid=$(sed -n 's/^run \([^,]*\),.*/\1/p' "$T/a.out")
	[ -n "$uuid" ]
	apid=$(pgrep -P "$a" | head -n 1)
	rm -rf "$FOLIOBENCH_STATE"
	run "$BENCH" run --config "$T/config.json"
	assert_failure 75
	assert_output "bench: another foliobench runner (pid $apid) is running on this machine; wait for it to finish"
	# A's run is alive and left be
	[ "$(q "select status from runs where uuid = '$uuid'")" = running ]
	wait $a
	[ "$(q "select status from runs where uuid = '$uuid'")" = complete ]
	[ ! -e "$FOLIOBENCH_STATE/journal" ]
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
}
