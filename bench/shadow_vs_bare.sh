#!/bin/sh
# shadow-truncate's timed truncate against the bare call (bench/probe/
# bare_shadow.c: a file read by a child in a memory cgroup with a mlocked
# ballast, the rest reclaimed, then truncate(2) to 0 timed with
# CLOCK_MONOTONIC and nothing else), both on a FUSE zero file (FS=fuse,
# the seed's and the workload's default; the probe serves its own) or a
# sparse file in DIR on a disk filesystem (FS=dir: large folios, few
# entries, a short and scattered call), the same SIZE, the same ballast
# (1/8) and the same limit (ballast + SIZE/256 + 256 MiB, as
# shadow-truncate's keep=ballast reclaim=limit), in blocks bare X X bare;
# a turn is REPS fills and truncates (the block reads the turns' median
# and least).  One run a turn and many blocks: on 2026-12-02 a block of
# four runs took 8 s, and 60 of them (8 minutes) gave an interval of
# +-2.3% where 10 blocks of 3 runs had given +-4%.  Each run's shadow entries are
# kept: the two sides are held against each other only if they found the
# same state, which the last line says.  A benchmark, not a test: it needs
# root (a memory cgroup, v1 or v2) and SIZE x 1.2 free memory.
#
#   sh bench/shadow_vs_bare.sh [BENCH [PROBE_DIR]]     (make bench-shadow)
#   environment: SIZE (2G), FS (fuse), DIR (/var/tmp), ROUNDS (60), REPS (1),
#     RT (as shmem_vs_bare.sh)
set -eu

BENCH=${1:-build/bench}
PROBES=${2:-$(dirname "$BENCH")/probe}
SIZE=${SIZE:-2G}
FS=${FS:-fuse}
DIR=${DIR:-/var/tmp}
ROUNDS=${ROUNDS:-60}
REPS=${REPS:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fidelity.sh"

fid_checks bare_shadow
case $FS in
fuse|dir) ;;
*) die "FS $FS is not fuse or dir" ;;
esac
[ "$FS" = fuse ] || [ -d "$DIR" ] || die "DIR $DIR is not a directory"
size=$(numfmt --from=iec "$(echo "$SIZE" | tr a-z A-Z)") ||
	die "SIZE $SIZE is not a size"
fid_memcg fb-fidelity-shadow.$$

TMP=$(mktemp -d /dev/shm/fb-fidelity.XXXXXX)
DBDIR=$(mktemp -d)
cleanup() {
	fid_umount "$TMP/fuse"
	rm -f "$DIR/fb-bare-shadow.$$"
	fid_rmcg "$CG" || :
	rm -rf "$TMP" "$DBDIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir "$CG"
echo "$limit" > "$CG/$LIMIT"
cat > "$TMP/config.json" <<JSON
{ "database": "$DBDIR/fb.db", "runs": $REPS, "warmup": 0,
  "suite": [ { "workload": "shadow-truncate", "fs": "$FS", "dir": "$DIR",
	       "size": "$SIZE", "keep": "ballast", "reclaim": "limit" } ] }
JSON
target=$DIR/fb-bare-shadow.$$
[ "$FS" = dir ] || target=fuse:$TMP/fuse
pus=$(fid_pus "$BENCH" "$TMP/config.json" 1) ||
	die "the runner gives no PU to 1 worker"

bare_turn() {
	i=0
	while [ $i -lt "$REPS" ]; do
		$CH "$PROBES/bare_shadow" "$target" "$size" \
			"$CG" "$ballast" "$pus" || return 1
		i=$((i + 1))
	done > "$TMP/bare.out"
	awk '{ print $2 }' "$TMP/bare.out" >> "$TMP/bare.entries"
	awk '{ print $1 / 1e6 }' "$TMP/bare.out"
}

fb_turn() {
	fid_fb_turn "$BENCH" "$TMP/config.json" "$DBDIR/fb.db" wall
}

where=$DIR
[ "$FS" = dir ] || where="a FUSE zero file"
echo "shadow-truncate's truncate against the bare call: $SIZE in $where," \
     "ballast $((ballast >> 20)) MiB, limit $((limit >> 20)) MiB, $ROUNDS" \
     "rounds of blocks bare X X bare, $REPS runs a turn${CH:+, under $CH}"
: > "$TMP/rows"
: > "$TMP/bare.entries"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	printf 'round %d  ' "$r"
	fid_block "$TMP/rows" "shadow-truncate:$FS:$SIZE" bare_turn fb_turn ||
		exit 1
	r=$((r + 1))
done
echo
fid_summary "$TMP/rows"
bare=$(fid_median < "$TMP/bare.entries")
fb=$(sqlite3 "$DBDIR/fb.db" "select v.value from sample_values v join
	samples s on s.id = v.sample_id where v.metric = 'shadow_entries'
	and s.warmup = 0 and s.valid = 1" | fid_median)
echo "shadow entries found by the timed call (median): bare $bare," \
     "foliobench $fb"
