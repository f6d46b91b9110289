#!/usr/bin/env bats
# bench compare: kernel against kernel, with the boot as the statistical
# unit.  The databases are built from known samples (tests/fixtures), so
# every table is pinned exactly; the numbers were checked against SciPy
# (tests/unit/test_stats.c says how).  The last test compares two real runs.

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

KNOWN_WARNINGS="bench: warning: kernel command line differs: 6.18.0-base has 'console=ttyS0 quiet'; 6.18.0-patch has 'console=ttyS0 quiet mitigations=off'
bench: warning: shmem-remove {\"op\":\"punch-hole\",\"size\":\"64M\",\"folio\":\"4k\",\"dir\":\"/dev/shm\",\"populate\":\"fallocate\"} was measured on 6.18.0-base only"

@test "text: 20% faster, no change, a case on one side only" {
	fx_known "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" 6.18.0-base 6.18.0-patch
	assert_success
	assert_equal "$stderr" "$KNOWN_WARNINGS"
	assert_output - <<EOF
base   6.18.0-base   4 boots, 4 complete runs, kernel 6.18.0-base
patch  6.18.0-patch  4 boots, 4 complete runs, kernel 6.18.0-patch

shmem-remove       base   ±sd     patch   ±sd  change        per folio          95% CI         p (Holm)    p(U) (Holm)
op=unlink      100.2 ms  1.0%   80.2 ms  0.8%  -20.0%  -1.221 µs/folio  [-21.2, -18.6]  <0.001 (<0.001)  0.029 (0.057)  faster
op=ftruncate   50.12 ms  0.6%  50.17 ms  0.4%   +0.1%  +3.052 ns/folio    [-0.8, +1.0]        0.8 (0.8)    0.89 (0.89)  ~
op=punch-hole  52.12 ms  0.4%         -     -       -                                -                -              -  only base
geomean                                        -10.5%                                                                   (untested)

$(fb_method text median=3 boots=4 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate" welch=2 mw=exact/2 geomean)

What more boots would buy (two-sided alpha 0.05, Holm-corrected over 2 rows:
0.025 a row, the level that passes whatever the other rows show; power 0.8;
approximate):
  op=ftruncate: with 4 boots of each kernel, a change of 1.4% can be detected;
  the +0.1% seen needs 528 boots of each kernel
EOF
}

@test "changelog: the same comparison in at most 75 plain columns" {
	fx_known "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" --format changelog \
		6.18.0-base 6.18.0-patch
	assert_success
	assert_equal "$stderr" "$KNOWN_WARNINGS"
	assert_output - <<EOF
before: 6.18.0-base, after: 6.18.0-patch

shmem-remove        before     after                per folio
unlink()          100.2 ms   80.2 ms  -20.0%  -1.221 us/folio  faster
ftruncate() to 0  50.12 ms  50.17 ms   +0.1%  +3.052 ns/folio  ~
geomean                               -10.5%                   (untested)

Only measured on 6.18.0-base: hole punch.

Marked ~: ftruncate() to 0 (p=0.8, Holm 0.8).

$(fb_method changelog median=3 boots=4 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate" welch=2 mw=exact/2 geomean)
EOF
	narrow_ascii 75
}

@test "markdown: the same comparison as a table" {
	fx_known "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" --format markdown \
		6.18.0-base 6.18.0-patch
	assert_success
	assert_equal "$stderr" "$KNOWN_WARNINGS"
	assert_output - <<EOF
| shmem-remove | 6.18.0-base | ±sd | 6.18.0-patch | ±sd | change | per folio | 95% CI | p (Holm) | p(U) (Holm) | |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
| unlink() | 100.2 ms | 1.0% | 80.2 ms | 0.8% | -20.0% | -1.221 µs/folio | [-21.2, -18.6] | <0.001 (<0.001) | 0.029 (0.057) | faster |
| ftruncate() to 0 | 50.12 ms | 0.6% | 50.17 ms | 0.4% | +0.1% | +3.052 ns/folio | [-0.8, +1.0] | 0.8 (0.8) | 0.89 (0.89) | ~ |
| hole punch | 52.12 ms | 0.4% | - | - | - |  | - | - | - | only base |
| geomean | | | | | -10.5% | | | | | (untested) |

$(fb_method markdown median=3 boots=4 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate" welch=2 mw=exact/2 geomean)
EOF
}

@test "csv: every metric, raw values in their unit, one family per Holm" {
	fx_known "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" --format csv \
		6.18.0-base 6.18.0-patch
	assert_success
	assert_equal "$stderr" "$KNOWN_WARNINGS"
	# numbers as numbers: 10 digits printed, the pinned values to 1e-8
	fb_csv_near <<'EOF'
workload,params,asked,metric,unit,better,primary,base,base_boots,base_runs_min,base_runs_max,base_mean,base_sd,patch,patch_boots,patch_runs_min,patch_runs_max,patch_mean,patch_sd,change_pct,ci_low_pct,ci_high_pct,units,welch_df,p_welch,p_welch_holm,p_mwu,p_mwu_holm,significant,direction,detectable_pct,boots_needed,holm_rows,no_test
shmem-remove,"{""op"":""unlink"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,wall,ns,lower,yes,6.18.0-base,4,3,3,100250000,994987.4371,6.18.0-patch,4,3,3,80250000,613731.7547,-19.95012469,-21.2268657,-18.64730795,boots,4.994157143,4.065248317e-07,8.130496634e-07,0.02857142857,0.05714285714,yes,faster,,,2,
shmem-remove,"{""op"":""unlink"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,ns_per_folio,ns/folio,lower,no,6.18.0-base,4,3,3,6118.774414,60.7292137,6.18.0-patch,4,3,3,4898.071289,37.4592134,-19.95012469,-21.2268657,-18.64730795,boots,4.994157131,4.065248412e-07,8.130496824e-07,0.02857142857,0.05714285714,yes,faster,,,2,
shmem-remove,"{""op"":""unlink"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,folios,count,lower,no,6.18.0-base,4,3,3,16384,0,6.18.0-patch,4,3,3,16384,0,0,,,boots,,,,,,,,,,,input
shmem-remove,"{""op"":""ftruncate"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,wall,ns,lower,yes,6.18.0-base,4,3,3,50125000,298607.8811,6.18.0-patch,4,3,3,50175000,221735.5783,0.09975062344,-0.8218837735,1.032463675,boots,5.537039518,0.7977669806,0.7977669806,0.8857142857,0.8857142857,no,,1.437415658,528,2,
shmem-remove,"{""op"":""ftruncate"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,ns_per_folio,ns/folio,lower,no,6.18.0-base,4,3,3,3059.387207,18.22557902,6.18.0-patch,4,3,3,3062.438965,13.53366556,0.0997506214,-0.821883787,1.032463685,boots,5.537039446,0.7977669865,0.7977669865,0.8857142857,0.8857142857,no,,1.437415671,528,2,
shmem-remove,"{""op"":""ftruncate"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,folios,count,lower,no,6.18.0-base,4,3,3,16384,0,6.18.0-patch,4,3,3,16384,0,0,,,boots,,,,,,,,,,,input
shmem-remove,"{""op"":""punch-hole"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,wall,ns,lower,yes,6.18.0-base,4,3,3,52125000,206155.2813,6.18.0-patch,,,,,,,,,,,,,,,,,,,,
shmem-remove,"{""op"":""punch-hole"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,ns_per_folio,ns/folio,lower,no,6.18.0-base,4,3,3,3181.457519,12.58272001,6.18.0-patch,,,,,,,,,,,,,,,,,,,,
shmem-remove,"{""op"":""punch-hole"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,folios,count,lower,no,6.18.0-base,4,3,3,16384,0,6.18.0-patch,,,,,,,,,,,,,,,,,,,,
EOF
}

@test "json: versioned, valid against its schema, the result in its fields" {
	fx_begin "$DB"
	fx_unlink_boots A a 98
	fx_unlink_boots B b 78
	fx_end
	run --separate-stderr "$BENCH" compare --db "$DB" --format json A B
	assert_success
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out.json"
	fb_json_valid compare "$T/out.json"
	fb_json_head "$T/out.json" compare "$(fb_method json median=3 boots=2 "case=64 MiB file")"
	# each side: its label, boots and runs (a boot a run here)
	run jq -r '.base, .patch | [.label, .db_label, .boots,
		([.runs[] | .boot_id + ":" + .kernel_release] | join(" ")),
		([.runs[].kernel_warnings] | map(tostring) | join(" "))] |
		@tsv' "$T/out.json"
	assert_output "A	A	2	a1:A a2:A	null null
B	B	2	b1:B b2:B	null null"
	# the row: the case, the boot medians, the means, the change and its
	# Fieller CI, Welch's p (SciPy: 0.004962809790), the verdict
	run jq -r '.rows | length, (.[0] | [.workload, .params.op,
		.params.size, .name, .metric, .unit, .better, .primary, .units,
		(.base.boot_medians | map(tostring) | join(" ")),
		(.patch.boot_medians | map(tostring) | join(" ")),
		.base.mean, .patch.mean, (.change_pct * 1e6 | round),
		(.change_ci95_pct | map(. * 1e6 | round) | map(tostring) |
		 join(" ")), .welch_df, (.p_welch * 1e12 | round),
		(.p_welch_holm * 1e12 | round), .p_mwu, .significant,
		.direction, .holm_rows, .no_test, .change_per_folio] | @tsv)' \
		"$T/out.json"
	assert_output "1
shmem-remove	unlink	64M	op=unlink	wall	ns	lower	true	boots	100000000 102000000	80000000 82000000	101000000	81000000	-19801980	-25123881 -14188463	2	4962809790	4962809790		true	faster	1		"
	# the family and the geometric mean (one row: itself, untested)
	run jq -r '[.test, .holm_rows_welch, .holm_rows_mwu,
		.significant_rows, .significant_rows_uncorrected,
		(.geometric_mean | (.change_pct * 1e6 | round), .rows, .cost,
		 .tested, .direction), (.warnings | length),
		(.unmeasurable | length), (.kernel_warnings | length)] | @tsv' \
		"$T/out.json"
	assert_output "welch t on boot medians, holm	1	0	1	1	-19801980	1	false	false	faster	0	0	0"
}

