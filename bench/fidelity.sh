# Shared by the fidelity benchmarks (shmem_vs_bare.sh, smalltrunc_vs_bare.sh,
# shadow_vs_bare.sh, fill_vs_bare.sh):
# blocks of bare X X bare, a ratio a block, and per case the geometric mean
# of its blocks' ratios with a 95% interval (Student's t on the logs).
# Sourced, not run.  A turn is a function that prints its timed calls (or
# runs), one time in ms a line.  Each turn is read two ways: its median
# (what a user's table reports) and its least (the call with the least
# of the host in it: on a host whose speed jumps, outliers are only ever
# slower, and the least of a few calls scatters far less than their median;
# Chen and Revels, "Robust benchmarking in noisy environments", 2016).  A
# cost the harness adds to every call moves both; one it adds to some calls
# moves the median only.

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

# fid_memcg NAME: CG, the path of a memory cgroup NAME (v1 or v2) to make,
# and LIMIT, its limit file; SIZE's ballast (1/8) and shadow-truncate's
# limit=auto for keep=ballast (ballast + SIZE/256 + 256 MiB) as ballast and
# limit, from size in bytes
fid_memcg() {
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
			die "cgroup v2 without the memory controller in /sys/fs/cgroup/cgroup.subtree_control"
		CG=/sys/fs/cgroup/$1
		LIMIT=memory.max
	else
		[ -d /sys/fs/cgroup/memory ] ||
			die "no memory cgroup (v1 or v2)"
		CG=/sys/fs/cgroup/memory/$1
		LIMIT=memory.limit_in_bytes
	fi
	ballast=$((size / 8))
	limit=$((ballast + size / 256 + 256 * 1048576))
}

# fid_rmcg DIR: remove the cgroup DIR if it is there, waiting up to 5 s
# for the probe's children that a ^C killed to leave it
fid_rmcg() {
	_i=0
	while [ -d "$1" ] && ! rmdir "$1" 2>/dev/null; do
		[ $_i -lt 50 ] || { rmdir "$1"; return 1; }
		sleep 0.1
		_i=$((_i + 1))
	done
}

# fid_umount DIR: detach what is mounted on DIR, read from /proc/mounts:
# a FUSE mount whose server was killed answers stat(2) with ENOTCONN,
# which mountpoint(1) takes for no mount point
fid_umount() {
	! awk -v m="$1" '$2 == m { f = 1 } END { exit !f }' /proc/mounts ||
		umount -l "$1"
}

# the median of the numbers on stdin
fid_median() {
	sort -g | awk '{ v[NR] = $1 } END { if (!NR) exit 1
		if (NR % 2) print v[(NR + 1) / 2]
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# the median and the least of the numbers on stdin, "median least"
fid_medmin() {
	sort -g | awk '{ v[NR] = $1 } END { if (!NR) exit 1
		if (NR % 2) m = v[(NR + 1) / 2]
		else m = (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m, v[1] }'
}

# fid_turn ROWS FN: FN's times into ROWS.turn, then their "median least"
fid_turn() {
	"$2" > "$1.turn" || return 1
	fid_medmin < "$1.turn" || {
		echo "$2 printed no time" >&2
		return 1
	}
}

# fid_block ROWS CASE BARE_FN X_FN: one block bare X X bare of CASE, its
# line "CASE bare_ms x_ms ratio bare_least_ms x_least_ms least_ratio"
# appended to ROWS and printed (each side: the geometric mean of its two
# turns)
fid_block() {
	_b1=$(fid_turn "$1" "$3") || return 1
	_x1=$(fid_turn "$1" "$4") || return 1
	_x2=$(fid_turn "$1" "$4") || return 1
	_b2=$(fid_turn "$1" "$3") || return 1
	echo "$2 $_b1 $_x1 $_x2 $_b2" | awk '{
		b = sqrt($2 * $8); x = sqrt($4 * $6)
		bl = sqrt($3 * $9); xl = sqrt($5 * $7)
		printf "%s %.4f %.4f %.5f %.4f %.4f %.5f\n", $1, b, x, x / b,
		       bl, xl, xl / bl }' | tee -a "$1"
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

# fid_summary ROWS: one line a case, in the order first seen: the turns'
# medians (geometric means over the blocks), the ratio of the medians and
# of the least calls, each with its 95% interval, the blocks
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
	# gm(c, col): the geometric mean of column col over case c blocks,
	# its 95% interval into lo, hi
	function gm(c, col,    k, m, ss, h) {
		m = 0
		for (k = 1; k <= n[c]; k++) m += v[c, k, col]
		m /= n[c]; ss = 0
		for (k = 1; k <= n[c]; k++) ss += (v[c, k, col] - m) ^ 2
		h = 0
		if (n[c] > 1)
			h = tq(n[c] - 1) * sqrt(ss / (n[c] - 1) / n[c])
		lo = exp(m - h); hi = exp(m + h)
		return exp(m)
	}
	function within() { return lo >= 0.98 && hi <= 1.02 }
	!($1 in n) { order[++cases] = $1 }
	{ k = ++n[$1]; for (f = 2; f <= NF; f++) v[$1, k, f] = log($f) }
	END {
		printf "%-32s %10s %10s %7s  %-16s %7s  %-16s %s\n", "case",
		       "bare", "foliobench", "ratio", "[95% interval]",
		       "least", "[95% interval]", "blocks"
		for (i = 1; i <= cases; i++) {
			c = order[i]
			r = gm(c, 4); rlo = lo; rhi = hi; wr = within()
			l = gm(c, 7); llo = lo; lhi = hi; wl = within()
			say = ""
			if (n[c] < 2)
				say = "  (one block: no interval)"
			else if (wr && wl)
				say = "  within 2%"
			else if (wl)
				say = "  least within 2%"
			else if (wr)
				say = "  median within 2%"
			printf "%-32s %7.3f ms %7.3f ms %7.3f  [%.3f, %.3f]" \
			       " %7.3f  [%.3f, %.3f] %d%s\n", c, gm(c, 2),
			       gm(c, 3), r, rlo, rhi, l, llo, lhi, n[c], say
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

# fid_fb_turn BENCH CONFIG DB METRIC: one `bench run` (under $CH), METRIC
# in ms of each of its case's valid timed samples
fid_fb_turn() {
	$CH "$1" run --config "$2" --quiet >/dev/null || {
		echo "foliobench failed (exit $?) on $2:" >&2
		cat "$2" >&2
		return 1
	}
	sqlite3 "$3" "select v.value / 1e6 from sample_values v
		join samples s on s.id = v.sample_id where v.metric = '$4'
		and s.warmup = 0 and s.valid = 1 and s.case_id =
		(select max(id) from cases)"
	# no valid sample: say why (the case skipped, or its samples invalid)
	sqlite3 "$3" "select 'foliobench: case ' || c.status ||
		coalesce(': ' || c.reason, '') || coalesce('; ' || (select
		count(*) || ' invalid samples, the first: ' || invalid_reason
		from samples where case_id = c.id and valid = 0 and warmup = 0
		having count(*) > 0), '') from cases c where c.id =
		(select max(id) from cases) and not exists (select 1 from
		samples s where s.case_id = c.id and s.valid = 1 and
		s.warmup = 0)" >&2
}
