#!/usr/bin/env bats
# Counting mode in the database and every format (issue 26): runs of a
# `bench vm --accel icount` guest, whose clocks count guest instructions,
# are stored with run_vm.clock = 'instructions' (schema 9), shown in
# instructions wherever a time would be, compared only with runs counted
# alike, and described by what a count misses.  The runs are fixtures
# (tests/fixtures/fixture.bash, fx_guest): nothing is booted here.

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

BENCHFMT="$BATS_TEST_DIRNAME/benchfmt.awk"
# The method sentence of two counted kernels in 1 vCPU guests, shift 0.
COUNTED="Median of 3 runs, averaged over 3 boots of each kernel, counted in guest instructions in a 1 vCPU VM under QEMU's TCG with -icount shift=0 (one instruction = 1 ns of the guest's clock): a cache miss, a contended lock and an atomic cost one instruction each, and a rep-prefixed string instruction counts once per iteration; 64 MiB file of 4K folios, op=unlink, dir=/dev/shm, populate=fallocate."
SUMMED="; with more than one vCPU the count is the sum over all vCPUs (QEMU runs them in turn)"

# cnt_label LABEL BOOT M: three boots of LABEL, each a run of shmem-remove
# unlink (64 MiB of 4K folios) whose three "wall times" lie around a
# median of M, M+0.2 and M-0.2 million: 135 gives a mean of 135.0 M.
cnt_label() {
	local d
	for d in 0 2 -2; do
		fx_run "$1" "$2$d"
		fx_remove_case unlink
		fx_wall $(awk -v m="$3" -v d="$d" 'BEGIN {
			x = m + d / 10; printf "%.1f %.1f %.1f", x, x + 0.1, x - 0.1 }')
	done
}

# cnt_db [SHIFT_BASE [SHIFT_PATCH]]: base counts 135 M instructions an
# unlink, patch 120 M (-11.1%), each in 1 vCPU guests counted with the
# shifts given (0); "-" makes that side's guests timed TCG ones.
cnt_db() {
	local sa=${1:-0} sb=${2:-0}
	fx_begin "$DB"
	FX_VCPUS=1 cnt_label base b 135
	FX_VCPUS=1 cnt_label patch p 120
	fx_guest base tcg "${sa#-}"
	fx_guest patch tcg "${sb#-}"
	fx_end
}