@test "json: the known comparison parses and keeps every metric" {
	fx_known "$DB"
	"$BENCH" compare --db "$DB" --format json 6.18.0-base 6.18.0-patch \
		> "$T/out.json" 2>/dev/null
	fb_json_valid compare "$T/out.json"
	run sqlite3 "$DB" "SELECT json_valid(readfile('$T/out.json')),
		json_array_length(readfile('$T/out.json'), '\$.rows'),
		json_extract(readfile('$T/out.json'), '\$.rows[0].direction'),
		json_extract(readfile('$T/out.json'), '\$.rows[3].boots_needed'),
		json_array_length(readfile('$T/out.json'), '\$.warnings')"
	assert_success
	assert_output "1|9|faster|528|2"
}

@test "changelog: long names take a line of their own; costs in the mean" {
	fx_mixed "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" --format changelog K1 K2
	assert_success
	assert_equal "$stderr" ""
	assert_output - <<EOF
before: K1, after: K2

                    before       after
shmem-remove      100.2 ms     90.3 ms   -9.8%  faster
seq-read, pattern=sequential-with-readahead
                4010 MiB/s  4420 MiB/s  +10.2%  faster
seq-read, pattern=sequential-without-readahead
                3007 MiB/s  3008 MiB/s   +0.1%  ~
geomean (cost)                           -6.5%  (untested)

Marked ~: seq-read, pattern=sequential-without-readahead (p=0.91, Holm
0.91).

$(fb_method changelog median=3 boots=3 "case=shmem-remove: 64 MiB file of 4K folios, op=unlink, dir=/dev/shm, populate=fallocate; seq-read: 1 GiB file" welch=3 geomean=cost)
Not measurable on these machines: shmem-remove cycles.
EOF
	narrow_ascii 75
}

