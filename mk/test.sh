#!/bin/sh
# Run every test: C unit tests, the fuzz harnesses over their regression
# corpus, then the bats files.  All speak TAP; the last line is the count
# CI reads: "N passed, N failed".  A program that crashes, exits non-zero
# without a "not ok", or whose plan ("1..N") does not match the number of
# results it printed counts as one more failure.
B=${1:-build}
export FB_BIN="$PWD/$B/bench" FB_BUILD="$PWD/$B"
log=$(mktemp)
out=$(mktemp)
st=$(mktemp)
trap 'rm -f "$log" "$out" "$st"' EXIT
# Killed from outside (a CI or tool time limit, ^C), the count must say so:
# a run cut short is not a run whose tests all passed.
sig=
trap 'sig=INT' INT
trap 'sig=TERM' TERM
trap 'sig=HUP' HUP

# check NAME STATUS: $out holds what NAME printed; judge it, add it to $log
check() {
	name=$1 status=$2
	cat "$out" >> "$log"
	results=$(grep -cE '^(not )?ok ' "$out")
	failed=$(grep -c '^not ok ' "$out")
	plans=$(grep -cE '^1\.\.[0-9]+' "$out")
	plan=$(grep -E '^1\.\.[0-9]+' "$out" | head -n 1 | sed 's/^1\.\.\([0-9]*\).*/\1/')
	why=
	if [ "$status" -gt 128 ]; then
		why="killed by signal $((status - 128))"
	elif [ "$plans" -ne 1 ]; then
		why="printed $plans TAP plans, not one"
	elif [ "$plan" -ne "$results" ]; then
		why="planned $plan tests, printed $results results"
	elif [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
		why="exited with status $status and no failed test"
	fi
	if [ -n "$why" ]; then
		echo "not ok - $name: $why" | tee -a "$log"
	fi
}

for t in "$B"/tests/test_*; do
	[ -z "$sig" ] || break
	[ -x "$t" ] || continue
	echo "# $t"
	{ "$t" 2>&1; echo $? > "$st"; } | tee "$out"
	check "$t" "$(cat "$st")"
done
# every committed input of a fuzz harness still passes (regression inputs)
for h in build/fuzz/fuzz_*; do
	[ -z "$sig" ] || break
	[ -x "$h" ] || continue
	name=${h##*/}
	dir=tests/fuzz/corpus/${name#fuzz_}
	echo "# $h $dir"
	# each file once, no fuzzing
	"$h" "$dir"/* > "$out.fz" 2>&1
	status=$?
	n=$(find "$dir" -type f | wc -l)
	if [ "$status" -eq 0 ]; then
		printf '1..1\nok 1 - %s: %s corpus inputs\n' "$name" "$n" > "$out"
	else
		tail -n 30 "$out.fz"
		printf '1..1\nnot ok 1 - %s: fails on its corpus (status %s)\n' \
			"$name" "$status" > "$out"
	fi
	rm -f "$out.fz"
	cat "$out"
	check "$h" 0
done
if [ -n "$BATS_FILES" ]; then
	files=$BATS_FILES
else
	files=$(ls tests/*.bats)
fi
if [ -z "$sig" ]; then
	# shellcheck disable=SC2086
	{ bats --tap $files 2>&1; echo $? > "$st"; } | tee "$out"
	check bats "$(cat "$st")"
fi
if [ -n "$sig" ]; then
	echo "not ok - interrupted by SIG$sig: only the tests above ran" |
		tee -a "$log"
fi
pass=$(grep -c '^ok ' "$log")
fail=$(grep -c '^not ok ' "$log")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
