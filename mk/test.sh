#!/bin/sh
# Run every test: C unit tests, then the bats files.  All speak TAP; the
# last line is the count CI reads: "N passed, N failed".
B=${1:-build}
export FB_BIN="$PWD/$B/bench" FB_BUILD="$PWD/$B"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in "$B"/tests/test_*; do
	[ -x "$t" ] || continue
	echo "# $t"
	"$t" 2>&1 | tee -a "$log"
done
if [ -n "$BATS_FILES" ]; then
	files=$BATS_FILES
else
	files=$(ls tests/*.bats)
fi
bats --tap $files 2>&1 | tee -a "$log"
pass=$(grep -c '^ok ' "$log")
fail=$(grep -c '^not ok ' "$log")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
