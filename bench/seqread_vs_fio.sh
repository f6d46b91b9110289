#!/bin/sh
# seq-read against fio and a bare read loop, all reading one written tmpfs
# file, pinned to the CPU foliobench measures on.  This kind of host's read
# rate wanders by 10-20% from one second to the next, so every reader is
# held against the bare loop in a short block of its own, bare X X bare
# (4 reads of RUNTIME), where a drift that is linear over the block cancels;
# a round is one block for each of fio and foliobench with latency timing
# of every read, of every 61st and of none, in an order rotating from round
# to round.  Measured on the 2-vCPU VM: 24 such blocks gave fb-nolat / bare
# a 95% interval of +-0.45%, where 30 rounds of the five readers one after
# the other had given +-2%.  Prints each reader's bandwidth per round (the
# geometric mean of its turns), then the ratios as geometric means of the
# per-block ratios with their 95% intervals (Student's t on the logs); a
# ratio between two readers that are not the bare loop is the ratio of
# their ratios to it, round by round.  A benchmark, not a test.
#
#   sh bench/seqread_vs_fio.sh [BENCH]     (make bench-seqread)
#   environment: RUNTIME (seconds per reader and turn, 1), SIZE (1G),
#                BS (4k), ROUNDS (15)
set -eu

BENCH=${1:-build/bench}
RUNTIME=${RUNTIME:-1}
SIZE=${SIZE:-1G}
BS=${BS:-4k}
ROUNDS=${ROUNDS:-15}
HERE=$(cd "$(dirname "$0")" && pwd)

die() { echo "seqread_vs_fio: $*" >&2; exit 1; }

[ -x "$BENCH" ] || die "no $BENCH: run make first"
command -v fio >/dev/null || die "fio is not installed"
command -v sqlite3 >/dev/null || die "sqlite3 is not installed"
size_b=$(numfmt --from=iec "$(echo "$SIZE" | tr a-z A-Z)") || die "SIZE $SIZE is not a size"
bs_b=$(numfmt --from=iec "$(echo "$BS" | tr a-z A-Z)") || die "BS $BS is not a size"
[ "$ROUNDS" -ge 3 ] 2>/dev/null || die "ROUNDS $ROUNDS: at least 3 for an interval"

TMP=$(mktemp -d /dev/shm/fb-seqread.XXXXXX)
DBDIR=$(mktemp -d)	# not on tmpfs, or the runner warns
trap 'rm -rf "$TMP" "$DBDIR"' EXIT
trap 'exit 130' INT TERM
F=$TMP/file

cc -O2 -o "$TMP/bare_read" "$HERE/probe/bare_read.c" ||
	die "cannot build the bare read loop"

# one config per latency setting: every read timed (the default), every
# 61st (a prime: the timed reads fall on every place in a folio), none
for every in 1 61 0; do
	cat > "$TMP/config$every.json" <<JSON
{ "database": "$DBDIR/fb.db", "runs": 1, "warmup": 0,
  "suite": [ { "workload": "seq-read", "file": "$F", "size": "$SIZE",
	       "bs": "$BS", "duration": "${RUNTIME}s", "lat_every": $every } ] }
JSON
done
CPU=$("$BENCH" check --config "$TMP/config1.json" 2>/dev/null |
      sed -n 's/.*measuring on CPU \([0-9]*\)$/\1/p') || true
[ -n "$CPU" ] || CPU=$(($(nproc) - 1))

echo "writing $SIZE of real data to $F"
head -c "$size_b" /dev/urandom > "$F"

