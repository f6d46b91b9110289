#!/usr/bin/env bats
# bench upload and bench run --upload, against a real HTTP server on
# 127.0.0.1 (tests/fixtures/dashboard.py) that follows SQUAD's submit rules
# and the json target's: delivery, retries, refusals, lost replies, two
# uploaders at once, and a token that never shows.

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

PY=/usr/bin/python3
SERVER=$BATS_TEST_DIRNAME/fixtures/dashboard.py
SCHEMA=$BATS_TEST_DIRNAME/../schema/run.schema.json
U1=00000000-0000-0000-0000-000000000001
U2=00000000-0000-0000-0000-000000000002

setup() {
	fb_setup
	TOKEN="fbtok-$RANDOM$RANDOM-s3cr3t"
	export FOLIOBENCH_TOKEN=$TOKEN
	DASH_PID=
	PORT=
}

teardown() {
	dash_stop
	# the token is in no file the tests or the tool wrote (the db included)
	if grep -rlaF --exclude-dir=secret -- "$TOKEN" "$T"; then
		echo "the token leaked into the files above" >&2
		return 1
	fi
	fb_teardown
}

# dash_start [--port N] [--delay S]: the test dashboard; sets PORT.
dash_start() {
	rm -f "$T/port"
	DASHBOARD_TOKEN=$TOKEN "$PY" "$SERVER" --port-file "$T/port" \
		--store "$T/stored.jsonl" --log "$T/requests.log" \
		--script "$T/script" "$@" 3>&- &
	DASH_PID=$!
	for _ in $(seq 100); do
		[ -s "$T/port" ] && break
		sleep 0.05
	done
	PORT=$(cat "$T/port")
	[ -n "$PORT" ]
}

dash_stop() {
	if [ -n "$DASH_PID" ]; then
		kill "$DASH_PID" 2>/dev/null
		wait "$DASH_PID" 2>/dev/null || true
		DASH_PID=
	fi
	return 0
}

# A port nothing listens on (the dashboard is down).
free_port() {
	dash_start
	dash_stop
}

# dash_config squad|json [MORE_KEYS]: tiny suite, fast retries (DC_TIMEOUT,
# DC_CONNECT, DC_RA_MAX, DC_ATTEMPTS change those keys; DC_SCHEME=https).
dash_config() {
	local target=$1 more=${2:-} squad=
	local url=${DC_SCHEME:-http}://127.0.0.1:$PORT/runs
	if [ "$target" = squad ]; then
		url=${DC_SCHEME:-http}://127.0.0.1:$PORT
		squad='"group": "mm", "project": "foliobench",'
	fi
	fb_config '[ { "workload": "shmem-remove", "size": "16M", "op": "unlink" } ]' 0 2 "
  \"dashboard\": { \"target\": \"$target\", \"url\": \"$url\", $squad
    \"timeout\": \"${DC_TIMEOUT:-5s}\",
    \"connect_timeout\": \"${DC_CONNECT:-5s}\",
    \"backoff\": \"10ms\", \"retry_after_max\": \"${DC_RA_MAX:-2s}\",
    \"max_attempts\": ${DC_ATTEMPTS:-3} $more }"
}

# Runs of known samples with a pending upload to target $1 (N runs, 1).
fx_pending() {
	local target=$1 n=${2:-1} i
	fx_begin "$DB"
	for ((i = 1; i <= n; i++)); do
		fx_run L1 "boot$i"
		fx_remove_case unlink
		fx_wall 100 101 x5 102
		echo "INSERT INTO uploads (run_id, target) VALUES ($i," \
		     "'$target');" >> "$FX_SQL"
	done
	fx_end
}

stored() { "$PY" -c "$1" "$T/stored.jsonl"; }

@test "squad: a counted run's times go as guest instructions (instr), its clock in the metadata" {
	dash_start
	dash_config squad
	# a guest counted with -icount shift=2: 4 ns of its clock an instruction
	fx_begin "$DB"
	fx_run L1 boot1
	fx_remove_case unlink
	fx_wall 100 101 x5 102
	echo "INSERT INTO uploads (run_id, target) VALUES (1, 'squad');" >> "$FX_SQL"
	fx_guest L1 tcg 2
	fx_end
	run --separate-stderr "$BENCH" upload --config "$T/config.json"
	assert_success
	assert_output "sent run $U1 (L1) to squad: 201, test run 1"
	run stored 'import json, sys
r = json.loads(open(sys.argv[1]).readline())
print(r["metadata"]["clock"])
for k, v in sorted(r["metrics"].items()): print(k.split("[")[0], v["value"], v["unit"])'
	assert_success
	assert_output - <<EOF
instructions (icount shift=2)
shmem-remove/folios [16384.0, 16384.0, 16384.0] count
shmem-remove/ns_per_folio [1525.87890625, 1541.13769525, 1556.3964845] instr/folio
shmem-remove/wall [25000000.0, 25250000.0, 25500000.0] instr
EOF
}

@test "squad: a pending run is delivered on 201 with SQUAD's fields" {
	dash_start
	dash_config squad
	fx_pending squad
	run --separate-stderr "$BENCH" upload --config "$T/config.json"
	assert_success
	assert_output "sent run $U1 (L1) to squad: 201, test run 1"
	assert_equal "$stderr" ""
	run cat "$T/requests.log"
	assert_output "POST /api/submit/mm/foliobench/L1/testhost -> 201"
	run stored 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert len(r) == 1, r
r = r[0]
print(r["job_id"], r["build"], r["environment"], r["metadata"]["job_id"],
      r["metadata"]["datetime"], r["metadata"]["vcpus"])
for k, v in sorted(r["metrics"].items()): print(k, v["value"], v["unit"])
for k, v in sorted(r["tests"].items()): print(k, v)'
	assert_success
	assert_output - <<EOF
$U1 L1 testhost $U1 2026-11-29T08:01:00Z 2
shmem-remove/folios[op=unlink,size=64M,folio=4k,dir=%2Fdev%2Fshm,populate=fallocate] [16384.0, 16384.0, 16384.0] count
shmem-remove/ns_per_folio[op=unlink,size=64M,folio=4k,dir=%2Fdev%2Fshm,populate=fallocate] [6103.515625, 6164.550781, 6225.585938] ns/folio
shmem-remove/wall[op=unlink,size=64M,folio=4k,dir=%2Fdev%2Fshm,populate=fallocate] [100000000.0, 101000000.0, 102000000.0] ns
shmem-remove/verify-rep0[op=unlink,size=64M,folio=4k,dir=%2Fdev%2Fshm,populate=fallocate] pass
shmem-remove/verify-rep1[op=unlink,size=64M,folio=4k,dir=%2Fdev%2Fshm,populate=fallocate] pass
shmem-remove/verify-rep2[op=unlink,size=64M,folio=4k,dir=%2Fdev%2Fshm,populate=fallocate] fail
shmem-remove/verify-rep3[op=unlink,size=64M,folio=4k,dir=%2Fdev%2Fshm,populate=fallocate] pass
EOF
	run q "SELECT state, attempts, last_error IS NULL, sent_at IS NOT NULL,
	       reply, claim_pid IS NULL FROM uploads"
	assert_output 'sent|1|1|1|201, test run 1|1'
	run "$BENCH" runs --db "$DB"
	assert_line --regexp "^1 +$U1 +L1 .* complete .* squad sent$"
	# nothing left: a second upload sends nothing
	run "$BENCH" upload --config "$T/config.json"
	assert_success
	assert_output "nothing to upload to squad"
}

