/*
 * The table engine of the human formats: columns aligned on the display
 * width of UTF-8 text, and words wrapped at a width no line passes.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "reports/format.h"

/* Display width of UTF-8 text: count the bytes that start a character. */
size_t tbl_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

void tbl_row(struct tbl *t, ...)
{
	va_list ap;
	size_t i;

	ALLOC_GROW(t->cell, (t->nrows + 1) * t->ncol, t->alloc);
	va_start(ap, t);
	for (i = 0; i < t->ncol; i++) {
		const char *s = va_arg(ap, const char *);

		t->cell[t->nrows * t->ncol + i] = xstrdup(s ? s : "");
	}
	va_end(ap);
	t->nrows++;
}

void tbl_free(struct tbl *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncol; i++)
		free(t->cell[i]);
	free(t->cell);
}

/*
 * Column widths; a column empty below its heading is left out (width 0),
 * such as "per folio" for a workload that gives no per-folio metric.
 */
void tbl_widths(const struct tbl *t, size_t *w)
{
	size_t r, i, data[16] = { 0 };

	for (i = 0; i < t->ncol; i++)
		w[i] = 0;
	for (r = 0; r < t->nrows; r++)
		for (i = 0; i < t->ncol; i++) {
			size_t x = tbl_width(t->cell[r * t->ncol + i]);

			if (x > w[i])
				w[i] = x;
			if (r && x > data[i])
				data[i] = x;
		}
	for (i = 1; t->heading && i < t->ncol; i++)
		if (!data[i])
			w[i] = 0;
}

/* One row, columns two spaces apart, no trailing blanks. */
void tbl_print_row(FILE *f, const struct tbl *t, const size_t *w,
		   size_t r, size_t first)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, pad, end;

	for (i = first; i < t->ncol; i++) {
		const char *s = t->cell[r * t->ncol + i];

		if (i > first && !w[i])
			continue;	/* a column left out */
		pad = w[i] - tbl_width(s);
		if (i > first)
			strbuf_addf(&sb, "  ");
		if (t->align[i] == 'r')
			strbuf_addf(&sb, "%*s%s", (int)pad, "", s);
		else
			strbuf_addf(&sb, "%s%*s", s, (int)pad, "");
	}
	end = sb.len;
	while (end && sb.buf[end - 1] == ' ')
		end--;
	fprintf(f, "%.*s\n", (int)end, strbuf_str(&sb));
	strbuf_release(&sb);
}

void tbl_print(FILE *f, const struct tbl *t)
{
	size_t w[16], r;

	tbl_widths(t, w);
	for (r = 0; r < t->nrows; r++)
		tbl_print_row(f, t, w, r, 0);
}

/* Display width of the first len bytes of s. */
static size_t width_n(const char *s, size_t len)
{
	size_t n = 0, i;

	for (i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

/*
 * Bytes of the head of a word of len bytes that fits room columns: up to
 * its last '/' or ',' that fits (a path or a list reads well broken
 * there) unless that leaves the line less than half full, else cut at
 * room columns.  At least one character, so that a caller always moves on.
 */
static size_t cut(const char *s, size_t len, size_t room)
{
	size_t i = 0, col = 0, brk = 0, brk_col = 0, n;

	if (!room)
		room = 1;
	while (i < len && col < room) {
		n = 1;
		while (i + n < len && ((unsigned char)s[i + n] & 0xc0) == 0x80)
			n++;
		i += n;
		col++;
		if (s[i - n] == '/' || s[i - n] == ',') {
			brk = i;
			brk_col = col;
		}
	}
	if (i >= len)
		return len;
	return brk && 2 * brk_col >= room ? brk : i;
}

/*
 * Words wrapped at cols, the first line starting with first and the others
 * with indent.  A word wider than a line is broken (cut), so that no line
 * is wider than cols: the changelog's promise of 75 columns holds for any
 * label, path or name.
 */
void tbl_wrap_hang(FILE *f, const char *text, size_t cols,
		   const char *first, const char *indent)
{
	const char *p = text, *e;
	size_t col = 0, len, n;
	bool fresh = true;

	while (*p) {
		p += strspn(p, " ");
		if (!*p)
			break;
		e = p + strcspn(p, " ");
		len = width_n(p, (size_t)(e - p));
		if (col && col + 1 + len > cols) {
			fputc('\n', f);
			col = 0;
		}
		if (!col) {
			fputs(fresh ? first : indent, f);
			col = tbl_width(fresh ? first : indent);
			fresh = false;
		} else {
			fputc(' ', f);
			col++;
		}
		while (len && col + len > cols) {
			n = cut(p, (size_t)(e - p), cols > col ? cols - col :
				1);
			fwrite(p, 1, n, f);
			fputc('\n', f);
			p += n;
			len = width_n(p, (size_t)(e - p));
			fputs(indent, f);
			col = tbl_width(indent);
		}
		fwrite(p, 1, (size_t)(e - p), f);
		col += len;
		p = e;
	}
	if (col)
		fputc('\n', f);
}

/* Words wrapped at cols, each line starting with indent. */
void tbl_wrap(FILE *f, const char *text, size_t cols, const char *indent)
{
	tbl_wrap_hang(f, text, cols, indent, indent);
}
