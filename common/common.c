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
	unsigned __int128 whole = 0, num = 0, den = 1, ns;
	const char *p = s;
	uint64_t mul;
	bool digits = false;

	/*
	 * Digits with one optional point (no sign, exponent, hex or inf),
	 * in exact integers as parse_size does: a double is not exact past
	 * 2^53 ns, 104 days (the fuzz harness found that).
	 */
	if (!s)
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++, digits = true) {
		whole = whole * 10 + (unsigned)(*p - '0');
		if (whole > UINT64_MAX)
			return -ERANGE;
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, digits = true) {
			if (den < 1000000000000000000ull) {	/* 18 digits */
				num = num * 10 + (unsigned)(*p - '0');
				den *= 10;
			}
		}
	}
	if (!digits)
		return -EINVAL;
	if (!*p || !strcmp(p, "s"))
		mul = 1000000000ull;
	else if (!strcmp(p, "ms"))
		mul = 1000000ull;
	else if (!strcmp(p, "us"))
		mul = 1000ull;
	else if (!strcmp(p, "m") || !strcmp(p, "min"))
		mul = 60000000000ull;
	else if (!strcmp(p, "h"))
		mul = 3600000000000ull;
	else
		return -EINVAL;
	/* 2^63 ns is 292 years: more is not a duration of a benchmark */
	ns = whole * mul + (num * mul + den / 2) / den;
	if (ns >= (unsigned __int128)1 << 63)
		return -ERANGE;
	*ns_out = (uint64_t)ns;
	return 0;
}

int duration_from_double(double v, double mul, uint64_t *ns_out)
{
	double ns = v * mul;

	if (!isfinite(ns) || ns < 0 || ns >= 9.2e18)
		return ns < 0 ? -EINVAL : -ERANGE;
	*ns_out = (uint64_t)llround(ns);
	return 0;
}

/* Length of the UTF-8 sequence at s (1-4), or 0 if it is not valid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0], cp;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

int check_text(const char *s, size_t max, struct strbuf *err)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;

	/* first UTF-8 throughout: a string that is not cannot be shown */
	for (; *p; p += len) {
		len = utf8_len(p);
		if (!len) {
			strbuf_addf(err, "is not valid UTF-8 (byte 0x%02x at "
				    "offset %zu)", *p,
				    (size_t)(p - (const unsigned char *)s));
			return -EILSEQ;
		}
	}
	for (p = (const unsigned char *)s; *p; p += len) {
		len = utf8_len(p);
		/* C0, DEL and C1 controls: they move terminals and break lines */
		if (*p < 0x20 || *p == 0x7f ||
		    (len == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
			strbuf_addf(err, "holds a control character (U+%04X) "
				    "at offset %zu", len == 2 ? p[1] : *p,
				    (size_t)(p - (const unsigned char *)s));
			return -EILSEQ;
		}
	}
	if ((size_t)(p - (const unsigned char *)s) > max) {
		strbuf_addf(err, "is %zu bytes long, more than %zu",
			    (size_t)(p - (const unsigned char *)s), max);
		return -E2BIG;
	}
	return 0;
}

int fputs_term(const char *s, FILE *f, const char *keep)
{
	const unsigned char *p = (const unsigned char *)s, *ok = p;
	size_t len, i;

	for (; *p; p += len) {
		len = utf8_len(p);
		if (len && !(*p < 0x20 && !strchr(keep, *p)) && *p != 0x7f &&
		    !(len == 2 && p[0] == 0xc2 && p[1] < 0xa0))
			continue;
		fwrite(ok, 1, (size_t)(p - ok), f);
		if (!len)
			len = 1;
		for (i = 0; i < len; i++)
			fprintf(f, "\\x%02x", p[i]);
		ok = p + len;
	}
	fwrite(ok, 1, (size_t)(p - ok), f);
	return ferror(f) ? -EIO : 0;
}

void utf8_trim(char *s)
{
	size_t len = strlen(s), i = len, k;

	/* back to the lead byte of the last sequence; drop it if cut */
	while (i > 0 && ((unsigned char)s[i - 1] & 0xc0) == 0x80 && len - i < 3)
		i--;
	if (i == 0)
		return;
	k = utf8_len((const unsigned char *)s + i - 1);
	if ((unsigned char)s[i - 1] >= 0xc0 && (k == 0 || i - 1 + k > len))
		s[i - 1] = '\0';
}

