#!/usr/bin/env bats
# kill -9 at random points of a run, 20 times, five in each phase: setup
# (the fill of the file: the worker's fallocate, its thread's first, so
# in the first sample), the timed call, the commit of a sample (SQLite's
# write to the WAL) and teardown (unlink).  strace delivers SIGKILL on
# entry to the N-th such call, N random; it counts each thread's calls
# apart.  The timed call runs in a worker thread of its own, one ftruncate
# each, so its phase is the runner's futex calls around it: the wait for
# the worker to be ready, the wake that starts the timed call, the wait
# for it to be done, the join (up to 4 a sample; a worker thread makes at
# most 3, so N >= 4 is always the runner's).  After each kill the next
# start must leave nothing behind, the database must pass integrity_check,
# and every run must be complete or aborted.

load test_helper

setup() {
	fb_setup
	command -v strace >/dev/null || skip "no strace (mk/deps.sh installs it)"
}

# one killed run: kill_at SYSCALL N FOLIO
kill_at() {
	fb_config "[ { \"workload\": \"shmem-remove\", \"size\": \"64M\", \"op\": \"ftruncate\", \"folio\": \"$3\" } ]" 0 8
	rc=0
	strace -f -qq -o "$T/trace" -e trace="$1" \
		-e inject="$1":signal=KILL:when="$2" \
		"$BENCH" run --config "$T/config.json" --quiet \
		>"$T/out" 2>"$T/err" || rc=$?
}

@test "kill -9 in every phase, 20 times: nothing left, integrity ok, every run complete or aborted" {
	local phases=(fallocate futex pwrite64 unlink) i phase n folio
	local kills=0 left=0 bad=0 open=0 ran=0 unrecorded=0 got=()
	for i in $(seq 0 19); do
		phase=${phases[$((i % 4))]}
		case $phase in
		fallocate) n=1 ;;	# each worker thread fills once
		futex) n=$((RANDOM % 21 + 4)) ;;	# samples 1..8, never a worker's
		pwrite64) n=$((RANDOM % 60 + 20)) ;;	# inside the samples' commits
		unlink) n=$((RANDOM % 8 + 1)) ;;
		esac
		folio=4k
		[ $((i % 2)) = 1 ] && folio=pmd	# a knob and a private mount too
		r0=0
		[ ! -s "$DB" ] || r0=$(q "select count(*) from runs")
		kill_at "$phase" "$n" "$folio"
		# a kill inside the commit that records the run leaves no row
		# at all, as it should: nothing half-written to mark aborted
		r1=0
		[ ! -s "$DB" ] || r1=$(q "select count(*) from runs")
		if [ "$rc" -eq 137 ] && [ "$r1" -eq "$r0" ]; then
			kills=$((kills + 1))
			unrecorded=$((unrecorded + 1))
			# only a write can fall inside that commit
			[ "$phase" = pwrite64 ] || bad=$((bad + 1))
			echo "# $phase #$n: killed before its run was recorded" >&3
		elif [ "$rc" -eq 137 ]; then
			kills=$((kills + 1))
		else
			ran=$((ran + 1))	# N past the run's last such call
			echo "# $phase #$n: ran to the end (status $rc)" >&3
		fi
		# the next start mends what the killed run left
		fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]' 0 1
		run "$BENCH" run --config "$T/config.json" --quiet
		assert_success
		# what the killed runner (its pid from strace) left, and the
		# knobs (others' runs on a shared machine are not ours to judge);
		# the runner made the first traced call
		kpid=$(awk 'NR == 1 { print $1; exit }' "$T/trace")
		stray=$(fb_leftovers | grep -E "foliobench\.$kpid([^0-9]|\$)|knobs changed" || true)
		[ -z "$stray" ] || { left=$((left + 1)); echo "# left: $stray" >&3; }
		[ ! -e "${FOLIOBENCH_STATE:-/run/foliobench}/journal" ] ||
			{ left=$((left + 1)); echo "# journal kept" >&3; }
		# samples the killed run had committed: where in it the kill fell
		got[$((i % 4))]+=" $(q "select count(*) from samples s join cases c on c.id = s.case_id where c.run_id = (select max(id) - 1 from runs)")"
		[ "$(q 'PRAGMA integrity_check')" = ok ] || bad=$((bad + 1))
		open=$(q "select count(*) from runs where status not in ('complete', 'aborted')")
		[ "$open" = 0 ] || { echo "# $open runs neither complete nor aborted" >&3; bad=$((bad + 1)); }
	done
	runs=$(q "select count(*) from runs")
	aborted=$(q "select count(*) from runs where status = 'aborted'")
	for i in 0 1 2 3; do
		echo "# ${phases[$i]}: samples committed before each kill:${got[$i]}" >&3
	done
	echo "# kill -9 loop: $kills kills in 4 phases, $ran ran to the end, $unrecorded before the run was recorded; $left leftovers after the next start; $bad integrity or status failures; $runs runs: $aborted aborted, $((runs - aborted)) complete" >&3
	[ "$kills" -ge 16 ]
	[ "$left" -eq 0 ]
	[ "$bad" -eq 0 ]
	[ "$aborted" -eq "$((kills - unrecorded))" ]
	[ "$((runs - aborted))" -eq "$((20 + ran))" ]
}
