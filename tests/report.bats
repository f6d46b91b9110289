#!/usr/bin/env bats
# bench report (the HTML page, opened by headless Chromium through the
# DevTools protocol) and the ministat and benchstat exports.  What real
# runs store (every workload's metrics, plots and formats) is read from
# tiny real runs on this machine (real_db); usage and gnuplot's failures
# from a fixture.

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

CDP="/usr/bin/python3 $BATS_TEST_DIRNAME/cdp.py"
BENCHFMT="$BATS_TEST_DIRNAME/benchfmt.awk"
: "${FB_BUILD:=$BATS_TEST_DIRNAME/../build}"
ART=$FB_BUILD/artifacts
RDB=$BATS_FILE_TMPDIR/real.db
BOOTS=3
RUNS=3

# The database of tiny real runs of every workload, two labels of three
# simulated boots each (the boot id rewritten after each run), for the
# tests that read what real runs store: made by the first of them (about a
# minute) and kept for the rest of this file.  Usage errors and gnuplot's
# failures read fx_labels's fixture instead.
real_db() {
	(
	local label b
	flock 9
	[ ! -e "$RDB.done" ] || exit 0
	rm -f "$RDB" "$RDB-wal" "$RDB-shm"
	fb_config -o "$BATS_FILE_TMPDIR/config.json" -d "$RDB" '[
    { "workload": "shmem-remove", "op": "unlink", "size": "16M", "folio": "4k" },
    { "workload": "seq-read", "size": "8M", "duration": "100ms" },
    { "workload": "small-truncate", "count": 200, "pages": 64 },
    { "workload": "shadow-truncate", "size": "64M" }
  ]' 1 $RUNS
	cd "$BATS_FILE_TMPDIR" || exit 1
	for label in base patch; do
		for b in $(seq $BOOTS); do
			"$FB_BIN" run --config config.json --label "$label" \
				--quiet > /dev/null || exit 1
			sqlite3 "$RDB" "UPDATE runs SET boot_id = 'sim-$label-$b'
				WHERE id = (SELECT max(id) FROM runs)" || exit 1
		done
	done
	# one invalid sample, as verification would store it
	sqlite3 "$RDB" "UPDATE samples SET valid = 0,
		invalid_reason = 'ran on CPU 0, not the pinned CPU 1'
		WHERE id = (SELECT s.id FROM samples s JOIN cases c
		ON c.id = s.case_id JOIN runs r ON r.id = c.run_id
		WHERE r.label = 'patch' AND c.workload = 'shmem-remove'
		AND s.warmup = 0 ORDER BY s.id LIMIT 1)" || exit 1
	touch "$RDB.done"
	) 9> "$BATS_FILE_TMPDIR/real.lock"
}

# $DB of two labels, base and patch, of three boots each: a run of unlink
# a boot (fixtures/fixture.bash), for what needs only a database to read.
fx_labels() {
	local label b
	fx_begin "$DB"
	for label in base patch; do
		for b in $(seq $BOOTS); do
			fx_run "$label" "$label-$b"
			fx_remove_case unlink
			fx_wall 100 101 99
		done
	done
	fx_end
}

# Valid, measured samples of a workload's cases in the complete runs of
# the labels given.
nvalid() {
	local workload=$1
	shift
	sqlite3 "$RDB" "SELECT count(*) FROM samples s
		JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id
		WHERE r.status = 'complete' AND s.warmup = 0 AND s.valid = 1
		AND c.workload = '$workload'
		AND r.label IN ($(printf "'%s'," "$@" | sed 's/,$//'))"
}

# Invalid measured samples of a workload's cases on one label.
ninvalid() {
	sqlite3 "$RDB" "SELECT count(*) FROM samples s
		JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id
		WHERE r.status = 'complete' AND s.warmup = 0 AND s.valid = 0
		AND c.workload = '$1' AND r.label = '$2'"
}

# Boots of a label in which a workload gave a valid sample: what a boot
# median stands on (verification may leave a boot with none).
nboots() {
	sqlite3 "$RDB" "SELECT count(DISTINCT r.boot_id) FROM samples s
		JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id
		WHERE r.status = 'complete' AND s.warmup = 0 AND s.valid = 1
		AND c.workload = '$1' AND r.label = '$2'"
}

