#!/usr/bin/env bats
# run_series (schema 10): each run's values kept per series, which compare,
# report and the notes read in the place of a label's samples.  Every
# output must be the one the samples give, byte for byte: the same
# fixture written at schema 9 (migrated by the tool, which makes the
# series) and at schema 10 without series (read from the samples).

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

# FX_SCHEMA_DIR for a database of schema 9: the migrations before 010.
schema9() {
	local f
	mkdir -p "$T/schema9"
	for f in "$BATS_TEST_DIRNAME"/../schema/00[1-9]_*.sql; do
		cp "$f" "$T/schema9/"
	done
	echo "$T/schema9"
}

# Labels A (four boots, two complete runs in boot a-1, a noisy sample, a
# bounded shadow-truncate case, an adapted case, a counter the machine
# cannot read, warm-ups, an invalid sample, an aborted run), B (three
# boots, faster) and C (one boot).
fx_series() {
	fx_begin "$1"
	local b k lbl
	for k in A B; do
		for b in 0 1 2 3; do
			[ $k = B ] && [ $b = 3 ] && continue
			lbl=$k
			fx_run "$lbl" "$k-$b"
			fx_case shmem-remove "{\"op\":\"unlink\",$FX_PARAMS_BASE}" \
				wall:ns:lower ns_per_folio:ns/folio:lower \
				folios:count:lower cycles:count:lower
			if [ $k = A ]; then
				fx_samples w130000000/8000/16384/- \
					$((100000000 + b * 700000))/6103/16384/- \
					$((101000000 - b * 300000))/6164/16384/- \
					x900000000/1/16384/- \
					$((99500000 + b * 100000))/6073/16384/-
			else
				fx_samples $((80000000 + b * 500000))/4882/16384/- \
					$((80400000 - b * 200000))/4907/16384/- \
					$((79900000 + b * 50000))/4876/16384/-
			fi
			fx_case shadow-truncate '{"size":"1G"}' \
				wall:ns:lower ns_per_entry:ns/entry:lower
			fx_samples $((2000000 + b * 3000))/7.6 \
				$((2010000 - b * 1000))/7.7 \
				$((1990000 + b * 2000))/7.5
			fx_case seq-read '{"size":"1G","bs":"4k"}' \
				bw:MiB/s:higher lat_p50:ns:lower
			fx_samples $((4000 + b * 13))/250 $((4020 - b * 7))/240 \
				$((3990 + b * 5))/260
			echo "UPDATE cases SET asked = '{\"size\":\"2G\",\"bs\":\"4k\"}'
			      WHERE id = $FX_NCASE;" >> "$FX_SQL"
		done
	done
	# a second complete run in boot A-1, an aborted one in A-2
	fx_run A A-1
	fx_remove_case unlink
	fx_wall 100.9 101.7 100.2
	fx_run A A-2 aborted
	fx_remove_case unlink
	fx_wall 1.0 1.0 1.0
	fx_run C C-0
	fx_remove_case unlink
	fx_wall 90.1 90.8 89.7 90.3
	cat >> "$FX_SQL" <<'SQL'
UPDATE samples SET noisy = 1 WHERE id IN (3, 40);
UPDATE samples SET verify = '{"coverage_bounded":1,"evicted_pages_max":9}'
  WHERE case_id IN (SELECT id FROM cases WHERE workload = 'shadow-truncate'
  AND run_id IN (2, 6)) AND rep = 1;
SQL
	fx_end
}

# The outputs of every reading command on $DB into directory $1, each
# file ending with the command's exit status.
out() {
	local f=$1
	shift
	"$BENCH" "$@" > "$f" 2>&1 && echo "rc 0" >> "$f" ||
		echo "rc $?" >> "$f"
}