@test "text: two workloads, a throughput, a metric not measurable here" {
	fx_mixed "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" K1 K2
	assert_success
	assert_output - <<EOF
base   K1  3 boots, 3 complete runs, kernel K1
patch  K2  3 boots, 3 complete runs, kernel K2

case                                                 base   ±sd       patch   ±sd  change         95% CI         p (Holm)  p(U) (Holm)
shmem-remove                                     100.2 ms  0.8%     90.3 ms  0.7%   -9.8%  [-11.3, -8.3]  <0.001 (<0.001)            -  faster
seq-read pattern=sequential-with-readahead     4010 MiB/s  0.9%  4420 MiB/s  0.8%  +10.2%  [+8.1, +12.4]  <0.001 (<0.001)            -  faster
seq-read pattern=sequential-without-readahead  3007 MiB/s  0.7%  3008 MiB/s  0.4%   +0.1%   [-1.3, +1.5]      0.91 (0.91)            -  ~
geomean (cost)                                                                      -6.5%                                               (untested)

$(fb_method text median=3 boots=3 "case=shmem-remove: 64 MiB file of 4K folios, op=unlink, dir=/dev/shm, populate=fallocate; seq-read: 1 GiB file" welch=3 geomean=cost)
Not measurable on these machines: shmem-remove cycles.

What more boots would buy (two-sided alpha 0.05, Holm-corrected over 3 rows:
0.017 a row, the level that passes whatever the other rows show; power 0.8;
approximate):
  seq-read pattern=sequential-without-readahead: with 3 boots of each kernel,
  a change of 2.3% can be detected; the +0.1% seen needs 2232 boots of each
  kernel
EOF
}

@test "--aa: the odd and even boots of one label, and the false positives" {
	fx_known "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" --aa 6.18.0-base
	assert_success
	assert_equal "$stderr" ""
	assert_output - <<EOF
half 1  6.18.0-base (odd boots)   2 boots, 2 complete runs, kernel 6.18.0-base
half 2  6.18.0-base (even boots)  2 boots, 2 complete runs, kernel 6.18.0-base

shmem-remove     half 1   ±sd    half 2   ±sd  change        per folio        95% CI     p (Holm)  p(U) (Holm)
op=unlink       99.5 ms  0.6%  101.0 ms  0.8%   +1.4%  +85.45 ns/folio  [-1.8, +4.7]   0.19 (0.3)            -  ~
op=ftruncate   50.35 ms  0.4%  49.90 ms  0.3%   -0.9%  -27.47 ns/folio  [-2.6, +0.9]   0.15 (0.3)            -  ~
op=punch-hole  51.95 ms  0.1%  52.30 ms  0.0%   +0.7%  +21.36 ns/folio  [-0.5, +1.9]  0.09 (0.27)            -  ~
geomean                                         +0.4%                                                           (untested)

$(fb_method text median=3 halves=2:6.18.0-base "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate" welch=3 geomean few)

A/A: 0 of 3 rows differ at p < 0.05 after Holm (0%), 0 before correction (0%);
the two halves are one kernel, so any row that differs is a false positive.

What more boots would buy (two-sided alpha 0.05, Holm-corrected over 3 rows:
0.017 a row, the level that passes whatever the other rows show; power 0.8;
approximate):
  op=unlink: with 2 boots in each half, a change of 6.2% can be detected
  op=ftruncate: with 2 boots in each half, a change of 3.1% can be detected
  op=punch-hole: with 2 boots in each half, a change of 0.8% can be detected
EOF
	# as JSON: an A/A document, the same family and verdicts
	"$BENCH" compare --db "$DB" --aa --format json 6.18.0-base \
		> "$T/aa.json"
	fb_json_valid compare "$T/aa.json"
	run jq -r '[.kind, .base.label, .patch.label, .holm_rows_welch,
		.significant_rows, ([.rows[] | select(.primary) |
		.significant] | map(tostring) | join(" "))] | @tsv' \
		"$T/aa.json"
	assert_output "aa	6.18.0-base (odd boots)	6.18.0-base (even boots)	3	0	false false false"
}