# What the tests ask of the page once it has loaded, as one JSON object.
PAGE_JS='JSON.stringify({
  plots: document.querySelectorAll("figure.plot svg").length,
  strips: document.querySelectorAll("figure.strip svg").length,
  pct: document.querySelectorAll("figure.percentiles svg").length,
  cov: document.querySelectorAll("figure.coverage svg").length,
  cmp: document.querySelectorAll("table.cmp").length,
  alone: document.querySelectorAll("table.alone").length,
  points: Array.from(document.querySelectorAll("figure.strip")).map(f =>
    f.querySelector("g[id$=\"_gnuplot_plot_1\"]")
     .querySelectorAll("use[transform]").length),
  cases: Array.from(document.querySelectorAll("section.case h2")).map(h =>
    h.textContent),
  h1: document.querySelector("h1").textContent,
  scripts: document.scripts.length,
  fetched: document.querySelectorAll("[src], link[href], object, embed, " +
    "iframe").length,
  svgtext: Array.from(document.querySelectorAll("svg text")).map(t =>
    t.textContent)
})'

# jq-less access to the page's answer: js FIELD-EXPRESSION
page_get() {
	/usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
v = json.loads(r["value"]) if r["value"] else None
print(json.dumps(eval(sys.argv[2], {"r": r, "v": v})))' "$T/cdp.json" "$1"
}

@test "report: Chromium shows the A/B page without a console error or a network request; plots and points match the database" {
	real_db
	run --separate-stderr "$BENCH" report --db "$RDB" -o "$T/report.html" base patch
	assert_success
	assert [ -s "$T/report.html" ]
	mkdir -p "$ART"
	rm -f "$ART/report.png"
	# nothing of the browser's left in /tmp (its singleton socket's dir)
	left=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'org.chromium.Chromium.*' | wc -l)
	$CDP "$T/report.html" --eval "$PAGE_JS" --screenshot "$ART/report.png" > "$T/cdp.json"
	[ "$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'org.chromium.Chromium.*' | wc -l)" = "$left" ]
	run page_get 'r["console_errors"]'
	assert_output '[]'
	run page_get 'r["requests"]'
	assert_output '[]'
	# a strip plot a case, percentiles for the two latency workloads,
	# coverage for the shadow entries: 4 + 2 + 1
	run page_get '[v["plots"], v["strips"], v["pct"], v["cov"], v["cmp"]]'
	assert_output '[7, 4, 2, 1, 4]'
	run page_get 'v["points"]'
	assert_output "[$(nvalid shmem-remove base patch), $(nvalid seq-read base patch), $(nvalid small-truncate base patch), $(nvalid shadow-truncate base patch)]"
	run page_get '[v["scripts"], v["fetched"]]'
	assert_output '[0, 0]'
	# the invalid samples of the case, with the one of setup_file's reason
	run grep -c "Invalid samples.*patch <span class=\"ninvalid\">$(ninvalid shmem-remove patch)</span> (.*1 ran on CPU 0, not the pinned CPU 1" "$T/report.html"
	assert_output 1
	run file -b "$ART/report.png"
	assert_output --partial 'PNG image data, 1200 x'
}

@test "report: the browser check sees a console error and a network request when a page has them" {
	cat > "$T/bad.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad</title>
<link rel="stylesheet" href="http://127.0.0.1:9/font.css"></head>
<body><p>x</p><script>console.error("boom")</script></body></html>
HTML
	$CDP "$T/bad.html" > "$T/cdp.json"
	run page_get 'r["requests"]'
	assert_output '["http://127.0.0.1:9/font.css"]'
	run page_get '[e for e in r["console_errors"] if "boom" in e]'
	assert_output '["console.error: boom"]'
}

@test "report: labels holding markup and quotes show as text, on the page and in the plots" {
	local evil='<script>alert(1)</script>' quoted="it's \"x\" & <b>"
	fx_begin "$DB"
	for b in 1 2; do
		fx_run "$evil" "e$b"
		fx_remove_case unlink
		fx_wall 100 101 99
		fx_run "$quoted" "q$b"
		fx_remove_case unlink
		fx_wall 90 91 89
	done
	fx_end
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/r.html" "$evil" "$quoted"
	assert_success
	run grep -c '<script' "$T/r.html"
	assert_output 0
	$CDP "$T/r.html" --eval "$PAGE_JS" > "$T/cdp.json"
	run page_get 'r["console_errors"] + r["requests"]'
	assert_output '[]'
	run page_get 'v["h1"]'
	assert_output '"it'"'"'s \"x\" & <b> against <script>alert(1)</script>"'
	run page_get '[t for t in v["svgtext"] if "<" in t]'
	assert_output '["<script>alert(1)</script>", "it'"'"'s \"x\" & <b>"]'
	run page_get 'v["scripts"]'
	assert_output 0
}