outputs() {
	local o=$1 f
	mkdir -p "$o"
	for f in text json csv markdown changelog; do
		out "$o/compare.$f" compare --db "$DB" --format $f A B
	done
	out "$o/ministat.out" compare --db "$DB" --format ministat \
		-o "$o/ministat" A B
	out "$o/samples.out" compare --db "$DB" --format ministat --samples \
		-o "$o/samples" A B
	out "$o/noisy" compare --db "$DB" --drop-noisy A B
	out "$o/aa" compare --db "$DB" --aa A
	out "$o/one-boot" compare --db "$DB" --format json A C
	out "$o/metrics" compare --db "$DB" --metric wall,bw,lat_p50 A B
	out "$o/export" export --db "$DB" --format benchstat A
	out "$o/plan" plan --db "$DB" A B
	out "$o/report" report --db "$DB" -o "$o/report.html" A B
}

# marks: the runs whose series are all there
marks() { q "SELECT count(*) FROM run_series WHERE ord = -1"; }

@test "every reading command gives from the runs' series what it gives from the samples" {
	FX_SCHEMA_DIR=$(schema9) fx_series "$DB"
	assert_equal "$(q 'PRAGMA user_version')" 9
	"$BENCH" runs --db "$DB" > /dev/null
	assert_equal "$(q 'PRAGMA user_version')" "$(fb_schema_latest)"
	# every run (the aborted one too) has its mark; the one-boot side
	# and the bounded case are in them
	assert_equal "$(marks)" "$(q 'SELECT count(*) FROM runs')"
	assert_equal "$(q "SELECT count(*) FROM run_series WHERE bounded = 1 AND ord >= 0")" 4
	assert_equal "$(q "SELECT group_concat(run_id) FROM run_series WHERE bounded > 0 AND ord = -1")" 2,6
	assert_equal "$(q "SELECT sum(noisy_samples) FROM run_series")" 2
	outputs "$T/series"
	rm -f "$DB" "$DB-wal" "$DB-shm"
	fx_series "$DB"
	assert_equal "$(marks)" 0
	outputs "$T/samples"
	assert_equal "$(marks)" 0
	run diff -r "$T/samples" "$T/series"
	assert_success
	assert_output ""
	# and they said something: a table, a refusal nowhere
	run cat "$T/series/compare.text"
	assert_line --partial "op=unlink"
	assert_line "rc 0"
	assert_line --partial "bounded"
	run cat "$T/series/noisy"
	assert_line --partial "A 2 of 39, B 0 of 27; left out (--drop-noisy)"
	run cat "$T/series/report"
	assert_line "rc 0"
}

@test "a change to a run's samples drops its series: compare reads the new value" {
	FX_SCHEMA_DIR=$(schema9) fx_series "$DB"
	"$BENCH" runs --db "$DB" > /dev/null
	old=$("$BENCH" compare --db "$DB" --format csv A B)
	before=$(marks)
	q "UPDATE sample_values SET value = value * 2 WHERE metric = 'wall'
	   AND sample_id IN (SELECT s.id FROM samples s JOIN cases c ON
	   c.id = s.case_id WHERE c.run_id IN (5, 6, 7))"
	assert_equal "$(marks)" $((before - 3))
	assert_equal "$(q 'SELECT count(*) FROM run_series WHERE run_id = 5')" 0
	run "$BENCH" compare --db "$DB" --format csv A B
	assert_success
	fresh=$output
	[ "$fresh" != "$old" ]
	# B's unlink, 80 ms, is 160 ms now: slower than A's 100 ms
	run grep -c '^shmem-remove,.*slower' <<< "$fresh"
	assert_output 1
	"$BENCH" merge "$T/copy.db" "$DB" > /dev/null
	# merge makes the series the output lacks, and the same table
	assert_equal "$(sqlite3 "$T/copy.db" 'SELECT count(*) FROM run_series WHERE ord = -1')" \
		"$(q 'SELECT count(*) FROM runs')"
	run "$BENCH" compare --db "$T/copy.db" --format csv A B
	assert_success
	assert_equal "$output" "$fresh"
	for t in samples cases; do
		q "UPDATE $t SET id = id WHERE id = 1"
	done
	assert_equal "$(q 'SELECT count(*) FROM run_series WHERE run_id = 1')" 0
}

