# Shared set-up for the bats files: every test gets its own directory and
# database, and fails if it leaves a scratch file, mount, cgroup or changed
# knob behind.

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

: "${FB_BIN:=$BATS_TEST_DIRNAME/../build/bench}"
BENCH=$FB_BIN

fb_setup() {
	T=$BATS_TEST_TMPDIR
	DB=$T/results.db
	cd "$T" || return 1
	THP_BEFORE=$(fb_knobs)
}

# The knobs the runner may change, as one string to compare.
fb_knobs() {
	local f
	for f in /sys/kernel/mm/transparent_hugepage/shmem_enabled \
		 /sys/kernel/mm/transparent_hugepage/hugepages-*kB/shmem_enabled \
		 /proc/sys/vm/max_map_count; do
		[ -r "$f" ] && printf '%s=%s\n' "$f" "$(cat "$f")"
	done
}

# Drop lines naming foliobench.<pid> of a process still alive: another
# runner's (a concurrent test run on the same machine), not ours to judge.
fb_dead_only() {
	local line pid
	while IFS= read -r line; do
		pid=$(printf '%s' "$line" | sed -n 's/.*foliobench\.\([0-9][0-9]*\).*/\1/p')
		[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && continue
		printf '%s\n' "$line"
	done
}

# What a run must never leave behind.
fb_leftovers() {
	{
	ls -d /dev/shm/foliobench* 2>/dev/null
	# every mount of ours lives in a scratch dir foliobench.<pid>
	awk '$2 ~ /foliobench\./' /proc/mounts
	losetup -a 2>/dev/null | grep foliobench
	ls -d /sys/fs/cgroup/memory/foliobench* /sys/fs/cgroup/foliobench* \
	      /sys/fs/cgroup/*/foliobench* 2>/dev/null
	} | fb_dead_only
	[ -n "$FB_IGNORE_KNOBS" ] || [ "$(fb_knobs)" = "$THP_BEFORE" ] ||
		echo "knobs changed"
	return 0
}

# Scratch a test makes outside $T (a dir on /dev/shm, a loop device):
# removed in teardown also when an assertion failed midway.
FB_AFTER=()
fb_after() { FB_AFTER+=("$*"); }

fb_teardown() {
	local left cmd
	for cmd in "${FB_AFTER[@]}"; do
		eval "$cmd" > /dev/null 2>&1
	done
	left=$(fb_leftovers; ls -d /dev/shm/fbtest.* 2>/dev/null)
	if [ -n "$left" ]; then
		echo "left behind: $left" >&2
		return 1
	fi
}

setup() { fb_setup; }
teardown() { fb_teardown; }

# fb_config [-o FILE] [-d DATABASE] SUITE_JSON [WARMUP (0)] [RUNS (2)] [MORE]:
# write the config FILE ($T/config.json) of a suite whose runs go to
# DATABASE ($DB); a WARMUP or RUNS of - leaves that key out (bench's
# default), MORE is further top-level keys as JSON text, written before
# the suite ("cpus": "1", "plan": { ... }).
fb_config() {
	local file=$T/config.json db=$DB suite warmup runs more
	while :; do
		case $1 in
		-o) file=$2 ;;
		-d) db=$2 ;;
		*) break ;;
		esac
		shift 2
	done
	suite=$1 warmup=${2:-0} runs=${3:-2} more=${4:+ $4,}
	[ "$runs" = - ] && runs= || runs=" \"runs\": $runs,"
	[ "$warmup" = - ] && warmup= || warmup=" \"warmup\": $warmup,"
	cat > "$file" <<JSON
{ "database": "$db",$runs$warmup$more
  "suite": $suite }
JSON
}

# sqlite3 on the test database
q() { sqlite3 "$DB" "$@"; }

# value of metric $2 of sample $1
val() { q "select value from sample_values where sample_id = $1 and metric = '$2'"; }

# fb_until WHAT CMD...: poll CMD every 50 ms until it succeeds; after 10 s
# fail, saying what never happened.
fb_until() {
	local what=$1 i
	shift
	for i in $(seq 200); do
		"$@" && return 0
		sleep 0.05
	done
	echo "the run never $what" >&2
	return 1
}

# fb_run_until WHAT CMD...: `bench run` of $T/config.json in the
# background (PID; its output in $T/out and $T/err), returning once CMD
# says it has reached what a test interrupts.
fb_run_until() {
	"$BENCH" run --config "$T/config.json" --quiet >"$T/out" 2>"$T/err" &
	PID=$!
	fb_until "$@"
}

# Bytes process $1 (all its threads) has read, or written ($2 wchar),
# through read(2), write(2) and the like: 0 once it is gone.
fb_io_bytes() {
	awk -v k="${2:-rchar}:" '$1 == k { print $2; n++ } END { if (!n) print 0 }' \
		"/proc/$1/io" 2>/dev/null || echo 0
}

# The schema version this tool migrates to: its newest migration's number.
fb_schema_latest() {
	local f
	f=$(ls "$BATS_TEST_DIRNAME"/../schema/[0-9]*.sql | sort | tail -n 1)
	f=$(basename "$f")
	echo $((10#${f%%_*}))
}

# fb_json_valid KIND FILE: FILE is one document that validates against
# schema/KIND.schema.json (JSON Schema 2020-12, python3-jsonschema).
fb_json_valid() {
	run /usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/validate_run.py" \
		"$BATS_TEST_DIRNAME/../schema/$1.schema.json" "$2"
	assert_success
	assert_output "1 valid"
}

# fb_json_head FILE KIND METHOD: the report document FILE says who wrote
# it (this bench), from which schema, in which layout, its kind, alpha,
# confidence and method sentence.
fb_json_head() {
	local version
	version=$("$BENCH" --version)
	run jq -r --arg v "${version#foliobench }" '[.tool,
		.tool_version == $v, .schema_version, .format_version, .kind,
		.alpha, .confidence, .method] | @tsv' "$1"
	assert_output "foliobench	true	$(fb_schema_latest)	1	$2	0.05	0.95	$3"
}

# narrow_ascii COLS: fail when a line of $output is wider than COLS columns
# or not plain ASCII (the changelog format's promise).
narrow_ascii() {
	local cols=$1
	if LC_ALL=C grep -n '[^ -~]' <<< "$output"; then
		echo "not plain ASCII" >&2
		return 1
	fi
	awk -v max="$cols" 'length($0) > max {
		printf "line %d is %d columns: %s\n", NR, length($0), $0
		bad = 1 } END { exit bad }' <<< "$output"
}

# The newest two linux-image-6.1.0-N-amd64-unsigned .debs of the kernel
# cache (FOLIOBENCH_KERNEL_CACHE), fetched first when fewer than two are
# there: the guests of vm.bats and lava.bats boot them.
fb_kernels() {
	local kc=${FOLIOBENCH_KERNEL_CACHE:-/var/cache/foliobench/kernels}
	local have names
	have=$(ls "$kc"/linux-image-6.1.0-*-amd64-unsigned_*_amd64.deb \
		2>/dev/null | sort -V | tail -n 2)
	if [ "$(printf '%s\n' "$have" | grep -c .)" -lt 2 ]; then
		names=$(apt-cache search --names-only \
			'^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' 2>/dev/null |
			awk '{ print $1 }' | sort -V | tail -n 2)
		[ "$(printf '%s\n' "$names" | grep -c .)" -eq 2 ] || return 1
		mkdir -p "$kc" &&
		(cd "$kc" && apt-get download $names > /dev/null 2>&1) ||
			return 1
		have=$(ls "$kc"/linux-image-6.1.0-*-amd64-unsigned_*_amd64.deb |
			sort -V | tail -n 2)
	fi
	printf '%s\n' "$have"
}

# fb_method FORMAT PART...: the method sentence bench compare (FORMAT text,
# changelog, markdown or json) or bench export (export-text, ...) prints
# under its table, with the notes that format adds, built from its parts in
# the order the reports put them, wrapped as the format wraps it (text at
# 78 columns, changelog at 72).  PART:
#   median=R | mean=R | one      Median of R runs | Mean of R runs | One run
#   boots=B | boots=B-C | halves=B:LABEL   over how many boots
#   vm=N | cpus=N                where (default: on a 2-CPU machine)
#   case=WORDS                   the cases' params in words
#   within=all | within=some     every row, or some, stands on one boot's runs
#   welch=N | untested           Welch's t-test over N rows, or none
#   mw=exact/N | mw=normal/N     Mann-Whitney U over N rows
#   geomean | geomean=cost       the geomean's note
#   few                          fewer than 3 boots a kernel
fb_method() {
	local fmt=$1 part k v
	local head="" boots="" where=", on a 2-CPU machine" words="" within=""
	local welch="" mw="" geo="" few="" untested="" of=" of each kernel"
	local hasgeo=""
	local s unit cols=0
	shift
	case $fmt in export-*) of="" ;; esac
	for part; do
		k=${part%%=*} v=${part#*=}
		case $k in
		median) head="Median of $v runs" ;;
		mean) head="Mean of $v runs" ;;
		one) head="One run of each kernel" ;;
		boots) boots=$v ;;
		halves) boots="halves:$v" ;;
		vm) where=", in a $v vCPU VM" ;;
		cpus) where=", on a $v-CPU machine" ;;
		case) words=$v ;;
		within) within=$v ;;
		welch) welch=$v ;;
		untested) untested=1 ;;
		mw) mw=$v ;;
		geomean) hasgeo=1
			[ "$v" != cost ] || geo=", those of higher-is-better metrics inverted (a cost: below zero is better)" ;;
		few) few=1 ;;
		*) echo "fb_method: no part $part" >&2; return 1 ;;
		esac
	done
	[ -n "$of" ] || head=${head/of each kernel/of the kernel}
	case $boots in
	"") ;;
	1) boots=" in one boot$of" ;;
	halves:*) v=${boots#halves:}
		boots=", averaged over ${v%%:*} boots in each half of ${v#*:}" ;;
	*-*) boots=", averaged over ${boots%-*} to ${boots#*-} boots$of, as the boots column gives for each row" ;;
	*) boots=", averaged over $boots boots$of" ;;
	esac
	s="$head$boots$where${words:+; $words}."
	case $within in
	all) unit="runs" ;;
	some) unit="boot medians, or the runs where a kernel has one boot" ;;
	*) unit="boot medians" ;;
	esac
	case $fmt in
	text|changelog|markdown)
		if [ -n "$untested" ]; then
			s+=" No row has a test: Welch's t-test needs 2 boots, or 2 runs of one boot, of each kernel."
		else
			s+=" Welch's t-test on the $unit, Holm-corrected over $(fb_rows "$welch")"
			case $mw in
			exact/*) s+="; Mann-Whitney U (exact), Holm-corrected over $(fb_rows "${mw#*/}")" ;;
			normal/*) s+="; Mann-Whitney U (normal, tie-corrected), Holm-corrected over $(fb_rows "${mw#*/}")" ;;
			esac
			[ "$fmt" = changelog ] || s+="; the change's 95% CI by Fieller"
			s+=". ~ marks a change not shown at p < 0.05 after Holm."
		fi
		[ -z "$hasgeo" ] ||
			s+=" The geomean is the geometric mean of the rows' ratios$geo, with no test of its own."
		case $within in
		all) s+=" One boot of a kernel: its runs stand in for boots, so values, changes and tests are of the mean of the runs and cannot see how much boots differ." ;;
		some) s+=" Where a kernel has one boot, its runs stand in for boots: the row's values, change and tests are of the mean of the runs and cannot see how much boots differ." ;;
		esac
		[ -z "$few" ] || s+=" Fewer than 3 boots of a kernel: the boot-to-boot variance cannot be judged."
		[ "$fmt" != text ] || s+=" ±sd: standard deviation of the ${unit/, or the/, or of the}, in percent."
		;;
	export-text|export-markdown)
		s+=" Value: the mean of the $([ "$within" = all ] && echo runs || echo boot medians); ±sd: their standard deviation in percent"
		[ "$fmt" = export-markdown ] || s+=", and the 95% CI of the mean by Student's t"
		s+="."
		case $within/$fmt in
		all/export-text) s+=" With one boot, ±sd and the CI say nothing of how much boots differ." ;;
		some/export-text) s+=" Where there is one boot, the value is the mean of its runs, and ±sd and the CI come from them and say nothing of how much boots differ." ;;
		some/export-markdown) s+=" Where there is one boot, the value is the mean of its runs, and ±sd and the CI come from them." ;;
		esac
		[ -z "$few" ] || [ "$fmt" = export-markdown ] ||
			s+=" Fewer than 3 boots: the boot-to-boot variance cannot be judged."
		;;
	export-changelog)
		case $within in
		all) s+=" Spread: standard deviation of the runs of a single boot, which does not show how much boots differ." ;;
		some) s+=" Spread: standard deviation of the boot medians, or, where there is one boot, of its runs (whose mean is then the value)." ;;
		*) s+=" Spread: standard deviation of the boot medians." ;;
		esac
		[ -z "$few" ] || s+=" Fewer than 3 boots: the boot-to-boot variance cannot be judged."
		;;
	esac
	case $fmt in
	text|export-text) cols=78 ;;
	changelog|export-changelog) cols=72 ;;
	esac
	if [ "$cols" = 0 ]; then
		printf '%s\n' "$s"
	else
		printf '%s\n' "$s" | fb_wrap "$cols"
	fi
}

