/* Parsing and formatting of sizes and durations, small file helpers. */
#include "common.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

static int suffix_shift(const char *suf, unsigned *shift)
{
	static const char units[] = "kmgtpe";
	const char *u;
	char c = (char)tolower((unsigned char)suf[0]);

	if (!c) {
		*shift = 0;
		return 0;
	}
	if (c == 'b' && !suf[1]) {
		*shift = 0;
		return 0;
	}
	u = strchr(units, c);
	if (!u)
		return -EINVAL;
	*shift = 10 * (unsigned)(u - units + 1);
	suf++;
	if (!*suf || !strcasecmp(suf, "b") || !strcasecmp(suf, "ib"))
		return 0;
	return -EINVAL;
}

int parse_size(const char *s, uint64_t *out)
{
	const char *p = s;
	uint64_t whole = 0, num = 0, den = 1;
	bool have_digit = false, have_frac = false;
	unsigned shift;

	if (!s)
		return -EINVAL;
	while (isdigit((unsigned char)*p)) {
		unsigned d = (unsigned)(*p - '0');

		if (whole > (UINT64_MAX - d) / 10)
			return -ERANGE;
		whole = whole * 10 + d;
		have_digit = true;
		p++;
	}
	/* a fraction in exact integers: num / den, den a power of ten */
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			if (den > UINT64_MAX / 100)
				return -EINVAL;
			num = num * 10 + (uint64_t)(*p - '0');
			den *= 10;
			have_frac = true;
			p++;
		}
		if (!have_frac)
			return -EINVAL;
	}
	if (!have_digit && !have_frac)
		return -EINVAL;
	if (suffix_shift(p, &shift))
		return -EINVAL;
	if (shift >= 64 || (shift && whole > (UINT64_MAX >> shift)))
		return -ERANGE;
	whole <<= shift;
	if (have_frac) {
		uint64_t extra;

		if (shift && num > (UINT64_MAX >> shift))
			return -ERANGE;
		if ((num << shift) % den)
			return -EINVAL;	/* 1.5 bytes is not a size */
		extra = (num << shift) / den;
		if (whole > UINT64_MAX - extra)
			return -ERANGE;
		whole += extra;
	}
	*out = whole;
	return 0;
}

void format_size(uint64_t bytes, char *buf, size_t n)
{
	static const char units[] = "kMGTPE";
	int i = -1;

	while (bytes && !(bytes & 1023) && i < 5) {
		bytes >>= 10;
		i++;
	}
	if (i < 0)
		snprintf(buf, n, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, n, "%llu%c", (unsigned long long)bytes, units[i]);
}

void human_size(uint64_t bytes, char *buf, size_t n)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	unsigned i = 0;

	while (v >= 1024 && i < ARRAY_SIZE(units) - 1) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, n, "%llu B", (unsigned long long)bytes);
	else if (v == floor(v))
		snprintf(buf, n, "%.0f %s", v, units[i]);
	else
		snprintf(buf, n, "%.1f %s", v, units[i]);
}

int parse_duration(const char *s, uint64_t *ns_out)
{
	char *end;
	double v, mul;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -EINVAL;
	if (!*end || !strcmp(end, "s"))
		mul = 1e9;
	else if (!strcmp(end, "ms"))
		mul = 1e6;
	else if (!strcmp(end, "us"))
		mul = 1e3;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		mul = 60e9;
	else if (!strcmp(end, "h"))
		mul = 3600e9;
	else
		return -EINVAL;
	if (v * mul > 1.8e19)
		return -ERANGE;
	*ns_out = (uint64_t)llround(v * mul);
	return 0;
}

void format_duration(uint64_t ns, char *buf, size_t n)
{
	if (ns % 1000000000ull == 0)
		snprintf(buf, n, "%llus", (unsigned long long)(ns / 1000000000ull));
	else if (ns % 1000000ull == 0)
		snprintf(buf, n, "%llums", (unsigned long long)(ns / 1000000ull));
	else
		snprintf(buf, n, "%lluus", (unsigned long long)(ns / 1000ull));
}

int read_file_str(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = read(fd, buf, n - 1);
	if (r < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	buf[r] = '\0';
	while (r > 0 && (buf[r - 1] == '\n' || buf[r - 1] == ' '))
		buf[--r] = '\0';
	return 0;
}

void boot_id_get(char *buf, size_t n)
{
	const char *env = getenv("FOLIOBENCH_BOOT_ID");

	if (env && *env) {
		snprintf(buf, n, "%s", env);
		return;
	}
	if (read_file_str("/proc/sys/kernel/random/boot_id", buf, n))
		snprintf(buf, n, "unknown");
}

int read_file_u64(const char *path, uint64_t *out)
{
	char buf[64];
	int r = read_file_str(path, buf, sizeof(buf));

	if (r)
		return r;
	if (!strcmp(buf, "max")) {
		*out = UINT64_MAX;
		return 0;
	}
	return parse_u64(buf, out);
}

int write_file_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	size_t len = strlen(s);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, s, len);
	if (w < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (close(fd))
		return -errno;
	return (size_t)w == len ? 0 : -EIO;
}

int meminfo_bytes(const char *key, uint64_t *out)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	size_t klen = strlen(key);
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long kb;

		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		if (sscanf(line + klen + 1, "%llu", &kb) == 1) {
			*out = kb * 1024;
			ret = 0;
		}
		break;
	}
	fclose(f);
	return ret;
}

unsigned edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned row[64], prev, tmp;

	if (lb >= ARRAY_SIZE(row))
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = (unsigned)i;
		for (j = 1; j <= lb; j++) {
			unsigned sub = prev + (a[i - 1] != b[j - 1]);
			unsigned del = row[j] + 1, ins = row[j - 1] + 1;

			tmp = row[j];
			row[j] = sub < del ? (sub < ins ? sub : ins)
					   : (del < ins ? del : ins);
			prev = tmp;
		}
	}
	return row[lb];
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int need;

	va_start(ap, fmt);
	need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (need < 0)
		return;
	if (sb->len + (size_t)need + 1 > sb->alloc) {
		size_t na = (sb->alloc ? sb->alloc * 2 : 128);
		char *nb;

		while (na < sb->len + (size_t)need + 1)
			na *= 2;
		nb = realloc(sb->buf, na);
		if (!nb)
			abort();
		sb->buf = nb;
		sb->alloc = na;
	}
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	va_end(ap);
	sb->len += (size_t)need;
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

void strbuf_json_str(struct strbuf *sb, const char *s)
{
	strbuf_addf(sb, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			strbuf_addf(sb, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			strbuf_addf(sb, "\\u%04x", *s);
		else
			strbuf_addf(sb, "%c", *s);
	}
	strbuf_addf(sb, "\"");
}

uint64_t proc_cpu_ns(int pid)
{
	unsigned long long ut, st;
	char path[64], buf[1024], *p;
	long hz = sysconf(_SC_CLK_TCK);

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (hz <= 0 || read_file_str(path, buf, sizeof(buf)))
		return 0;
	/* utime and stime: fields 14 and 15, after the ")" of the name */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			 "%llu %llu", &ut, &st) != 2)
		return 0;
	return (ut + st) * (1000000000ull / (unsigned long long)hz);
}