@test "a value no report accepts: read from the samples, which name it (65)" {
	FX_SCHEMA_DIR=$(schema9) fx_series "$DB"
	sqlite3 "$DB" "UPDATE sample_values SET value = '101 ms' WHERE
	  sample_id = 2 AND metric = 'wall'"
	"$BENCH" runs --db "$DB" > /dev/null
	assert_equal "$(q 'SELECT bad FROM run_series WHERE run_id = 1 AND ord = -1')" 1
	# no pack for it (schema 14): its values are read from the samples
	assert_equal "$(q 'SELECT count(*) FROM run_packs WHERE run_id = 1')" 0
	assert_equal "$(q 'SELECT count(*) FROM run_packs WHERE run_id = 2')" 1
	run --separate-stderr "$BENCH" compare --db "$DB" A B
	assert_failure 65
	assert_equal "$stderr" "bench: $DB: sample_values row of sample 2 (run 1), metric wall, holds text, not a number: '101 ms'"
}

# $DB anew: a lab's run of its own, label other, its uuid unlike the
# fixture's, as written (no series yet).
other_db() {
	rm -f "$DB" "$DB-wal" "$DB-shm"
	fx_begin "$DB"
	fx_run other other-0
	fx_remove_case unlink
	fx_wall 70 71 72
	fx_end
	q "UPDATE runs SET uuid = 'o' || substr(uuid, 2)"
}

@test "merge into a database that holds runs copies their series with them" {
	FX_SCHEMA_DIR=$(schema9) fx_series "$T/in.db"
	"$BENCH" runs --db "$T/in.db" > /dev/null
	other_db
	run "$BENCH" merge "$DB" "$T/in.db"
	assert_success
	refute_output --partial "run_series"
	# copied, not made again: the input's packs and marks under the new
	# ids; a packed run's series only in its pack (readers take it first)
	assert_equal "$(q "SELECT count(*) FROM run_series WHERE run_id > 1")" \
		"$(sqlite3 "$T/in.db" 'SELECT count(*) FROM run_series WHERE ord = -1')"
	assert_equal "$(q "SELECT count(*) FROM run_series WHERE run_id > 1 AND ord >= 0")" 0
	assert_equal "$(q "SELECT hex(counts) || hex(vals) FROM run_packs WHERE run_id = 2")" \
		"$(sqlite3 "$T/in.db" "SELECT hex(counts) || hex(vals) FROM run_packs WHERE run_id = 1")"
	# the output's own run, written without them, has them now
	assert_equal "$(q 'SELECT count(*) FROM run_series WHERE run_id = 1 AND ord = -1')" 1
	run --separate-stderr "$BENCH" compare --db "$DB" --format csv A B
	assert_success
	expect=$("$BENCH" compare --db "$T/in.db" --format csv A B 2> /dev/null)
	assert_equal "$output" "$expect"
	# a copied run's mark changed by hand drops its pack (the triggers),
	# and the mark with it (schema 16: alone it would say that rows are
	# there which are not): the label is read from its samples at once,
	# the same; the next merge makes its series anew from its samples,
	# not an empty pack from the rows it does not have
	q "UPDATE run_series SET samples = samples WHERE run_id = 2 AND ord = -1"
	assert_equal "$(q 'SELECT count(*) FROM run_packs WHERE run_id = 2')" 0
	assert_equal "$(q 'SELECT count(*) FROM run_series WHERE run_id = 2')" 0
	run --separate-stderr "$BENCH" compare --db "$DB" --format csv A B
	assert_success
	assert_equal "$output" "$expect"
	sqlite3 "$T/in.db" "UPDATE runs SET uuid = 'n' || substr(uuid, 2) WHERE id = 1"
	run "$BENCH" merge "$DB" "$T/in.db"
	assert_success
	assert_output --partial "added 1 run"
	assert_equal "$(q "SELECT hex(counts) || hex(vals) FROM run_packs WHERE run_id = 2")" \
		"$(sqlite3 "$T/in.db" "SELECT hex(counts) || hex(vals) FROM run_packs WHERE run_id = 1")"
	assert_equal "$(q 'SELECT count(*) FROM run_series WHERE run_id = 2 AND ord >= 0')" \
		"$(sqlite3 "$T/in.db" 'SELECT count(*) FROM run_series WHERE run_id = 1 AND ord >= 0')"
	q "DELETE FROM runs WHERE uuid LIKE 'n%'"
	run --separate-stderr "$BENCH" compare --db "$DB" --format csv A B
	assert_success
	assert_equal "$output" "$expect"
}

