#!/usr/bin/env bats
# bench upload against the real SQUAD 1.89 (../shared/squad: Linaro's
# source run with Debian's packages on 127.0.0.1), one server for the file:
# what tests/fixtures/dashboard.py imitates, held against the real thing.
# Skipped, with the reason, where SQUAD cannot be set up or started (the
# first setup installs Debian packages as root: about 3 minutes; later
# ones find it cached under /var/tmp/squad-real).

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

PY=/usr/bin/python3
U1=00000000-0000-0000-0000-000000000001

# squad.sh: $SQUAD_REAL_SH, else ../shared/squad beside the repository.
squad_sh() {
	local f
	for f in "${SQUAD_REAL_SH:-}" "$BATS_TEST_DIRNAME/../../shared/squad/squad.sh" \
		 /work/shared/squad/squad.sh; do
		[ -n "$f" ] && [ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

setup_file() {
	local sh port i
	export SQR_SKIP=
	case $FB_BIN in
	*/san/*)	# the upload's C code runs under the sanitizers in upload.bats
		export SQR_SKIP="the sanitizer build: the real SQUAD runs in the SAN=0 pass"
		return 0 ;;
	esac
	if ! sh=$(squad_sh); then
		export SQR_SKIP="no ../shared/squad/squad.sh (set SQUAD_REAL_SH)"
		return 0
	fi
	# shellcheck source=/dev/null
	source "$sh"
	if ! squad_real_setup 2> "$BATS_FILE_TMPDIR/setup.err"; then
		export SQR_SKIP="SQUAD cannot be set up: $(tail -n 1 "$BATS_FILE_TMPDIR/setup.err")"
		return 0
	fi
	for i in 1 2 3; do
		port=$((18000 + RANDOM % 2000))
		if squad_real_start "$port" "$BATS_FILE_TMPDIR/squad" \
			2> "$BATS_FILE_TMPDIR/start.err"; then
			export SQR_URL=$SQUAD_REAL_URL SQR_TOKEN=$SQUAD_REAL_TOKEN
			export SQR_DIR=$SQUAD_REAL_DIR SQR_SH=$sh
			return 0
		fi
	done
	export SQR_SKIP="SQUAD does not start: $(tail -n 1 "$BATS_FILE_TMPDIR/start.err")"
}

teardown_file() {
	if [ -n "${SQR_DIR:-}" ]; then
		# shellcheck source=/dev/null
		source "$SQR_SH"
		squad_real_stop "$SQR_DIR"
	fi
}

setup() {
	[ -z "$SQR_SKIP" ] || skip "$SQR_SKIP"
	fb_setup
	export FOLIOBENCH_TOKEN=$SQR_TOKEN
}

teardown() {
	[ -n "$SQR_SKIP" ] || fb_teardown
}

# squad_config: the real SQUAD's group mm, project foliobench.
squad_config() {
	fb_config '[ { "workload": "shmem-remove", "size": "16M", "op": "unlink" } ]' - - "
  \"dashboard\": { \"target\": \"squad\", \"url\": \"$SQR_URL\", \"group\": \"mm\",
    \"project\": \"foliobench\", \"timeout\": \"60s\", \"backoff\": \"10ms\",
    \"max_attempts\": 2 }"
}

# One run of label $1 with a case of params $2 and its upload queued.
one_run() {
	fx_begin "$DB"
	fx_run "$1" b1
	fx_case shmem-remove "$2" wall:ns:lower folios:count:lower
	fx_samples 1519.520263671875/16384 0.1/16384 x3/16384
	echo "INSERT INTO uploads (run_id, target) VALUES (1, 'squad');" >> "$FX_SQL"
	fx_end
}

# rest PATH: a GET of SQUAD's REST API.
rest() { curl -sf -m 30 -H "Authorization: Token $SQR_TOKEN" "$SQR_URL/api/$1"; }

@test "real SQUAD: the bare test-run id, exact values with units, names over 256 characters kept" {
	squad_config
	local dir=/dev/shm/$(printf 'd%.0s' $(seq 300))
	one_run "real+1" "{\"op\":\"unlink\",\"dir\":\"$dir\"}"
	run "$BENCH" upload --config "$T/config.json"
	assert_success
	[[ "$output" =~ ^"sent run $U1 (real+1) to squad: 201, test run "[0-9]+$ ]]
	tr=${output##* }
	# what SQUAD holds: every metric and test, values exact, units
	run rest "metrics/?test_run=$tr&limit=100"
	assert_success
	run "$PY" -c 'import json, sys
m = json.loads(sys.argv[1])["results"]
for x in sorted(m, key=lambda x: x["name"]):
    print(x["name"][:x["name"].index("[")], len(x["short_name"]), x["unit"], *[repr(v) for v in x["measurement_list"]])' "$output"
	assert_output "shmem-remove/folios 256 count 16384.0 16384.0
shmem-remove/wall 256 ns 1519.520263671875 0.1"
	run rest "tests/?test_run=$tr&limit=100"
	run "$PY" -c 'import json, sys
print(sorted((x["short_name"][:11], x["status"]) for x in json.loads(sys.argv[1])["results"]))' "$output"
	assert_output "[('verify-rep0', 'pass'), ('verify-rep1', 'pass'), ('verify-rep2', 'fail')]"
}

@test "real SQUAD: labels that differ only in + ~ : @ are four builds" {
	squad_config
	local l
	fx_begin "$DB"
	fx_label_runs squad k+1 k~1 k:1 k@1
	fx_end
	run "$BENCH" upload --config "$T/config.json"
	assert_success
	for l in k_2b1 k_7e1 k_3a1 k_401; do
		run rest "builds/?version=$l"
		assert_success
		[[ "$output" == *"\"version\":\"$l\""* ]]
	done
}

@test "real SQUAD: a wrong token is a 403 said in words; a half-stored test run is found and the run stays failed" {
	squad_config
	one_run real-half '{"op":"unlink"}'
	FOLIOBENCH_TOKEN=wrong-token run "$BENCH" upload --config "$T/config.json"
	assert_failure 77
	assert_line --index 0 "bench: run $U1 failed: the dashboard refused the token from the environment variable FOLIOBENCH_TOKEN: 403 Forbidden, it may not submit to mm/foliobench (SQUAD's answer to a wrong or missing token on a public project)"
	# SQUAD stores a test run, then fails (500) on an empty list of values:
	# what a failed try leaves behind
	run curl -s -m 60 -o /dev/null -w '%{http_code}' -H "Auth-Token: $SQR_TOKEN" \
		-F "metadata={\"job_id\": \"$U1\"}" -F 'metrics={"shmem-remove/x": []}' \
		"$SQR_URL/api/submit/mm/foliobench/real-half/testhost"
	assert_output 500
	run --separate-stderr "$BENCH" upload --config "$T/config.json" --failed
	assert_failure 65
	[[ "$stderr" =~ ^"bench: run $U1 failed: SQUAD holds test run "[0-9]+" of job_id $U1 with 0 of its 2 metrics and 0 of its 3 tests (a try that failed stored it in part)" ]]
	run q "SELECT state, sent_at IS NULL FROM uploads"
	assert_output "failed|1"
}
