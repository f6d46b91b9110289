/*
 * common/: sizes, durations, edit distances, text and labels, strbuf;
 * each group of checks a named TEST, so that a failure says what it tested.
 */
#include "common/common.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>

static void size_ok(const char *s, uint64_t want)
{
	uint64_t got = 0;
	int r = parse_size(s, &got);

	OK(r == 0 && got == want, "parse_size(\"%s\") = %llu (want %llu)", s,
	   (unsigned long long)got, (unsigned long long)want);
}

static void size_bad(const char *s, int want)
{
	uint64_t got = 0;
	int r = parse_size(s, &got);

	OK(r == want, "parse_size(\"%s\") fails with %d (got %d)", s, want, r);
}

static void fmt(uint64_t b, const char *want)
{
	char buf[32];

	format_size(b, buf, sizeof(buf));
	STREQ(buf, want, "format_size");
}

/* fputs_term's output for s, keeping keep, as a string. */
static void term(const char *s, const char *keep, const char *want)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	OK(f && fputs_term(s, f, keep) == 0 && fclose(f) == 0,
	   "fputs_term writes");
	/* named by its length: the strings would reach the terminal raw */
	OK(out && !strcmp(out, want), "fputs_term: %zu bytes in, %zu out",
	   strlen(s), strlen(want));
	free(out);
}

static void t_parse_size(void)
{
	size_ok("0", 0);
	size_ok("4096", 4096);
	size_ok("4k", 4096);
	size_ok("4K", 4096);
	size_ok("64M", 64ull << 20);
	size_ok("64MiB", 64ull << 20);
	size_ok("64mb", 64ull << 20);
	size_ok("8G", 8ull << 30);
	size_ok("200G", 200ull << 30);
	size_ok("1T", 1ull << 40);
	size_ok("1.5G", 3ull << 29);
	size_ok("0.5k", 512);
	size_ok("0.75G", 3ull << 28);
	size_ok("1.75G", 7ull << 28);
	size_ok("0.375k", 384);
	size_ok("2.50M", 5ull << 19);
	size_bad("", -EINVAL);
	size_bad("G", -EINVAL);
	size_bad("8Q", -EINVAL);
	size_bad("8 G", -EINVAL);
	size_bad("-1G", -EINVAL);
	size_bad("1.G", -EINVAL);
	size_bad("0.3k", -EINVAL);	/* 307.2 bytes */
	size_bad("8Gx", -EINVAL);
	size_bad("99999999999999999999", -ERANGE);
	size_bad("17179869184G", -ERANGE);	/* 2^34 G = 2^64 */
}

static void t_format_size(void)
{
	fmt(0, "0");
	fmt(1000, "1000");
	fmt(4096, "4k");
	fmt(6144, "6k");
	fmt(8ull << 30, "8G");
	fmt(3ull << 29, "1536M");
	fmt(1ull << 40, "1T");
}

static void t_durations(void)
{
	uint64_t ns = 0;
	char buf[160];

	OK(parse_duration("10s", &ns) == 0 && ns == 10000000000ull,
	   "10s is 1e10 ns");
	OK(parse_duration("300ms", &ns) == 0 && ns == 300000000ull,
	   "300ms");
	OK(parse_duration("2m", &ns) == 0 && ns == 120000000000ull, "2m");
	OK(parse_duration("1.5s", &ns) == 0 && ns == 1500000000ull, "1.5s");
	OK(parse_duration("10", &ns) == 0 && ns == 10000000000ull,
	   "a bare number is seconds");
	OK(parse_duration("10x", &ns) == -EINVAL, "10x is not a duration");
	OK(parse_duration("-1s", &ns) == -EINVAL, "negative duration");
	format_duration(10000000000ull, buf, sizeof(buf));
	STREQ(buf, "10s", "format_duration 10s");
	format_duration(1500000000ull, buf, sizeof(buf));
	STREQ(buf, "1500ms", "format_duration 1.5s");
	/* strict durations: no exponent, hex, inf; no overflow */
	OK(parse_duration("1e3", &ns) == -EINVAL, "1e3 is not a duration");
	OK(parse_duration("0x10s", &ns) == -EINVAL, "hex is not a duration");
	OK(parse_duration("inf", &ns) == -EINVAL, "inf is not a duration");
	OK(parse_duration(".", &ns) == -EINVAL, "a lone point");
	OK(parse_duration(".5s", &ns) == 0 && ns == 500000000ull, ".5s");
	OK(parse_duration("99999999999h", &ns) == -ERANGE,
	   "292 years and more is out of range");
	OK(parse_duration("9000000000s", &ns) == 0 &&
	   ns == 9000000000000000000ull, "just below 2^63 ns");
	OK(duration_from_double(-1, 1e9, &ns) == -EINVAL, "negative seconds");
	OK(duration_from_double(1e300, 1e9, &ns) == -ERANGE, "1e300 seconds");
}

