#!/bin/sh
# small-truncate's p50 against a bare truncate loop (bench/probe/
# bare_truncate.c: write PAGES pages, time ftruncate to 0, COUNT times,
# nothing else), both on one ext4 on a loop device over a file in
# /dev/shm, in blocks bare X X bare; a turn is REPS runs (each run's p50;
# the block reads the turns' median and least).  Short turns and many
# blocks: this host's speed moves over seconds, and a block of four runs
# of 200 truncates (about 2 s) sees one speed, where one of 2000-truncate
# runs did not: on 2026-12-02, 60 blocks of 200 gave an interval of +-1.6%
# in 2 minutes, 10 blocks of 2 x 2000 one of +-2-4% in 12.  With threads N, the loop runs N threads on the PUs the
# runner gives its workers, released together, and its p50 is over every
# thread's truncates, as small-truncate's.  Prints each block's ratio,
# then one line a case with a 95% interval, as bench/shmem_vs_bare.sh.
# A benchmark, not a test: it needs root (the loop device and mount).
#
#   sh bench/smalltrunc_vs_bare.sh [BENCH [PROBE_DIR]]  (make bench-smalltrunc)
#   environment: COUNT (200), PAGES (1024), WSIZE (64k), ROUNDS (60),
#     REPS (1), CASES (threads[:mode] ..., "1 2"), RT (as shmem_vs_bare.sh)
set -eu

BENCH=${1:-build/bench}
PROBES=${2:-$(dirname "$BENCH")/probe}
COUNT=${COUNT:-200}
PAGES=${PAGES:-1024}
WSIZE=${WSIZE:-64k}
ROUNDS=${ROUNDS:-60}
REPS=${REPS:-1}
CASES=${CASES:-1 2}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fidelity.sh"

fid_checks bare_truncate
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 is not installed"
wsb=$(numfmt --from=iec "$(echo "$WSIZE" | tr a-z A-Z)") ||
	die "WSIZE $WSIZE is not a size"

TMP=$(mktemp -d /dev/shm/fb-fidelity.XXXXXX)
DBDIR=$(mktemp -d)
MNT=$DBDIR/ext4
cleanup() {
	mountpoint -q "$MNT" && umount "$MNT"
	rm -rf "$TMP" "$DBDIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

truncate -s 1G "$TMP/ext4.img"
mkfs.ext4 -q -F "$TMP/ext4.img" || die "mkfs.ext4 failed"
mkdir "$MNT"
mount -o loop "$TMP/ext4.img" "$MNT" || die "cannot mount ext4 on a loop device"
mkdir "$MNT/bare" "$MNT/fb"

threads= mode= pus= cfg=

bare_turn() {
	i=0
	while [ $i -lt "$REPS" ]; do
		$CH "$PROBES/bare_truncate" "$MNT/bare" "$COUNT" "$PAGES" \
			"$wsb" "$pus" > "$TMP/bare.out" || return 1
		awk '{ print $1 / 1e6 }' "$TMP/bare.out"
		i=$((i + 1))
	done
}

fb_turn() { fid_fb_turn "$BENCH" "$cfg" "$DBDIR/fb.db" p50; }

echo "small-truncate p50 against a bare truncate loop: $COUNT truncates of" \
     "$PAGES pages in $WSIZE writes, $ROUNDS rounds of blocks bare X X bare," \
     "$REPS runs a turn${CH:+, under $CH}"
: > "$TMP/rows"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for c in $CASES; do
		threads=$(echo "$c" | cut -d: -f1)
		mode=$(echo "$c" | cut -d: -f2 -s)
		cfg=$TMP/config.json
		cat > "$cfg" <<JSON
{ "database": "$DBDIR/fb.db", "runs": $REPS, "warmup": 0,
  "suite": [ { "workload": "small-truncate", "dir": "$MNT/fb",
	       "count": $COUNT, "pages": $PAGES, "wsize": "$WSIZE",
	       "threads": $threads, "mode": "${mode:-threads}" } ] }
JSON
		fid_case "$TMP/rows" "$r" "small-truncate:t$threads${mode:+:$mode}" \
			"$cfg" "$threads" bare_turn fb_turn || exit 1
	done
	r=$((r + 1))
done
echo
fid_summary "$TMP/rows"
