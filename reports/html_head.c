/*
 * The header blocks of the HTML page: the kernels, machines, command
 * lines, tool versions and dates of each side, the method, the warnings.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/html_priv.h"

static const char css[] =
	"body{font-family:sans-serif;margin:1.5em auto;max-width:62em;"
	"padding:0 1em;color:#222;line-height:1.4}"
	"h1{font-size:1.5em}h2{font-size:1.15em;margin-top:2em;"
	"border-bottom:1px solid #ccc;word-break:break-all}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;"
	"vertical-align:top}"
	"td.num{text-align:right;white-space:nowrap}"
	"figure{margin:.5em 0}figure svg{width:100%;height:auto}"
	"figcaption{font-size:.9em;color:#555}"
	".warn{background:#fff3cd;border:1px solid #e0b000;padding:.5em}"
	".strict{background:#f8d7da;border-color:#c00}"
	".sig{font-weight:bold}.code{font-family:monospace;"
	"word-break:break-all}.fn{font-family:monospace}\n";

/* Distinct values of one field over a side's runs, ", " between. */
static void distinct(struct out *o, const struct report_side *s,
		     void (*field)(const struct report_run *, struct strbuf *))
{
	struct strbuf seen = STRBUF_INIT, v = STRBUF_INIT;
	size_t i, n = 0;

	for (i = 0; i < s->nruns; i++) {
		const char *p, *q;
		bool dup = false;

		strbuf_reset(&v);
		field(&s->runs[i], &v);
		/* seen holds each value followed by a NUL-free separator */
		for (p = strbuf_str(&seen); *p; p = q + 1) {
			q = strchr(p, '\x1f');
			if ((size_t)(q - p) == v.len &&
			    !memcmp(p, strbuf_str(&v), v.len))
				dup = true;
		}
		if (dup)
			continue;
		strbuf_addf(&seen, "%s\x1f", strbuf_str(&v));
		if (n++)
			put(o, "<br>");
		esc(o, strbuf_str(&v));
	}
	strbuf_release(&seen);
	strbuf_release(&v);
}

static void f_kernel(const struct report_run *r, struct strbuf *sb)
{
	strbuf_addstr(sb, r->kernel_release);
}

static void f_machine(const struct report_run *r, struct strbuf *sb)
{
	char mem[32];

	human_size((uint64_t)r->mem_bytes, mem, sizeof(mem));
	strbuf_addf(sb, "%s: %s, %lld CPUs, %s%s%s", r->hostname,
		    r->cpu_model, (long long)r->vcpus, mem,
		    r->virt[0] ? ", " : "", r->virt);
}

static void f_cmdline(const struct report_run *r, struct strbuf *sb)
{
	strbuf_addstr(sb, r->cmdline);
}

static void f_tool(const struct report_run *r, struct strbuf *sb)
{
	strbuf_addstr(sb, r->tool_version);
}

static void dates(struct out *o, const struct report_side *s)
{
	const char *lo = NULL, *hi = NULL;
	size_t i;

	for (i = 0; i < s->nruns; i++) {
		const char *t = s->runs[i].started_at;

		if (!lo || strcmp(t, lo) < 0)
			lo = t;
		if (!hi || strcmp(t, hi) > 0)
			hi = t;
	}
	if (!lo)
		return;
	esc(o, lo);
	if (strcmp(lo, hi)) {
		put(o, " to ");
		esc(o, hi);
	}
}

static void head_row(struct out *o, const struct report_page *p,
		     const char *name,
		     void (*field)(const struct report_run *, struct strbuf *))
{
	int k;

	put(o, "<tr><th>%s</th>", name);
	for (k = 0; k < 2 && p->side[k]; k++) {
		put(o, "<td class=\"code\">");
		distinct(o, p->side[k], field);
		put(o, "</td>");
	}
	put(o, "</tr>\n");
}

