/* Sizes, durations and edit distances: the arithmetic the config rests on. */
#include "common/common.h"
#include "tap.h"

#include <errno.h>

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

int main(void)
{
	uint64_t ns = 0;
	char buf[32];

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
	fmt(0, "0");
	fmt(1000, "1000");
	fmt(4096, "4k");
	fmt(6144, "6k");
	fmt(8ull << 30, "8G");
	fmt(3ull << 29, "1536M");
	fmt(1ull << 40, "1T");
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
	OK(edit_distance("size", "szie") == 2, "edit distance of a swap is 2");
	OK(edit_distance("folio", "folios") == 1, "one insertion");
	OK(edit_distance("", "abc") == 3, "from empty");
	OK(parse_u64("12", &ns) == 0 && ns == 12, "parse_u64 12");
	OK(parse_u64("12a", &ns) == -EINVAL, "parse_u64 rejects 12a");
	OK(parse_u64("+1", &ns) == -EINVAL, "parse_u64 rejects a sign");
	return tap_done();
}
