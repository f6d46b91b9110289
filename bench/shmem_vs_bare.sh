#!/bin/sh
# shmem-remove against the bare call it stands for: for each op x folio x
# size, a bare probe (bench/probe/bare_remove.c: fallocate the file, time
# the one call with CLOCK_MONOTONIC, nothing else) and foliobench's
# shmem-remove, in blocks bare X X bare; a turn is REPS timed calls after
# one untimed warm-up, read as their median and their least.  Blocks go
# round the cases ROUNDS times, so that a drift of the machine falls on
# every case alike.  What narrows the interval is the number of timed
# calls, not how they are grouped: on 2026-12-02 (a host whose calls
# scattered by 5-10% one to the next) 8 blocks of 5 calls a turn and 30
# blocks of 1 gave unlink 4K 2G intervals of +-2.9% and +-2.4%.  With
# threads N, the probe runs N threads on the PUs the runner gives its
# workers, each filling and removing its own file, released together.
# Prints each block's ratio, then one line a case: the geometric means of
# the turns and of the blocks' ratios with a 95% interval.  Within
# [0.98, 1.02] the harness cannot be told from the bare call.  A
# benchmark, not a test: it needs root (a huge=always tmpfs, the
# shmem_enabled knob for memfds) and SIZE x threads free in /dev/shm.
#
#   sh bench/shmem_vs_bare.sh [BENCH [PROBE_DIR]]      (make bench-shmem)
#   environment: SIZES ("2G 8G"), ROUNDS (5), REPS (3),
#     CASES (op:folio[:threads[:mode]] ..., default every op x 4k, pmd),
#     RT (set: probe and runner both under chrt -f 10, for a loaded host),
#     PROFILE (1: foliobench's calls profiled, `bench run --profile`, so
#     that the ratio against a run without says what profiling costs)
set -eu

BENCH=${1:-build/bench}
PROBES=${2:-$(dirname "$BENCH")/probe}
SIZES=${SIZES:-2G 8G}
ROUNDS=${ROUNDS:-5}
REPS=${REPS:-3}
CASES=${CASES:-ftruncate:4k punch-hole:4k memfd-close:4k unlink:4k \
ftruncate:pmd punch-hole:pmd memfd-close:pmd unlink:pmd}
case ${PROFILE:-0} in
0) PROF=false ;;
1) PROF=true ;;
*) echo "shmem_vs_bare: PROFILE=$PROFILE: 0 or 1" >&2; exit 1 ;;
esac
HERE=$(cd "$(dirname "$0")" && pwd)
THP=/sys/kernel/mm/transparent_hugepage
. "$HERE/fidelity.sh"

fid_checks bare_remove

TMP=$(mktemp -d /dev/shm/fb-fidelity.XXXXXX)
DBDIR=$(mktemp -d)	# not on tmpfs, or the runner warns
KNOB=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$THP/shmem_enabled")
cleanup() {
	mountpoint -q "$TMP/huge" && umount "$TMP/huge"
	echo "$KNOB" > "$THP/shmem_enabled"
	rm -rf "$TMP" "$DBDIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

maxb=0 maxt=1
for s in $SIZES; do
	b=$(numfmt --from=iec "$(echo "$s" | tr a-z A-Z)") ||
		die "SIZES: $s is not a size"
	[ "$b" -le "$maxb" ] || maxb=$b
done
for c in $CASES; do
	t=$(echo "$c" | cut -d: -f3)
	[ -z "$t" ] || [ "$t" -le "$maxt" ] || maxt=$t
done
mkdir "$TMP/huge" "$TMP/4k"
mount -t tmpfs -o "huge=always,size=$((maxb * maxt + (64 << 20)))" \
	fb-fidelity "$TMP/huge" || die "cannot mount a huge=always tmpfs"

# set by each case
op= folio= threads= mode= size= sizeb= pus= cfg=

bare_turn() {
	d=$TMP/4k
	[ "$folio" = 4k ] || d=$TMP/huge
	if [ "$op" = memfd-close ]; then	# memfds follow the knob
		if [ "$folio" = 4k ]; then echo never; else echo always; fi \
			> "$THP/shmem_enabled"
	fi
	_rc=0
	$CH "$PROBES/bare_remove" "$op" "$sizeb" "$d" $((REPS + 1)) "$pus" \
		> "$TMP/bare.out" || _rc=$?
	echo "$KNOB" > "$THP/shmem_enabled"
	[ "$_rc" -eq 0 ] || { echo "bare_remove failed (exit $_rc)" >&2; return 1; }
	tail -n +2 "$TMP/bare.out" | awk '{ print $1 / 1e6 }'
}

fb_turn() { fid_fb_turn "$BENCH" "$cfg" "$DBDIR/fb.db" wall; }

echo "shmem-remove against the bare call: sizes $SIZES, $ROUNDS rounds of" \
     "blocks bare X X bare, $REPS calls a turn${CH:+, under $CH}" \
     "$([ "$PROF" = false ] || echo ", foliobench's calls profiled")"
: > "$TMP/rows"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for size in $SIZES; do
		sizeb=$(numfmt --from=iec "$(echo "$size" | tr a-z A-Z)")
		for c in $CASES; do
			op=$(echo "$c" | cut -d: -f1)
			folio=$(echo "$c" | cut -d: -f2)
			threads=$(echo "$c" | cut -d: -f3)
			mode=$(echo "$c" | cut -d: -f4)
			cfg=$TMP/config.json
			cat > "$cfg" <<JSON
{ "database": "$DBDIR/fb.db", "runs": $REPS, "warmup": 1, "profile": $PROF,
  "suite": [ { "workload": "shmem-remove", "op": "$op", "size": "$size",
	       "folio": "$folio", "threads": ${threads:-1},
	       "mode": "${mode:-threads}" } ] }
JSON
			fid_case "$TMP/rows" "$r" \
				"$op:$folio:$size${threads:+:t$threads}${mode:+:$mode}" \
				"$cfg" "${threads:-1}" bare_turn fb_turn || exit 1
		done
	done
	r=$((r + 1))
done
echo
fid_summary "$TMP/rows"