fb_rows() { [ "$1" = 1 ] && echo "1 row" || echo "$1 rows"; }

# fb_wrap COLS: words of stdin wrapped at COLS columns as the reports wrap
# them (reports/table.c tbl_wrap): a character a column, and a word wider
# than what is left of a line broken after its last '/' or ',' that fits,
# unless that leaves the line less than half full.
fb_wrap() {
	LC_ALL=C awk -v cols="$1" '
	function width(s) { gsub(/[\200-\277]/, "", s); return length(s) }
	function cut(w, room,   i, n, col, brk, brkcol, c) {
		if (room < 1)
			room = 1
		while (i < length(w) && col < room) {
			n = 1
			while (i + n < length(w) &&
			       substr(w, i + n + 1, 1) ~ /[\200-\277]/)
				n++
			i += n
			col++
			c = substr(w, i - n + 1, 1)
			if (c == "/" || c == ",") {
				brk = i
				brkcol = col
			}
		}
		if (i >= length(w))
			return length(w)
		return brk && 2 * brkcol >= room ? brk : i
	}
	{
		for (k = 1; k <= NF; k++) {
			w = $k
			len = width(w)
			if (col && col + 1 + len > cols) {
				printf "\n"
				col = 0
			}
			if (col) {
				printf " "
				col++
			}
			while (len && col + len > cols) {
				n = cut(w, cols > col ? cols - col : 1)
				printf "%s\n", substr(w, 1, n)
				w = substr(w, n + 1)
				len = width(w)
				col = 0
			}
			printf "%s", w
			col += len
		}
	}
	END { if (col) printf "\n" }'
}

