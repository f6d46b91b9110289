#!/usr/bin/env bats
# compare --profile and the report's differential flame graph (schema 11):
# fx_known's database with profiles whose shares are worked by hand
# (tests/fixtures/profile.bash says which), and one real run profiled by
# rows written into it.

load test_helper
load fixtures/fixture
load fixtures/profile

bats_require_minimum_version 1.5.0

CDP="/usr/bin/python3 $BATS_TEST_DIRNAME/cdp.py"
: "${FB_BUILD:=$BATS_TEST_DIRNAME/../build}"
ART=$FB_BUILD/artifacts

# Base: filemap_remove_folio 50%, __clear_shadow_entry 22.5%,
# shmem_truncate_range self 27.5% (boot means); patch:
# delete_from_page_cache_batch 40% self, 60% with xas_find (20%, once a
# stack though it recurses), filemap_remove_folio 10%, the range 30%.
# Costs: a share of 100.25 ms (base) and 80.25 ms (patch), the unlink
# row's means of boot medians; 0.6 x 80.25 = 48.15, 0.5 x 100.25 -
# 0.1 x 80.25 = 42.1, 0.225 x 100.25 = 22.556, 0.2 x 80.25 = 16.05.
UNLINK_TABLE='shmem-remove op=unlink
  6.18.0-base: 500 samples of cpu-clock every 100.0 µs in 4 boots
  6.18.0-patch: 400 samples of cpu-clock every 100.0 µs in 4 boots
  function                      self base  patch    change  with children base   patch    change  cost base     patch     change
  delete_from_page_cache_batch          -  40.0%  +40.0 pt                   -   60.0%  +60.0 pt          -  48.15 ms  +48.15 ms  only patch
  filemap_remove_folio              50.0%  10.0%  -40.0 pt               50.0%   10.0%  -40.0 pt   50.12 ms   8.03 ms  -42.10 ms
  __clear_shadow_entry              22.5%      -  -22.5 pt               22.5%       -  -22.5 pt   22.56 ms         -  -22.56 ms  only base
  shmem_truncate_range              27.5%  30.0%   +2.5 pt              100.0%  100.0%   +0.0 pt   100.2 ms   80.2 ms   -20.0 ms
  do_syscall_64 (+4 alike)           0.0%   0.0%   +0.0 pt              100.0%  100.0%   +0.0 pt   100.2 ms   80.2 ms   -20.0 ms
  xas_find                              -  20.0%  +20.0 pt                   -   20.0%  +20.0 pt          -  16.05 ms  +16.05 ms  only patch
  do_syscall_64 (+4 alike): do_unlinkat, entry_SYSCALL_64, evict,
    shmem_evict_inode'

# The lines of $output from the one that is $1 on, up to a blank line.
block() {
	awk -v first="$1" '$0 == first { on = 1 } on && $0 == "" { exit }
		on { print }' <<< "$output"
}

@test "text: unlink's functions by the change of their cost, shares averaged over boots, a recursive function once a stack, frames of the same numbers one row" {
	fxp_known "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" --profile \
		6.18.0-base 6.18.0-patch
	assert_success
	# the table of compare comes first, as without --profile
	assert_line --index 0 --regexp '^base   6.18.0-base   4 boots'
	assert_line --index 3 --regexp '^op=unlink +100.2 ms .* faster$'
	run block 'shmem-remove op=unlink'
	assert_output "$UNLINK_TABLE"
}

@test "text: --profile-top keeps that many functions and counts the others" {
	fxp_known "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" --profile \
		--profile-top 3 6.18.0-base 6.18.0-patch
	assert_success
	# the first rows of the whole table, in columns of their own width
	run block 'shmem-remove op=unlink'
	assert_equal "$(tr -s ' ' <<< "$output")" "$(head -n 7 <<< "$UNLINK_TABLE" | tr -s ' ')
 7 more functions (--profile-top)"
}

