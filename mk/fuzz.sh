#!/bin/sh
# Run each libFuzzer harness for a while: mk/fuzz.sh BUILD_DIR SECONDS.
# New inputs go to BUILD_DIR/corpus/NAME (the committed corpus under
# tests/fuzz/corpus/NAME is read, never written); a crash is written to
# BUILD_DIR/artifacts/ and counts as a failure.  Prints TAP lines and the
# "N passed, N failed" count CI reads.
FZ=${1:-build/fuzz}
S=${2:-60}
pass=0 fail=0
for h in "$FZ"/fuzz_*; do
	[ -x "$h" ] || continue
	name=${h##*/}
	seeds=tests/fuzz/corpus/${name#fuzz_}
	mkdir -p "$FZ/corpus/${name#fuzz_}" "$FZ/artifacts"
	log=$FZ/$name.log
	"$h" -max_total_time="$S" -print_final_stats=1 -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="$FZ/artifacts/$name-" \
		"$FZ/corpus/${name#fuzz_}" "$seeds" > "$log" 2>&1
	status=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	units=$(find "$FZ/corpus/${name#fuzz_}" -type f | wc -l)
	cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1)
	if [ "$status" -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok - $name: ${execs:-?} executions in $S s, $cov, $units corpus inputs found, no crash"
	else
		fail=$((fail + 1))
		tail -n 40 "$log"
		echo "not ok - $name: status $status after ${execs:-?} executions; see $log and $FZ/artifacts/"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
