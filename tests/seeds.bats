#!/usr/bin/env bats
# The changelog tables the project started from (../shared/seeds/), built
# back from their own published figures and printed by `bench compare
# --format changelog`: the same rows, the same values, and a change that
# rounds to the one the seed gives or that its figures imply.  One test a
# seed; this is the product's promise that its tables are what a patch
# author would paste.

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

# The change a seed's own before and after imply, as the table rounds it.
seed_change() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", 100 * (b / a - 1) }'; }

# Five runs whose median is $1 ms, for a boot: the others around it.
five_ms() {
	awk -v m="$1" -v n="$2" 'BEGIN {
		split("-3 -1 0 2 4", d, " ")
		for (i = 1; i <= 5; i++) {
			ns = (m + d[i]) * 1e6
			printf "%.0f/%.6f/%d\n", ns, ns / n, n
		} }'
}

# mm/shmem: remove truncated folios from the page cache in batches
# (seed 000): "Dropping an 8 GiB file of 4K folios, median of five runs,
# averaged over two boots of each kernel, in a 32 vCPU VM".  Each boot's
# median is one ms either side of the published value, so that the mean
# of the two is that value.
@test "seed 000: shmem truncate in batches, 8 GiB of 4K folios, two boots" {
	local -a rows=("ftruncate 1163 913" "punch-hole 1155 914"
		       "memfd-close 1161 914" "unlink 1162 916")
	local k b row op v
	fx_begin "$DB"
	for k in 0 1; do
		for b in 0 1; do
			FX_VIRT=VM FX_VCPUS=32 FX_MEM=135089315840 \
				fx_run "$([ $k = 0 ] && echo 6.18.0 || echo 6.18.0-batch)" "k$k-boot-$b"
			for row in "${rows[@]}"; do
				read -r op v <<< "$(awk -v k=$k '{ print $1, $(2 + k) }' <<< "$row")"
				fx_case shmem-remove "{\"op\":\"$op\",\"size\":\"8G\",\"folio\":\"4k\",\"dir\":\"/dev/shm\",\"populate\":\"fallocate\"}" \
					wall:ns:lower ns_per_folio:ns/folio:lower folios:count:lower
				mapfile -t s < <(five_ms $((v - 1 + 2 * b)) 2097152)
				fx_samples "${s[@]}"
			done
		done
	done
	fx_end
	run --separate-stderr "$BENCH" compare --db "$DB" --format changelog 6.18.0 6.18.0-batch
	assert_success
	assert_equal "$stderr" ""
	assert_output - <<EOF
before: 6.18.0, after: 6.18.0-batch

shmem-remove         before   after                per folio
ftruncate() to 0    1163 ms  913 ms  -21.5%  -119.2 ns/folio  faster
hole punch          1155 ms  914 ms  -20.9%  -114.9 ns/folio  faster
close() of a memfd  1161 ms  914 ms  -21.3%  -117.8 ns/folio  faster
unlink()            1162 ms  916 ms  -21.2%  -117.3 ns/folio  faster
geomean                              -21.2%                   (untested)

$(fb_method changelog median=5 boots=2 vm=32 "case=8 GiB file of 4K folios, dir=/dev/shm, populate=fallocate" welch=4 geomean few)
EOF
	# the change each row prints is the one the seed's figures imply
	for row in "${rows[@]}"; do
		read -r op a b <<< "$row"
		assert_line --regexp "^[^ ].* $a ms +$b ms +$(seed_change "$a" "$b" | sed 's/+/\\+/') "
	done
}

# mm/filemap: reduce xarray lookups (seed 001): one fio run of 300 s a
# kernel, "READ: bw=2697MiB/s" before and 2709MiB/s after, and "The branch
# count: 654.198 M/sec -> 646.444 M/sec".  One run a side is no test.
@test "seed 001: fio sequential read, bandwidth and branches per second" {
	local k
	fx_begin "$DB"
	for k in 0 1; do
		fx_run "$([ $k = 0 ] && echo 6.18.0 || echo 6.18.0-xas)" "k$k-boot"
		fx_case seq-read '{"dir":"/dev/shm","size":"1G","bs":"4k","duration":"5m","populate":"write","threads":"1","shared":"no","file":""}' \
			bw:MiB/s:higher branches_per_s:/s:lower
		if [ $k = 0 ]; then
			fx_samples 2697/654198000
		else
			fx_samples 2709/646444000
		fi
	done
	fx_end
	run --separate-stderr "$BENCH" compare --db "$DB" --format changelog \
		--metric bw,branches_per_s 6.18.0 6.18.0-xas
	assert_success
	assert_equal "$stderr" ""
	assert_output - <<EOF
before: 6.18.0, after: 6.18.0-xas

seq-read            before       after
bw              2697 MiB/s  2709 MiB/s  +0.4%  (no test)
branches_per_s   654.2 M/s   646.4 M/s  -1.2%  (no test)
geomean (cost)                          -0.8%  (untested)

$(fb_method changelog one "case=1 GiB file, dir=/dev/shm, bs=4k, duration=5m, populate=write, threads=1, shared=no, file=" untested geomean=cost within=all)
EOF
	assert_line --regexp "^bw +2697 MiB/s +2709 MiB/s +$(seed_change 2697 2709 | sed 's/+/\\+/') "
	assert_line --regexp "^branches_per_s +654.2 M/s +646.4 M/s +$(seed_change 654.198 646.444) "
}