@test "merge copies the series' rows of an input's run that has no pack, and makes its pack" {
	FX_SCHEMA_DIR=$(schema9) fx_series "$T/in.db"
	"$BENCH" runs --db "$T/in.db" > /dev/null
	expect=$("$BENCH" compare --db "$T/in.db" --format csv A B 2> /dev/null)
	sqlite3 "$T/in.db" "DELETE FROM run_packs WHERE run_id = 3"
	other_db
	run "$BENCH" merge "$DB" "$T/in.db"
	assert_success
	# run 3 of the input is run 4 here: every row of it, the others' marks
	[ "$(q 'SELECT count(*) FROM run_series WHERE run_id = 4 AND ord >= 0')" -gt 1 ]
	assert_equal "$(q 'SELECT count(*) FROM run_series WHERE run_id = 4')" \
		"$(sqlite3 "$T/in.db" 'SELECT count(*) FROM run_series WHERE run_id = 3')"
	assert_equal "$(q 'SELECT count(*) FROM run_series WHERE run_id NOT IN (1, 4) AND ord >= 0')" 0
	# its pack made from them, as the input's was
	assert_equal "$(q 'SELECT count(*) FROM runs WHERE NOT EXISTS (SELECT 1 FROM run_packs p WHERE p.run_id = runs.id)')" 0
	run --separate-stderr "$BENCH" compare --db "$DB" --format csv A B
	assert_success
	assert_equal "$output" "$expect"
	# and the report's page, the json, the plan: what the input gives
	"$BENCH" report --db "$DB" A B -o "$T/merged.html" > /dev/null 2>&1
	"$BENCH" report --db "$T/in.db" A B -o "$T/in.html" > /dev/null 2>&1
	cmp "$T/merged.html" "$T/in.html"
	for c in "compare --format json" plan; do
		assert_equal "$("$BENCH" $c --db "$DB" A B 2> /dev/null)" \
			"$("$BENCH" $c --db "$T/in.db" A B 2> /dev/null)"
	done
}

@test "bench run keeps its run's series when it ends: the same table as from its samples" {
	fb_config '[{"workload":"shmem-remove","op":["unlink","ftruncate"],"size":"16M","folio":"4k"}]' 1 3
	for l in A B; do
		run "$BENCH" run --config "$T/config.json" --label $l --quiet
		assert_success
	done
	# a mark a run, a row a series with its 3 measured values
	assert_equal "$(marks)" 2
	assert_equal "$(q "SELECT count(*) FROM run_series WHERE ord >= 0
	   AND metric = 'wall' AND n = 3 AND length(vals) = 24")" 4
	run --separate-stderr "$BENCH" compare --db "$DB" --format json A B
	assert_success
	series=$output
	# a run without its rows is read from its samples
	q "DELETE FROM run_series"
	run --separate-stderr "$BENCH" compare --db "$DB" --format json A B
	assert_success
	assert_equal "$output" "$series"
}

