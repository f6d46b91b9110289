# A checker of Go's benchmark format (golang.org/design/14313-benchmark-
# format), line by line.  Every line must be blank, a '#' line (ignored by
# the format), a configuration line or a benchmark result line:
#   key: value          key without spaces or upper case, then a space
#   BenchmarkName/k=v... ITERATIONS VALUE UNIT [VALUE UNIT...]
# A name has no spaces, starts with "Benchmark" and an upper case letter,
# and each part after a '/' is key=value; iterations are a positive
# integer, values what Go's strconv.ParseFloat reads (no Inf or NaN here),
# units have no spaces, and one benchmark gives the same units on every
# line (tools compare unit with unit), and no unit is one that Go's tools
# tidy: "ns" or "MB" in the numerator ("ns/op", "sys-ns/op", "MB/s")
# becomes "sec" or "B" only where the value changes, so a 0 keeps the raw
# unit and one metric turns into two (golang.org/x/perf, benchfmt's
# reader).  Prints each fault with its line and exits 1; on success
# prints the number of result lines.
function bad(why) {
	printf "%s:%d: %s: %s\n", FILENAME, FNR, why, $0
	faults++
}
# Is a numerator word of unit u (words split at '*', '/', '-', after a
# '/' the denominator, after a '*' the numerator again) one Go tidies?
function untidy(u,   i, c, word, denom) {
	for (i = 1; i <= length(u) + 1; i++) {
		c = substr(u, i, 1)
		if (c != "" && c != "*" && c != "/" && c != "-") {
			word = word c
			continue
		}
		if (!denom && (word == "ns" || word == "MB"))
			return 1
		word = ""
		if (c == "*")
			denom = 0
		else if (c == "/")
			denom = 1
	}
	return 0
}
/^$/ || /^#/ { next }
/^Benchmark/ {
	if (NF < 4 || NF % 2) { bad("odd or too few fields"); next }
	if ($1 !~ /^Benchmark[A-Z][A-Za-z0-9]*(\/[^\/=]+=[^\/=]*)*$/)
		bad("name is not Benchmark[/key=value...]")
	if ($2 !~ /^[1-9][0-9]*$/)
		bad("iterations are not a positive integer")
	units = ""
	for (i = 3; i <= NF; i += 2) {
		if ($i !~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/)
			bad("value " $i " is not a float")
		if ($(i + 1) ~ /^[-+.0-9]/)
			bad("unit " $(i + 1) " looks like a number")
		else if (untidy($(i + 1)))
			bad("unit " $(i + 1) " is tidied where not 0")
		units = units " " $(i + 1)
	}
	if (($1 in seen) && seen[$1] != units)
		bad("units differ from an earlier line of " $1)
	seen[$1] = units
	results++
	next
}
/^[^[:space:][:upper:]:]+:([[:space:]]|$)/ { next }
{ bad("neither configuration nor result") }
END {
	if (faults)
		exit 1
	print results + 0
}
