#!/bin/sh
# shadow-truncate's setup, the read of its FUSE zero file into the page
# cache under the cgroup's limit (foliobench's read_mib_s: the reader's
# fill loop, timed by the reader), against bare references in the same
# run, each of the same SIZE:
#   shm    bench/probe/bare_fill: fallocate(2) of SIZE on /dev/shm, the
#          call alone timed: the host's rate of filling memory with zeroed
#          page-cache pages, with no FUSE request and no reclaim.
#   free   bench/probe/bare_shadow's read loop (1 MiB pread(2) of a FUSE
#          zero file the probe serves with what shadow-truncate's server
#          asks of the kernel: the writeback cache, so an empty reply is a
#          hole the kernel zero-fills; no open) in a memory cgroup without
#          a limit: the same pages through FUSE, nothing reclaimed.
#   fuse   the same loop in a cgroup with shadow-truncate's keep=ballast
#          reclaim=limit: a ballast of SIZE/8 and a limit of ballast +
#          SIZE/256 + 256 MiB, so that every page is reclaimed as the read
#          goes, as in the setup.  The bare FUSE read: the limit for what
#          the setup does.
# foliobench runs once with keep=ballast (the regime of fuse) and once
# with keep=pin (the default on FUSE: the published 200G case's), both
# reclaim=limit.  A round is shm free fuse fb:ballast fb:pin fuse free shm,
# so that a drift of the host falls on every side alike; each side's median
# over the rounds in MiB/s, then foliobench's over shm's and fuse's.  Its
# reader's and server's CPU seconds per GiB are printed too: on a shared
# host they move less than the rates do.  A benchmark, not a test: it needs
# root, a memory cgroup (v1 or v2) and SIZE x 1.25 of MemAvailable before
# each step.
#
#   sh bench/fill_vs_bare.sh [BENCH [PROBE_DIR]]       (make bench-fill)
#   environment: SIZE (8G), ROUNDS (3), RT (as shmem_vs_bare.sh)
set -eu

BENCH=${1:-build/bench}
PROBES=${2:-$(dirname "$BENCH")/probe}
SIZE=${SIZE:-8G}
ROUNDS=${ROUNDS:-3}
REPS=1
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fidelity.sh"

fid_checks bare_shadow
[ -x "$PROBES/bare_fill" ] || die "no $PROBES/bare_fill: run make probes"
size=$(numfmt --from=iec "$(echo "$SIZE" | tr a-z A-Z)") ||
	die "SIZE $SIZE is not a size"
[ $((size % 4096)) -eq 0 ] && [ "$size" -gt 0 ] ||
	die "SIZE $SIZE is not a positive number of 4 KiB pages"
fid_memcg fb-fidelity-fill.$$

