#!/bin/sh
# make bench-control: the positive controls of issue 26.  The seeds' own
# patches (kernel/patches/) built into Linux 6.12.118 (Debian's
# linux-source-6.12, which predates seeds 000 and 002), each booted against
# the same tree without them in 1-vCPU guests under counting mode (QEMU's
# TCG with -icount shift=0: every "time" is a count of guest instructions),
# BOOTS boots a kernel in ABAB/BAAB order by `bench lab`, and the tables
# `bench compare` makes of them.  Then the null control (the base against
# the base built again: the same code, another build) and, once, the two
# seeds in timed TCG (TIMED_BOOTS boots a kernel), to show whether time
# sees what counts see.  A benchmark, not a test: it builds four kernels
# (the first from scratch, tens of minutes on 2 CPUs) and boots many guests.
#
#   make bench-control [SRC=linux-source-6.12_*.deb|tree|tarball]
#       [BOOTS=4] [TIMED_BOOTS=2] [CONTROLS="seed000 seed002 null timed"]
#       [OUT=build/control]
#
# SRC: default, Debian's linux-source-6.12 fetched with apt-get download
# into the kernel cache.  The databases, the tables and a summary land in
# OUT (control-*.db, *.txt, summary.txt).
set -eu

BENCH=${1:-build/bench}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BOOTS=${BOOTS:-4}
TIMED_BOOTS=${TIMED_BOOTS:-2}
CONTROLS=${CONTROLS:-seed000 seed002 null timed}
OUT=${OUT:-build/control}
KC=${FOLIOBENCH_KERNEL_CACHE:-/var/cache/foliobench/kernels}
P000=$ROOT/kernel/patches/seed000-shmem-batch-remove.patch
P002=$ROOT/kernel/patches/seed002-shadow-truncate.patch
VM="--accel icount --smp 1 --sockets 1 --mem 2G --cgroup v2 --timeout 1800s"

die() { echo "control: $*" >&2; exit 1; }
[ -x "$BENCH" ] || die "no $BENCH: run make first"
command -v sqlite3 > /dev/null || die "sqlite3 is not installed"
[ "$BOOTS" -ge 2 ] 2>/dev/null || die "BOOTS=$BOOTS: 2 or more"
[ "$TIMED_BOOTS" -ge 2 ] 2>/dev/null || die "TIMED_BOOTS=$TIMED_BOOTS: 2 or more"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# the source: SRC, else Debian's linux-source-6.12 in the cache
if [ -z "${SRC:-}" ]; then
	mkdir -p "$KC/downloads"
	SRC=$(ls "$KC"/downloads/linux-source-6.12_*_all.deb 2>/dev/null |
		sort -V | tail -n 1)
	if [ -z "$SRC" ]; then
		echo "control: fetching Debian's linux-source-6.12 (150 MB)"
		(cd "$KC/downloads" && apt-get download linux-source-6.12) ||
			die "apt-get download linux-source-6.12 failed (apt-get update first?)"
		SRC=$(ls "$KC"/downloads/linux-source-6.12_*_all.deb |
			sort -V | tail -n 1)
	fi
fi
echo "control: source $SRC"

# kbuild NAME ARGS...: a kernel built (or found), its directory; the
# build's time said and kept
kbuild() {
	_n=$1
	shift
	_t0=$(date +%s)
	_d=$("$BENCH" kernel build "$SRC" --fragment "$ROOT/kernel/guest.config" \
		"$@" 2> "$OUT/build-$_n.log") || {
		cat "$OUT/build-$_n.log" >&2
		die "the $_n kernel did not build"
	}
	_t1=$(date +%s)
	echo "$_n $((_t1 - _t0)) s: $(tail -n 1 "$OUT/build-$_n.log")" \
		>> "$OUT/builds.txt"
	echo "$_d"
}
: > "$OUT/builds.txt"
BASE=$(kbuild base)
K000=$(kbuild seed000 --patch "$P000")
K002=$(kbuild seed002 --patch "$P002")
KNULL=$(kbuild base.rebuilt --name base.rebuilt)
cat "$OUT/builds.txt"