@test "a run whose series cannot be written still ends complete, and is read from its samples" {
	fb_config '[{"workload":"shmem-remove","op":"unlink","size":"16M","folio":"4k"}]' 0 3
	run "$BENCH" run --config "$T/config.json" --label A --quiet
	assert_success
	q "CREATE TRIGGER no_series BEFORE INSERT ON run_series
	   WHEN NEW.run_id = 2 BEGIN SELECT RAISE(ABORT, 'refused'); END"
	run "$BENCH" run --config "$T/config.json" --label B --quiet
	assert_success
	assert_equal "$(q "SELECT status FROM runs WHERE id = 2")" complete
	assert_equal "$(q 'SELECT count(*) FROM run_series WHERE run_id = 2')" 0
	run --separate-stderr "$BENCH" compare --db "$DB" --format csv A B
	assert_success
	assert_line --index 1 --partial 'shmem-remove,'
}

# A run's series as rows keyed by its uuid: what must not depend on the
# file the run is in, nor on its id there.  Its mark, its pack, and its
# series' rows where it has no pack: what a merge copies (a packed run's
# series are read from its pack).
series_of() {
	sqlite3 "$1" "SELECT r.uuid, x.ord, x.workload, x.params, x.metric,
	  x.unit, x.better, x.asked, x.n, x.unmeasurable,
	  x.unmeasurable_noisy, x.bad, hex(x.vals), hex(x.noisy), x.bounded,
	  x.samples, x.noisy_samples FROM run_series x JOIN runs r ON
	  r.id = x.run_id WHERE x.ord = -1 OR NOT EXISTS (SELECT 1 FROM
	  run_packs p WHERE p.run_id = r.id) ORDER BY r.uuid, x.ord;
	  SELECT r.uuid, p.layout, p.samples, p.noisy_samples, p.bounded,
	  hex(p.counts), hex(p.vals), hex(p.noisy) FROM run_packs p JOIN runs
	  r ON r.id = p.run_id ORDER BY r.uuid"
}

@test "merge into a lab's database: the series and tables a merge into an empty file gives" {
	FX_SCHEMA_DIR=$(schema9) fx_series "$T/in.db"
	"$BENCH" runs --db "$T/in.db" > /dev/null
	run "$BENCH" merge "$T/empty.db" "$T/in.db"
	assert_success
	# the lab's database: runs of its own, one of them without its series
	fx_begin "$DB"
	fx_run other other-0
	fx_remove_case unlink
	fx_wall 70 71 72
	fx_run A lab-0
	fx_remove_case unlink
	fx_wall 99.1 99.7 99.3
	fx_end
	q "UPDATE runs SET uuid = 'o' || substr(uuid, 2)"
	"$BENCH" runs --db "$DB" > /dev/null
	q "DELETE FROM run_series WHERE run_id = 1"
	run "$BENCH" merge "$DB" "$T/in.db"
	assert_success
	# a mark a run, the lab's too; the merged runs' rows are the input's
	# (made there from its samples by the migration)
	assert_equal "$(marks)" "$(q 'SELECT count(*) FROM runs')"
	assert_equal "$(q "SELECT count(*) FROM run_series x JOIN runs r ON
	  r.id = x.run_id WHERE r.uuid LIKE 'o%' AND x.ord = -1")" 2
	assert_equal "$(series_of "$DB" | grep -v '^o')" "$(series_of "$T/in.db")"
	assert_equal "$(series_of "$T/empty.db")" "$(series_of "$T/in.db")"
	# the merged runs read as in the file merged into empty: the lab's
	# run of A is one more boot of A
	run --separate-stderr "$BENCH" compare --db "$DB" --format csv B C
	assert_success
	assert_equal "$output" "$("$BENCH" compare --db "$T/empty.db" --format csv B C 2> /dev/null)"
	run --separate-stderr "$BENCH" compare --db "$DB" --format json A B
	assert_success
	assert_output --regexp '"boots":[[:space:]]+5,'
	q "DELETE FROM runs WHERE uuid LIKE 'o%'"
	for f in csv json; do
		run --separate-stderr "$BENCH" compare --db "$DB" --format $f A B
		assert_success
		assert_equal "$output" "$("$BENCH" compare --db "$T/empty.db" --format $f A B 2> /dev/null)"
	done
}

