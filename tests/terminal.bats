#!/usr/bin/env bats
# What reaches a terminal from a database: labels, kernel names, command
# lines and kernel warning lines may hold any byte (a database is merged
# from other machines, or written by hand).  The formats people read show
# control characters as \xNN; CSV and JSON keep every value exact.

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

# ESC sequences that set the window title, clear the screen and colour;
# BEL; a C1 CSI (U+009B) in UTF-8 and a lone 0x9b byte
A=$'A\e]0;owned\a'
REL=$'6.18\e[2J\xc2\x9b31m'
CMD=$'quiet \e[31mred\x9b'
KW=$'WARNING: at mm/filemap.c\e[1A\e[K\nbench: forged line'

setup() {
	fb_setup
	fx_begin "$DB"
	local b
	for b in 1 2 3; do
		FX_RELEASE=$REL FX_CMDLINE=$CMD fx_run "$A" "a$b"
		fx_remove_case unlink
		fx_wall 100 101 99
		fx_kwarn "$KW"
		fx_run B "b$b"
		fx_remove_case unlink
		fx_wall 90 91 89
	done
	fx_end
}

# No control character but newline (C0, DEL, C1) and no byte that is not
# UTF-8 in $output and $stderr.
no_raw() {
	printf '%s%s' "$output" "${stderr:-}" | python3 -c '
import sys
b = sys.stdin.buffer.read()
try:
	t = b.decode("utf-8")
except UnicodeDecodeError as e:
	sys.exit("not UTF-8: %r" % b[max(e.start - 20, 0):e.end + 20])
bad = [c for c in t if c != "\n" and (ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0)]
if bad:
	sys.exit("control characters reach the terminal: %r" % bad)'
}

@test "runs: labels and kernel names are escaped, a row a line" {
	run "$BENCH" runs --db "$DB"
	assert_success
	no_raw
	assert_line --index 1 --regexp '^1 +00000000-0000-0000-0000-000000000001 A\\x1b\]0;owned\\x07 +6\.18\\x1b\[2J\\xc2\\x9b31m '
	[ "${#lines[@]}" -eq 7 ]
}

@test "compare and export: text, changelog and markdown escaped; csv and json exact" {
	local fmt
	for fmt in text changelog markdown; do
		run --separate-stderr "$BENCH" compare --db "$DB" --format "$fmt" "$A" B
		assert_success
		no_raw
		[[ $output == *'A\x1b]0;owned\x07'* ]]
		[[ $stderr == *'bench: warning: kernel warnings: '*'WARNING: at mm/filemap.c\x1b[1A\x1b[K\x0abench: forged line'* ]]
		[[ $stderr == *'quiet \x1b[31mred\x9b'* ]]
		run --separate-stderr "$BENCH" export --db "$DB" --format "$fmt" "$A"
		assert_success
		no_raw
		# the line's newline escaped, wherever the text wraps it
		[[ $output == *'\x0abench:'* ]]
		refute_line --regexp '^[ >]*bench: forged'
	done
	run --separate-stderr "$BENCH" export --db "$DB" --format benchstat "$A"
	assert_success
	no_raw
	[[ $output == *'# label: A\x1b]0;owned\x07'* ]]
	# JSON escapes every C0 control character: the value reads back
	# exact (a byte that is not UTF-8 stays as it is: JSON has no way to
	# write it)
	run --separate-stderr "$BENCH" compare --db "$DB" --format json "$A" B
	assert_success
	! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' <<< "$output$stderr"
	[ "$(jq -r '.base.label' <<< "$output")" = "$A" ]
	# CSV keeps the value exact, quoted; its comment lines are escaped
	run --separate-stderr "$BENCH" compare --db "$DB" --format csv "$A" B
	assert_success
	[[ $output == *"$A"* ]]
	assert_line --regexp '^# A\\x1b\]0;owned\\x07: .* WARNING: at mm/filemap\.c\\x1b\[1A\\x1b\[K\\x0abench: forged line$'
	refute_line 'bench: forged line'
}

@test "a tool's message quoted in an error reads as lines, never a literal \\x0a (lab and vm with a .deb that is none)" {
	command -v dpkg-deb > /dev/null || skip "dpkg-deb is missing (Debian's dpkg): the .deb is never unpacked"
	local cmd
	echo junk > "$T/bad.deb"
	for cmd in "lab $T/bad.deb $T/bad.deb" "vm $T/bad.deb"; do
		# shellcheck disable=SC2086
		FOLIOBENCH_KERNEL_CACHE=$T/cache run --separate-stderr "$BENCH" $cmd --db "$DB"
		assert_failure 66
		no_raw
		[[ $stderr != *'\x0a'* ]]
		[[ $stderr == *"cannot unpack $T/bad.deb with dpkg-deb: dpkg-deb: error: '$T/bad.deb' is not a Debian format archive" ]]
	done
}