@test "report: one kernel gives the same page without the comparison" {
	real_db
	run --separate-stderr "$BENCH" report --db "$RDB" -o "$T/one.html" base
	assert_success
	$CDP "$T/one.html" --eval "$PAGE_JS" > "$T/cdp.json"
	run page_get 'r["console_errors"] + r["requests"]'
	assert_output '[]'
	run page_get '[v["plots"], v["cmp"], v["alone"], v["points"][0]]'
	assert_output "[7, 0, 4, $(nvalid shmem-remove base)]"
	run page_get 'v["h1"]'
	assert_output '"base"'
}

@test "report: usage errors, an unknown label, and an unwritable page" {
	fx_labels
	run --separate-stderr "$BENCH" report --db "$DB" base patch
	assert_failure 64
	assert_equal "$stderr" "bench: name the page to write: -o report.html"
	run --separate-stderr "$BENCH" report --db "$DB" -o x.html base base
	assert_failure 64
	run --separate-stderr "$BENCH" report --db "$DB" -o x.html base patch third
	assert_failure 64
	run --separate-stderr "$BENCH" report --db "$DB" -o x.html bse
	assert_failure 67
	assert_equal "$stderr" "bench: no run has the label 'bse' in $DB; did you mean 'base'?"
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/no/such/dir/x.html" base
	assert_failure 73
	assert [ ! -e x.html ]
}

@test "report: without gnuplot it exits 69 and writes no page" {
	fx_labels
	FOLIOBENCH_GNUPLOT=$T/no-gnuplot run --separate-stderr "$BENCH" report --db "$DB" -o "$T/x.html" base
	assert_failure 69
	assert_equal "$stderr" "bench: cannot draw the plots: cannot run $T/no-gnuplot (install gnuplot-nox)"
	run ls "$T"
	refute_output --partial x.html
}

@test "report: a gnuplot that hangs is killed at the time limit" {
	fx_labels
	printf '#!/bin/sh\necho $$ > %s/pid\nexec sleep 60\n' "$T" > "$T/gp"
	chmod +x "$T/gp"
	FOLIOBENCH_GNUPLOT=$T/gp FOLIOBENCH_GNUPLOT_TIMEOUT_MS=500 \
		run --separate-stderr "$BENCH" report --db "$DB" -o "$T/x.html" base
	assert_failure 69
	assert_equal "$stderr" "bench: cannot draw the plots: gnuplot did not finish within 500 ms"
	run kill -0 "$(cat "$T/pid")"
	assert_failure
	run ls "$T"
	refute_output --partial x.html
}

@test "report: a gnuplot error is passed on with its message" {
	fx_labels
	printf '#!/bin/sh\ncat > /dev/null\necho "line 3: undefined variable: x" >&2\nexit 1\n' > "$T/gp"
	chmod +x "$T/gp"
	FOLIOBENCH_GNUPLOT=$T/gp run --separate-stderr "$BENCH" report --db "$DB" -o "$T/x.html" base
	assert_failure 69
	assert_equal "$stderr" "bench: cannot draw the plots: gnuplot failed: line 3: undefined variable: x"
}