static void t_words(void)
{
	uint64_t ns = 0;

	OK(edit_distance("size", "szie") == 2, "edit distance of a swap is 2");
	OK(edit_distance("folio", "folios") == 1, "one insertion");
	OK(edit_distance("", "abc") == 3, "from empty");
	OK(parse_u64("12", &ns) == 0 && ns == 12, "parse_u64 12");
	OK(parse_u64("12a", &ns) == -EINVAL, "parse_u64 rejects 12a");
	OK(parse_u64("+1", &ns) == -EINVAL, "parse_u64 rejects a sign");
}

/* each check on its own: err is added to, so emptied first */
static int ct(const char *s, size_t max, struct strbuf *err)
{
	strbuf_reset(err);
	return check_text(s, max, err);
}

static int lc(const char *s, struct strbuf *err)
{
	strbuf_reset(err);
	return label_check(s, err);
}

static void t_check_text(void)
{
	struct strbuf err = STRBUF_INIT;

	/* text that reaches a terminal or a file */
	OK(ct("/dev/shm/\xc3\xa9t\xc3\xa9", 100, &err) == 0,
	   "UTF-8 passes");
	OK(ct("a\nb", 100, &err) == -EILSEQ &&
	   !strcmp(err.buf, "holds a control character (U+000A) at offset 1"),
	   "a newline is refused (%s)", strbuf_str(&err));
	OK(ct("a\xc2\x85", 100, &err) == -EILSEQ,
	   "a C1 control (NEL) is refused");
	OK(ct("a\x7f", 100, &err) == -EILSEQ, "DEL is refused");
	OK(ct("\xff", 100, &err) == -EILSEQ &&
	   !strcmp(err.buf, "is not valid UTF-8 (byte 0xff at offset 0)"),
	   "a stray byte is refused (%s)", strbuf_str(&err));
	OK(ct("\xc0\xaf", 100, &err) == -EILSEQ,
	   "an overlong '/' is refused");
	OK(ct("\xed\xa0\x80", 100, &err) == -EILSEQ,
	   "a UTF-16 surrogate is refused");
	OK(ct("\xe2\x82", 100, &err) == -EILSEQ,
	   "a cut sequence is refused");
	OK(ct("abcdef", 5, &err) == -E2BIG &&
	   !strcmp(err.buf, "is 6 bytes long, more than 5"), "too long (%s)",
	   strbuf_str(&err));
	strbuf_release(&err);
}

static void t_labels(void)
{
	struct strbuf err = STRBUF_INIT;

	OK(lc("6.18.0-rc3-next-20261128+", &err) == 0,
	   "a kernel release is a label");
	OK(lc("../etc", &err) == -EINVAL, "../ refused");
	OK(lc("a..b", &err) == -EINVAL, ".. refused");
	OK(lc("-rf", &err) == -EINVAL, "a leading - refused");
	OK(lc("a;rm", &err) == -EINVAL &&
	   !strcmp(err.buf, "a label holds only letters, digits and "
		   ". _ + ~ : @ - "
		   "(\";\" at offset 1)"), "a shell metacharacter (%s)",
	   strbuf_str(&err));
	OK(lc("a\"b", &err) == -EINVAL, "a quote refused");
	OK(lc("", &err) == -EINVAL, "empty refused");
	{
		char a[] = "a\xc3", b[] = "a\xe2\x82", c[] = "a\xc3\xa9";

		utf8_trim(a);
		utf8_trim(b);
		utf8_trim(c);
		OK(!strcmp(a, "a") && !strcmp(b, "a") &&
		   !strcmp(c, "a\xc3\xa9"), "utf8_trim drops only a cut character");
	}
	{
		char l[] = "6.1 x/y\n";

		label_sanitize(l);
		STREQ(l, "6.1_x_y_", "label_sanitize");
	}
	strbuf_release(&err);
}

