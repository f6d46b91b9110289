#!/bin/sh
# shmem-remove's unlink against the bare measurement it replaces, in one
# go: `fallocate -l SIZE /dev/shm/f && time rm /dev/shm/f`, ROUNDS times,
# then foliobench's shmem-remove op=unlink (ROUNDS runs after one warm-up),
# and foliobench's median as a ratio of rm's.  rm includes its own exec
# and taskset's (about a millisecond), so a ratio a little under 1 is the harness being
# invisible.  A benchmark, not a test: run it on an idle machine.
#
#   sh bench/shmem_vs_rm.sh [BENCH]        (make bench-shmem)
#   environment: SIZE (8G), ROUNDS (5)
set -eu

BENCH=${1:-build/bench}
SIZE=${SIZE:-8G}
ROUNDS=${ROUNDS:-5}

die() { echo "shmem_vs_rm: $*" >&2; exit 1; }

[ -x "$BENCH" ] || die "no $BENCH: run make first"
command -v sqlite3 >/dev/null || die "sqlite3 is not installed"

TMP=$(mktemp -d /dev/shm/fb-rm.XXXXXX)
DBDIR=$(mktemp -d)
trap 'rm -rf "$TMP" "$DBDIR"' EXIT
trap 'exit 130' INT TERM

median() { sort -g | awk '{ v[NR] = $1 } END {
	if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

cat > "$TMP/config.json" <<JSON
{ "database": "$DBDIR/fb.db", "runs": $ROUNDS, "warmup": 1,
  "suite": [ { "workload": "shmem-remove", "op": "unlink", "size": "$SIZE",
	       "folio": "4k" } ] }
JSON
# rm runs on the CPU foliobench measures on, as foliobench does
CPU=$("$BENCH" check --config "$TMP/config.json" 2>/dev/null |
      sed -n 's/.*measuring on CPU \([0-9]*\)$/\1/p') || true
[ -n "$CPU" ] || CPU=$(($(nproc) - 1))

echo "unlink of a $SIZE /dev/shm file of 4K folios, $ROUNDS rounds each, on CPU $CPU"
i=0
: > "$TMP/rm.ms"
while [ $i -lt "$ROUNDS" ]; do
	fallocate -l "$SIZE" "$TMP/f"
	t0=$(date +%s%N)
	taskset -c "$CPU" rm "$TMP/f"
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) / 1e6 }' \
		>> "$TMP/rm.ms"
	i=$((i + 1))
done
rm_med=$(median < "$TMP/rm.ms")

"$BENCH" run --config "$TMP/config.json" --quiet >/dev/null ||
	die "bench run failed"
sqlite3 "$DBDIR/fb.db" "SELECT value / 1e6 FROM sample_values v
	JOIN samples s ON s.id = v.sample_id
	WHERE v.metric = 'wall' AND s.warmup = 0 AND s.valid = 1" > "$TMP/fb.ms"
fb_med=$(median < "$TMP/fb.ms")

printf 'time rm     %s ms (median; all: %s)\n' "$rm_med" "$(tr '\n' ' ' < "$TMP/rm.ms")"
printf 'foliobench  %s ms (median; all: %s)\n' "$fb_med" \
	"$(awk '{ printf "%.1f ", $1 }' "$TMP/fb.ms")"
rm_min=$(sort -g "$TMP/rm.ms" | head -n 1)
fb_min=$(sort -g "$TMP/fb.ms" | head -n 1)
awk -v f="$fb_med" -v r="$rm_med" -v fm="$fb_min" -v rmm="$rm_min" \
	'BEGIN { printf "foliobench / rm = %.3f (medians), %.3f (minima)\n",
		 f / r, fm / rmm }'