# mm: optimize truncation of shadow entries (seed 002): "time truncate -s
# 0 file" of a 200 GiB FUSE file, 5.164 +- 0.059 s without and 4.21 +-
# 0.066 s with the patch, "18.47% decrease".  Three runs a kernel whose
# mean and standard deviation are the published ones.
@test "seed 002: truncate of 200 GiB of shadow entries, mean and sd of runs" {
	local k
	fx_begin "$DB"
	for k in 0 1; do
		fx_run "$([ $k = 0 ] && echo Without || echo With-patch)" "k$k-boot"
		fx_case shadow-truncate '{"size":"200G","fs":"fuse","dir":"scratch","op":"truncate","keep":"auto","ballast":"auto","reclaim":"auto","limit":"auto","coverage":"90"}' \
			wall:ns:lower
		if [ $k = 0 ]; then
			fx_samples 5105000000 5164000000 5223000000
		else
			fx_samples 4144000000 4210000000 4276000000
		fi
	done
	fx_end
	run --separate-stderr "$BENCH" compare --db "$DB" --format changelog Without With-patch
	assert_success
	assert_equal "$stderr" ""
	assert_output - <<EOF
before: Without, after: With-patch

shadow-truncate   before    after
200 GiB          5.164 s  4.210 s  -18.5%  faster

$(fb_method changelog mean=3 boots=1 "case=fs=fuse, dir=scratch, op=truncate, keep=auto, ballast=auto, reclaim=auto, limit=auto, coverage=90" within=all welch=1)
EOF
	# the seed's own "18.47% decrease", and its +- as the runs' sd
	[ "$(seed_change 5.164 4.21)" = "-18.5%" ]
	assert_line --regexp "^200 GiB +5\.164 s +4\.210 s +-18\.5% "
	run "$BENCH" compare --db "$DB" --format csv Without With-patch
	assert_success
	assert_line --index 1 --regexp ',Without,1,3,3,5164000000,59000000(\.0+[0-9]*)?,With-patch,1,3,3,4210000000,66000000(\.0+[0-9]*)?,-18\.474[0-9]*,'
}

# mm: batch radix tree operations when truncating pages (seed 003): "10000
# truncates of 1024 pages ... The range shows 1% and 95% percentiles" of
# five runs a kernel, in microseconds: 248-256, 249-258, 248-255, 248-255,
# 247-256 before; 209-219, 209-217, 211-239, 209-217, 210-218 after.
@test "seed 003: small truncates, the 1st and 95th percentiles of five runs" {
	local k i
	local -a p1=("248 249 248 248 247" "209 209 211 209 210")
	local -a p95=("256 258 255 255 256" "219 217 239 217 218")
	local -a s
	fx_begin "$DB"
	for k in 0 1; do
		fx_run "$([ $k = 0 ] && echo 4.14-rc2 || echo 4.14-rc2-batched)" "k$k-boot"
		fx_case small-truncate '{"count":"10000","pages":"1024","dir":"loop","op":"truncate","wsize":"64k"}' \
			p1:ns:lower p95:ns:lower
		read -ra a <<< "${p1[$k]}"
		read -ra b <<< "${p95[$k]}"
		s=()
		for i in 0 1 2 3 4; do
			s+=("${a[$i]}000/${b[$i]}000")
		done
		fx_samples "${s[@]}"
	done
	fx_end
	run --separate-stderr "$BENCH" compare --db "$DB" --format changelog \
		--metric p1,p95 4.14-rc2 4.14-rc2-batched
	assert_success
	assert_equal "$stderr" ""
	assert_output - <<EOF
before: 4.14-rc2, after: 4.14-rc2-batched

small-truncate    before     after
p1              248.0 us  209.6 us  -15.5%  faster
p95             256.0 us  222.0 us  -13.3%  faster
geomean                             -14.4%  (untested)

$(fb_method changelog mean=5 boots=1 "case=count=10000, pages=1024, dir=loop, op=truncate, wsize=64k" within=all welch=2 mw=normal/2 geomean)
EOF
	# the changes the seed's own rows imply: means of its five runs
	assert_line --regexp "^p1 +248\.0 us +209\.6 us +$(seed_change 248 209.6) "
	assert_line --regexp "^p95 +256\.0 us +222\.0 us +$(seed_change 256 222) "
}