# lab NAME CONFIG PATCHKERNEL [vm options]: bench lab of BASE against it
# into OUT/control-NAME.db, its changelog table in OUT/NAME.txt
lab() {
	_n=$1 _cfg=$2 _k=$3
	shift 3
	_db=$OUT/control-$_n.db
	echo "control: $_n: $BASE against $_k"
	# --effect 1%: the plan never calls the boots enough before BOOTS
	# (the seeds' published effects would stop it at 2)
	"$BENCH" lab "$BASE" "$_k" --db "$_db" "$@" --effect 1% \
		--format changelog \
		-- run --config "$ROOT/bench/control/$_cfg.json" \
		> "$OUT/$_n.log" 2>&1 || {
		tail -n 40 "$OUT/$_n.log" >&2
		die "$_n: bench lab failed (the whole log: $OUT/$_n.log)"
	}
	"$BENCH" compare --db "$_db" "$(label "$_db" 0)" "$(label "$_db" 1)" \
		> "$OUT/$_n.txt" 2>&1 || true
	"$BENCH" compare --db "$_db" --format changelog "$(label "$_db" 0)" \
		"$(label "$_db" 1)" >> "$OUT/$_n.txt" 2>&1 || true
	cat "$OUT/$_n.txt"
	spread "$_db" | tee -a "$OUT/$_n.txt"
}

# label DB I: the base's (0) or the other's (1) label in a lab's database
label() {
	sqlite3 "$1" "SELECT label FROM runs GROUP BY label ORDER BY
		min(id) LIMIT 1 OFFSET $2"
}

# spread DB: per label and case, the spread of the wall metric within a
# boot (the largest max/min - 1 of a boot) and between boots (of the boot
# medians), and each boot's start to its first sample
spread() {
	sqlite3 -separator ' ' "$1" "
	WITH v AS (
		SELECT r.label, r.boot_id, c.workload || ' ' || c.params AS params,
			sv.value AS x
		FROM samples s JOIN cases c ON c.id = s.case_id
		JOIN runs r ON r.id = c.run_id
		JOIN sample_values sv ON sv.sample_id = s.id
		WHERE sv.metric = 'wall' AND s.valid = 1 AND s.warmup = 0),
	b AS (SELECT label, params, boot_id, min(x) AS lo, max(x) AS hi,
		avg(x) AS mid FROM v GROUP BY label, params, boot_id)
	SELECT label, params, count(*) || ' boots',
		printf('within a boot <= %.3f%%', 100.0 * max(hi / lo - 1)),
		printf('boot means %.4g..%.4g (%.3f%%)', min(mid), max(mid),
			100.0 * (max(mid) / min(mid) - 1))
	FROM b GROUP BY label, params ORDER BY params, label;" 2>/dev/null ||
		echo "(the spread could not be read from $1)"
	sqlite3 -separator ' ' "$1" "SELECT 'boot to first sample:',
		printf('%.1f..%.1f s', min(first_sample_s), max(first_sample_s))
		FROM run_vm" 2>/dev/null || true
}

for c in $CONTROLS; do
	case $c in
	seed000) lab seed000 seed000 "$K000" $VM --boots "$BOOTS" ;;
	seed002) lab seed002 seed002 "$K002" $VM --boots "$BOOTS" ;;
	null) lab null null "$KNULL" $VM --boots "$BOOTS" ;;
	timed)
		VM=$(echo "$VM" | sed 's/--accel icount/--accel tcg/')
		lab timed-seed000 seed000 "$K000" $VM --boots "$TIMED_BOOTS"
		lab timed-seed002 seed002 "$K002" $VM --boots "$TIMED_BOOTS"
		;;
	*) die "CONTROLS: '$c' is none of seed000 seed002 null timed" ;;
	esac
done
{
	echo "builds:"
	cat "$OUT/builds.txt"
	for f in "$OUT"/*.txt; do
		[ "$f" = "$OUT/summary.txt" ] || [ "$f" = "$OUT/builds.txt" ] ||
			{ echo; echo "== $(basename "$f" .txt)"; cat "$f"; }
	done
} > "$OUT/summary.txt"
echo "control: everything in $OUT (summary.txt)"