@test "text: a case under the threshold of samples is too few, not a change; a case profiled on one kernel says which" {
	fxp_known "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" --profile \
		6.18.0-base 6.18.0-patch
	assert_success
	run block 'shmem-remove op=ftruncate'
	assert_output 'shmem-remove op=ftruncate
  6.18.0-base: 40 samples of cpu-clock every 100.0 µs in 4 boots
  6.18.0-patch: 40 samples of cpu-clock every 100.0 µs in 4 boots
  too few samples (6.18.0-base 40, 6.18.0-patch 40): fewer than 100 a side are not compared'
	run --separate-stderr "$BENCH" compare --db "$DB" --profile \
		--profile-min 40 6.18.0-base 6.18.0-patch
	run block 'shmem-remove op=ftruncate'
	# every function is the whole call: a tie, by name
	assert_line --index 4 --regexp '^  do_syscall_64 \(\+4 alike\) +0.0% +0.0% +\+0.0 pt +100.0% +100.0% +\+0.0 pt +50.12 ms +50.17 ms +\+50 µs$'
	assert_line --index 5 --regexp '^  shmem_truncate_range +100.0% +100.0% +\+0.0 pt +100.0% +100.0% +\+0.0 pt +50.12 ms +50.17 ms +\+50 µs$'
	run --separate-stderr "$BENCH" compare --db "$DB" --profile \
		6.18.0-base 6.18.0-patch
	run block 'shmem-remove op=punch-hole'
	assert_output 'shmem-remove op=punch-hole
  6.18.0-base: 800 samples of cpu-clock every 100.0 µs in 4 boots
  6.18.0-patch: not profiled
  no profile on 6.18.0-patch (the case was not profiled)'
}

@test "json: the profile validates against compare.schema.json and holds the shares and costs worked by hand" {
	fxp_known "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" --format json \
		--profile 6.18.0-base 6.18.0-patch
	assert_success
	echo "$output" > "$T/c.json"
	fb_json_valid compare "$T/c.json"
	run jq -c '.profile | [.min_samples, .top, .base_none, .patch_none,
		(.cases | length)]' "$T/c.json"
	assert_output '[100,10,null,null,3]'
	run jq -c '.profile.cases[0] | [.name, .params.op, .base.samples,
		.patch.samples, .base.boots, .base.median, .patch.median,
		.base.median_unit, .too_few_samples, .functions_total,
		(.functions | length)]' "$T/c.json"
	assert_output '["op=unlink","unlink",500,400,4,100250000,80250000,"ns",false,10,10]'
	# rounded to 1 ns and 10^-9 of a share: sums of shares carry a last bit
	run jq -r '.profile.cases[0].functions[] | [.function,
		(.self.base, .self.patch, .with_children.base,
		 .with_children.patch, .with_children.change,
		 .cost.base, .cost.patch, .cost.change | . * 1e9 | round / 1e9),
		.only // "-"] | @tsv' "$T/c.json"
	assert_output "$(printf '%s\t' delete_from_page_cache_batch 0 0.4 0 0.6 0.6 0 48150000 48150000; echo patch
printf '%s\t' filemap_remove_folio 0.5 0.1 0.5 0.1 -0.4 50125000 8025000 -42100000; echo -
printf '%s\t' __clear_shadow_entry 0.225 0 0.225 0 -0.225 22556250 0 -22556250; echo base
printf '%s\t' shmem_truncate_range 0.275 0.3 1 1 0 100250000 80250000 -20000000; echo -
for f in do_syscall_64 do_unlinkat entry_SYSCALL_64 evict shmem_evict_inode; do
	printf '%s\t' $f 0 0 1 1 0 100250000 80250000 -20000000; echo -
done
printf '%s\t' xas_find 0 0.2 0 0.2 0.2 0 16050000 16050000; echo patch)"
	run jq -c '.profile.cases[1] | [.too_few_samples, .functions]' "$T/c.json"
	assert_output '[true,[]]'
	run jq -c '.profile.cases[2] | [.base.profiled, .patch.profiled,
		.patch.off, .functions]' "$T/c.json"
	assert_output '[true,false,null,[]]'
}