/* The document's head and the page's title: PATCH against BASE. */
static void title(struct out *o, const struct report_page *p)
{
	put(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width\">\n"
	    "<title>foliobench: ");
	esc(o, p->side[0]->label);
	if (p->side[1]) {
		put(o, " against ");
		esc(o, p->side[1]->label);
	}
	put(o, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
	if (p->side[1]) {
		esc(o, p->side[1]->label);
		put(o, " against ");
		esc(o, p->side[0]->label);
	} else {
		esc(o, p->side[0]->label);
	}
	put(o, "</h1>\n");
}

/* What each side ran on: kernel, machine, command line, tool, dates. */
static void sides_table(struct out *o, const struct report_page *p)
{
	int k;

	put(o, "<table class=\"meta\">\n<tr><th></th>");
	for (k = 0; k < 2 && p->side[k]; k++) {
		put(o, "<th>%s: ", !p->side[1] ? "kernel" :
		    k ? "patch" : "base");
		esc(o, p->side[k]->label);
		put(o, "</th>");
	}
	put(o, "</tr>\n");
	head_row(o, p, "kernel", f_kernel);
	head_row(o, p, "machine", f_machine);
	head_row(o, p, "command line", f_cmdline);
	head_row(o, p, "foliobench", f_tool);
	put(o, "<tr><th>dates</th>");
	for (k = 0; k < 2 && p->side[k]; k++) {
		put(o, "<td>");
		dates(o, p->side[k]);
		put(o, "</td>");
	}
	put(o, "</tr>\n<tr><th>boots, runs</th>");
	for (k = 0; k < 2 && p->side[k]; k++)
		put(o, "<td class=\"boots\">%zu boot%s, %zu run%s</td>",
		    p->side[k]->nboots, p->side[k]->nboots == 1 ? "" : "s",
		    p->side[k]->nruns, p->side[k]->nruns == 1 ? "" : "s");
	put(o, "</tr>\n</table>\n");
}

/* The differences besides the kernel that --strict refuses. */
static void strict_warnings(struct out *o, const struct report_cmp *c)
{
	size_t i;

	if (!c->nwarn)
		return;
	put(o, "<div class=\"warn strict\"><strong>The two sides differ "
	    "in more than the kernel; <code>bench compare --strict"
	    "</code> refuses this comparison:</strong><ul>\n");
	for (i = 0; i < c->nwarn; i++) {
		put(o, "<li>");
		esc(o, c->warn[i]);
		put(o, "</li>\n");
	}
	put(o, "</ul></div>\n");
}

/* Cases a side did not complete, with their status and reason. */
static void not_done(struct out *o, const struct report_side *s)
{
	size_t i;

	for (i = 0; i < s->nnotdone; i++) {
		const struct report_notdone *d = &s->notdone[i];

		put(o, "<p class=\"warn\">");
		esc(o, s->label);
		put(o, ": ");
		esc(o, d->workload);
		put(o, " <span class=\"code\">");
		esc(o, d->params);
		put(o, "</span> ");
		esc(o, d->status);
		if (d->reason && d->reason[0]) {
			put(o, ": ");
			esc(o, d->reason);
		}
		put(o, "</p>\n");
	}
}

/* Samples flagged noisy, and metrics this machine cannot measure. */
static void noisy_unmeasurable(struct out *o, const struct report_page *p)
{
	const struct report_cmp *c = &p->cmp;
	size_t i;
	int k;

	if ((p->noisy[0] || p->noisy[1]) && p->side[0]->clock.counted) {
		/* steal and oversubscription judge time, not counts */
		put(o, "<p class=\"note noisy\">Samples flagged noisy by "
		    "steal or the oversubscription probe, which judge time "
		    "and do not apply to counts of guest instructions (what "
		    "does change a count: an interrupt or a kernel thread "
		    "that ran inside the call); plotted and counted like the "
		    "others:");
	} else if (p->noisy[0] || p->noisy[1]) {
		put(o, "<p class=\"warn noisy\">Samples flagged noisy (steal "
		    "over steal_max, or PUs oversubscribed), plotted and "
		    "counted like the others "
		    "(<code>bench compare --drop-noisy</code> leaves them "
		    "out):");
		for (k = 0; k < 2 && p->side[k]; k++) {
			put(o, "%s ", k ? ";" : "");
			esc(o, p->side[k]->label);
			put(o, " %lld of %lld", (long long)p->noisy[k],
			    (long long)p->nvalid[k]);
		}
		put(o, ".</p>\n");
	}
	for (i = 0; i < c->nunmeasurable; i++) {
		put(o, "%s", i ? ", " : "<p class=\"warn unmeasurable\">"
		    "Not measurable on this machine (stored as not "
		    "supported): ");
		esc(o, c->unmeasurable[i]);
	}
	if (c->nunmeasurable)
		put(o, ".</p>\n");
}

void html_header(struct out *o, const struct report_page *p)
{
	int k;

	title(o, p);
	sides_table(o, p);
	put(o, "<p class=\"method\">");
	esc(o, p->cmp.method ? p->cmp.method : "");
	put(o, "</p>\n");
	strict_warnings(o, &p->cmp);
	for (k = 0; k < 2 && p->side[k]; k++)
		not_done(o, p->side[k]);
	noisy_unmeasurable(o, p);
}