@test "json: the run document is delivered with Bearer and Idempotency-Key, and validates" {
	dash_start
	dash_config json
	fx_pending json
	run "$BENCH" upload --config "$T/config.json"
	assert_success
	assert_output "sent run $U1 (L1) to json: 201 {\"stored\": \"$U1\"}"
	run cat "$T/requests.log"
	assert_output "POST /runs -> 201"
	run "$PY" "$BATS_TEST_DIRNAME/fixtures/validate_run.py" "$SCHEMA" \
		--store "$T/stored.jsonl"
	assert_success
	assert_output "1 valid"
	run stored 'import json, sys
r = json.loads(open(sys.argv[1]).readline())
d = r["doc"]
print(r["key"], d["run"]["uuid"], d["run"]["status"], len(d["cases"]),
      [(s["rep"], s["valid"], s["invalid_reason"]) for s in d["cases"][0]["samples"]])'
	assert_output "$U1 $U1 complete 1 [(0, True, None), (1, True, None), (2, False, 'injected'), (3, True, None)]"
	# the body is exactly what export writes
	"$BENCH" export --db "$DB" --run $U1 --format run-json > "$T/doc.json"
	run stored 'import json, sys
print(json.loads(open(sys.argv[1]).readline())["doc"] == json.load(open(sys.argv[1].replace("stored.jsonl", "doc.json"))))'
	assert_output True
}

@test "export --run: a real run's document validates; bad uses are refused" {
	dash_config squad
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	uuid=$(q "SELECT uuid FROM runs")
	"$BENCH" export --db "$DB" --run "$uuid" --format run-json > "$T/doc.json"
	run "$PY" "$BATS_TEST_DIRNAME/fixtures/validate_run.py" "$SCHEMA" "$T/doc.json"
	assert_success
	assert_output "1 valid"
	run "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = d["cases"][0]["samples"]
print(d["run"]["status"], d["cases"][0]["params"]["size"], len(s),
      "wall" in [m["name"] for m in s[0]["metrics"]], "cpu" in s[0]["verify"])' "$T/doc.json"
	assert_output "complete 16M 2 True True"
	run "$BENCH" export --db "$DB" --run nope --format run-json
	assert_failure 67
	assert_output "bench: no run nope in $DB (see \`bench runs\`)"
	run "$BENCH" export --db "$DB" --run "$uuid"
	assert_failure 64
	assert_line "bench: --run UUID goes with --format run-json, and without a label"
}