@test "a label without a profile is one line and no failure; one that asked and could not have one gives the reason" {
	fx_known "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" --profile \
		6.18.0-base 6.18.0-patch
	assert_success
	assert_output --partial '
profile: 6.18.0-base has none: its runs were not profiled (bench run --profile)

profile: 6.18.0-patch has none: its runs were not profiled (bench run --profile)'
	refute_output --partial 'shmem-remove op=unlink
'
	fxp_known "$T/off.db"
	sqlite3 "$T/off.db" "DELETE FROM profile_stacks WHERE case_id IN
		(SELECT c.id FROM cases c JOIN runs r ON r.id = c.run_id
		 WHERE r.label = '6.18.0-patch');
		UPDATE cases SET profile = '{\"off\":\"perf_event_open: Permission denied (perf_event_paranoid 3)\"}'
		WHERE run_id IN (SELECT id FROM runs WHERE label = '6.18.0-patch')"
	run --separate-stderr "$BENCH" compare --db "$T/off.db" --profile \
		6.18.0-base 6.18.0-patch
	assert_success
	assert_line 'profile: 6.18.0-patch has none: profiling was asked for and could not be had: perf_event_open: Permission denied (perf_event_paranoid 3)'
	run --separate-stderr "$BENCH" compare --db "$T/off.db" --profile \
		--format json 6.18.0-base 6.18.0-patch
	assert_success
	echo "$output" > "$T/off.json"
	fb_json_valid compare "$T/off.json"
	run jq -r '.profile.patch_none, .profile.cases[0].patch.off' "$T/off.json"
	assert_output 'profiling was asked for and could not be had: perf_event_open: Permission denied (perf_event_paranoid 3)
perf_event_open: Permission denied (perf_event_paranoid 3)'
}

@test "samples timed while profiled are left out of the table and said so; --profiled takes them" {
	fxp_known "$DB"
	# the patch's first boot only: its unlink 20% slower than the others
	sqlite3 "$DB" "UPDATE samples SET profiled = 1 WHERE case_id IN
		(SELECT c.id FROM cases c JOIN runs r ON r.id = c.run_id
		 WHERE r.boot_id = 'patch-boot-0');
		UPDATE sample_values SET value = value * 1.2 WHERE sample_id IN
		(SELECT s.id FROM samples s WHERE s.profiled = 1)"
	run --separate-stderr "$BENCH" compare --db "$DB" 6.18.0-base 6.18.0-patch
	assert_success
	assert_line --index 1 --regexp '^patch  6.18.0-patch  3 boots'
	assert_line --index 3 --regexp '^op=unlink +100.2 ms +1.0% +80.3 ms '
	[[ $stderr == *"bench: warning: 6 of 24 samples of 6.18.0-patch were timed while the kernel was profiled: left out (their times hold the cost of sampling; --profiled takes them)"* ]]
	run --separate-stderr "$BENCH" compare --db "$DB" --profiled \
		6.18.0-base 6.18.0-patch
	assert_success
	assert_line --index 1 --regexp '^patch  6.18.0-patch  4 boots'
	# boot 0's median 80.2 ms x 1.2 = 96.24 ms: (96.24+81+79.5+80.3)/4
	assert_line --index 3 --regexp '^op=unlink +100.2 ms +1.0% +84.3 ms +9.5% '
	[[ $stderr == *"bench: warning: 6 of 24 samples of 6.18.0-patch were timed while the kernel was profiled: taken (--profiled); their times hold the cost of sampling"* ]]
}