@test "schema 12: no index on sample_id alone; a sample's values still come in the order the workload gave" {
	FX_SCHEMA_DIR=$(schema9) fx_series "$DB"
	"$BENCH" runs --db "$DB" > /dev/null
	assert_equal "$(q "SELECT count(*) FROM sqlite_master WHERE name = 'sample_values_sample'")" 0
	# shmem-remove's metrics as the workload gave them, not by name
	assert_equal "$(q "SELECT group_concat(metric) FROM (SELECT metric FROM
	  run_series WHERE run_id = 1 AND workload = 'shmem-remove' ORDER BY ord)")" \
		wall,ns_per_folio,folios,cycles
	# and as the samples give them (a run without its series)
	q "DELETE FROM run_series WHERE run_id = 1"
	run --separate-stderr "$BENCH" export --db "$DB" --format benchstat A
	assert_success
	run grep -o -m 1 ' sec/op.*' <<< "$output"
	assert_output --regexp '^ sec/op [^ ]+ ns_per_folio-sec/folio [^ ]+ folios/op$'
}

# schema 14: the packs and layouts of a database, by run uuid
packs_of() {
	sqlite3 "$1" "SELECT r.uuid, l.series, hex(p.counts), hex(p.vals),
	  hex(p.noisy) FROM run_packs p JOIN runs r ON r.id = p.run_id
	  JOIN series_layouts l ON l.id = p.layout ORDER BY r.uuid"
}

# A database of schema 13 as the tool before 14 left it: run_series only.
to_schema13() {
	fb_to_schema14 "$1"
	sqlite3 "$1" "DROP TABLE run_packs; DROP TABLE series_layouts;
	  DROP TRIGGER run_packs_series_ins; DROP TRIGGER run_packs_series_upd;
	  DROP TRIGGER run_packs_series_del; DROP INDEX samples_invalid;
	  PRAGMA user_version = 13"
}

@test "schema 14: a run's series in one row, the layout shared; every reading command gives what run_series gives" {
	FX_SCHEMA_DIR=$(schema9) fx_series "$DB"
	"$BENCH" runs --db "$DB" > /dev/null
	# a pack a run with its mark; the runs of one config share a layout
	assert_equal "$(q 'SELECT count(*) FROM run_packs')" "$(marks)"
	assert_equal "$(q 'SELECT count(DISTINCT layout) FROM run_packs')" \
		"$(q "SELECT count(DISTINCT (SELECT group_concat(workload || params
		  || metric || unit || better || ifnull(asked, ''), '|') FROM
		  (SELECT * FROM run_series x WHERE x.run_id = m.run_id AND
		  x.ord >= 0 ORDER BY x.ord))) FROM run_series m WHERE m.ord = -1")"
	[ "$(q 'SELECT count(DISTINCT layout) FROM run_packs')" -lt "$(marks)" ]
	# and the index of the invalid samples that report lists
	assert_equal "$(q "SELECT count(*) FROM sqlite_master WHERE
	  name = 'samples_invalid'")" 1
	# the values and counts as run_series keeps them, in its order
	assert_equal "$(q "SELECT hex(vals) FROM run_packs WHERE run_id = 1")" \
		"$(q "SELECT group_concat(hex(vals), '') FROM (SELECT vals FROM
		  run_series WHERE run_id = 1 AND ord >= 0 ORDER BY ord)")"
	assert_equal "$(q "SELECT count(*) FROM run_packs WHERE noisy IS NOT NULL")" \
		"$(q "SELECT count(DISTINCT run_id) FROM run_series WHERE noisy IS NOT NULL")"
	outputs "$T/packs"
	# from run_series: a run without its pack
	q "DELETE FROM run_packs WHERE run_id = 1"
	outputs "$T/series"
	run diff -r "$T/series" "$T/packs"
	assert_success
	assert_output ""
	# a change to a run's series drops its pack; so does one to a sample
	q "UPDATE run_series SET n = n WHERE run_id = 2 AND ord = 0"
	assert_equal "$(q 'SELECT count(*) FROM run_packs WHERE run_id = 2')" 0
	q "UPDATE samples SET noisy = noisy WHERE case_id IN (SELECT id FROM
	   cases WHERE run_id = 3)"
	assert_equal "$(q 'SELECT count(*) FROM run_packs WHERE run_id = 3')" 0
	# the migration from 13 makes them from run_series
	to_schema13 "$DB"
	q "DELETE FROM run_series WHERE run_id = 4"
	"$BENCH" runs --db "$DB" > /dev/null
	assert_equal "$(q 'PRAGMA user_version')" "$(fb_schema_latest)"
	assert_equal "$(q 'SELECT count(*) FROM run_packs')" "$(marks)"
	assert_equal "$(q 'SELECT count(*) FROM run_packs WHERE run_id = 4')" 0
	outputs "$T/migrated"
	run diff -r "$T/series" "$T/migrated"
	assert_success
	assert_output ""
}