# The units of $output: no time anywhere (the method's "= 1 ns of the
# guest's clock" aside).
no_time() {
	local o=${output//= 1 ns of/}
	if grep -nE '[0-9] ?(ms|ns|us|µs|s)\b|[0-9] ?(ms|ns|us|µs)/|functional checks' <<< "$o"; then
		echo "a time, or a timed TCG run's words, above" >&2
		return 1
	fi
}

@test "schema 9: run_vm gains clock, icount_shift and kernel_sha256; a database of schema 8 migrates, its guests timed" {
	mkdir "$T/s8"
	cp "$BATS_TEST_DIRNAME"/../schema/00[1-8]_*.sql "$T/s8/"
	FX_SCHEMA_DIR=$T/s8 fx_begin "$DB"
	FX_VCPUS=1 cnt_label base b 135
	FX_VCPUS=1 cnt_label patch p 120
	fx_guest base tcg
	fx_guest patch tcg
	fx_end
	run q "PRAGMA user_version"
	assert_output 8
	run --separate-stderr "$BENCH" compare --db "$DB" --format json base patch
	assert_success
	run jq -r '[.schema_version, .base.clock, (.base.icount_shift | tostring), .rows[0].unit] | @tsv' <<< "$output"
	# migrated to the latest schema, 9 and what came after
	assert_output "$(fb_schema_latest)"$'\ttime\tnull\tns'
	run q "PRAGMA user_version"
	assert_output "$(fb_schema_latest)"
	run q "SELECT count(*), group_concat(DISTINCT clock), count(icount_shift), count(kernel_sha256) FROM run_vm"
	assert_output "6|time|0|0"
}

@test "schema 9: a counted row needs its shift, a timed one has none, the shift is one QEMU takes" {
	cnt_db
	run q "UPDATE run_vm SET icount_shift = NULL WHERE run_id = 1"
	assert_failure
	assert_output --partial "CHECK constraint failed"
	run q "UPDATE run_vm SET clock = 'time' WHERE run_id = 1"
	assert_failure
	run q "UPDATE run_vm SET icount_shift = 11 WHERE run_id = 1"
	assert_failure
	run q "UPDATE run_vm SET clock = 'cycles' WHERE run_id = 1"
	assert_failure
	run q "SELECT clock, icount_shift, length(kernel_sha256) FROM run_vm WHERE run_id = 1"
	assert_output "instructions|0|64"
}

@test "compare, text: two counted kernels in guest instructions, never in time" {
	cnt_db
	run --separate-stderr "$BENCH" compare --db "$DB" base patch
	assert_success
	assert_equal "$stderr" ""
	assert_line --regexp '^op=unlink +135\.0 M instr +0\.1% +120\.0 M instr +0\.2% +-11\.1% +-915\.5 instr/folio .* better$'
	assert_output --partial "counted in guest"
	assert_output --partial "under QEMU's TCG with -icount shift=0"
	no_time
}

@test "compare, json: each side's clock and shift, rows in instr, and the method sentence of counts" {
	cnt_db
	run --separate-stderr "$BENCH" compare --db "$DB" --format json base patch
	assert_success
	printf '%s\n' "$output" > "$T/out.json"
	fb_json_valid compare "$T/out.json"
	run jq -r '[.base.clock, .base.icount_shift, .patch.clock, .patch.icount_shift] | @tsv' "$T/out.json"
	assert_output $'instructions\t0\tinstructions\t0'
	run jq -r '.rows[] | [.metric, .unit, (.base.mean * 100 | round / 100 | tostring), .change_per_folio.unit // "-"] | @tsv' "$T/out.json"
	assert_output $'wall\tinstr\t135000000\tinstr/folio\nns_per_folio\tinstr/folio\t8239.75\t-\nfolios\tcount\t16384\t-'
	run jq -r .method "$T/out.json"
	assert_output "$COUNTED"
}

@test "compare: the count is said to be the sum over vCPUs where a guest had more than one, or a case more than one worker" {
	fx_begin "$DB"
	FX_VCPUS=2 cnt_label base b 135
	FX_VCPUS=2 cnt_label patch p 120
	fx_guest base tcg 0 2
	fx_guest patch tcg 0 2
	fx_end
	run --separate-stderr "$BENCH" compare --db "$DB" --format json base patch
	assert_success
	run jq -r .method <<< "$output"
	local want=${COUNTED/1 vCPU/2 vCPU}
	assert_output "${want/iteration;/iteration$SUMMED;}"
	# one vCPU, four workers
	rm -f "$DB"*
	fx_begin "$DB"
	for l in base patch; do
		for b in 1 2; do
			FX_VCPUS=1 fx_run $l $l$b
			fx_case shmem-remove "{\"op\":\"unlink\",\"threads\":\"4\",$FX_PARAMS_BASE}" wall:ns:lower
			fx_samples 100e6 101e6 99e6
		done
		fx_guest $l tcg 0
	done
	fx_end
	run --separate-stderr "$BENCH" compare --db "$DB" --format json base patch
	assert_success
	run jq -r .method <<< "$output"
	assert_output --partial "counts once per iteration$SUMMED"
}

@test "compare, changelog, markdown and csv: instructions in every column of values" {
	cnt_db
	run --separate-stderr "$BENCH" compare --db "$DB" --format changelog base patch
	assert_success
	narrow_ascii 75
	assert_line --regexp '^unlink\(\) +135\.0 M instr +120\.0 M instr +-11\.1% +-915\.5 instr/folio +better$'
	no_time
	run --separate-stderr "$BENCH" compare --db "$DB" --format markdown base patch
	assert_success
	assert_line --regexp '^\| unlink\(\) \| 135\.0 M instr \| 0\.1% \| 120\.0 M instr \| 0\.2% \| -11\.1% \| -915\.5 instr/folio \|'
	no_time
	run --separate-stderr "$BENCH" compare --db "$DB" --format csv base patch
	assert_success
	run python3 -c 'import csv, sys
for r in csv.DictReader(sys.stdin): print(r["metric"], r["unit"], r["base_mean"], r["patch_mean"])' <<< "$output"
	assert_output $'wall instr 135000000 120000000\nns_per_folio instr/folio 8239.746094 7324.21875\nfolios count 16384 16384'
}

@test "export of a counted label: text and json in instructions, the json valid" {
	cnt_db
	run --separate-stderr "$BENCH" export --db "$DB" base
	assert_success
	assert_line --regexp '^op=unlink +135\.0 M instr +0\.1% +134\.5 M instr to 135\.5 M instr +3 +3$'
	no_time
	run --separate-stderr "$BENCH" export --db "$DB" --format json base
	assert_success
	printf '%s\n' "$output" > "$T/out.json"
	fb_json_valid export "$T/out.json"
	run jq -r '[.label.clock, .label.icount_shift, .rows[0].unit] | @tsv' "$T/out.json"
	assert_output $'instructions\t0\tinstr'
}

@test "benchstat: a count is instr/op, never a time in seconds, and the files parse" {
	cnt_db
	run --separate-stderr "$BENCH" compare --db "$DB" --format benchstat -o "$T/bs" base patch
	assert_success
	run awk -f "$BENCHFMT" "$T/bs/base.txt" "$T/bs/patch.txt"
	assert_success
	assert_output 18
	run grep -c '^BenchmarkShmemRemove/op=unlink/[^ ]* 1 [0-9.e+]* instr/op [0-9.e+]* ns_per_folio-instr/folio 16384 folios/op$' "$T/bs/base.txt"
	assert_output 9
	run grep -c 'ns/op\|ns/folio\|sec/op' "$T/bs/base.txt"
	assert_output 0
	run grep -x '# clock: guest instructions (bench vm --accel icount, -icount shift=0): every time is a count, instr' "$T/bs/patch.txt"
	assert_success
	# the first sample of the base, as stored (shift 0: one ns, one instruction)
	run awk '/^Benchmark/ { print $3; exit }' "$T/bs/base.txt"
	assert_output 135000000
}

@test "ministat: each file says its values are instructions, ministat reads them" {
	cnt_db
	run --separate-stderr "$BENCH" compare --db "$DB" --format ministat -o "$T/ms" base patch
	assert_success
	cd "$T/ms/shmem-remove,op=unlink"
	run head -n 1 base
	assert_output "# instr: counted in guest instructions (bench vm --accel icount), not timed"
	run ministat base patch
	assert_success
	assert_line --regexp '^x +3 +1\.348e\+08 +1\.352e\+08 +1\.35e\+08 +1\.35e\+08 +200000$'
	assert_line --regexp '^\+ +3 +1\.198e\+08 +1\.202e\+08 +1\.2e\+08 +1\.2e\+08 +200000$'
}

@test "report: the page shows counts, its plot's axis in M instr, no time" {
	cnt_db
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/r.html" base patch
	assert_success
	run grep -c '<td class="num">135.0 M instr</td><td class="num">120.0 M instr</td>' "$T/r.html"
	assert_output 1
	run grep -c 'wall (M instr)' "$T/r.html"
	[ "$output" -ge 1 ]
	run sed 's/<[^>]*>/ /g' "$T/r.html"
	no_time
	assert_output --partial "counted in guest instructions in a 1 vCPU VM"
}

@test "shift 3: one instruction is 8 ns of the guest's clock, so the values are an eighth of what was stored" {
	cnt_db 3 3
	run --separate-stderr "$BENCH" compare --db "$DB" --format json base patch
	assert_success
	run jq -r '.method, (.rows[] | [.unit, (.base.mean, .patch.mean | . * 1000 | round / 1000)] | @tsv)' <<< "$output"
	assert_line --index 0 --partial "under QEMU's TCG with -icount shift=3 (one instruction = 8 ns of the guest's clock, shown in instructions): "
	assert_line --index 1 $'instr\t16875000\t15000000'
	assert_line --index 2 $'instr/folio\t1029.968\t915.527'
	run --separate-stderr "$BENCH" compare --db "$DB" base patch
	assert_line --regexp '^op=unlink +16\.88 M instr .* 15\.00 M instr .* -11\.1% '
}

@test "counted beside timed is refused (69), naming both labels and what each has: timed TCG, KVM, bare metal" {
	local msg
	cnt_db 0 -
	run "$BENCH" compare --db "$DB" base patch
	assert_failure 69
	msg="bench: refusing to compare base with patch: runs counted in guest instructions (bench vm --accel icount) beside runs that are timed (a count is no time); base has guest instructions (icount shift 0): 'tcg icount shift=0 smp=1 sockets=1 threads=1 numa=off mem=1G cgroup=v2', patch has time: 'tcg smp=1 sockets=1 threads=1 numa=off mem=1G cgroup=v2'"
	assert_output "$msg"
	run "$BENCH" compare --db "$DB" --format json patch base
	assert_failure 69
	assert_output --partial "refusing to compare patch with base: runs counted in guest instructions"
	run "$BENCH" report --db "$DB" -o "$T/r.html" base patch
	assert_failure 69
	assert_output "$msg"
	[ ! -e "$T/r.html" ]
	run "$BENCH" plan --db "$DB" base patch
	assert_failure 69
	assert_output "bench: refusing to plan base against patch: guest instructions (icount shift 0) beside time (see bench compare base patch)"
	q "UPDATE run_vm SET accel = 'kvm' WHERE clock = 'time'"
	run "$BENCH" compare --db "$DB" base patch
	assert_failure 69
	assert_output --partial "patch has time: 'kvm smp=1 "
	q "DELETE FROM run_vm WHERE clock = 'time'"
	run "$BENCH" compare --db "$DB" base patch
	assert_failure 69
	assert_output --partial "patch has time: 'not a bench vm guest'"
}

@test "counted with another icount shift is refused (69): the counts are in other units" {
	cnt_db 0 2
	run "$BENCH" compare --db "$DB" base patch
	assert_failure 69
	assert_output "bench: refusing to compare base with patch: runs counted with different icount shifts (one instruction is 2^shift ns of the guest's clock: the counts are in different units); base has guest instructions (icount shift 0): 'tcg icount shift=0 smp=1 sockets=1 threads=1 numa=off mem=1G cgroup=v2', patch has guest instructions (icount shift 2): 'tcg icount shift=2 smp=1 sockets=1 threads=1 numa=off mem=1G cgroup=v2'"
}

@test "a label whose runs mix counted and timed is refused (69) wherever it would be shown" {
	local msg="bench: label 'base' mixes runs counted in guest instructions (2, bench vm --accel icount) with timed runs (1): a count is no time, so no table shows them together; give them labels of their own"
	cnt_db
	q "UPDATE run_vm SET clock = 'time', icount_shift = NULL WHERE run_id = 3"
	local cmd
	for cmd in "compare base patch" "compare patch base" "export base" \
		   "export --format benchstat base" "compare --aa base" \
		   "report -o $T/r.html base"; do
		# shellcheck disable=SC2086
		run "$BENCH" $cmd --db "$DB"
		assert_failure 69
		assert_output "$msg"
	done
	[ ! -e "$T/r.html" ]
	# two shifts in one label
	q "UPDATE run_vm SET clock = 'instructions', icount_shift = 1 WHERE run_id = 3"
	run "$BENCH" export --db "$DB" base
	assert_failure 69
	assert_output "bench: label 'base' mixes runs counted with icount shift 0 and shift 1: their counts are in different units; give them labels of their own"
}

@test "compare --aa of a counted label: its halves in instructions" {
	cnt_db
	run --separate-stderr "$BENCH" compare --db "$DB" --aa --format json base
	assert_success
	run jq -r '[.base.clock, .patch.clock, .rows[0].unit] | @tsv' <<< "$output"
	assert_output $'instructions\tinstructions\tinstr'
}

@test "noisy samples of counted runs: steal and oversubscription are said not to apply to counts" {
	cnt_db
	q "UPDATE samples SET noisy = 1 WHERE id IN (1, 10)"
	run --separate-stderr "$BENCH" compare --db "$DB" base patch
	assert_success
	assert_equal "$stderr" "bench: warning: samples flagged noisy (steal over steal_max, PUs oversubscribed, or a wait on a run queue): base 1 of 9, patch 1 of 9; steal and the oversubscription probe judge time and do not apply to counts of guest instructions; a wait on a run queue does (a kernel thread ran inside the call), as an interrupt would; kept"
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/r.html" base patch
	assert_success
	run grep -c 'class="note noisy">Samples flagged noisy by steal or the oversubscription probe, which judge time and do not apply to counts of guest instructions' "$T/r.html"
	assert_output 1
	run grep -c 'class="warn noisy"' "$T/r.html"
	assert_output 0
}

@test "merge carries the clock, the shift and the kernel's hash, also from a database of schema 8" {
	local out=$T/out.db
	cnt_db 2 2
	run "$BENCH" merge "$out" "$DB"
	assert_success
	assert_output --partial "run_vm 6, profile_stacks 0); 0 already there"
	run sqlite3 "$out" "SELECT r.label, v.clock, v.icount_shift, v.kernel_sha256 = printf('%064d', v.run_id) FROM run_vm v JOIN runs r ON r.id = v.run_id ORDER BY r.uuid"
	assert_output "$(printf 'base|instructions|2|1\n%.0s' 1 2 3)
$(printf 'patch|instructions|2|1\n%.0s' 1 2 3 | head -c -1)"
	# an old guest's runs: timed
	mkdir "$T/s8"
	cp "$BATS_TEST_DIRNAME"/../schema/00[1-8]_*.sql "$T/s8/"
	FX_SCHEMA_DIR=$T/s8 fx_begin "$T/old.db"
	FX_NRUN=100	# a uuid of its own
	fx_run old o1
	fx_remove_case unlink
	fx_wall 100 101
	fx_guest old kvm
	fx_end
	run "$BENCH" merge "$out" "$T/old.db"
	assert_success
	assert_output --partial "run_vm 1, profile_stacks 0); 0 already there; read from schema 8, migrated in a copy"
	run sqlite3 "$out" "SELECT v.accel, v.clock, v.icount_shift IS NULL, v.kernel_sha256 IS NULL FROM run_vm v JOIN runs r ON r.id = v.run_id WHERE r.label = 'old'"
	assert_output "kvm|time|1|1"
	run "$BENCH" compare --db "$out" base patch
	assert_success
}

@test "run-json: the run's clock and how its guest was made" {
	cnt_db 2 2
	run --separate-stderr "$BENCH" export --db "$DB" --run 00000000-0000-0000-0000-000000000001 --format run-json
	assert_success
	printf '%s\n' "$output" > "$T/run.json"
	fb_json_valid run "$T/run.json"
	run jq -r '[.run.clock, .run.vm.clock, .run.vm.icount_shift, .run.vm.accel, .cases[0].samples[0].metrics[0].unit] | @tsv' "$T/run.json"
	assert_output $'instructions\tinstructions\t2\ttcg\tns'
}