@test "a label whose every sample was profiled: a line instead of a table of one side" {
	fxp_known "$DB"
	fxp_profiled "$DB" 6.18.0-patch
	run --separate-stderr "$BENCH" compare --db "$DB" 6.18.0-base 6.18.0-patch
	assert_success
	assert_output 'No table: every timed sample of 6.18.0-patch was taken while the kernel was profiled,
and such samples hold the cost of sampling (--profiled compares them).'
	[[ $stderr == *"bench: warning: every timed sample of 6.18.0-patch (24) was taken while the kernel was profiled: none is in the table (their times hold the cost of sampling); --profiled takes them, --profile compares the profiles"* ]]
	# the profile still compares; the patch has no time to cost
	run --separate-stderr "$BENCH" compare --db "$DB" --profile \
		--profile-top 1 6.18.0-base 6.18.0-patch
	assert_success
	run block 'shmem-remove op=unlink'
	assert_line --index 4 --regexp '^  delete_from_page_cache_batch +- +40.0% +\+40.0 pt +- +60.0% +\+60.0 pt +- +- +- +only patch$'
	assert_line --index 5 '  no cost on 6.18.0-patch: it has no time of the call (a rate is the case'"'"'s headline metric, or no sample is in its table)'
	run --separate-stderr "$BENCH" compare --db "$DB" --profiled \
		6.18.0-base 6.18.0-patch
	assert_success
	assert_line --index 3 --regexp '^op=unlink +100.2 ms +1.0% +80.2 ms '
}

@test "bad input: --profile with a format it has no table in, a count that is none, a profile that is not JSON" {
	fxp_known "$DB"
	run --separate-stderr "$BENCH" compare --db "$DB" --profile --format csv \
		6.18.0-base 6.18.0-patch
	assert_failure 64
	assert_equal "$stderr" "bench: --profile adds a table to text or json; use --format text or json"
	run --separate-stderr "$BENCH" compare --db "$DB" --profile \
		--profile-top 0 6.18.0-base 6.18.0-patch
	assert_failure 64
	assert_equal "$stderr" "bench: --profile-top: '0' is not a count from 1 to 1000000"
	run --separate-stderr "$BENCH" compare --db "$DB" --profile-min 5 \
		6.18.0-base 6.18.0-patch
	assert_failure 64
	assert_equal "$stderr" "bench: --profile-top and --profile-min are for --profile"
	sqlite3 "$DB" "UPDATE cases SET profile = '{\"event\":' WHERE id = 1"
	run --separate-stderr "$BENCH" compare --db "$DB" --profile \
		6.18.0-base 6.18.0-patch
	assert_failure 65
	assert_equal "${stderr##*$'\n'}" "bench: $DB: case 1 of run 1 (shmem-remove): its profile is not a JSON object: {\"event\":"
	sqlite3 "$DB" "UPDATE cases SET profile = '{\"event\":\"x\",\"unit\":\"ms\"}' WHERE id = 1"
	run --separate-stderr "$BENCH" compare --db "$DB" --profile \
		6.18.0-base 6.18.0-patch
	assert_failure 65
	assert_equal "${stderr##*$'\n'}" "bench: $DB: case 1 of run 1 (shmem-remove): profile unit 'ms' is none of ns, instructions, cycles"
	# without --profile the profiles are not read
	run --separate-stderr "$BENCH" compare --db "$DB" 6.18.0-base 6.18.0-patch
	assert_success
}

# What the page's flame graphs hold, read by Chromium: per graph its
# frames, and per frame of the unlink graph its name, fill and width.
FLAME_JS='(() => {
	const g = [...document.querySelectorAll("svg.flame")];
	const f = g[0].querySelectorAll("g");
	const frames = {};
	for (const x of f) {
		const r = x.querySelector("rect");
		frames[x.querySelector("title").textContent.split("\n")[0]] =
			[r.getAttribute("fill"), +r.getAttribute("width"),
			 r.getBoundingClientRect().width > 0];
	}
	const out = { graphs: g.length, frames: frames,
		titles: [...f].map(x => x.querySelector("title").textContent)
			.filter(t => t.startsWith("xas_find\n")),
		few: [...document.querySelectorAll(".flame-few")].map(p => p.textContent),
		gone: [...document.querySelectorAll(".flame-gone")].map(p => p.textContent),
		top: [...document.querySelectorAll("table.flame-top tr")]
			.slice(0, 3).map(r => [...r.cells].map(c => c.textContent)),
		scripts: document.scripts.length,
		height: g[0].getBoundingClientRect().height };
	const fig = g[0].closest("figure");
	document.body.replaceChildren(fig, document.querySelector(".flame-gone"));
	return JSON.stringify(out);
})()'