@test "500, then 503 with Retry-After, then 201: delivered once, the wait honoured" {
	dash_start
	dash_config squad
	fx_pending squad
	printf '500\n503:1\n' > "$T/script"
	start=$(date +%s%N)
	run --separate-stderr "$BENCH" upload --config "$T/config.json"
	elapsed=$((($(date +%s%N) - start) / 1000000))
	assert_success
	assert_output "sent run $U1 (L1) to squad: 201, test run 1"
	url="http://127.0.0.1:$PORT/api/submit/mm/foliobench/L1/testhost"
	[[ "$stderr" =~ ^"bench: run $U1: try 1 of 3: $url answered 500: scripted failure; again in 0.0"[0-9]*" s
bench: run $U1: try 2 of 3: $url answered 503: scripted failure; again in 1 s"$ ]]
	# Retry-After: 1 was honoured, the 10ms backoff alone is far shorter
	[ "$elapsed" -ge 1000 ]
	run cat "$T/requests.log"
	assert_output - <<EOF
POST /api/submit/mm/foliobench/L1/testhost -> 500
POST /api/submit/mm/foliobench/L1/testhost -> 503
POST /api/submit/mm/foliobench/L1/testhost -> 201
EOF
	run wc -l < "$T/stored.jsonl"
	assert_output 1
	run q "SELECT state, attempts, last_error IS NULL FROM uploads"
	assert_output "sent|3|1"
}

@test "Retry-After is honoured only up to retry_after_max" {
	dash_start
	DC_RA_MAX=200ms dash_config json
	fx_pending json
	echo '503:3600' > "$T/script"
	run --separate-stderr timeout 20 "$BENCH" upload --config "$T/config.json"
	assert_success
	[[ "$stderr" == *"answered 503: scripted failure; again in 0.2 s" ]]
}

@test "401 and 403: failed, the message names where the token came from; exit 77" {
	dash_start
	dash_config squad
	fx_pending squad 2
	FOLIOBENCH_TOKEN=wrong-token run --separate-stderr "$BENCH" upload \
		--config "$T/config.json"
	assert_failure 77
	assert_output ""
	assert_equal "$stderr" "bench: run $U1 failed: the dashboard refused the token from the environment variable FOLIOBENCH_TOKEN: 403 Forbidden, it may not submit to mm/foliobench (SQUAD's answer to a wrong or missing token on a public project)
bench: the token was refused; runs stay queued: fix the token and run \`bench upload --failed\`"
	# the second run was not even tried: it would meet the same refusal
	run q "SELECT run_id, state, attempts FROM uploads ORDER BY run_id"
	assert_output "1|failed|1
2|pending|0"
	run "$BENCH" runs --db "$DB"
	assert_line --regexp "^1 .* squad failed: the dashboard refused the token from the environment variable FOLIOBENCH_TOKEN: 403 Forbidden, it may not submit to mm/foliobench \(SQUAD's answer to a wrong or missing token on a public project\) \(1 try\)$"
	# a plain upload leaves the failed run alone; --failed retries it
	echo 401 > "$T/script"
	run "$BENCH" upload --config "$T/config.json"
	assert_failure 77
	assert_line --index 0 "bench: run $U2 failed: the dashboard refused the token from the environment variable FOLIOBENCH_TOKEN: 401 Unauthorized (SQUAD's answer to a wrong token on a private project mm/foliobench)"
	run "$BENCH" upload --config "$T/config.json" --failed
	assert_success
	assert_output "sent run $U1 (L1) to squad: 201, test run 1
sent run $U2 (L1) to squad: 201, test run 2"
}

@test "the token file: read when only its owner may, refused otherwise (78)" {
	dash_start
	mkdir -m 700 "$T/secret"
	printf '%s\n' "$TOKEN" > "$T/secret/token"
	dash_config json ", \"token_file\": \"$T/secret/token\""
	fx_pending json
	chmod 644 "$T/secret/token"
	unset FOLIOBENCH_TOKEN
	run "$BENCH" upload --config "$T/config.json"
	assert_failure 78
	assert_output "bench: refusing the dashboard token file $T/secret/token: it is readable by group or others (mode 0644); chmod 600 $T/secret/token"
	[ ! -s "$T/requests.log" ]
	chmod 640 "$T/secret/token"
	run "$BENCH" upload --config "$T/config.json"
	assert_failure 78
	chmod 600 "$T/secret/token"
	run "$BENCH" upload --config "$T/config.json"
	assert_success
	assert_output "sent run $U1 (L1) to json: 201 {\"stored\": \"$U1\"}"
	# a wrong token from the file: the message names the file
	echo wrong > "$T/secret/token"
	q "UPDATE uploads SET state = 'pending'"
	run "$BENCH" upload --config "$T/config.json"
	assert_failure 77
	assert_line --index 0 "bench: run $U1 failed: the dashboard refused the token from the file $T/secret/token: 403 Forbidden"
}

@test "a token file that is a FIFO, a directory or NUL bytes is refused at once (78), nothing sent" {
	dash_start
	mkdir -m 700 "$T/secret" "$T/secret/dir"
	mkfifo -m 600 "$T/secret/fifo"
	head -c 40 /dev/zero > "$T/secret/nul"
	chmod 600 "$T/secret/nul"
	fx_pending json
	unset FOLIOBENCH_TOKEN
	for f in fifo dir; do
		dash_config json ", \"token_file\": \"$T/secret/$f\""
		run timeout 10 "$BENCH" upload --config "$T/config.json"
		assert_failure 78
		assert_output "bench: refusing the dashboard token file $T/secret/$f: it is not a regular file"
	done
	dash_config json ", \"token_file\": \"$T/secret/nul\""
	run timeout 10 "$BENCH" upload --config "$T/config.json"
	assert_failure 78
	assert_output "bench: the dashboard token in the file $T/secret/nul holds a NUL byte"
	[ ! -s "$T/requests.log" ]
}

@test "no token: exit 78 naming the variable, nothing sent" {
	dash_start
	dash_config squad
	fx_pending squad
	unset FOLIOBENCH_TOKEN
	run "$BENCH" upload --config "$T/config.json"
	assert_failure 78
	assert_output "bench: no dashboard token: the environment variable FOLIOBENCH_TOKEN is not set (dashboard.token_env)"
	[ ! -s "$T/requests.log" ]
	run q "SELECT state, attempts FROM uploads"
	assert_output "pending|0"
}

@test "a server that never answers: each try times out, the row stays pending (75)" {
	dash_start
	DC_TIMEOUT=1s DC_ATTEMPTS=2 dash_config squad
	fx_pending squad
	printf 'hang\nhang\n' > "$T/script"
	start=$(date +%s%N)
	run --separate-stderr "$BENCH" upload --config "$T/config.json"
	elapsed=$((($(date +%s%N) - start) / 1000000))
	assert_failure 75
	# two tries of 1 s and a 10 ms wait, well within the bound
	[ "$elapsed" -ge 2000 ] && [ "$elapsed" -lt 5000 ]
	[[ "$stderr" == *"bench: run $U1 stays pending after 2 tries: cannot reach http://127.0.0.1:$PORT/api/submit/mm/foliobench/L1/testhost: Operation timed out after 10"[0-9][0-9]" milliseconds with 0 bytes received" ]]
	run q "SELECT state, attempts, last_error LIKE '%timed out%', claim_pid FROM uploads"
	assert_output "pending|2|1|"
	[ ! -s "$T/stored.jsonl" ]
}

@test "a 400 that is not a duplicate: the run is rejected (65) with the dashboard's text" {
	dash_start
	dash_config squad
	fx_pending squad
	echo 400 > "$T/script"
	run "$BENCH" upload --config "$T/config.json"
	assert_failure 65
	assert_output "bench: run $U1 failed: http://127.0.0.1:$PORT/api/submit/mm/foliobench/L1/testhost rejected the run (400: scripted failure)"
	run q "SELECT state FROM uploads"
	assert_output failed
}

@test "reply lost after the dashboard stored the run: one copy there, the row sent" {
	for target in squad json; do
		rm -f "$T/stored.jsonl" "$T/requests.log" "$DB"*
		dash_start
		dash_config $target
		fx_pending $target
		echo drop > "$T/script"
		run --separate-stderr "$BENCH" upload --config "$T/config.json"
		assert_success
		[[ "$stderr" == *"try 1 of 3: cannot reach http://127.0.0.1:$PORT/"*": Empty reply from server; again in 0.0"*" s" ]]
		if [ $target = squad ]; then
			# SQUAD's REST API said the test run holds all sent
			assert_output "sent run $U1 (L1) to squad: 400 There is already a test run with job_id $U1: test run 1, with its 3 metrics and 4 tests (the dashboard had it already: a reply was lost)"
			run cat "$T/requests.log"
			assert_output "POST /api/submit/mm/foliobench/L1/testhost -> drop after 201
POST /api/submit/mm/foliobench/L1/testhost -> 400
GET /api/testruns/?job_id=$U1&build__version=L1&build__project__slug=foliobench&build__project__group__slug=mm -> 200
GET /api/metrics/?test_run=1&limit=4 -> 200
GET /api/tests/?test_run=1&limit=5 -> 200"
		else
			assert_output "sent run $U1 (L1) to json: 409 already stored: $U1 (the dashboard had it already: a reply was lost)"
			run cat "$T/requests.log"
			assert_output "POST /runs -> drop after 201
POST /runs -> 409"
		fi
		run wc -l < "$T/stored.jsonl"
		assert_output 1
		run q "SELECT state, attempts FROM uploads"
		assert_output "sent|2"
		dash_stop
	done
}

@test "dashboard down during bench run: the run is stored, exit 75; bench upload delivers it later" {
	for target in squad json; do
		rm -f "$T/stored.jsonl" "$T/requests.log" "$DB"*
		free_port
		dash_config $target ', "upload": true'
		run --separate-stderr "$BENCH" run --config "$T/config.json" --quiet
		assert_failure 75
		[[ "$stderr" == *"stays pending after 3 tries: cannot reach http://127.0.0.1:$PORT/"*"Couldn't connect to server" ]]
		run q "SELECT r.status, u.target, u.state, u.attempts FROM runs r JOIN uploads u ON u.run_id = r.id"
		assert_output "complete|$target|pending|3"
		run "$BENCH" runs --db "$DB"
		assert_line --regexp " complete .* $target pending: cannot reach .* \(3 tries\)$"
		dash_start --port "$PORT"
		uuid=$(q "SELECT uuid FROM runs")
		run "$BENCH" upload --config "$T/config.json"
		assert_success
		assert_line --regexp "^sent run $uuid \(.*\) to $target: 201[ ,]"
		run stored 'import json, sys
print(*[json.loads(l).get("job_id") or json.loads(l)["key"] for l in open(sys.argv[1])])'
		assert_output "$uuid"
		run q "SELECT state, attempts FROM uploads"
		assert_output "sent|4"
		dash_stop
	done
}

@test "bench run: upload false queues the run and sends nothing; --upload sends it" {
	dash_start
	dash_config json
	run "$BENCH" run --config "$T/config.json" --quiet
	assert_success
	run q "SELECT u.state, u.attempts FROM uploads u"
	assert_output "pending|0"
	[ ! -s "$T/requests.log" ]
	run "$BENCH" run --config "$T/config.json" --quiet --upload
	assert_success
	run q "SELECT state FROM uploads u JOIN runs r ON r.id = u.run_id ORDER BY r.id"
	assert_output "pending
sent"
	run wc -l < "$T/requests.log"
	assert_output 1
}

@test "no dashboard section: no outbox row; --upload says there is nowhere to send" {
	fb_config '[ { "workload": "shmem-remove", "size": "16M", "op": "unlink" } ]'
	run --separate-stderr "$BENCH" run --config "$T/config.json" --quiet --upload
	assert_success
	uuid=$(q "SELECT uuid FROM runs")
	assert_equal "$stderr" "bench: warning: --upload: no dashboard is configured in $T/config.json; run $uuid stays here"
	run q "SELECT count(*) FROM uploads"
	assert_output 0
	run "$BENCH" upload --config "$T/config.json"
	assert_failure 78
	assert_output "bench: $T/config.json: no dashboard is configured (add a \"dashboard\" section; see config.example.json)"
}

@test "an aborted run is never uploaded; --run queues a complete run without a row" {
	dash_start
	dash_config squad
	fx_begin "$DB"
	fx_run L1 b1
	fx_remove_case unlink
	fx_wall 100 101
	fx_run L1 b2 aborted
	fx_remove_case unlink
	fx_wall 100
	fx_end
	run "$BENCH" upload --config "$T/config.json"
	assert_success
	assert_output "nothing to upload to squad"
	run "$BENCH" upload --config "$T/config.json" --run $U2
	assert_failure 68
	assert_output "bench: run $U2 is aborted: only complete runs are uploaded"
	run "$BENCH" upload --config "$T/config.json" --run nope
	assert_failure 67
	assert_output "bench: no run nope in $DB"
	run "$BENCH" upload --config "$T/config.json" --run $U1
	assert_success
	assert_output "sent run $U1 (L1) to squad: 201, test run 1"
	run q "SELECT run_id, state FROM uploads"
	assert_output "1|sent"
	run "$BENCH" upload --config "$T/config.json" --run $U1
	assert_success
	assert_output "run $U1 is at squad already"
	run wc -l < "$T/requests.log"
	assert_output 1
}

@test "two bench upload at once: each run is sent once" {
	dash_start --delay 0.1
	dash_config squad
	fx_pending squad 8
	"$BENCH" upload --config "$T/config.json" > "$T/a.out" 2>&1 3>&- &
	a=$!
	"$BENCH" upload --config "$T/config.json" > "$T/b.out" 2>&1 3>&- &
	b=$!
	wait $a
	wait $b
	cat "$T/a.out" "$T/b.out"
	# one POST per run: the claims, not the duplicate rule, kept them apart
	run grep -c -- '-> 201$' "$T/requests.log"
	assert_output 8
	run wc -l < "$T/requests.log"
	assert_output 8
	run stored 'import json, sys
j = [json.loads(l)["job_id"] for l in open(sys.argv[1])]
print(len(j), len(set(j)))'
	assert_output "8 8"
	run q "SELECT count(*) FROM uploads WHERE state = 'sent' AND claim_pid IS NULL"
	assert_output 8
	run grep -ch '^sent run' "$T/a.out" "$T/b.out"
	[ $((${lines[0]} + ${lines[1]})) -eq 8 ]
}

@test "a claim of a dead uploader is taken over; a live one's is left alone" {
	dash_start
	dash_config squad
	fx_pending squad 2
	sh -c 'exit 0' &
	dead=$!
	wait $dead
	host=$(hostname)
	until=$(($(date +%s) + 3600))
	q "UPDATE uploads SET claim_host = '$host', claim_pid = $dead, claim_until = $until WHERE run_id = 1;
	   UPDATE uploads SET claim_host = '$host', claim_pid = $$, claim_until = $until WHERE run_id = 2"
	run --separate-stderr "$BENCH" upload --config "$T/config.json"
	assert_success
	assert_output "sent run $U1 (L1) to squad: 201, test run 1"
	assert_equal "$stderr" "bench: run $U1: taking over from uploader pid $dead, which is gone or ran past its lease
bench: warning: 1 run is being sent by another \`bench upload\`"
	# a lease that ran out is taken over too
	q "UPDATE uploads SET claim_until = $(($(date +%s) - 1)) WHERE run_id = 2"
	run "$BENCH" upload --config "$T/config.json"
	assert_success
	assert_line "sent run $U2 (L1) to squad: 201, test run 2"
}

@test "the token appears in no output, error, database or log" {
	dash_start
	dash_config squad ', "upload": true'
	{
		FOLIOBENCH_TOKEN=$TOKEN-but-wrong "$BENCH" run \
			--config "$T/config.json" || echo "exit $?"
		echo 503:1 > "$T/script"
		"$BENCH" upload --config "$T/config.json" --failed
		"$BENCH" runs --db "$DB"
		uuid=$(q "SELECT uuid FROM runs")
		"$BENCH" export --db "$DB" --run "$uuid" --format run-json
		sqlite3 "$DB" .dump
	} > "$T/all.out" 2>&1
	grep -q "refused the token" "$T/all.out"
	grep -q "^exit 77$" "$T/all.out"
	grep -q "^sent run" "$T/all.out"
	# (teardown greps every file of the test, a WAL left open included)
	run grep -caF -- "$TOKEN" "$T/all.out" "$DB"
	assert_output "$T/all.out:0
$DB:0"
}

@test "dashboard config errors are 78, naming the key and the value" {
	local base='"url": "http://h", "group": "mm", "project": "p"'
	check() {
		cat > "$T/config.json" <<JSON
{ "suite": [ { "workload": "shmem-remove", "size": "16M" } ],
  "dashboard": { $1 } }
JSON
		run "$BENCH" upload --config "$T/config.json"
		assert_failure 78
		assert_output "bench: $T/config.json: $2"
	}
	check "$base, \"target\": \"ftp\"" 'dashboard.target: "ftp" is not one of: squad, json'
	check "$base, \"tokn_env\": \"X\"" 'dashboard.tokn_env: unknown key in dashboard; did you mean "token_env"?'
	check "$base, \"max_attempts\": 0" 'dashboard.max_attempts: 0 is not a whole number from 1 to 100'
	check "$base, \"timeout\": \"soon\"" 'dashboard.timeout: "soon" is not a duration from 1ms to 3600s ("30s", "500ms")'
	check "$base, \"upload\": \"yes\"" 'dashboard.upload: "yes" is not true or false'
	check "$base, \"token_env\": \"A\", \"token_file\": \"/x\"" 'dashboard: token_env and token_file both given; name one'
	check "$base, \"token_file\": \"rel/token\"" 'dashboard.token_file: "rel/token" is not an absolute path'
	check "$base, \"token_env\": \"1X\"" 'dashboard.token_env: "1X" is not an environment variable name'
	check "$base, \"environment\": 3" 'dashboard.environment: 3 is not a non-empty string (of at most 2048 characters)'
	check '"url": "ftp://h/x", "group": "mm", "project": "p"' 'dashboard.url: "ftp://h/x" is not an http:// or https:// URL with a host'
	check '"url": "https://user:pw@h/x", "group": "mm", "project": "p"' 'dashboard.url: "https://user:***@h/x" holds credentials; put the token in token_env or token_file'
	check '"group": "mm", "project": "p"' 'dashboard: missing key "url"'
	# a host and port no request can reach: refused, not retried forever
	check '"url": "http://[::1", "group": "mm", "project": "p"' 'dashboard.url: "http://[::1" has no closing "]" after its IPv6 address'
	check '"url": "http://[fe80::g]/", "group": "mm", "project": "p"' 'dashboard.url: "http://[fe80::g]/" has "[fe80::g]", not an IPv6 address'
	check '"url": "http://h:99999/x", "group": "mm", "project": "p"' 'dashboard.url: "http://h:99999/x" has port "99999"; a port is a number from 1 to 65535'
	check '"url": "http://[::1]:0", "group": "mm", "project": "p"' 'dashboard.url: "http://[::1]:0" has port "0"; a port is a number from 1 to 65535'
	check '"url": "http://host;token=abc", "group": "mm", "project": "p"' 'dashboard.url: "http://host;token=abc" has a host with ";", which no host name holds'
	check '"url": "http://a b/", "group": "mm", "project": "p"' 'dashboard.url: "http://a b/" has a host with " ", which no host name holds'
	check '"url": "https://h", "project": "p"' "dashboard: missing key \"group\" (SQUAD's submit URL names the group and project)"
	check '"url": "https://h", "group": "mm", "project": "my project"' 'dashboard.project: "my project" is not a SQUAD slug ([a-zA-Z0-9][a-zA-Z0-9_.-]*)'
	check '"target": "json", "url": "https://h", "group": "mm"' 'dashboard.group: only the squad target takes it'
	check '"url": "https://h", "group": "mm", "project": "p", "ca_file": "ca.pem"' 'dashboard.ca_file: "ca.pem" is not an absolute path'
	# bench run refuses the same config before it records anything
	run "$BENCH" run --config "$T/config.json"
	assert_failure 78
	[ ! -e "$DB" ]
	# and a null section is no dashboard
	check '' 'dashboard: missing key "url"'
	sed -i 's|"dashboard": {[ ]*}|"dashboard": null|' "$T/config.json"
	run "$BENCH" upload --config "$T/config.json"
	assert_failure 78
	assert_output "bench: $T/config.json: no dashboard is configured (add a \"dashboard\" section; see config.example.json)"
}

@test "build and environment fit SQUAD's slug rule, one to one: labels that differ only in + ~ : @ _ - stay apart" {
	dash_start
	dash_config squad ', "environment": "lab vm #3"'
	fx_begin "$DB"
	fx_label_runs squad "6.18 (patched)/v2" 6.18+fix 6.18~fix 6.18:fix \
		6.18@fix 6.18-fix 6.18_fix 6.18_2bfix .hidden 0_2ehidden
	fx_end
	run "$BENCH" upload --config "$T/config.json"
	assert_success
	run cat "$T/requests.log"
	assert_output - <<'EOF'
POST /api/submit/mm/foliobench/6.18_20_28patched_29_2fv2/lab_20vm_20_233 -> 201
POST /api/submit/mm/foliobench/6.18_2bfix/lab_20vm_20_233 -> 201
POST /api/submit/mm/foliobench/6.18_7efix/lab_20vm_20_233 -> 201
POST /api/submit/mm/foliobench/6.18_3afix/lab_20vm_20_233 -> 201
POST /api/submit/mm/foliobench/6.18_40fix/lab_20vm_20_233 -> 201
POST /api/submit/mm/foliobench/6.18-fix/lab_20vm_20_233 -> 201
POST /api/submit/mm/foliobench/6.18__fix/lab_20vm_20_233 -> 201
POST /api/submit/mm/foliobench/6.18__2bfix/lab_20vm_20_233 -> 201
POST /api/submit/mm/foliobench/0_2ehidden/lab_20vm_20_233 -> 201
POST /api/submit/mm/foliobench/0__2ehidden/lab_20vm_20_233 -> 201
EOF
	# ten labels, ten builds
	run stored 'import json, sys
print(len({json.loads(l)["build"] for l in open(sys.argv[1])}))'
	assert_output 10
	# a label whose build would be over SQUAD's 100 characters is refused
	fx_begin "$DB.long"
	fx_run "$(printf '+%.0s' $(seq 40))" b1
	fx_remove_case unlink
	fx_wall 100
	echo "INSERT INTO uploads (run_id, target) VALUES (1, 'squad');" >> "$FX_SQL"
	fx_end
	run "$BENCH" upload --config "$T/config.json" --db "$DB.long"
	assert_failure 65
	assert_output --partial "run $U1 failed: cannot make the upload of run $U1 from its rows: the label \"++++"
	assert_output --partial "makes a SQUAD build of more than the 100 characters it keeps"
}

@test "the example config's dashboard section is valid as it stands" {
	"$PY" -c 'import json, sys
c = json.load(open(sys.argv[1]))
assert c["dashboard"] is None
c["dashboard"] = c["#dashboard_example"]
c["database"] = sys.argv[3]
json.dump(c, open(sys.argv[2], "w"))' "$BATS_TEST_DIRNAME/../config.example.json" "$T/config.json" "$DB"
	fx_pending squad
	unset FOLIOBENCH_TOKEN
	run "$BENCH" upload --config "$T/config.json"
	assert_failure 78
	assert_output "bench: no dashboard token: the environment variable FOLIOBENCH_TOKEN is not set (dashboard.token_env)"
}

@test "https: the certificate is verified against ca_file, and refused without it" {
	mkdir "$T/tls"
	cd "$T/tls"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem \
		-days 2 -subj "/CN=foliobench test CA" 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr \
		-subj "/CN=127.0.0.1" 2>/dev/null
	echo "subjectAltName=IP:127.0.0.1" > ext
	openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key \
		-CAcreateserial -out srv.pem -days 2 -extfile ext 2>/dev/null
	openssl req -x509 -newkey rsa:2048 -nodes -keyout self.key -out self.pem \
		-days 2 -subj "/CN=127.0.0.1" \
		-addext "subjectAltName=IP:127.0.0.1" 2>/dev/null
	cd "$T"
	# a self-signed certificate: final at the first try (77), no retry
	dash_start --tls "$T/tls/self.pem" "$T/tls/self.key"
	# a TLS handshake on a loaded machine may take a while
	export DC_TIMEOUT=20s DC_CONNECT=20s
	DC_SCHEME=https DC_ATTEMPTS=3 dash_config json
	fx_pending json 2
	run "$BENCH" upload --config "$T/config.json"
	assert_failure 77
	assert_output "bench: run $U1 failed: cannot trust https://127.0.0.1:$PORT/runs: SSL certificate problem: self-signed certificate; give the CA that signed its certificate in dashboard.ca_file
bench: the dashboard's certificate is not trusted; runs stay queued: set dashboard.ca_file and run \`bench upload --failed\`"
	# one try; the second run was not tried (it would meet the same)
	run q "SELECT run_id, state, attempts FROM uploads ORDER BY run_id"
	assert_output "1|failed|1
2|pending|0"
	dash_stop
	q "DELETE FROM uploads WHERE run_id = 2"
	# signed by a CA the machine does not know: the same
	dash_start --tls "$T/tls/srv.pem" "$T/tls/srv.key"
	DC_SCHEME=https dash_config json
	run "$BENCH" upload --config "$T/config.json" --failed
	assert_failure 77
	assert_line --index 0 "bench: run $U1 failed: cannot trust https://127.0.0.1:$PORT/runs: SSL certificate problem: unable to get local issuer certificate; give the CA that signed its certificate in dashboard.ca_file"
	[ ! -s "$T/stored.jsonl" ]
	DC_SCHEME=https dash_config json ", \"ca_file\": \"$T/tls/ca.pem\""
	run "$BENCH" upload --config "$T/config.json" --failed
	assert_success
	assert_output "sent run $U1 (L1) to json: 201 {\"stored\": \"$U1\"}"
	# a ca_file that cannot be read is a configuration error
	DC_SCHEME=https dash_config json ", \"ca_file\": \"$T/tls/none.pem\""
	run "$BENCH" upload --config "$T/config.json" --run $U1
	assert_failure 78
	assert_output "bench: cannot read dashboard.ca_file $T/tls/none.pem: No such file or directory"
}

@test "a run whose rows cannot make a document fails alone; the others go on (65)" {
	dash_start
	dash_config json
	fx_pending json 2
	q "UPDATE runs SET config = '{broken' WHERE id = 1"
	run --separate-stderr "$BENCH" upload --config "$T/config.json"
	assert_failure 65
	assert_output "sent run $U2 (L1) to json: 201 {\"stored\": \"$U2\"}"
	assert_equal "$stderr" "bench: run $U1 failed: cannot make the upload of run $U1 from its rows: cannot read the run: malformed JSON"
	run q "SELECT run_id, state, claim_pid FROM uploads ORDER BY run_id"
	assert_output "1|failed|
2|sent|"
	run "$BENCH" export --db "$DB" --run $U1 --format run-json
	assert_failure 65
}

@test "nightly: a dashboard down for the night keeps the run; the next night sends both" {
	free_port
	dash_config squad
	FOLIOBENCH_BOOT_ID=night-1 run --separate-stderr "$BENCH" nightly --config "$T/config.json" --label L1 --quiet
	assert_success
	assert_line --regexp "^nightly: label L1, boot night-1, run [0-9a-f]{8} complete, cases 1 valid 0 invalid, kernel warnings [0-9]+, upload pending \(the dashboard is not reachable; the outbox keeps the run\), next boot: no plan\$"
	run q "SELECT state FROM uploads"
	assert_output pending
	dash_start
	dash_config squad
	FOLIOBENCH_BOOT_ID=night-2 run --separate-stderr "$BENCH" nightly --config "$T/config.json" --label L1 --quiet
	assert_success
	assert_line --regexp "^nightly: label L1, boot night-2, run [0-9a-f]{8} complete, .*, upload sent, next boot: no plan\$"
	run q "SELECT r.boot_id, u.state, u.attempts > 0 FROM uploads u JOIN runs r ON r.id = u.run_id ORDER BY r.id"
	assert_output "night-1|sent|1
night-2|sent|1"
	# environment: this host's name, made a slug
	env=$(hostname | sed 's/[^a-zA-Z0-9_.-]/-/g; s/^[^a-zA-Z0-9]*//')
	run cat "$T/requests.log"
	assert_output "POST /api/submit/mm/foliobench/L1/$env -> 201
POST /api/submit/mm/foliobench/L1/$env -> 201"
	# each run once, under its own job_id
	run stored 'import json, sys
print(len({json.loads(l)["job_id"] for l in open(sys.argv[1])}))'
	assert_output 2
}

@test "a 5xx after SQUAD stored the test run but not its metrics: the duplicate is checked, the run stays failed (65)" {
	dash_start
	dash_config squad
	fx_pending squad
	# the 500 stores half; the duplicate's check cannot reach the REST API
	printf 'half\nok\n503\n' > "$T/script"
	run --separate-stderr "$BENCH" upload --config "$T/config.json"
	assert_failure 75
	assert_output ""
	[[ "$stderr" == "bench: run $U1: try 1 of 3: http://127.0.0.1:$PORT/api/submit/mm/foliobench/L1/testhost answered 500: an HTML page; again in "*" s
bench: run $U1 stays pending after 2 tries: SQUAD has a test run of job_id $U1, and whether it holds the run's metrics cannot be checked: http://127.0.0.1:$PORT/api/testruns/?job_id=***&build__version=***&build__project__slug=***&build__project__group__slug=*** answered 503: an HTML page" ]]
	run q "SELECT state, sent_at IS NULL FROM uploads"
	assert_output "pending|1"
	# now SQUAD answers: the test run holds none of it
	run --separate-stderr "$BENCH" upload --config "$T/config.json"
	assert_failure 65
	assert_output ""
	assert_equal "$stderr" "bench: run $U1 failed: SQUAD holds test run 1 of job_id $U1 with 0 of its 3 metrics and 0 of its 4 tests (a try that failed stored it in part); delete that test run on SQUAD, then \`bench upload --failed\`"
	run q "SELECT state, sent_at IS NULL, last_error LIKE 'SQUAD holds test run 1 %' FROM uploads"
	assert_output "failed|1|1"
	run cat "$T/requests.log"
	assert_output "stored test run 1 without its metrics
POST /api/submit/mm/foliobench/L1/testhost -> 500
POST /api/submit/mm/foliobench/L1/testhost -> 400
GET /api/testruns/?job_id=$U1&build__version=L1&build__project__slug=foliobench&build__project__group__slug=mm -> 503
POST /api/submit/mm/foliobench/L1/testhost -> 400
GET /api/testruns/?job_id=$U1&build__version=L1&build__project__slug=foliobench&build__project__group__slug=mm -> 200
GET /api/metrics/?test_run=1&limit=4 -> 200
GET /api/tests/?test_run=1&limit=5 -> 200"
	run "$BENCH" runs --db "$DB"
	assert_line --regexp " squad failed: SQUAD holds test run 1 of job_id $U1 with 0 of its 3 metrics"
}

@test "a value stored as text or a blob is never sent (as 0): the run fails alone (65), for squad and json" {
	local target bad
	for target in squad json; do
		for bad in "'101 ms'" "x'00'"; do
			rm -f "$DB" "$T/requests.log"
			dash_start
			dash_config $target
			fx_pending $target 2
			q "UPDATE sample_values SET value = $bad WHERE metric = 'wall' AND sample_id = (SELECT min(s.id) FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.run_id = 1 AND s.valid = 1)"
			run --separate-stderr "$BENCH" upload --config "$T/config.json"
			assert_failure 65
			assert_equal "$stderr" "bench: run $U1 failed: cannot make the upload of run $U1 from its rows: sample_values row of sample 1 (run 1), metric wall, holds $([ "$bad" = "'101 ms'" ] && echo "text, not a number: '101 ms'" || echo "a blob, not a number: '\\x00'")"
			run q "SELECT run_id, state FROM uploads ORDER BY run_id"
			assert_output "1|failed
2|sent"
			# one POST, run 2's
			run grep -c . "$T/requests.log"
			assert_output 1
			dash_stop
			# nor printed as a run document
			run --separate-stderr "$BENCH" export --db "$DB" --run $U1 --format run-json
			assert_failure 65
			assert_equal "$output" ""
		done
	done
}

@test "values read back exactly (17 digits), with their unit; a unit over 30 characters is refused" {
	dash_start
	dash_config squad
	fx_begin "$DB"
	fx_run L1 b1
	fx_case shmem-remove '{"op":"unlink"}' wall:ns:lower ratio:a-unit-of-thirty-one-characters:higher
	fx_samples 1519.520263671875/1 0.1/2 123456789.12345679/3 1e-300/4
	echo "INSERT INTO uploads (run_id, target) VALUES (1, 'squad');" >> "$FX_SQL"
	fx_end
	run "$BENCH" upload --config "$T/config.json"
	assert_failure 65
	assert_output "bench: run $U1 failed: cannot make the upload of run $U1 from its rows: the unit \"a-unit-of-thirty-one-characters\" of shmem-remove/ratio is longer than the 30 characters SQUAD keeps"
	[ ! -s "$T/requests.log" ]
	q "UPDATE sample_values SET unit = 'x' WHERE metric = 'ratio'"
	run "$BENCH" upload --config "$T/config.json" --failed
	assert_success
	# Python reads each back as the double SQLite holds (repr: shortest exact)
	run stored 'import json, sys
m = json.loads(open(sys.argv[1]).readline())["metrics"]
for k, v in sorted(m.items()): print(k, v["unit"], *[repr(x) for x in v["value"]])'
	assert_output "shmem-remove/ratio[op=unlink] x 1.0 2.0 3.0 4.0
shmem-remove/wall[op=unlink] ns 1519.520263671875 0.1 123456789.12345679 1e-300"
	run sqlite3 "$DB" "SELECT count(*) FROM sample_values WHERE value IN (1519.520263671875, 0.1, 123456789.12345679, 1e-300)"
	assert_output 4
}

@test "names over SQUAD's 256 characters: params cut short with a hash, the full ones in the metadata; nothing dropped" {
	dash_start
	dash_config squad
	local dir=/dev/shm/$(printf 'd%.0s' $(seq 300))
	fx_begin "$DB"
	fx_run L1 b1
	fx_case shmem-remove "{\"op\":\"unlink\",\"dir\":\"$dir\"}" wall:ns:lower folios:count:lower
	fx_samples 100/1 x101/1
	fx_case shmem-remove "{\"op\":\"truncate\",\"dir\":\"$dir\"}" wall:ns:lower
	fx_samples 102
	echo "INSERT INTO uploads (run_id, target) VALUES (1, 'squad');" >> "$FX_SQL"
	fx_end
	run "$BENCH" upload --config "$T/config.json"
	assert_success
	# nothing dropped: SQUAD keeps all that was sent
	run grep -c "^dropped" "$T/requests.log"
	assert_output 0
	run stored 'import json, sys
r = json.loads(open(sys.argv[1]).readline())
d = "%2Fdev%2Fshm%2F" + "d" * 300
names = list(r["metrics"]) + list(r["tests"])
short = [n.split("/", 1)[1] for n in names]
print(len(names), len(set(names)), max(len(x) for x in short))
md = {k: v for k, v in r["metadata"].items() if k.startswith("params~")}
print(sorted(md.values()) == ["op=truncate,dir=" + d, "op=unlink,dir=" + d])
for n in sorted(names):
    h = n[n.rindex("~"):-1]
    print(n[:n.index("[")], len(h), md["params" + h].startswith(n[n.index("[") + 1:n.rindex("~")]))'
	assert_output "6 6 256
True
shmem-remove/folios 13 True
shmem-remove/verify-rep0 13 True
shmem-remove/verify-rep0 13 True
shmem-remove/verify-rep1 13 True
shmem-remove/wall 13 True
shmem-remove/wall 13 True"
}

@test "SQUAD's refusals: status and meaning, never a page; a private project answers 401" {
	dash_start --private
	dash_config squad
	fx_pending squad
	FOLIOBENCH_TOKEN=wrong run --separate-stderr "$BENCH" upload --config "$T/config.json"
	assert_failure 77
	assert_equal "${stderr_lines[0]}" "bench: run $U1 failed: the dashboard refused the token from the environment variable FOLIOBENCH_TOKEN: 401 Unauthorized (SQUAD's answer to a wrong token on a private project mm/foliobench)"
	[[ "$stderr" != *"<"* && "$stderr" != *"log in"* ]]
	run q "SELECT last_error FROM uploads"
	[[ "$output" != *"<"* ]]
	dash_stop
	# no such project: 404, SQUAD's JSON detail shown
	dash_start
	dash_config squad
	sed -i 's/"project": "foliobench"/"project": "other"/' "$T/config.json"
	run "$BENCH" upload --config "$T/config.json" --failed
	assert_failure 65
	assert_output "bench: run $U1 failed: http://127.0.0.1:$PORT/api/submit/mm/other/L1/testhost answered 404: SQUAD there has no group mm with a project other: {\"detail\": \"No Project matches the given query.\"}"
}

@test "credentials in the url are refused (78), shown masked; children never see the token" {
	local u
	for u in "http://h/runs?key=S3CRET" "https://h/x?a=1&api_token=S3CRET#f" "http://h/p?Auth=S3CRET"; do
		cat > "$T/config.json" <<JSON
{ "suite": [ { "workload": "shmem-remove", "size": "16M" } ],
  "dashboard": { "target": "json", "url": "$u" } }
JSON
		run "$BENCH" upload --config "$T/config.json"
		assert_failure 78
		[[ "$output" == "bench: $T/config.json: dashboard.url: \"http"*"\" holds a credential in its query; put the token in token_env or token_file" ]]
		[[ "$output" != *S3CRET* ]]
	done
	# SQUAD's url takes no query at all (its submit path is added to it)
	cat > "$T/config.json" <<JSON
{ "suite": [ { "workload": "shmem-remove", "size": "16M" } ],
  "dashboard": { "url": "http://h/?x=S3CRET", "group": "mm", "project": "p" } }
JSON
	run "$BENCH" upload --config "$T/config.json"
	assert_failure 78
	assert_output "bench: $T/config.json: dashboard.url: \"http://h/?x=***\" has a query or fragment; SQUAD's is the server's address (the submit path is added to it)"
	# a json url with a harmless query works, and messages mask its values
	free_port
	dash_config json
	sed -i "s|/runs\"|/runs?lab=S3CRET\"|" "$T/config.json"
	fx_pending json
	run "$BENCH" upload --config "$T/config.json"
	assert_failure 75
	assert_output --partial "cannot reach http://127.0.0.1:$PORT/runs?lab=***: "
	run q "SELECT last_error FROM uploads"
	[[ "$output" == *"/runs?lab=***: "* && "$output" != *S3CRET* ]]
	# gnuplot, a child of bench report, does not inherit the token
	printf '#!/bin/sh\nenv > "%s/child.env"\nexec gnuplot "$@"\n' "$T" > "$T/gp"
	chmod +x "$T/gp"
	FOLIOBENCH_GNUPLOT=$T/gp run "$BENCH" report --db "$DB" -o "$T/r.html" L1
	[ -s "$T/child.env" ]
	run grep -c "^FOLIOBENCH_TOKEN=" "$T/child.env"
	assert_output 0
	run grep -c "^FOLIOBENCH_GNUPLOT=" "$T/child.env"
	assert_output 1
}

@test "the database stays locked during an upload: 75 with the reason, not 74" {
	dash_start
	dash_config squad
	fx_pending squad
	# a writer holds the lock past the 10 s busy timeout
	"$PY" -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
time.sleep(13)' "$DB" "$T/locked" 3>&- &
	local holder=$!
	for _ in $(seq 100); do [ -e "$T/locked" ] && break; sleep 0.05; done
	run "$BENCH" upload --config "$T/config.json"
	kill $holder 2>/dev/null; wait $holder 2>/dev/null || true
	assert_failure 75
	assert_output "bench: cannot claim an upload: another process holds $DB locked, still after 10 s (write: database is locked)"
	[ ! -s "$T/requests.log" ]
}

@test "a SQUAD reply that lists other job ids, or metrics of other test runs, is said for what it held: the run stays pending (75), never failed on it" {
	dash_start
	dash_config squad
	fx_pending squad 2
	# U1 is stored whole; U2's first try stores its test run alone (500);
	# its check finds a REST API that filters nothing
	printf 'ok\nhalf\nok\nnofilter\n' > "$T/script"
	run --separate-stderr "$BENCH" upload --config "$T/config.json"
	assert_failure 75
	assert_equal "$(tail -n 1 <<< "$stderr")" "bench: run $U2 stays pending after 2 tries: SQUAD has a test run of job_id $U2, and whether it holds the run's metrics cannot be checked: its list of test runs of job_id $U2 holds 1 of other job ids ($U1): it did not filter by job_id"
	run q "SELECT run_id, state FROM uploads ORDER BY run_id"
	assert_output "1|sent
2|pending"
	# job_id filtered, test_run not: U1's metrics are no count of U2's
	printf 'ok\nok\nnofilter\n' > "$T/script"
	run --separate-stderr "$BENCH" upload --config "$T/config.json"
	assert_failure 75
	assert_equal "$(tail -n 1 <<< "$stderr")" "bench: run $U2 stays pending after 1 try: SQUAD has a test run of job_id $U2, and whether it holds the run's metrics cannot be checked: its list of the metrics of test run 2 holds 3 of other test runs: it did not filter by test_run"
	# SQUAD filters again: the test run holds none of the metrics
	run --separate-stderr "$BENCH" upload --config "$T/config.json"
	assert_failure 65
	assert_equal "$stderr" "bench: run $U2 failed: SQUAD holds test run 2 of job_id $U2 with 0 of its 3 metrics and 0 of its 4 tests (a try that failed stored it in part); delete that test run on SQUAD, then \`bench upload --failed\`"
	run q "SELECT run_id, state FROM uploads ORDER BY run_id"
	assert_output "1|sent
2|failed"
}