static void t_term(void)
{
	/* control characters, C1 in UTF-8, bytes that are not UTF-8 */
	term("plain 6.18.0-rc1+ label", "", "plain 6.18.0-rc1+ label");
	term("", "", "");
	term("A\033]0;owned\007", "", "A\\x1b]0;owned\\x07");
	term("a\nb\tc\r", "", "a\\x0ab\\x09c\\x0d");
	term("a\nb\tc\r", "\n", "a\nb\\x09c\\x0d");
	term("del\177", "", "del\\x7f");
	term("csi \302\2332J", "", "csi \\xc2\\x9b2J");
	term("lone \233 byte", "", "lone \\x9b byte");
	term("cut \303", "", "cut \\xc3");
	term("overlong \300\257", "", "overlong \\xc0\\xaf");
	term("surrogate \355\240\200", "", "surrogate \\xed\\xa0\\x80");
	term("nbsp \302\240 \303\251t\303\251 \342\202\254 \360\237\230\200", "",
	     "nbsp \302\240 \303\251t\303\251 \342\202\254 \360\237\230\200");
	term("back\\slash", "", "back\\slash");
}

static void t_strbuf(void)
{
	struct strbuf sb = STRBUF_INIT;
	char big[300], *d;
	size_t n = 0, i;
	int *v = NULL;
	size_t nv = 0, av = 0;

	STREQ(strbuf_str(&sb), "", "an empty strbuf reads \"\"");
	strbuf_add(&sb, "ab\0cd", 5);
	OK(sb.len == 5 && !memcmp(sb.buf, "ab\0cd", 6),
	   "strbuf_add: bytes as given, NUL-terminated");
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "x=");
	strbuf_addch(&sb, '1');
	strbuf_addf(&sb, ", %s", "y");
	OK(sb.len == 6 && !strcmp(sb.buf, "x=1, y"),
	   "reset, addstr, addch, addf");
	strbuf_setlen(&sb, 3);
	OK(sb.len == 3 && !strcmp(sb.buf, "x=1"), "setlen cuts");
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	strbuf_addf(&sb, "%s|%s", big, big);
	OK(sb.len == 3 + 2 * strlen(big) + 1 && sb.buf[sb.len] == '\0' &&
	   sb.buf[3 + strlen(big)] == '|' && sb.alloc > sb.len,
	   "addf past the room it had grows once (%zu bytes)", sb.len);
	d = strbuf_detach(&sb, &n);
	OK(n == 602 && strlen(d) == n && !sb.buf && !sb.len && !sb.alloc,
	   "detach hands the string over and leaves sb empty");
	free(d);
	d = strbuf_detach(&sb, NULL);
	STREQ(d, "", "detach of an empty strbuf is \"\", not NULL");
	free(d);
	for (i = 0; i < 1000; i++) {
		ALLOC_GROW(v, nv + 1, av);
		v[nv++] = (int)i;
	}
	OK(nv == 1000 && av >= 1000 && v[999] == 999 && v[0] == 0,
	   "ALLOC_GROW: 1000 appends (room for %zu)", av);
	free(v);
}

int main(void)
{
	tap_plan(109);
	TEST(t_parse_size(), "parse_size");
	TEST(t_format_size(), "format_size");
	TEST(t_durations(), "parse_duration and format_duration");
	TEST(t_words(), "edit_distance and parse_u64");
	TEST(t_check_text(), "check_text");
	TEST(t_labels(), "label_check, utf8_trim, label_sanitize");
	TEST(t_term(), "fputs_term");
	TEST(t_strbuf(), "strbuf and ALLOC_GROW");
	return tap_done();
}