@test "report: a differential flame graph a profiled case, drawn by Chromium: widths of the patch, red dearer, blue cheaper" {
	fxp_known "$DB"
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/r.html" \
		6.18.0-base 6.18.0-patch
	assert_success
	mkdir -p "$ART"
	rm -f "$ART/profile-flame.png"
	$CDP "$T/r.html" --eval "$FLAME_JS" --screenshot "$ART/profile-flame.png" > "$T/cdp.json"
	run jq -c '[.console_errors, .requests, .screenshot]' "$T/cdp.json"
	assert_output '[[],[],true]'
	jq -r .value "$T/cdp.json" > "$T/v.json"
	# unlink and punch-hole (the base's alone); ftruncate has too few
	run jq -c '[.graphs, .scripts, .few, (.height > 100)]' "$T/v.json"
	assert_output '[2,0,["Kernel profile: too few samples (6.18.0-base 40, 6.18.0-patch 40): fewer than 100 a side are not drawn."],true]'
	# the change of each path: +60 points the most red, -40 blue, the
	# 20-point xas_find paths pale red, the unchanged ones grey
	run jq -c '.frames | to_entries | map([.key] + .value) | sort' "$T/v.json"
	assert_output '[["delete_from_page_cache_batch","#ff3232",600,true],["do_syscall_64","#ebebeb",1000,true],["do_unlinkat","#ebebeb",1000,true],["entry_SYSCALL_64","#ebebeb",1000,true],["evict","#ebebeb",1000,true],["filemap_remove_folio","#7070ff",100,true],["shmem_evict_inode","#ebebeb",1000,true],["shmem_truncate_range","#ebebeb",1000,true],["xas_find","#ffadad",200,true]]'
	# the table beside the graph: compare --profile's first rows
	run jq -c '.top' "$T/v.json"
	assert_output '[["function (with children)","6.18.0-base","6.18.0-patch","change","cost, 6.18.0-base","cost, 6.18.0-patch","change"],["delete_from_page_cache_batch","-","60.0%","+60.0 pt","-","48.15 ms","+48.15 ms"],["filemap_remove_folio","50.0%","10.0%","-40.0 pt","50.12 ms","8.03 ms","-42.10 ms"]]'
	run jq -r '.titles[0], .gone[0]' "$T/v.json"
	assert_output 'xas_find
with children, of the call: 6.18.0-patch 20.0% (16.05 ms); +20.0 points; only on 6.18.0-patch
Only on 6.18.0-base (not drawn: the widths are 6.18.0-patch'"'"'s): __clear_shadow_entry 22.5% of the call, with children.'
	run file -b "$ART/profile-flame.png"
	assert_output --regexp '^PNG image data, 1200 x [0-9]+'
	# not a blank page: the red frame's colour is in the picture
	run /usr/bin/python3 -c 'import sys, zlib, struct
d = open(sys.argv[1], "rb").read()
i, idat, w, h = 8, b"", 0, 0
while i < len(d):
	n, t = struct.unpack(">I4s", d[i:i + 8])
	if t == b"IHDR":
		w, h, bits, ctype = struct.unpack(">IIBB", d[i + 8:i + 18])
	if t == b"IDAT":
		idat += d[i + 8:i + 8 + n]
	i += 12 + n
print("red" if bytes([255, 50, 50]) in zlib.decompress(idat) else "none")' "$ART/profile-flame.png"
	assert_output red
}

@test "report: --profiled plots the profiled samples and draws their cases' flame graphs; without it, says they are left out" {
	fxp_known "$DB"
	fxp_profiled "$DB" 6.18.0-base
	fxp_profiled "$DB" 6.18.0-patch
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/r.html" \
		6.18.0-base 6.18.0-patch
	assert_success
	assert_equal "$(head -n 2 <<< "$stderr")" "bench: warning: 36 of 36 samples of 6.18.0-base were timed while the kernel was profiled: left out (their times hold the cost of sampling), and with them every case of it and its flame graphs; --profiled takes them
bench: warning: 24 of 24 samples of 6.18.0-patch were timed while the kernel was profiled: left out (their times hold the cost of sampling), and with them every case of it and its flame graphs; --profiled takes them"
	run grep -c '<svg [^>]*class="flame"' "$T/r.html"
	assert_output 0
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/r.html" \
		--profiled 6.18.0-base 6.18.0-patch
	assert_success
	run grep -c '<svg [^>]*class="flame"' "$T/r.html"
	assert_output 2
}

@test "report: a profile of a thousand paths draws its 600 widest frames at most, and says how narrow a frame it left out" {
	fx_known "$DB"
	local b n stacks=()
	# 500 paths root;mN;fN of 1000 + N samples: 1001 frames, all wider
	# than the least drawn (0.1% of the call)
	for n in $(seq 1 500); do
		stacks+=("root;m$n;f$n $((1000 + n))")
	done
	for b in 0 1 2 3; do
		fxp_profile "$DB" 6.18.0-base "base-boot-$b" unlink
		fxp_stacks "$DB" 6.18.0-base "base-boot-$b" unlink "${stacks[@]}"
	done
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/big.html" 6.18.0-base
	assert_success
	sed -n '/class="flame" viewBox/,/<\/svg>/p' "$T/big.html" > "$T/flame.svg"
	run grep -c '<rect ' "$T/flame.svg"
	# the 600th and 601st widest tie (mN and fN): both go
	assert_output 599
	run grep -c -x '<g><title>\(m500\|f500\|m202\|f202\)' "$T/flame.svg"
	assert_output 4
	run grep -c -x '<g><title>\(m201\|f201\|m1\)' "$T/flame.svg"
	assert_output 0
	# m202, 1202 of 625250 samples: 1.92 of the 1000 units
	grep -q 'Frames narrower than 0.2% of the call are left out.' "$T/big.html"
}

@test "report: a change within twice its sampling error is grey, past it coloured" {
	local b pa
	# 400 samples a side: a share of 50% has an error of 3.5 points
	# on the change; 52% against 50% is within 7, 70% is not
	for pa in 52 70; do
		fx_known "$T/s$pa.db"
		for b in 0 1 2 3; do
			fxp_profile "$T/s$pa.db" 6.18.0-base "base-boot-$b" unlink
			fxp_stacks "$T/s$pa.db" 6.18.0-base "base-boot-$b" unlink \
				"r;a 50" "r;b 50"
			fxp_profile "$T/s$pa.db" 6.18.0-patch "patch-boot-$b" unlink
			fxp_stacks "$T/s$pa.db" 6.18.0-patch "patch-boot-$b" unlink \
				"r;a $pa" "r;b $((100 - pa))"
		done
		run --separate-stderr "$BENCH" report --db "$T/s$pa.db" \
			-o "$T/s$pa.html" 6.18.0-base 6.18.0-patch
		assert_success
	done
	run grep -o '<rect [^>]*fill="#[0-9a-f]*"/><text[^>]*>[ab]<' "$T/s52.html"
	assert_output --regexp '^<rect [^>]*fill="#ebebeb"/><text[^>]*>a<
<rect [^>]*fill="#ebebeb"/><text[^>]*>b<$'
	run grep -o '<rect [^>]*fill="#[0-9a-f]*"/><text[^>]*>[ab]<' "$T/s70.html"
	assert_output --regexp '^<rect [^>]*fill="#ff3232"/><text[^>]*>a<
<rect [^>]*fill="#3232ff"/><text[^>]*>b<$'
}

@test "report: a kernel alone draws its profile without colours of change; without profiles the page has no flame graph" {
	fxp_known "$DB"
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/one.html" 6.18.0-base
	assert_success
	run grep -c '<svg [^>]*class="flame"' "$T/one.html"
	assert_output 2
	# one colour: no change to show
	run sh -c "sed -n '/class=\"flame\" viewBox/,/<\/svg>/p' '$T/one.html' |
		grep -o '<rect [^>]*fill=\"#[0-9a-f]*\"' | grep -o 'fill=.*' | sort -u"
	assert_output 'fill="#e8e0d0"'
	fx_known "$T/none.db"
	run --separate-stderr "$BENCH" report --db "$T/none.db" -o "$T/none.html" \
		6.18.0-base 6.18.0-patch
	assert_success
	run grep -c 'class="flame' "$T/none.html"
	assert_output 0
}

@test "a function the compiler split (.part.0, .isra.0, .constprop.0, .cold) is the function on either kernel" {
	fx_known "$DB"
	local b
	for b in 0 1 2 3; do
		fxp_profile "$DB" 6.18.0-base "base-boot-$b" unlink
		fxp_stacks "$DB" 6.18.0-base "base-boot-$b" unlink \
			"$FXP_TRUNC;truncate_folio_batch_exceptionals.part.0 60" \
			"$FXP_TRUNC;truncate_folio_batch_exceptionals;truncate_folio_batch_exceptionals.part.0;xas_store.isra.0 40"
		fxp_profile "$DB" 6.18.0-patch "patch-boot-$b" unlink
		fxp_stacks "$DB" 6.18.0-patch "patch-boot-$b" unlink \
			"$FXP_TRUNC;truncate_folio_batch_exceptionals 50" \
			"$FXP_TRUNC;truncate_folio_batch_exceptionals;xas_store.constprop.0.isra.0 30" \
			"$FXP_TRUNC;folio_batch_remove_exceptionals.cold 20"
	done
	run --separate-stderr "$BENCH" compare --db "$DB" --profile --format json \
		6.18.0-base 6.18.0-patch
	assert_success
	run jq -r '.profile.cases[0].functions[] | select(.function |
		test("exceptionals|xas_store")) | [.function,
		.with_children.base, .with_children.patch, .only // "-"] | @tsv' <<< "$output"
	assert_output "$(printf 'truncate_folio_batch_exceptionals\t1\t0.8\t-
folio_batch_remove_exceptionals\t0\t0.2\tpatch
xas_store\t0.4\t0.3\t-')"
}

@test "end to end: two real runs, profiled by rows written into them, compare and report" {
	fb_config '[{"workload":"shmem-remove","op":"unlink","size":"16M","folio":"4k"}]'
	local l
	for l in A B; do
		run "$BENCH" run --config "$T/config.json" --label $l --quiet
		assert_success
	done
	sqlite3 "$DB" "UPDATE cases SET profile = '$FXP_JSON';
		INSERT INTO profile_stacks SELECT c.id, '$FXP_TRUNC;' ||
		  CASE r.label WHEN 'A' THEN 'filemap_remove_folio'
		  ELSE 'delete_from_page_cache_batch' END, 300
		FROM cases c JOIN runs r ON r.id = c.run_id;
		INSERT INTO profile_stacks SELECT c.id, '$FXP_TRUNC', 100
		FROM cases c"
	run --separate-stderr "$BENCH" compare --db "$DB" --profile A B
	assert_success
	run block 'shmem-remove op=unlink'
	assert_line --index 1 '  A: 400 samples of cpu-clock every 100.0 µs in 1 boot'
	assert_line --index 4 --regexp '^  (delete_from_page_cache_batch|filemap_remove_folio) +(-|75.0%) +(-|75.0%) +[-+]75.0 pt .* only (base|patch)$'
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/r.html" A B
	assert_success
	run grep -c '<svg [^>]*class="flame"' "$T/r.html"
	assert_output 1
}