# each prints MiB/s
run_fio() {
	k=$(taskset -c "$CPU" fio --ioengine=sync --rw=read --bs="$BS" \
		--size="$SIZE" --time_based --runtime="$RUNTIME" --name=seq \
		--filename="$F" --output-format=terse | awk -F';' '{ print $7 }')
	awk -v k="$k" 'BEGIN { printf "%.1f\n", k / 1024 }'
}
run_bare() {
	taskset -c "$CPU" "$TMP/bare_read" "$F" "$size_b" "$bs_b" "$RUNTIME" "$1"
}
run_fb() {
	"$BENCH" run --config "$TMP/config$1.json" --quiet >/dev/null ||
		die "foliobench seq-read failed (exit $?)"
	v=$(sqlite3 "$DBDIR/fb.db" "select round(value, 1) from sample_values v
		join samples s on s.id = v.sample_id where metric = 'bw'
		and s.valid = 1 order by s.id desc limit 1")
	[ -n "$v" ] || die "foliobench stored no valid bandwidth"
	echo "$v"
}
run_one() {
	case $1 in
	1) run_fio ;;
	2) run_bare plain ;;
	3) run_fb 61 ;;
	4) run_fb 1 ;;
	5) run_fb 0 ;;
	esac
}

echo "seq ${BS} reads of a ${SIZE} tmpfs file, ${RUNTIME}s per reader and turn, $ROUNDS rounds, on CPU $CPU (MiB/s)"
printf '%-6s %10s %10s %12s %12s %12s\n' round fio bare fb-every61 \
	fb fb-nolat
# the geometric mean of the rates given
gm() { echo "$@" | awk '{ s = 0; for (i = 1; i <= NF; i++) s += log($i)
			 printf "%.1f\n", exp(s / NF) }'; }
: > "$TMP/rows"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	# a block bare X X bare for each X, the first X rotating
	row="" bares=""
	for k in 0 1 2 3; do
		j=$(echo 1 3 4 5 | cut -d' ' -f$(( (k + r) % 4 + 1 )))
		u=$(run_one 2); t=$(run_one $j); t="$t $(run_one $j)"
		u="$u $(run_one 2)"
		# x1 b1, x3 b3, ...: reader j and its block's bare loop
		eval "x$j=\$(gm $t) b$j=\$(gm $u)"
		bares="$bares $u"
	done
	# per X: its rate and its block's bare rate
	echo "$x1 $b1 $x3 $b3 $x4 $b4 $x5 $b5" >> "$TMP/rows"
	printf '%-6s %10.1f %10.1f %12.1f %12.1f %12.1f\n' "$r" "$x1" \
		"$(gm $bares)" "$x3" "$x4" "$x5"
	r=$((r + 1))
done

awk '
# two-sided 95% quantile of Student t with d degrees of freedom
function tq(d) {
	if (d >= 120) return 1.98
	if (d >= 60) return 2.00 - (d - 60) * 0.02 / 60
	if (d >= 30) return 2.042 - (d - 30) * 0.042 / 30
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 " \
	      "2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 " \
	      "2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045", t, " ")
	return t[d]
}
# geometric mean of x[1..n] / y[1..n] with its 95% interval
function ratio(name, x, y, n,   i, l, s, ss, m, sd, h) {
	s = 0
	for (i = 1; i <= n; i++) { l[i] = log(x[i] / y[i]); s += l[i] }
	m = s / n
	ss = 0
	for (i = 1; i <= n; i++) ss += (l[i] - m) ^ 2
	sd = sqrt(ss / (n - 1))
	h = tq(n - 1) * sd / sqrt(n)
	printf "%-26s %7.3f  [%.3f, %.3f]\n", name, exp(m), exp(m - h), exp(m + h)
}
# each reader over the bare loop of its own block
{ fio[NR] = $1 / $2; s61[NR] = $3 / $4; fb[NR] = $5 / $6
  nolat[NR] = $7 / $8; one[NR] = 1 }
END {
	n = NR
	printf "\nratio (geometric mean of %d rounds)  [95%% interval]\n", n
	ratio("fb / bare", fb, one, n)
	ratio("fb-nolat / bare", nolat, one, n)
	ratio("fb-every61 / bare", s61, one, n)
	ratio("fb / fb-nolat", fb, nolat, n)
	ratio("fio / fb", fio, fb, n)
	ratio("fio / fb-every61", fio, s61, n)
	ratio("fio / fb-nolat", fio, nolat, n)
}' "$TMP/rows"