# fb_csv_near [-l LINE] [RELTOL (1e-8)] < EXPECTED: $output, as CSV, holds
# the rows of EXPECTED (or, with -l, its line LINE, from 0, holds the one
# row of EXPECTED), a field that is a number in both equal as a number to
# within RELTOL of the larger (the CSV prints 10 digits; the values were
# checked against SciPy to more), every other field equal as text.
fb_csv_near() {
	local line=-1
	if [ "$1" = -l ]; then
		line=$2
		shift 2
	fi
	/usr/bin/python3 -c '
import csv, io, math, sys
line, tol, got = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
want = list(csv.reader(io.StringIO(sys.stdin.read())))
got = list(csv.reader(io.StringIO(got)))
if line >= 0:
    got = got[line:line + 1]
def num(s):
    try:
        v = float(s)
    except ValueError:
        return None
    return v if math.isfinite(v) else None
bad = 0
if len(got) != len(want):
    print("%d rows, not %d" % (len(got), len(want)))
    bad = 1
for r, (g, w) in enumerate(zip(got, want)):
    if len(g) != len(w):
        print("row %d: %d fields, not %d" % (r, len(g), len(w)))
        bad = 1
        continue
    for f, (a, b) in enumerate(zip(g, w)):
        x, y = num(a), num(b)
        if x is not None and y is not None:
            if abs(x - y) <= tol * max(abs(x), abs(y)):
                continue
        elif a == b:
            continue
        print("row %d field %d (%s): %s, not %s" %
              (r, f + 1, want[0][f] if line < 0 else "", a, b))
        bad = 1
sys.exit(bad)' "$line" "${1:-1e-8}" "$output"
}

