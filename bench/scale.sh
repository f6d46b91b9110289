#!/bin/sh
# How the reading commands grow with a lab's database (make bench-scale):
#
#   sh bench/scale.sh SEED_BENCH DIR [BENCH]
#
# Makes (once, cached in DIR) databases of SIZES samples (default 10^4,
# 10^5, 10^6) with bench/scale_db.sh, then times each command on a copy of
# each (so that every binary reads the same file, at the schema it was
# made with, and migrates its own copy), REPEAT times (default 3), and
# prints a table: the median wall time and CPU time (user + system, of
# the command and its children: gnuplot) at each size, the growth per 10x
# of the CPU time between the two largest sizes (wall time on a shared
# machine is mostly the wait for a CPU), and the largest maximum RSS at
# the largest size.  Merge is timed into a new file and into one that
# holds the input's runs already.  BENCH is the binary timed (default
# SEED_BENCH): another build's binary gives the table before a change.
# The two labels read are one kernel pair of the lab's twelve.
set -eu

SEED_BENCH=$1 DIR=$2 BENCH=${3:-$1}
SIZES=${SIZES:-10000 100000 1000000}
REPEAT=${REPEAT:-3}
BASE=6.18.0-lab05 PATCH=6.18.0-lab05+patch
WORK=$DIR/work.$$

for n in $SIZES; do
	sh "$(dirname "$0")/scale_db.sh" "$SEED_BENCH" "$DIR" "$n" > /dev/null
done
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT INT TERM

# name|arguments (D: the database, O: an output file, N: a database made
# anew each time, M: one that holds D's runs already)
CMDS='compare BASE PATCH (text)|compare --db D BASE PATCH
compare --format json|compare --db D --format json BASE PATCH
compare --aa|compare --db D --aa BASE
plan BASE PATCH|plan --db D BASE PATCH
export BASE|export --db D BASE
export --format benchstat|export --db D --format benchstat BASE
report BASE PATCH|report --db D -o O BASE PATCH
runs|runs --db D
merge OUT IN (new OUT)|merge N D
merge OUT IN (IN merged already)|merge M D'

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "binary: $BENCH; labels $BASE and $PATCH; median of $REPEAT"
for n in $SIZES; do
	db=$WORK/scale-$n.db
	rm -f "$db" "$db-wal" "$db-shm"
	cp "$DIR/scale-$n.db" "$db"
	"$BENCH" runs --db "$db" > /dev/null	# migrate the copy, warm up
	samples=$(sqlite3 "$db" "SELECT count(*) FROM samples")
	labels=$(sqlite3 "$db" "SELECT count(*) FROM samples s JOIN cases c
		ON c.id = s.case_id JOIN runs r ON r.id = c.run_id
		WHERE r.label IN ('$BASE', '$PATCH')")
	echo "$n: $samples samples, $labels of them in the two labels" >&2
	rm -f "$WORK"/merged.db*
	"$BENCH" merge "$WORK/merged.db" "$db" > /dev/null
	echo "$CMDS" | while IFS='|' read -r name args; do
		args=$(for a in $args; do case $a in
			BASE) echo "$BASE" ;; PATCH) echo "$PATCH" ;;
			D) echo "$db" ;; O) echo "$WORK/out.html" ;;
			N) echo "$WORK/new.db" ;; M) echo "$WORK/merged.db" ;;
			*) echo "$a" ;; esac; done)
		i=0
		while [ $i -lt "$REPEAT" ]; do
			rc=0
			rm -f "$WORK"/new.db*
			# shellcheck disable=SC2086
			/usr/bin/time -f '%e %M %U %S' -o "$WORK/time" \
				"$BENCH" $args > "$WORK/out" 2> "$WORK/err" ||
				rc=$?
			if [ $rc -ge 64 ]; then
				echo "scale: $name at $n exits $rc:" >&2
				cat "$WORK/err" >&2
			fi
			tail -n 1 "$WORK/time"
			i=$((i + 1))
		done > "$WORK/times"
		printf '%s|%s|%s|%s|%s\n' "$name" "$n" \
			"$(cut -d' ' -f1 "$WORK/times" | median)" \
			"$(cut -d' ' -f2 "$WORK/times" | sort -n | tail -n 1)" \
			"$(awk '{ print $3 + $4 }' "$WORK/times" | median)"
	done
done > "$WORK/all"

awk -F'|' -v sizes="$SIZES" '
BEGIN { ns = split(sizes, sz, " ") }
{ if (!($1 in seen)) { seen[$1] = 1; order[++nc] = $1 }
  t[$1, $2] = $3; rss[$1, $2] = $4; cpu[$1, $2] = $5 }
END {
	printf "| command |"
	for (i = 1; i <= ns; i++) printf " %s samples: wall (CPU) |", sz[i]
	printf " CPU growth per 10x at the top | max RSS at %s |\n", sz[ns]
	printf "| --- |"
	for (i = 1; i <= ns + 2; i++) printf " --- |"
	printf "\n"
	for (c = 1; c <= nc; c++) {
		k = order[c]
		printf "| `%s` |", k
		for (i = 1; i <= ns; i++)
			printf " %.2f s (%.2f s) |", t[k, sz[i]], cpu[k, sz[i]]
		a = cpu[k, sz[ns - 1]]; b = cpu[k, sz[ns]]
		f = log(sz[ns] / sz[ns - 1]) / log(10)
		if (ns > 1 && a > 0)
			printf " %.1fx |", (b / a) ^ (1 / f)
		else
			printf " - |"
		printf " %d MiB |\n", rss[k, sz[ns]] / 1024
	}
}' "$WORK/all"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
