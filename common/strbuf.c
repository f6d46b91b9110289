/*
 * struct strbuf (common.h), as git's: a string that grows, made and read
 * whole (xstrfmt, strbuf_read_file), and err_setf, the one way a failure
 * is said on its way up.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t want;

	if (extra > SIZE_MAX - sb->len - 1)
		die_oom(SIZE_MAX);
	want = sb->len + extra + 1;
	if (want <= sb->alloc)
		return;
	if (want < 128)
		want = 128;
	if (want < sb->alloc / 2 * 3)
		want = sb->alloc / 2 * 3;
	sb->buf = xrealloc(sb->buf, want);
	sb->alloc = want;
	if (!sb->len)
		sb->buf[0] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	strbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

/* One vsnprintf when the text fits the room left, a second when it did not. */
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list again;
	size_t room;
	int need;

	strbuf_grow(sb, 64);
	room = sb->alloc - sb->len;
	va_copy(again, ap);
	need = vsnprintf(sb->buf + sb->len, room, fmt, ap);
	if (need < 0) {
		sb->buf[sb->len] = '\0';
		va_end(again);
		return;
	}
	if ((size_t)need >= room) {
		strbuf_grow(sb, (size_t)need);
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, again);
	}
	va_end(again);
	sb->len += (size_t)need;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->buf)
		return;
	if (len > sb->len)
		len = sb->len;
	sb->len = len;
	sb->buf[len] = '\0';
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *s;

	if (!sb->buf)
		strbuf_grow(sb, 0);
	s = sb->buf;
	if (len)
		*len = sb->len;
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return s;
}

int strbuf_read_file(struct strbuf *sb, const char *path)
{
	char chunk[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		strbuf_add(sb, chunk, (size_t)n);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	if (!sb->buf)
		strbuf_add(sb, "", 0);
	return 0;
}

char *xstrfmt(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb, NULL);
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

void strbuf_json_str(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, c);
		} else if (c < 0x20 || c == 0x7f) {
			strbuf_addf(sb, "\\u%04x", c);
		} else if (c == 0xc2 && (unsigned char)s[1] >= 0x80 &&
			   (unsigned char)s[1] < 0xa0) {	/* C1 controls */
			strbuf_addf(sb, "\\u%04x", (unsigned char)*++s);
		} else {
			strbuf_addch(sb, c);
		}
	}
	strbuf_addch(sb, '"');
}

int err_setf(struct strbuf *err, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strbuf_release(err);
	*err = sb;
	return -1;
}
