#!/usr/bin/env bats
# The kernel-warning scan: lines that show a kernel problem, printed while
# a run runs, are stored with it; compare and export say so in every
# format and --strict refuses.  Other runs on this machine may write such
# lines too, so every assertion names this test's own marker.

load test_helper
load fixtures/fixture

# Run LABEL's suite of two cases and, once the first case is done, write
# MARKER to the kernel log while the second runs: once, though the first
# case may print more than one line (its noisy samples, on a busy host).
run_with_marker() {
	local label=$1 marker=$2
	fb_config '[ { "workload": "shmem-remove", "size": ["64M", "256M"] } ]' 0 5
	"$BENCH" run --config "$T/config.json" --label "$label" 2>"$T/err" |
	{
		written=
		while IFS= read -r line; do
			case $written$line in
			"shmem-remove size=64M:"*)
				echo "$marker" > /dev/kmsg
				written=1 ;;
			esac
			printf '%s\n' "$line"
		done
	} > "$T/out"
}

# Output with its lines joined and spaces squeezed: wrapping is the
# format's business, the words are what must be there.
joined() { tr -s ' \n' '  ' < "$1"; }

@test "a kernel warning printed during a run is stored with its time, counted and said" {
	marker="WARNING: foliobench test kwarn-$$-$RANDOM"
	run_with_marker warned "$marker"
	run q "select count(*) from kernel_warnings where line = '$marker'"
	assert_output 1
	run q "select kernel_warnings >= 1, (select at_us > 0 and prio >= 0 from kernel_warnings where line = '$marker') from runs"
	assert_output "1|1"
	run grep -F "$marker" "$T/err"
	assert_output --regexp "^bench: warning: kernel: \[ *[0-9]+\.[0-9]{6}\] $marker\$"
	run "$BENCH" runs --db "$DB"
	assert_line --index 1 --regexp ' complete +[0-9T:Z-]+ +10 +[1-9][0-9]* +-$'
}

@test "a run in which the kernel printed nothing of note records 0, not unknown" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]'
	"$BENCH" run --config "$T/config.json" --quiet
	# another run on this machine may print a warning meanwhile: then the
	# count is of the lines stored, and 0 where none was
	run q "select typeof(kernel_warnings), kernel_warnings,
		(select count(*) from kernel_warnings k where k.run_id = runs.id)
		from runs"
	n=${output##*|}
	assert_output "integer|$n|$n"
	[ "$n" = 0 ] ||
		skip "the kernel printed during this run (another process): $(q "select line from kernel_warnings")"
}

@test "compare warns in every format about a kernel that warned, and --strict refuses it" {
	marker="WARNING: foliobench test kwarn-cmp-$$-$RANDOM"
	fb_config '[ { "workload": "shmem-remove", "size": ["64M", "256M"] } ]' 0 5
	"$BENCH" run --config "$T/config.json" --label base --quiet 2>/dev/null
	run_with_marker patch "$marker"
	for fmt in text changelog markdown csv json; do
		"$BENCH" compare --db "$DB" --format $fmt base patch > "$T/$fmt" 2> "$T/$fmt.err"
		run joined "$T/$fmt"
		assert_output --partial "patch: the kernel printed"
		assert_output --partial "${marker//_/\\_}"
		run grep -cF "bench: warning: kernel warnings: patch: the kernel printed" "$T/$fmt.err"
		assert_output 1
	done
	run joined "$T/text"
	assert_output --partial "Kernel warnings: these kernels printed problems while the runs ran"
	run grep -c '^# ' "$T/csv"
	assert_output --regexp '^[2-9]$'
	run python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(any(sys.argv[2] in w for w in d["kernel_warnings"]), d["patch"]["runs"][0]["kernel_warnings"] >= 1)' "$T/json" "$marker"
	assert_output "True True"
	run "$BENCH" compare --db "$DB" --strict base patch
	assert_failure 69
	assert_line "bench: refusing to make a table of a kernel that printed warnings during its runs (--strict); see \`bench runs\`"
	refute_line --partial "shmem-remove"
	run "$BENCH" export --db "$DB" --strict patch
	assert_failure 69
	run joined <("$BENCH" export --db "$DB" --format changelog patch 2>/dev/null)
	assert_output --partial "$marker"
}

@test "a changelog from a fixture with a warned run names the run, boot and line" {
	fx_begin "$DB"
	for b in 0 1 2; do
		fx_run base "base-boot-$b"; fx_remove_case unlink; fx_wall 100 101 99
	done
	for b in 0 1 2; do
		fx_run patch "patch-boot-$b"; fx_remove_case unlink; fx_wall 80 81 79
		[ $b = 1 ] && fx_kwarn "WARNING: CPU: 1 PID: 5 at mm/shmem.c:100 shmem_undo_range+0x1/0x2" "Call Trace:"
	done
	fx_end
	run "$BENCH" compare --db "$DB" --format changelog base patch
	assert_success
	assert_output --partial "$(cat <<'TXT'
Kernel warnings: these kernels printed problems while the runs ran (the
lines are in the database; `bench runs` counts them; --strict refuses
them).
  patch: the kernel printed 2 lines showing a problem during 1 of 3
    runs; the first, in boot patch-bo, run 00000000: [ 100.000001]
    WARNING: CPU: 1 PID: 5 at mm/shmem.c:100 shmem_undo_range+0x1/0x2
TXT
)"
	run "$BENCH" compare --db "$DB" --format json base patch
	assert_output --partial '"kernel_warnings":	["patch: the kernel printed 2 lines showing a problem during 1 of 3 runs; the first, in boot patch-bo, run 00000000: [  100.000001] WARNING: CPU: 1 PID: 5 at mm/shmem.c:100 shmem_undo_range+0x1/0x2"]'
	run "$BENCH" compare --db "$DB" base patch --format csv
	assert_line '# patch: the kernel printed 2 lines showing a problem during 1 of 3 runs; the first, in boot patch-bo, run 00000000: [  100.000001] WARNING: CPU: 1 PID: 5 at mm/shmem.c:100 shmem_undo_range+0x1/0x2'
	# a base with no warnings compares silently
	run "$BENCH" export --db "$DB" --strict base
	assert_success
	refute_output --partial "Kernel warnings"
}