@test "schema 14: merge copies the packs and the layouts the output lacks, and makes those of an input of 13" {
	FX_SCHEMA_DIR=$(schema9) fx_series "$T/in.db"
	"$BENCH" runs --db "$T/in.db" > /dev/null
	cp "$T/in.db" "$T/in13.db"
	to_schema13 "$T/in13.db"
	run "$BENCH" merge "$T/empty.db" "$T/in.db"
	assert_success
	refute_output --partial "run_packs"
	refute_output --partial "series_layouts"
	assert_equal "$(packs_of "$T/empty.db")" "$(packs_of "$T/in.db")"
	for input in in in13; do
		other_db
		"$BENCH" runs --db "$DB" > /dev/null
		run "$BENCH" merge "$DB" "$T/$input.db"
		assert_success
		refute_output --partial "run_packs"
		assert_equal "$(q 'SELECT count(*) FROM run_packs')" \
			"$(q 'SELECT count(*) FROM runs')"
		assert_equal "$(packs_of "$DB" | grep -v '^o')" \
			"$(packs_of "$T/in.db")"
		run --separate-stderr "$BENCH" compare --db "$DB" --format json A B
		assert_success
		assert_equal "$output" "$("$BENCH" compare --db "$T/in.db" --format json A B 2> /dev/null)"
	done
	# a layout of the same id and another text: refused, nothing copied
	other_db
	"$BENCH" runs --db "$DB" > /dev/null
	id=$(sqlite3 "$T/in.db" "SELECT layout FROM run_packs LIMIT 1")
	q "INSERT INTO series_layouts (id, series) VALUES ($id, '[]')"
	runs=$(q 'SELECT count(*) FROM runs')
	run "$BENCH" merge "$DB" "$T/in.db"
	assert_failure
	assert_output --partial "series_layouts hold another layout of the same hash"
	assert_equal "$(q 'SELECT count(*) FROM runs')" "$runs"
}

@test "schema 14: a run's pack that does not fit its layout is named (65)" {
	FX_SCHEMA_DIR=$(schema9) fx_series "$DB"
	"$BENCH" runs --db "$DB" > /dev/null
	q "UPDATE run_packs SET counts = substr(counts, 1, 24) WHERE run_id = 1"
	run --separate-stderr "$BENCH" compare --db "$DB" A B
	assert_failure 65
	assert_equal "$stderr" "bench: $DB: run_packs row of run 1 holds the counts of 1 series, its layout $(q 'SELECT layout FROM run_packs WHERE run_id = 1') names $(q 'SELECT count(*) FROM run_series WHERE run_id = 1 AND ord >= 0')"
	q "UPDATE run_packs SET counts = (SELECT counts FROM run_packs WHERE
	   run_id = 2), vals = substr(vals, 9) WHERE run_id = 1"
	run --separate-stderr "$BENCH" compare --db "$DB" A B
	assert_failure 65
	assert_equal "$output" ""
	[[ "$stderr" == "bench: $DB: run_packs row of run 1"* ]]
}
