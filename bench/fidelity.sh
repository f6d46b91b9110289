# Shared by the fidelity benchmarks (shmem_vs_bare.sh, smalltrunc_vs_bare.sh,
# shadow_vs_bare.sh):
# blocks of bare X X bare, a ratio a block, and per case the geometric mean
# of its blocks' ratios with a 95% interval (Student's t on the logs).
# Sourced, not run.  A turn is a function that prints one time in ms.

# die MESSAGE: the message under the script's name, exit 1
die() { echo "$(basename "$0" .sh): $*" >&2; exit 1; }

# fid_checks PROBE: BENCH and the probe built, sqlite3 there, ROUNDS and
# REPS counts; CH set to the runner's and probe's prefix (RT: chrt -f 10)
fid_checks() {
	[ -x "$BENCH" ] || die "no $BENCH: run make first"
	[ -x "$PROBES/$1" ] || die "no $PROBES/$1: run make $PROBES/$1"
	command -v sqlite3 >/dev/null || die "sqlite3 is not installed"
	[ "$ROUNDS" -ge 1 ] 2>/dev/null || die "ROUNDS $ROUNDS is not a count"
	[ "$REPS" -ge 1 ] 2>/dev/null || die "REPS $REPS is not a count"
	CH=""
	[ -z "${RT:-}" ] || CH="chrt -f 10"
}

# the median of the numbers on stdin
fid_median() {
	sort -g | awk '{ v[NR] = $1 } END { if (!NR) exit 1
		if (NR % 2) print v[(NR + 1) / 2]
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# fid_block ROWS CASE BARE_FN X_FN: one block bare X X bare of CASE, its
# line "CASE bare_ms x_ms ratio" appended to ROWS and printed
fid_block() {
	_b1=$($3) || return 1
	_x1=$($4) || return 1
	_x2=$($4) || return 1
	_b2=$($3) || return 1
	awk -v c="$2" -v b1="$_b1" -v b2="$_b2" -v x1="$_x1" -v x2="$_x2" \
	    'BEGIN { b = sqrt(b1 * b2); x = sqrt(x1 * x2)
		     printf "%s %.4f %.4f %.5f\n", c, b, x, x / b }' |
		tee -a "$1"
}

# fid_case ROWS ROUND CASE CONFIG THREADS BARE_FN X_FN: the PUs the runner
# gives THREADS workers under CONFIG into $pus (the turns read it), then one
# block of CASE
fid_case() {
	pus=$(fid_pus "$BENCH" "$4" "$5")
	[ -n "$pus" ] || {
		echo "$3: the runner gives no PUs to $5 workers" >&2
		return 1
	}
	printf 'round %d  ' "$2"
	fid_block "$1" "$3" "$6" "$7"
}

# fid_summary ROWS: one line a case, in the order first seen
fid_summary() {
	awk '
	function tq(d) {	# two-sided 95% quantile of Student t
		if (d >= 120) return 1.98
		if (d >= 60) return 2.00 - (d - 60) * 0.02 / 60
		if (d >= 30) return 2.042 - (d - 30) * 0.042 / 30
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 " \
		      "2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 " \
		      "2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 " \
		      "2.060 2.056 2.052 2.048 2.045", t, " ")
		return t[d]
	}
	!($1 in n) { order[++cases] = $1 }
	{ k = ++n[$1]; lb[$1, k] = log($2); lx[$1, k] = log($3)
	  lr[$1, k] = log($4) }
	END {
		printf "%-36s %10s %10s %7s  %-17s %s\n", "case", "bare",
		       "foliobench", "ratio", "[95% interval]", "blocks"
		for (i = 1; i <= cases; i++) {
			c = order[i]; m = sb = sx = 0
			for (k = 1; k <= n[c]; k++) {
				m += lr[c, k]; sb += lb[c, k]; sx += lx[c, k]
			}
			m /= n[c]; ss = 0
			for (k = 1; k <= n[c]; k++) ss += (lr[c, k] - m) ^ 2
			h = 0
			if (n[c] > 1)
				h = tq(n[c] - 1) * sqrt(ss / (n[c] - 1) / n[c])
			lo = exp(m - h); hi = exp(m + h); say = ""
			if (n[c] < 2)
				say = "  (one block: no interval)"
			else if (lo >= 0.98 && hi <= 1.02)
				say = "  within 2%"
			printf "%-36s %7.3f ms %7.3f ms %7.3f  [%.3f, %.3f] %d%s\n",
			       c, exp(sb / n[c]), exp(sx / n[c]), exp(m), lo,
			       hi, n[c], say
		}
	}' "$1"
}

# fid_pus BENCH CONFIG N: the PUs the runner gives N workers, "1" or "1,0"
# (asked again for a minute while another runner holds the machine)
fid_pus() {
	_i=0
	while [ $_i -lt 30 ]; do
		_p=$("$1" check --config "$2" 2>/dev/null |
		     sed -n "s/^$3 workers\{0,1\}: PUs\{0,1\} \([0-9,]*\)$/\1/p" |
		     head -n 1)
		[ -z "$_p" ] || { echo "$_p"; return 0; }
		sleep 2
		_i=$((_i + 1))
	done
	return 1
}

# fid_fb_turn BENCH CONFIG DB METRIC: one `bench run` (under $CH), the
# median in ms of METRIC over its case's valid timed samples
fid_fb_turn() {
	$CH "$1" run --config "$2" --quiet >/dev/null || {
		echo "foliobench failed (exit $?) on $2:" >&2
		cat "$2" >&2
		return 1
	}
	sqlite3 "$3" "select v.value / 1e6 from sample_values v
		join samples s on s.id = v.sample_id where v.metric = '$4'
		and s.warmup = 0 and s.valid = 1 and s.case_id =
		(select max(id) from cases)" | fid_median || {
		echo "foliobench stored no valid sample of $2" >&2
		return 1
	}
}