@test "compare --format ministat: one directory a case, ministat reads both files and its N is the boots" {
	real_db
	run --separate-stderr "$BENCH" compare --db "$RDB" --format ministat -o "$T/ms" base patch
	assert_success
	run ls "$T/ms"
	assert_output - <<'EOF'
seq-read
shadow-truncate
shmem-remove
small-truncate
EOF
	local d
	for d in "$T"/ms/*; do
		cd "$d"
		run ministat base patch
		assert_success
		# "x   3  min max median avg stddev": one value a boot
		assert_line --regexp "^x +$(nboots "${d##*/}" base) "
		assert_line --regexp "^\+ +$(nboots "${d##*/}" patch) "
	done
	assert_equal "$(nboots seq-read base)" $BOOTS
	# the boot medians, in boot order (three runs a boot: the middle one)
	cd "$T/ms/shmem-remove"
	run cat base
	assert_output "$(sqlite3 "$RDB" "SELECT (SELECT printf('%.10g', v.value)
		FROM sample_values v JOIN samples s ON s.id = v.sample_id
		JOIN cases c ON c.id = s.case_id WHERE c.run_id = r.id
		AND c.workload = 'shmem-remove' AND v.metric = 'wall'
		AND s.warmup = 0 AND s.valid = 1 ORDER BY v.value
		LIMIT 1 OFFSET 1) FROM runs r WHERE r.label = 'base'
		ORDER BY r.started_at, r.id")"
}

@test "compare --format ministat --samples: every valid sample, N counts them" {
	real_db
	run --separate-stderr "$BENCH" compare --db "$RDB" --format ministat --samples -o "$T/ms" base patch
	assert_success
	cd "$T/ms/shmem-remove"
	run ministat base patch
	assert_success
	assert_line --regexp "^x +$(nvalid shmem-remove base) "
	assert_line --regexp "^\+ +$(nvalid shmem-remove patch) "
	# the values are the stored ones, in the order taken
	run cat patch
	assert_output "$(sqlite3 "$RDB" "SELECT printf('%.10g', v.value)
		FROM sample_values v JOIN samples s ON s.id = v.sample_id
		JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id
		WHERE r.label = 'patch' AND c.workload = 'shmem-remove'
		AND v.metric = 'wall' AND s.warmup = 0 AND s.valid = 1
		ORDER BY r.started_at, r.id, s.rep")"
}

@test "compare --format ministat and benchstat: usage" {
	fx_labels
	run --separate-stderr "$BENCH" compare --db "$DB" --format ministat base patch
	assert_failure 64
	assert_equal "$stderr" "bench: --format ministat writes files: name their directory with -o DIR"
	run --separate-stderr "$BENCH" compare --db "$DB" --samples base patch
	assert_failure 64
	assert_equal "$stderr" "bench: --samples is for --format ministat"
	run --separate-stderr "$BENCH" compare --db "$DB" -o "$T/d" base patch
	assert_failure 64
	run --separate-stderr "$BENCH" compare --db "$DB" --format ministat -o "$T/no/such" base patch
	assert_failure 73
}

@test "export --format benchstat: every line parses as Go's benchmark format, one a valid sample" {
	real_db
	run --separate-stderr "$BENCH" export --db "$RDB" --format benchstat base
	assert_success
	printf '%s\n' "$output" > "$T/base.txt"
	run awk -f "$BENCHFMT" "$T/base.txt"
	assert_success
	assert_output "$(sqlite3 "$RDB" "SELECT count(*) FROM samples s
		JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id
		WHERE r.label = 'base' AND s.warmup = 0 AND s.valid = 1")"
	run grep -c '^BenchmarkShmemRemove/op=unlink/size=16M/folio=4k/dir=%2Fdev%2Fshm/populate=fallocate\(/[^ /]*\)* 1 [0-9.e+-]* sec/op [0-9.e+-]* sys-sec/op [0-9.e+-]* ns_per_folio-sec/folio ' "$T/base.txt"
	assert_output "$(nvalid shmem-remove base)"
	run grep -c '^# boot [1-3] of 3: sim-base-[1-3], run ' "$T/base.txt"
	assert_output 3
}

@test "export --format benchstat: times in seconds, a 0 in the same unit as the rest" {
	fx_known "$DB"
	# the base's first unlink sample: 100.0 ms, its ns_per_folio made 0
	q "UPDATE sample_values SET value = 0
		WHERE metric = 'ns_per_folio' AND value = 6103.515625"
	run --separate-stderr "$BENCH" export --db "$DB" --format benchstat 6.18.0-base
	assert_success
	printf '%s\n' "$output" > "$T/base.txt"
	run awk -f "$BENCHFMT" "$T/base.txt"
	assert_success
	assert_output 36
	local name=BenchmarkShmemRemove/op=unlink/size=64M/folio=4k/dir=%2Fdev%2Fshm/populate=fallocate
	run grep -c "^$name 1 " "$T/base.txt"
	assert_output 12
	run grep -x "$name 1 0.1 sec/op 0 ns_per_folio-sec/folio 16384 folios/op" "$T/base.txt"
	assert_success
	run grep -x "$name 1 0.1012 sec/op 6.176757812e-06 ns_per_folio-sec/folio 16384 folios/op" "$T/base.txt"
	assert_success
	run grep -c 'ns/' "$T/base.txt"
	assert_output 0
}

