# A checker of Go's benchmark format (golang.org/design/14313-benchmark-
# format), line by line.  Every line must be blank, a '#' line (ignored by
# the format), a configuration line or a benchmark result line:
#   key: value          key without spaces or upper case, then a space
#   BenchmarkName/k=v... ITERATIONS VALUE UNIT [VALUE UNIT...]
# A name has no spaces, starts with "Benchmark" and an upper case letter,
# and each part after a '/' is key=value; iterations are a positive
# integer, values what Go's strconv.ParseFloat reads (no Inf or NaN here),
# units have no spaces, and one benchmark gives the same units on every
# line (tools compare unit with unit).  Prints each fault with its line
# and exits 1; on success prints the number of result lines.
function bad(why) {
	printf "%s:%d: %s: %s\n", FILENAME, FNR, why, $0
	faults++
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