int label_check(const char *s, struct strbuf *err)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789._+~:@-";
	size_t bad;

	if (!*s) {
		strbuf_addf(err, "a label is not empty");
		return -EINVAL;
	}
	if (strlen(s) > LABEL_MAX) {
		strbuf_addf(err, "a label is at most %d characters", LABEL_MAX);
		return -E2BIG;
	}
	bad = strspn(s, ok);
	if (s[bad]) {
		if ((unsigned char)s[bad] < 0x20 || (unsigned char)s[bad] >= 0x7f)
			strbuf_addf(err, "a label holds only letters, digits "
				    "and . _ + ~ : @ - (byte 0x%02x at offset "
				    "%zu)", (unsigned char)s[bad], bad);
		else
			strbuf_addf(err, "a label holds only letters, digits "
				    "and . _ + ~ : @ - (\"%c\" at offset %zu)",
				    s[bad], bad);
		return -EINVAL;
	}
	/* it names files: never hidden, an option, or a way up */
	if (s[0] == '.' || s[0] == '-' || strstr(s, "..")) {
		strbuf_addf(err, "a label does not start with '.' or '-' nor "
			    "hold \"..\"");
		return -EINVAL;
	}
	return 0;
}

void label_sanitize(char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._+~:@-", *s))
			*s = '_';
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

void die_oom(size_t n)
{
	fflush(stdout);
	fprintf(stderr, "bench: out of memory (allocating %zu bytes)\n", n);
	exit(70);	/* EX_SOFTWARE: bench/ maps nothing here, it never returns */
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die_oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die_oom(nmemb * size);
	return p;
}

void *xrealloc(void *q, size_t n)
{
	void *p = realloc(q, n ? n : 1);

	if (!p)
		die_oom(n);
	return p;
}

void *xreallocarray(void *q, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size) {
		fflush(stdout);
		fprintf(stderr, "bench: out of memory (%zu elements of %zu "
			"bytes overflow a size)\n", nmemb, size);
		exit(70);
	}
	return xrealloc(q, nmemb * size);
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die_oom(strlen(s) + 1);
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		die_oom(n + 1);
	return p;
}

FILE *xopen_memstream(char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	if (!f)
		die_oom(BUFSIZ);
	return f;
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

const char *secret_env(const char *name)
{
	static struct kept {
		char *name, *value;
	} kept[8];
	static size_t nkept;
	const char *v;
	size_t i;

	for (i = 0; i < nkept; i++)
		if (!strcmp(kept[i].name, name))
			return kept[i].value;
	v = getenv(name);
	if (nkept < ARRAY_SIZE(kept)) {
		kept[nkept].name = xstrdup(name);
		kept[nkept].value = v ? xstrdup(v) : NULL;
		v = kept[nkept++].value;
	} else {
		v = v ? xstrdup(v) : NULL;	/* kept to the end too */
	}
	if (v) {
		size_t n = strlen(getenv(name));

		explicit_bzero(getenv(name), n);
		unsetenv(name);
	}
	return v;
}

void url_masked(struct strbuf *sb, const char *url)
{
	const char *host = strstr(url, "://"), *q, *p, *at;

	/* user:password@host: the password */
	if (host) {
		host += 3;
		at = memchr(host, '@', strcspn(host, "/?#"));
		p = at ? memchr(host, ':', (size_t)(at - host)) : NULL;
		if (p) {
			strbuf_addf(sb, "%.*s:***", (int)(p - url), url);
			url = at;
		}
	}
	q = strpbrk(url, "?#");
	if (!q) {
		strbuf_addstr(sb, url);
		return;
	}
	strbuf_add(sb, url, (size_t)(q - url));
	if (*q == '#') {
		strbuf_addf(sb, "#***");
		return;
	}
	for (p = q + 1;; ) {
		size_t n = strcspn(p, "=&#");

		strbuf_addf(sb, "%c%.*s", p == q + 1 ? '?' : '&', (int)n, p);
		p += n;
		if (*p == '=') {
			strbuf_addf(sb, "=***");
			p += 1 + strcspn(p + 1, "&#");
		}
		if (*p == '#') {
			strbuf_addf(sb, "#***");
			return;
		}
		if (!*p)
			return;
		p++;
	}
}

bool url_query_secret(const char *url)
{
	static const char *const words[] = {
		"key", "token", "secret", "pass", "auth", "sig", "cred",
		"session", "bearer",
	};
	const char *p = strchr(url, '?');
	char name[128];

	while (p && *p && *p != '#') {
		size_t n = strcspn(++p, "=&#"), i;

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		for (i = 0; name[i]; i++)
			name[i] = (char)tolower((unsigned char)name[i]);
		for (i = 0; i < ARRAY_SIZE(words); i++)
			if (strstr(name, words[i]))
				return true;
		p += strcspn(p, "&#");
	}
	return false;
}