TMP=$(mktemp -d /dev/shm/fb-fidelity.XXXXXX)
DBDIR=$(mktemp -d)
cleanup() {
	fid_umount "$TMP/fuse"
	fid_rmcg "$CG" || :
	fid_rmcg "$CG-free" || :
	rm -rf "$TMP" "$DBDIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir "$CG" "$CG-free"
echo "$limit" > "$CG/$LIMIT"
for keep in ballast pin; do
	cat > "$TMP/$keep.json" <<JSON
{ "database": "$DBDIR/fb.db", "runs": 1, "warmup": 0,
  "suite": [ { "workload": "shadow-truncate", "fs": "fuse",
	       "size": "$SIZE", "keep": "$keep", "reclaim": "limit" } ] }
JSON
done
pus=$(fid_pus "$BENCH" "$TMP/ballast.json" 1) ||
	die "the runner gives no PU to 1 worker"

# the memory a step needs must be free now, not taken from another's
room() {
	avail=$(awk '/^MemAvailable:/ { print $2 * 1024 }' /proc/meminfo)
	[ "$avail" -ge $((size + size / 4)) ] ||
		die "$1 needs $((size * 5 / 4 >> 20)) MiB available," \
		    "MemAvailable is $((avail >> 20)) MiB"
}

# SIZE over NS nanoseconds in MiB/s, a line
mib_s() {
	awk -v b="$size" -v ns="$1" \
		'BEGIN { printf "%.0f\n", b / 1048576 / (ns / 1e9) }'
}

shm_turn() {
	room "fallocate"
	ns=$($CH "$PROBES/bare_fill" "$TMP/shm" "$size") || return 1
	mib_s "$ns" | tee -a "$TMP/shm.rates"
}

# the bare read in cgroup $1 with a ballast of $2; its rate into $3.rates
bare_read() {
	room "the bare FUSE read"
	out=$($CH "$PROBES/bare_shadow" "fuse:$TMP/fuse" "$size" "$1" "$2" \
		"$pus") || return 1
	mib_s "$(echo "$out" | awk '{ print $4 }')" | tee -a "$TMP/$3.rates"
}

free_turn() { bare_read "$CG-free" 4096 free; }
fuse_turn() { bare_read "$CG" "$ballast" fuse; }

# one run of shadow-truncate with keep=$1: its rate, and CPU s/GiB kept
fb_turn() {
	room "foliobench"
	$CH "$BENCH" run --config "$TMP/$1.json" --quiet >/dev/null || {
		echo "foliobench failed (exit $?) on $TMP/$1.json" >&2
		return 1
	}
	sqlite3 -separator ' ' "$DBDIR/fb.db" "select
		cast(round(json_extract(verify, '$.read_mib_s')) as integer),
		json_extract(verify, '$.reader_cpu_s'),
		json_extract(verify, '$.server_cpu_s') from samples
		where id = (select max(id) from samples)" > "$TMP/fb.row"
	read -r rate rcpu scpu < "$TMP/fb.row"
	[ -n "$rate" ] || die "foliobench recorded no read_mib_s"
	echo "$rate" >> "$TMP/fb-$1.rates"
	awk -v r="$rcpu" -v s="$scpu" -v b="$size" 'BEGIN {
		g = b / 1073741824; printf "%.3f %.3f\n", r / g, s / g }' \
		>> "$TMP/fb-$1.cpu"
	echo "$rate"
}

echo "shadow-truncate's setup against bare fills: $SIZE, ballast" \
     "$((ballast >> 20)) MiB, limit $((limit >> 20)) MiB, $ROUNDS rounds" \
     "of shm free fuse fb:ballast fb:pin fuse free shm" \
     "(MiB/s)${CH:+, under $CH}"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	printf 'round %d ' "$r"
	for t in shm free fuse fb:ballast fb:pin fuse free shm; do
		case $t in
		fb:*) v=$(fb_turn "${t#fb:}") ;;
		*) v=$("${t}_turn") ;;
		esac || exit 1
		printf ' %s %s' "$t" "$v"
	done
	echo
	r=$((r + 1))
done
shm=$(fid_median < "$TMP/shm.rates")
free=$(fid_median < "$TMP/free.rates")
fuse=$(fid_median < "$TMP/fuse.rates")
echo "medians (MiB/s): shm fallocate $shm, bare FUSE read without a limit" \
     "$free, bare FUSE read under the limit $fuse"
for keep in ballast pin; do
	fb=$(fid_median < "$TMP/fb-$keep.rates")
	rc=$(awk '{ print $1 }' "$TMP/fb-$keep.cpu" | fid_median)
	sc=$(awk '{ print $2 }' "$TMP/fb-$keep.cpu" | fid_median)
	awk -v k="$keep" -v fb="$fb" -v shm="$shm" -v fuse="$fuse" \
	    -v rc="$rc" -v sc="$sc" 'BEGIN {
		printf "foliobench keep=%s: %d MiB/s, %.2f of the fallocate," \
		       " %.2f of the bare FUSE read; CPU s/GiB reader %.3f" \
		       " server %.3f\n", k, fb, fb / shm, fb / fuse, rc, sc }'
done