@test "compare --format benchstat: both sides with the same names and configuration lines" {
	real_db
	run --separate-stderr "$BENCH" compare --db "$RDB" --format benchstat -o "$T/bs" base patch
	assert_success
	run ls "$T/bs"
	assert_output $'base.txt\npatch.txt'
	run awk -f "$BENCHFMT" "$T/bs/base.txt" "$T/bs/patch.txt"
	assert_success
	# benchstat puts results in one table only when the configuration
	# lines agree, and pairs rows by name
	assert_equal "$(grep -v '^#' "$T/bs/base.txt" | grep -v '^Benchmark')" \
		"$(grep -v '^#' "$T/bs/patch.txt" | grep -v '^Benchmark')"
	assert_equal "$(awk '/^Benchmark/ { print $1 }' "$T/bs/base.txt" | sort -u)" \
		"$(awk '/^Benchmark/ { print $1 }' "$T/bs/patch.txt" | sort -u)"
}

@test "the benchmark-format checker finds faults" {
	cat > "$T/bad.txt" <<'EOF'
goos: linux
Key: upper case
BenchmarkX 1 2 sec/op
Benchmark x 1 2 sec/op
BenchmarkY 0 2 sec/op
BenchmarkZ 1 two sec/op
BenchmarkW/a 1 2 sec/op
BenchmarkX 1 2 ms/op
BenchmarkV 1 2
BenchmarkU 1 0 sys-ns/op
BenchmarkT 1 2 B*MB/s
BenchmarkS 1 2 op/ns 3 ns_per_folio-sec/folio
EOF
	run awk -f "$BENCHFMT" "$T/bad.txt"
	assert_failure
	assert_output - <<EOF
$T/bad.txt:2: neither configuration nor result: Key: upper case
$T/bad.txt:4: odd or too few fields: Benchmark x 1 2 sec/op
$T/bad.txt:5: iterations are not a positive integer: BenchmarkY 0 2 sec/op
$T/bad.txt:6: value two is not a float: BenchmarkZ 1 two sec/op
$T/bad.txt:7: name is not Benchmark[/key=value...]: BenchmarkW/a 1 2 sec/op
$T/bad.txt:8: units differ from an earlier line of BenchmarkX: BenchmarkX 1 2 ms/op
$T/bad.txt:9: odd or too few fields: BenchmarkV 1 2
$T/bad.txt:10: unit sys-ns/op is tidied where not 0: BenchmarkU 1 0 sys-ns/op
$T/bad.txt:11: unit B*MB/s is tidied where not 0: BenchmarkT 1 2 B*MB/s
EOF
}

@test "report: samples flagged noisy are counted in the header, per side" {
	fx_known "$DB"
	# two measured samples of the base's first unlink case
	q "UPDATE samples SET noisy = 1 WHERE id IN (2, 3)"
	run --separate-stderr "$BENCH" report --db "$DB" -o "$T/n.html" 6.18.0-base 6.18.0-patch
	assert_success
	run grep -o 'Samples flagged noisy[^<]*<code>[^<]*</code>[^<]*' "$T/n.html"
	assert_output "Samples flagged noisy (steal over steal_max, or PUs oversubscribed), plotted and counted like the others (<code>bench compare --drop-noisy</code> leaves them out): 6.18.0-base 2 of $(q "SELECT count(*) FROM samples s JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id WHERE r.label = '6.18.0-base' AND r.status = 'complete' AND s.warmup = 0 AND s.valid = 1"); 6.18.0-patch 0 of 24."
	fx_known "$T/quiet.db"
	run --separate-stderr "$BENCH" report --db "$T/quiet.db" -o "$T/q.html" 6.18.0-base
	assert_success
	run grep -c 'Samples flagged noisy' "$T/q.html"
	assert_output 0
}
