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

# Write $T/config.json: fb_config SUITE_JSON [WARMUP (0)] [RUNS (2)]
fb_config() {
	local suite=$1 warmup=${2:-0} runs=${3:-2}
	cat > "$T/config.json" <<JSON
{ "database": "$DB", "runs": $runs, "warmup": $warmup,
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

# fx_label_runs TARGET LABEL...: between fx_begin and fx_end, one run a
# label (boot b1, b2, ...) with an unlink case of wall time 100, each
# queued for upload to TARGET.
fx_label_runs() {
	local target=$1 l i=0
	shift
	for l in "$@"; do
		i=$((i + 1))
		fx_run "$l" b$i
		fx_remove_case unlink
		fx_wall 100
		echo "INSERT INTO uploads (run_id, target) VALUES ($i, '$target');" >> "$FX_SQL"
	done
}

# fx_unlink_boots LABEL BOOT V: between fx_begin and fx_end, two boots
# (BOOT1, BOOT2) of LABEL, each a run of shmem-remove unlink 64M whose
# three wall times are m-1, m and m+1 ms around a median m of V+2, V+4.
fx_unlink_boots() {
	local b v
	for b in 1 2; do
		v=$(($3 + 2 * b))
		fx_run "$1" "$2$b"
		fx_case shmem-remove '{"op":"unlink","size":"64M"}' wall:ns:lower
		fx_samples "${v}e6" "$((v + 1))e6" "$((v - 1))e6"
	done
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