@test "one boot a side: the runs stand in, and the table says so" {
	fx_begin "$DB"
	fx_run A boot-a
	fx_remove_case unlink
	fx_wall w120 100.0 101.2 99.6 100.4 100.8
	fx_run B boot-b
	fx_remove_case unlink
	fx_wall w120 80.2 79.8 80.9 80.3 80.0
	fx_end
	run --separate-stderr "$BENCH" compare --db "$DB" --format changelog A B
	assert_success
	assert_output - <<EOF
before: A, after: B

shmem-remove    before    after                per folio
unlink()      100.4 ms  80.2 ms  -20.1%  -1.230 us/folio  faster

$(fb_method changelog mean=5 boots=1 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate" within=all welch=1 mw=exact/1)
EOF
	narrow_ascii 75
}

@test "two boots a side: boot-to-boot variance cannot be judged" {
	fx_begin "$DB"
	fx_run A a1; fx_remove_case unlink; fx_wall 100.0 101.2 99.6
	fx_run A a2; fx_remove_case unlink; fx_wall 101.5 100.9 102.3
	fx_run B b1; fx_remove_case unlink; fx_wall 100.2 99.8 100.9
	fx_run B b2; fx_remove_case unlink; fx_wall 101.0 101.4 100.6
	fx_end
	run --separate-stderr "$BENCH" compare --db "$DB" A B
	assert_success
	assert_output - <<EOF
base   A  2 boots, 2 complete runs, kernel A
patch  B  2 boots, 2 complete runs, kernel B

shmem-remove      base   ±sd     patch   ±sd  change        per folio        95% CI     p (Holm)  p(U) (Holm)
op=unlink     100.8 ms  1.1%  100.6 ms  0.6%   -0.1%  -9.155 ns/folio  [-4.9, +5.0]  0.88 (0.88)            -  ~

$(fb_method text median=3 boots=2 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate" welch=1 few)

What more boots would buy (two-sided alpha 0.05, Holm-corrected over 1 row:
0.05 a row, the level that passes whatever the other rows show; power 0.8;
approximate):
  op=unlink: with 2 boots of each kernel, a change of 4.5% can be detected;
  the -0.1% seen needs 506 boots of each kernel
EOF
}

@test "one boot a side: change, CI, p and direction all of the mean of runs" {
	# One base boot of 55 runs at 1 ms and 45 at 100 ms: its median is
	# 1 ms, its mean 45.55 ms; the patch runs at 30 +- 0.5 ms.  Welch and
	# Fieller judge the means, so the change is of the means (-34.1%, in
	# its CI), never of the medians (+2900%, "slower").  Checked with
	# mpmath: Welch t -3.1424, df 99.008, p 0.0022111; Fieller by
	# bisection on its defining equation -45.831%, -16.046%.
	fx_begin "$DB"
	fx_run A boot-a
	fx_remove_case unlink
	# shellcheck disable=SC2046
	fx_wall $(printf '1 %.0s' $(seq 55)) $(printf '100 %.0s' $(seq 45))
	fx_run B boot-b
	fx_remove_case unlink
	# shellcheck disable=SC2046
	fx_wall $(awk 'BEGIN { for (i = 0; i < 100; i++)
		printf "%.1f\n", 30 + (i % 11 - 5) / 10 }')
	fx_end
	run --separate-stderr "$BENCH" compare --db "$DB" A B
	assert_success
	assert_equal "$stderr" ""
	assert_output - <<EOF
base   A  1 boot, 1 complete run, kernel A
patch  B  1 boot, 1 complete run, kernel B

shmem-remove      base     ±sd     patch   ±sd  change        per folio          95% CI         p (Holm)  p(U) (Holm)
op=unlink     45.55 ms  108.7%  30.00 ms  1.1%  -34.1%  -949.4 ns/folio  [-45.8, -16.0]  0.0022 (0.0022)  0.21 (0.21)  faster

$(fb_method text mean=100 boots=1 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate" within=all welch=1 mw=normal/1)
EOF
	run "$BENCH" compare --db "$DB" --format csv A B
	assert_success
	fb_csv_near -l 1 <<'EOF'
shmem-remove,"{""op"":""unlink"",""size"":""64M"",""folio"":""4k"",""dir"":""/dev/shm"",""populate"":""fallocate""}",,wall,ns,lower,yes,A,1,100,100,45550000,49500000,B,1,100,100,29995000,320156.2119,-34.1492865,-45.83057398,-16.04587353,runs,99.00828283,0.002211140173,0.002211140173,0.2145129763,0.2145129763,yes,faster,,,1,
EOF
}

@test "mixed: only the rows with a one-boot kernel stand on runs, and say so" {
	fx_begin "$DB"
	local k b
	for k in A B; do
		for b in 0 1 2; do
			fx_run $k "$k-boot-$b"
			fx_remove_case unlink
			if [ $k = A ]; then
				fx_wall "100.$b" "101.$b" "99.$b"
			else
				fx_wall "80.$b" "81.$b" "79.$b"
			fi
			# ftruncate measured in one boot of B only
			[ $k = B ] && [ $b != 0 ] && continue
			fx_remove_case ftruncate
			fx_wall "50.$b" "51.$b" "49.$b"
		done
	done
	fx_end
	run --separate-stderr "$BENCH" compare --db "$DB" --format changelog A B
	assert_success
	assert_equal "$stderr" ""
	assert_output - <<EOF
before: A, after: B

shmem-remove
          boots    before     after                per folio
unlink()      3  100.1 ms   80.1 ms  -20.0%  -1.221 us/folio  faster
ftruncate() to 0
            3/1  50.10 ms  50.00 ms   -0.2%  -6.104 ns/folio  ~
geomean                              -10.6%                   (untested)

Marked ~: ftruncate() to 0 (p=0.89, Holm 0.89).

$(fb_method changelog median=3 boots=1-3 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate" within=some welch=2 geomean)
EOF
	narrow_ascii 75
	run "$BENCH" compare --db "$DB" --format csv A B
	assert_success
	# ftruncate: the means of A's 9 runs and B's 3, on runs
	assert_line --index 4 --regexp '^shmem-remove,.*ftruncate.*,wall,ns,lower,yes,A,3,3,3,50100000,[0-9.]+,B,1,3,3,50000000,1000000,-0\.199[0-9]+,[-0-9.]+,[-0-9.]+,runs,'
}

@test "direction: times and throughputs go faster, other rates better or worse" {
	# seq-read's own metrics and units; context switches per second rise
	# 50% on the patch: worse, not "faster"
	fx_begin "$DB"
	local k b
	for k in A B; do
		for b in 0 1 2; do
			fx_run $k "$k-boot-$b"
			fx_case seq-read '{"size":"1G","pattern":"sequential"}' \
				bw:MiB/s:higher iops:IOPS:higher lat_p50:ns:lower \
				context_switches_per_s:/s:lower \
				cpu_migrations_per_s:/s:lower \
				page_faults:count:lower cpus_utilized:CPUs:lower
			if [ $k = A ]; then
				fx_samples \
				"$((4000 + b))/$((16000 + b))/$((250000 + b))/$((1000 + b))/$((50 + b))/$((200 + b))/1.0$b" \
				"$((4010 + b))/$((16040 + b))/$((249000 + b))/$((1010 + b))/$((51 + b))/$((201 + b))/1.0$((b + 1))" \
				"$((3990 + b))/$((15960 + b))/$((251000 + b))/$((990 + b))/$((49 + b))/$((199 + b))/0.9$((9 - b))"
			else
				fx_samples \
				"$((4400 + b))/$((17600 + b))/$((225000 + b))/$((1500 + b))/$((30 + b))/$((150 + b))/1.2$b" \
				"$((4410 + b))/$((17640 + b))/$((224000 + b))/$((1510 + b))/$((31 + b))/$((151 + b))/1.2$((b + 1))" \
				"$((4390 + b))/$((17560 + b))/$((226000 + b))/$((1490 + b))/$((29 + b))/$((149 + b))/1.1$((9 - b))"
			fi
		done
	done
	fx_end
	"$BENCH" compare --db "$DB" --format json A B > "$T/out.json"
	fb_json_valid compare "$T/out.json"
	run sqlite3 "$DB" "SELECT json_extract(value, '\$.metric'),
		json_extract(value, '\$.unit'),
		printf('%+.1f', json_extract(value, '\$.change_pct')),
		json_extract(value, '\$.direction')
		FROM json_each(readfile('$T/out.json'), '\$.rows')"
	assert_success
	assert_output - <<'EOF'
bw|MiB/s|+10.0|faster
iops|IOPS|+10.0|faster
lat_p50|ns|-10.0|faster
context_switches_per_s|/s|+50.0|worse
cpu_migrations_per_s|/s|-39.2|better
page_faults|count|-24.9|better
cpus_utilized|CPUs|+19.8|worse
EOF
}

@test "geomean: its change without a verdict; json gives its direction, untested" {
	# a metric this build does not know is a headline one: both rows
	# and their geometric mean are shown
	fx_begin "$DB"
	local k b op
	for k in A B; do
		for b in 0 1 2; do
			fx_run $k "$k-boot-$b"
			for op in read write; do
				fx_case seq-read "{\"size\":\"1G\",\"op\":\"$op\"}" \
					faults_per_s:/s:lower
				if [ $k = A ]; then
					fx_samples $((1000 + b)) $((1010 + b)) $((990 + b))
				else
					fx_samples $((1200 + b)) $((1210 + b)) $((1190 + b))
				fi
			done
		done
	done
	fx_end
	run --separate-stderr "$BENCH" compare --db "$DB" --format changelog A B
	assert_success
	assert_output - <<EOF
before: A, after: B

seq-read   before    after
op=read   1001 /s  1201 /s  +20.0%  worse
op=write  1001 /s  1201 /s  +20.0%  worse
geomean                     +20.0%  (untested)

$(fb_method changelog median=3 boots=3 "case=1 GiB file" welch=2 geomean)
EOF
	run "$BENCH" compare --db "$DB" --format json A B
	assert_success
	assert_output --partial '"cost":	false,
		"tested":	false,
		"direction":	"worse"
	},'
}

@test "changelog: labels, names and paths too long for a line are broken" {
	fx_long "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" --format changelog \
		"$FX_LONG_LABEL" patched
	assert_success
	assert_equal "$stderr" ""
	assert_output - <<EOF
before:
6.18.0-rc3-next-20261128-mm-unstable-folio-batch-truncate-v4-kasan-lockdep-
dbg1+, after: patched

seq-read      before       after
dir=/var/tmp/foliobench/scratch/ext4-on-nvme0n1p3/
  a-mount-point-with-a-rather-long-name/fast
          4010 MiB/s  4420 MiB/s  +10.2%  faster
dir=/var/tmp/foliobench/scratch/ext4-on-nvme0n1p3/
  a-mount-point-with-a-rather-long-name/slow
          1003 MiB/s  1106 MiB/s  +10.2%  faster
geomean                           +10.2%  (untested)

$(fb_method changelog median=3 boots=3 "case=1 GiB file, file=/srv/benchmarks/page-cache/datasets/one-gibibyte-of-random-bytes-for-sequential-reads.bin" welch=2 geomean)
EOF
	narrow_ascii 75
}

@test "every difference besides the kernel is a warning; --strict refuses" {
	fx_begin "$DB"
	local b
	for b in 1 2 3; do
		fx_run A "a$b"
		fx_remove_case unlink
		fx_wall 100 101 99
	done
	for b in 1 2 3; do
		FX_CPU="AMD EPYC 9654" FX_VCPUS=4 FX_MEM=26843545600 \
		FX_THP='{"enabled":"[always] madvise never"}' \
		FX_TMPFS="tmpfs rw,nosuid,nodev,huge=always" FX_TOOL=v0.2 \
			fx_run B "b$b"
		fx_remove_case unlink
		fx_wall 100 101 99
	done
	fx_end
	run --separate-stderr "$BENCH" compare --db "$DB" A B
	assert_success
	assert_equal "$stderr" "bench: warning: CPU model differs: A has 'Intel(R) Xeon(R) Processor'; B has 'AMD EPYC 9654'
bench: warning: vCPUs differs: A has '2'; B has '4'
bench: warning: THP and shmem settings differs: A has '{\"enabled\":\"always [madvise] never\"}'; B has '{\"enabled\":\"[always] madvise never\"}'
bench: warning: /dev/shm mount differs: A has 'tmpfs rw,nosuid,nodev,inode64'; B has 'tmpfs rw,nosuid,nodev,huge=always'
bench: warning: tool version differs: A has 'v0.1'; B has 'v0.2'
bench: warning: memory differs by more than 1%: from 23.5 GiB to 25 GiB across the runs of A and B"
	run --separate-stderr "$BENCH" compare --db "$DB" --strict A B
	assert_failure 69
	assert_output ""
	assert_equal "${stderr##*$'\n'}" "bench: refusing to compare A with B: 6 differences besides the kernel (--strict)"
}

@test "--strict passes when only the kernel differs" {
	fx_begin "$DB"
	local b
	for b in 1 2; do
		fx_run A "a$b"
		fx_remove_case unlink
		fx_wall 100 101 99
		# another kernel image and a few MiB less memory: the kernel
		FX_MEM=25200000000 fx_run B "b$b"
		fx_remove_case unlink
		fx_wall 90 91 89
	done
	fx_end
	run --separate-stderr "$BENCH" compare --db "$DB" --strict \
		--format changelog A B
	assert_success
	assert_equal "$stderr" ""
	assert_line --index 2 "unlink()      100.0 ms  90.0 ms  -10.0%  -610.4 ns/folio  faster"
}

@test "the known warnings reach stderr with --strict, and nothing is printed" {
	fx_known "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" --strict \
		6.18.0-base 6.18.0-patch
	assert_failure 69
	assert_output ""
	assert_equal "$stderr" "$KNOWN_WARNINGS
bench: refusing to compare 6.18.0-base with 6.18.0-patch: 2 differences besides the kernel (--strict)"
}

@test "no database file: 66" {
	run "$BENCH" compare --db "$T/none.db" A B
	assert_failure 66
	assert_output "bench: no database at $T/none.db (record runs with \`bench run\` first)"
	[ ! -e "$T/none.db" ]
}

@test "not a database: 65" {
	echo "results" > "$T/notdb"
	run "$BENCH" compare --db "$T/notdb" A B
	assert_failure 65
	assert_output "bench: $T/notdb is not a foliobench database: file is not a database"
}

@test "rows that make no sense: 65" {
	fx_begin "$DB"
	fx_run A a1
	fx_case shmem-remove '{"op":"unlink"}' wall:ns:lower
	fx_samples 100e6 101e6
	fx_run A a2
	fx_case shmem-remove '{"op":"unlink"}' wall:us:lower
	fx_samples 100e3 101e3
	fx_run B b1
	fx_case shmem-remove 'op=unlink' wall:ns:lower
	fx_samples 100e6 101e6
	fx_end
	run "$BENCH" compare --db "$DB" A B
	assert_failure 65
	assert_output "bench: shmem-remove {\"op\":\"unlink\"}: metric wall is stored both in ns and in us"
	run "$BENCH" export --db "$DB" B
	assert_failure 65
	assert_output "bench: case shmem-remove of label 'B' has params that are not a JSON object: op=unlink"
}

@test "an empty database: 72" {
	fx_begin "$DB"
	fx_end
	run "$BENCH" compare --db "$DB" A B
	assert_failure 72
	assert_output "bench: $DB holds no runs yet (record some with \`bench run\`)"
}

@test "a database of a newer schema: 76" {
	fx_known "$DB"
	sqlite3 "$DB" "PRAGMA user_version = 99"
	run "$BENCH" compare --db "$DB" 6.18.0-base 6.18.0-patch
	assert_failure 76
	assert_output "bench: cannot read $DB: schema version 99 is newer than this tool's $(fb_schema_latest); use a newer foliobench"
}

@test "an unknown label: 67, with the nearest one" {
	fx_known "$DB"
	run "$BENCH" compare --db "$DB" 6.18.0-bse 6.18.0-patch
	assert_failure 67
	assert_output "bench: no run has the label '6.18.0-bse' in $DB; did you mean '6.18.0-base'?"
	run "$BENCH" compare --db "$DB" 6.18.0-base v7
	assert_failure 67
	assert_output "bench: no run has the label 'v7' in $DB (labels: 6.18.0-base, 6.18.0-patch)"
}

@test "a label with no complete run: 68" {
	fx_known "$DB"
	fx_begin "$DB.2"
	fx_run 6.18.0-base b1
	fx_remove_case unlink
	fx_wall 100 101
	fx_run broken b1 aborted
	fx_remove_case unlink
	fx_wall 100 101
	fx_run broken b2 failed
	fx_end
	run "$BENCH" compare --db "$DB.2" 6.18.0-base broken
	assert_failure 68
	assert_output "bench: label 'broken' has 2 runs in $DB.2 but none complete (see \`bench runs\`)"
}

@test "--aa needs two boots: 68" {
	fx_begin "$DB"
	fx_run A only-boot; fx_remove_case unlink; fx_wall 100.0 101.2 99.6
	fx_run A only-boot; fx_remove_case unlink; fx_wall 100.3 100.9 99.9
	fx_end
	run "$BENCH" compare --db "$DB" --aa A
	assert_failure 68
	assert_output "bench: label 'A' has complete runs in 1 boot; an A/A comparison needs at least 2"
}

@test "usage errors: 64" {
	fx_known "$DB"
	run "$BENCH" compare --db "$DB" 6.18.0-base
	assert_failure 64
	assert_line --index 0 "bench: compare takes two labels, BASE and PATCH"
	run "$BENCH" compare --db "$DB" --aa A B
	assert_failure 64
	assert_line --index 0 "bench: --aa takes one label"
	run "$BENCH" compare --db "$DB" --format xml A B
	assert_failure 64
	assert_output "bench: unknown format 'xml' (text, changelog, markdown, csv, json, ministat, benchstat)"
	run "$BENCH" compare --db "$DB" 6.18.0-base 6.18.0-base
	assert_failure 64
	assert_output "bench: BASE and PATCH are both '6.18.0-base'; to compare a label with itself use --aa"
	run "$BENCH" compare --db "$DB" '' 6.18.0-base
	assert_failure 64
	assert_output "bench: empty label: name BASE and PATCH (make compare BASE=... PATCH=...)"
	run "$BENCH" compare --frob A B
	assert_failure 64
	assert_output "bench: unknown option '--frob'"
	run "$BENCH" compare --format
	assert_failure 64
	assert_output "bench: option '--format' needs a value"
}

@test "--help: usage, formats and exit codes" {
	run "$BENCH" compare --help
	assert_success
	assert_line --index 0 "usage: bench compare [--db FILE] [--format FORMAT] [--strict] BASE PATCH"
	assert_output --partial "68 no complete run (--aa: fewer than 2 boots), 69 refused by --strict,"
}

@test "end to end: two real runs with different labels, compared" {
	fb_config '[{"workload":"shmem-remove","op":"unlink","size":"64M","folio":"4k"}]'
	run "$BENCH" run --config "$T/config.json" --label A --quiet
	assert_success
	run "$BENCH" run --config "$T/config.json" --label B --quiet
	assert_success
	run --separate-stderr "$BENCH" compare --db "$DB" A B
	assert_success
	# nothing but, on a busy machine, the count of samples flagged noisy
	[ -z "$stderr" ] || [[ "$stderr" =~ ^"bench: warning: samples flagged noisy "[^$'\n']*$ ]]
	assert_line --index 0 --regexp '^base   A  1 boot, 1 complete run, kernel '
	assert_line --index 1 --regexp '^patch  B  1 boot, 1 complete run, kernel '
	assert_line --index 3 --regexp '^op=unlink +[0-9.]+ ms +[0-9.]+% +[0-9.]+ ms +[0-9.]+% +[-+][0-9.]+% +[-+][0-9.]+ [nµ]s/folio +(\[[-+][0-9.]+, [-+][0-9.]+\]|unbounded) +[<0-9.]+ \([<0-9.]+\) +- +(faster|slower|~)$'
	# the notes wrap where the CPU count puts them: read them as one line
	local notes=${output//$'\n'/ }
	[[ $notes == *"Mean of 2 runs in one boot of each kernel, $(fx_where); 64 MiB file of 4K folios"* ]]
	[[ $notes == *"One boot of a kernel: its runs stand in for boots, so values, changes and tests are of the mean of the runs and cannot see how much boots differ."* ]]
	[[ $notes == *"±sd: standard deviation of the runs, in percent."* ]]
	run --separate-stderr "$BENCH" compare --db "$DB" --format changelog A B
	assert_success
	assert_line --index 0 "before: A, after: B"
	assert_line --index 1 --regexp '^shmem-remove +before +after +per folio$'
	narrow_ascii 75
}

@test "changelog: runs in a VM say so in the method sentence" {
	FX_VIRT=VM fx_known "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" --format changelog \
		6.18.0-base 6.18.0-patch
	assert_success
	assert_output --partial "$(fb_method changelog median=3 boots=4 vm=2 "case=64 MiB file of 4K folios, dir=/dev/shm, populate=fallocate" welch=2 mw=exact/2 geomean)"
}

@test "memory sizes near 2^63 compare without overflow" {
	# lo + lo / 100 overflowed (UBSan at reports/compare.c), and the
	# wrapped sum warned that equal memories differ by more than 1%
	local m=9223372036854775807 b
	two_mems() {
		fx_begin "$DB"
		for b in 1 2; do
			FX_MEM=$1 fx_run A "a$b"
			fx_remove_case unlink
			fx_wall 100 101 99
			FX_MEM=$2 fx_run B "b$b"
			fx_remove_case unlink
			fx_wall 100 101 99
		done
		fx_end
	}
	two_mems $m $m
	run --separate-stderr "$BENCH" compare --db "$DB" A B
	assert_success
	assert_equal "$stderr" ""
	# 1.0000000000000002% apart, and just 1% apart
	rm "$DB"
	two_mems $m 9131138316486228000
	run --separate-stderr "$BENCH" compare --db "$DB" A B
	assert_success
	assert_equal "$stderr" "bench: warning: memory differs by more than 1%: from 8304721.9 TiB to 8388608 TiB across the runs of A and B"
	rm "$DB"
	two_mems $m 9132051521982480000
	run --separate-stderr "$BENCH" compare --db "$DB" A B
	assert_success
	assert_equal "$stderr" ""
}

@test "a case whose samples are all invalid on one side: the warning says so, with the count and the first reason" {
	local b
	fx_begin "$DB"
	for b in 1 2; do
		fx_run base "a$b"
		fx_remove_case unlink; fx_wall 100 101 99
		fx_remove_case ftruncate; fx_wall 50 51 49
		fx_run patch "b$b"
		fx_remove_case unlink; fx_wall x80 x81 x79
		fx_remove_case ftruncate; fx_wall 40 x41 39
	done
	fx_end
	# the first invalid sample of patch's unlink says why; the others
	# another reason
	q "UPDATE samples SET invalid_reason = 'verify: 3 folios left' WHERE id = 7"
	# patch's ftruncate: invalid but for samples noisy, left out
	q "UPDATE samples SET noisy = 1 WHERE valid = 1 AND case_id IN (SELECT c.id FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.label = 'patch' AND c.params LIKE '%ftruncate%')"
	run --separate-stderr "$BENCH" compare --db "$DB" base patch
	assert_success
	assert_equal "$(grep 'measured on' <<< "$stderr")" "bench: warning: shmem-remove {\"op\":\"unlink\",$FX_PARAMS_BASE} was measured on base only: patch's 6 samples were all invalid (the first: verify: 3 folios left)"
	run --separate-stderr "$BENCH" compare --db "$DB" --drop-noisy base patch
	assert_success

	[[ $stderr == *"{\"op\":\"ftruncate\",$FX_PARAMS_BASE} was measured on base only: of patch's 6 samples, 2 were invalid (the first: injected) and 4 left out as noisy"* ]]
	# a case one side never ran is said as before, nothing more
	fx_begin "$T/one.db"
	fx_run base a1; fx_remove_case unlink; fx_wall 100 101 99
	fx_remove_case punch-hole; fx_wall 10 11 9
	fx_run patch b1; fx_remove_case unlink; fx_wall 80 81 79
	fx_end
	run --separate-stderr "$BENCH" compare --db "$T/one.db" base patch
	assert_success
	assert_equal "$(grep 'measured on' <<< "$stderr")" "bench: warning: shmem-remove {\"op\":\"punch-hole\",$FX_PARAMS_BASE} was measured on base only"
}

# compare's warnings on stderr, and its exit status, for $1 (a database).
warnings_of() {
	"$BENCH" compare --db "$1" "${@:2}" 2>&1 > /dev/null
	echo "rc $?"
}

@test "the sides' warnings come from what the load read: the same from packs, run_series and samples, a side of each" {
	fx_known "$DB"
	q "INSERT INTO run_vm (run_id, accel, accel_why, shape, kernel,
	   kernel_image, qemu_version, qemu_args, guest_cmdline, command,
	   wall_s, console, kmsg) SELECT id, 'kvm', 'asked', 'smp=1 mem=1G',
	   label, '/boot/vmlinuz', 'QEMU 7.2.0', '[]', 'console=ttyS0',
	   'bench run', 10, '', '' FROM runs WHERE label = '6.18.0-patch'"
	q "UPDATE runs SET topology_shape = CASE label WHEN '6.18.0-base'
	   THEN '1 package, 2 PUs' ELSE '1 package, 4 PUs' END"
	q "UPDATE runs SET topology_shape = '2 packages, 8 PUs' WHERE id = 2"
	q "UPDATE samples SET noisy = 1 WHERE id IN (2, 3, (SELECT max(s.id)
	   FROM samples s JOIN cases c ON c.id = s.case_id JOIN runs r
	   ON r.id = c.run_id WHERE r.label = '6.18.0-patch' AND s.valid = 1
	   AND r.status = 'complete'))"
	q "UPDATE samples SET verify = '{\"coverage_bounded\":1}' WHERE id =
	   (SELECT min(s.id) FROM samples s JOIN cases c ON c.id = s.case_id
	   JOIN runs r ON r.id = c.run_id WHERE r.label = '6.18.0-patch'
	   AND s.valid = 1 AND s.warmup = 0)"
	local from_samples id
	from_samples=$(warnings_of "$DB" 6.18.0-base 6.18.0-patch)
	echo "$from_samples" | grep -qF "samples flagged noisy (steal over steal_max, PUs oversubscribed, or a wait on a run queue): 6.18.0-base 2 of 36, 6.18.0-patch 1 of 24"
	echo "$from_samples" | grep -qF "CPU topology differs: 6.18.0-base has '1 package, 2 PUs' | '2 packages, 8 PUs', 6.18.0-patch has '1 package, 4 PUs'"
	echo "$from_samples" | grep -qF "VM shape differs: 6.18.0-base has 'not a bench vm guest', 6.18.0-patch has 'kvm smp=1 mem=1G'"
	echo "$from_samples" | grep -qF "6.18.0-patch's shadow entries are bounded, not counted (its kernel has no cachestat(2), 6.5+): coverage and shadow_entries are their least count in shmem-remove op=unlink"
	! echo "$from_samples" | grep -qF "6.18.0-base's shadow entries"
	# a merge into a new file makes every run's pack
	"$BENCH" merge "$T/packed.db" "$DB" > /dev/null
	assert_equal "$(sqlite3 "$T/packed.db" 'SELECT count(*) FROM run_packs')" 9
	assert_equal "$(warnings_of "$T/packed.db" 6.18.0-base 6.18.0-patch)" "$from_samples"
	assert_equal "$(warnings_of "$T/packed.db" --aa 6.18.0-base)" \
		"$(warnings_of "$DB" --aa 6.18.0-base)"
	# the patch's runs from run_series, then one from its samples
	sqlite3 "$T/packed.db" "DELETE FROM run_packs WHERE run_id IN
		(SELECT id FROM runs WHERE label = '6.18.0-patch')"
	assert_equal "$(warnings_of "$T/packed.db" 6.18.0-base 6.18.0-patch)" "$from_samples"
	id=$(sqlite3 "$T/packed.db" "SELECT min(id) FROM runs WHERE label = '6.18.0-patch'")
	sqlite3 "$T/packed.db" "DELETE FROM run_series WHERE run_id = $id"
	assert_equal "$(warnings_of "$T/packed.db" 6.18.0-base 6.18.0-patch)" "$from_samples"
	# and --strict counts topology and guest beside the table's two
	run --separate-stderr "$BENCH" compare --db "$T/packed.db" --strict 6.18.0-base 6.18.0-patch
	assert_equal "$status" 69
	[[ "$stderr" == *"refusing to compare 6.18.0-base with 6.18.0-patch: 4 differences besides the kernel (--strict)"* ]]
}
