/*
 * The report formats, one entry a format behind report_print(): text,
 * changelog, markdown and CSV (format_*.c), JSON (json.c).  Values are
 * stored in the metric's unit; only the human formats scale them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reports/format.h"

/* The one list of the formats' names, in enum report_format's order. */
static const struct report_fmt *const formats[] = {
	[REPORT_TEXT] = &report_fmt_text,
	[REPORT_CHANGELOG] = &report_fmt_changelog,
	[REPORT_MARKDOWN] = &report_fmt_markdown,
	[REPORT_CSV] = &report_fmt_csv,
	[REPORT_JSON] = &report_fmt_json,
};

/* The other outputs' names, in the order the names are listed. */
static const struct {
	enum report_output out;
	const char *name;
} outputs[] = {
	{ REPORT_OUT_MINISTAT, "ministat" },
	{ REPORT_OUT_BENCHSTAT, "benchstat" },
	{ REPORT_OUT_FOLDED, "folded" },
	{ REPORT_OUT_RUN_JSON, "run-json" },
};

int report_format_parse(const char *name, unsigned allowed,
			enum report_format *f, enum report_output *out)
{
	size_t i;

	*out = REPORT_OUT_NONE;
	for (i = 0; i < ARRAY_SIZE(formats); i++)
		if (!strcmp(name, formats[i]->name)) {
			*f = (enum report_format)i;
			return 0;
		}
	for (i = 0; i < ARRAY_SIZE(outputs); i++)
		if ((allowed & outputs[i].out) &&
		    !strcmp(name, outputs[i].name)) {
			*out = outputs[i].out;
			return 0;
		}
	return -1;
}

const char *report_output_name(enum report_output out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(outputs); i++)
		if (outputs[i].out == out)
			return outputs[i].name;
	return formats[REPORT_TEXT]->name;
}

void report_format_names(struct strbuf *sb, const char *mark,
			 unsigned allowed)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(formats); i++)
		strbuf_addf(sb, "%s%s%s", i ? ", " : "", formats[i]->name,
			    mark && i == REPORT_TEXT ? mark : "");
	for (i = 0; i < ARRAY_SIZE(outputs); i++)
		if (allowed & outputs[i].out)
			strbuf_addf(sb, ", %s", outputs[i].name);
}

static int report_print_raw(FILE *f, const struct report_cmp *c,
			    const struct report_fmt *rf,
			    enum report_format fmt)
{
	int r;

	r = c->b ? rf->print_cmp(f, c) : rf->print_export(f, c);
	if (r)
		return r;
	report_print_kwarn(f, c, fmt);
	return ferror(f) ? -EIO : 0;
}

/*
 * The formats people read on a terminal (text, changelog, markdown) are
 * written through fputs_term(): labels, kernel names and lines from the
 * database can hold any byte.  CSV and JSON are for machines and keep
 * every value exact (JSON escapes control characters; CSV quotes them).
 */
int report_print(FILE *f, const struct report_cmp *c, enum report_format fmt)
{
	const struct report_fmt *rf = formats[fmt];
	char *text = NULL;
	size_t len = 0;
	FILE *out = f;
	int r;

	if (rf->term)
		f = xopen_memstream(&text, &len);
	r = report_print_raw(f, c, rf, fmt);
	if (f != out) {
		if (fclose(f) && !r)
			r = -ENOMEM;
		if (!r && fputs_term(text, out, "\n"))
			r = -EIO;
		free(text);
	}
	if (r)
		return r;
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}