# A database of schema 16 turned back into one of schema 14 (its values a
# row each in the table sample_values: schema/015_sample_vals.sql and
# 016_series_marks.sql undone), for the tests of a migration from 14 or
# before it.
fb_to_schema14() {
	sqlite3 "$1" "PRAGMA foreign_keys = OFF;
	  CREATE TABLE sv (
		sample_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
		metric TEXT NOT NULL, value REAL, unit TEXT NOT NULL,
		better TEXT NOT NULL CHECK (better IN ('lower', 'higher')),
		supported INTEGER NOT NULL DEFAULT 1 CHECK (supported IN (0, 1)),
		PRIMARY KEY (sample_id, metric));
	  INSERT INTO sv SELECT * FROM sample_values;
	  DROP VIEW sample_values;
	  ALTER TABLE sv RENAME TO sample_values;
	  CREATE INDEX sample_values_suspect ON sample_values(sample_id)
		WHERE typeof(value) IN ('text', 'blob') OR value < 0;
	  CREATE TRIGGER run_series_values_ins AFTER INSERT ON sample_values BEGIN
		DELETE FROM run_series WHERE run_id = (SELECT c.run_id FROM samples s
			JOIN cases c ON c.id = s.case_id WHERE s.id = NEW.sample_id);
	  END;
	  CREATE TRIGGER run_series_values_upd AFTER UPDATE ON sample_values BEGIN
		DELETE FROM run_series WHERE run_id IN (SELECT c.run_id FROM samples s
			JOIN cases c ON c.id = s.case_id
			WHERE s.id IN (OLD.sample_id, NEW.sample_id));
	  END;
	  CREATE TRIGGER run_series_values_del AFTER DELETE ON sample_values BEGIN
		DELETE FROM run_series WHERE run_id = (SELECT c.run_id FROM samples s
			JOIN cases c ON c.id = s.case_id WHERE s.id = OLD.sample_id);
	  END;
	  DROP INDEX samples_suspect;
	  ALTER TABLE samples DROP COLUMN vals;
	  ALTER TABLE samples DROP COLUMN layout;
	  DROP TABLE value_layouts;
	  DROP TRIGGER run_series_mark_alone;
	  PRAGMA user_version = 14"
}
