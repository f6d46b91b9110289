#!/bin/sh
# seq-read against fio and a bare read loop, on one written tmpfs file, in
# one go: rounds of fio, the bare loop (plain, and with a clock reading per
# read), and foliobench's seq-read, all pinned to the CPU foliobench
# measures on, then foliobench's bandwidth as a ratio of each.  A benchmark,
# not a test: run it on an idle machine.
#
#   sh bench/seqread_vs_fio.sh [BENCH]     (make bench-seqread)
#   environment: RUNTIME (seconds, 10), SIZE (1G), BS (4k), ROUNDS (3)
set -eu

BENCH=${1:-build/bench}
RUNTIME=${RUNTIME:-10}
SIZE=${SIZE:-1G}
BS=${BS:-4k}
ROUNDS=${ROUNDS:-3}
HERE=$(cd "$(dirname "$0")" && pwd)

die() { echo "seqread_vs_fio: $*" >&2; exit 1; }

[ -x "$BENCH" ] || die "no $BENCH: run make first"
command -v fio >/dev/null || die "fio is not installed"
command -v sqlite3 >/dev/null || die "sqlite3 is not installed"
size_b=$(numfmt --from=iec "$(echo "$SIZE" | tr a-z A-Z)") || die "SIZE $SIZE is not a size"
bs_b=$(numfmt --from=iec "$(echo "$BS" | tr a-z A-Z)") || die "BS $BS is not a size"

TMP=$(mktemp -d /dev/shm/fb-seqread.XXXXXX)
DBDIR=$(mktemp -d)	# not on tmpfs, or the runner warns
trap 'rm -rf "$TMP" "$DBDIR"' EXIT
trap 'exit 130' INT TERM
F=$TMP/file

cc -O2 -o "$TMP/bare_read" "$HERE/probe/bare_read.c" ||
	die "cannot build the bare read loop"

cat > "$TMP/config.json" <<JSON
{ "database": "$DBDIR/fb.db", "runs": 1, "warmup": 0,
  "suite": [ { "workload": "seq-read", "file": "$F", "size": "$SIZE",
	       "bs": "$BS", "duration": "${RUNTIME}s" } ] }
JSON
CPU=$("$BENCH" check --config "$TMP/config.json" 2>/dev/null |
      sed -n 's/.*measuring on CPU \([0-9]*\)$/\1/p') || true
[ -n "$CPU" ] || CPU=$(($(nproc) - 1))

echo "writing $SIZE of real data to $F"
head -c "$size_b" /dev/urandom > "$F"

echo "seq ${BS} reads of a ${SIZE} tmpfs file for ${RUNTIME}s, $ROUNDS rounds, on CPU $CPU"
printf '%-6s %10s %10s %12s %12s %9s %9s %9s\n' round fio bare bare+clock \
	foliobench fb/fio fb/bare fb/b+clk
: > "$TMP/rows"
r=1
while [ $r -le "$ROUNDS" ]; do
	fio_kib=$(taskset -c "$CPU" fio --ioengine=sync --rw=read --bs="$BS" \
		--size="$SIZE" --time_based --runtime="$RUNTIME" --name=seq \
		--filename="$F" --output-format=terse | awk -F';' '{ print $7 }')
	fio=$(awk -v k="$fio_kib" 'BEGIN { printf "%.1f", k / 1024 }')
	bare=$(taskset -c "$CPU" "$TMP/bare_read" "$F" "$size_b" "$bs_b" \
		"$RUNTIME" plain)
	clk=$(taskset -c "$CPU" "$TMP/bare_read" "$F" "$size_b" "$bs_b" \
		"$RUNTIME" clock)
	"$BENCH" run --config "$TMP/config.json" --quiet >/dev/null ||
		die "foliobench seq-read failed (exit $?)"
	fb=$(sqlite3 "$DBDIR/fb.db" "select round(value, 1) from sample_values v
		join samples s on s.id = v.sample_id where metric = 'bw'
		and s.valid = 1 order by s.id desc limit 1")
	[ -n "$fb" ] || die "foliobench stored no valid bandwidth"
	echo "$fio $bare $clk $fb" >> "$TMP/rows"
	awk -v r=$r -v a="$fio" -v b="$bare" -v c="$clk" -v f="$fb" 'BEGIN {
		printf "%-6s %10.1f %10.1f %12.1f %12.1f %9.3f %9.3f %9.3f\n",
		       r, a, b, c, f, f / a, f / b, f / c }'
	r=$((r + 1))
done

# medians of each column and of each round's ratios
awk '{ a[NR] = $1; b[NR] = $2; c[NR] = $3; f[NR] = $4;
       ra[NR] = $4 / $1; rb[NR] = $4 / $2; rc[NR] = $4 / $3 }
function med(x, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && x[j - 1] > x[j]; j--) {
			t = x[j]; x[j] = x[j - 1]; x[j - 1] = t
		}
	return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
}
END {
	printf "%-6s %10.1f %10.1f %12.1f %12.1f %9.3f %9.3f %9.3f\n", "median",
	       med(a, NR), med(b, NR), med(c, NR), med(f, NR),
	       med(ra, NR), med(rb, NR), med(rc, NR)
	printf "\nfoliobench seq-read is %.1f%% of fio and %.1f%% of the bare loop (MiB/s, medians of the per-round ratios)\n",
	       100 * med(ra, NR), 100 * med(rb, NR)
}' "$TMP/rows"
