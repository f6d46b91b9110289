/*
 * What differs between the two sides besides the kernel (machine, command
 * line, THP, tmpfs, virtualisation, tool), the cases one side lacks, and
 * the runs whose kernel printed a problem.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strmap.h"
#include "reports/compare.h"
#include "reports/stats.h"
#include "schema/db_report.h"
#include "reports/compare_priv.h"

/*
 * The kernel command line without what names the kernel image: a patched
 * kernel boots another BOOT_IMAGE (and initrd) by design.
 */
static void cmdline_norm(const char *in, struct strbuf *out)
{
	const char *p = in, *e;
	size_t len;

	while (*p) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		e = p + strcspn(p, " \t");
		len = (size_t)(e - p);
		if (strncmp(p, "BOOT_IMAGE=", 11) &&
		    strncmp(p, "initrd=", 7)) {
			if (out->len)
				strbuf_addch(out, ' ');
			strbuf_add(out, p, len);
		}
		p = e;
	}
}

typedef const char *(*field_fn)(const struct report_run *r,
				struct strbuf *tmp);

static const char *f_cpu(const struct report_run *r, struct strbuf *t)
{
	(void)t;
	return r->cpu_model;
}

static const char *f_vcpus(const struct report_run *r, struct strbuf *t)
{
	strbuf_addf(t, "%lld", (long long)r->vcpus);
	return strbuf_str(t);
}

static const char *f_cmdline(const struct report_run *r, struct strbuf *t)
{
	cmdline_norm(r->cmdline, t);
	return strbuf_str(t);
}

static const char *f_thp(const struct report_run *r, struct strbuf *t)
{
	(void)t;
	return r->thp;
}

static const char *f_tmpfs(const struct report_run *r, struct strbuf *t)
{
	(void)t;
	return r->tmpfs;
}

static const char *f_virt(const struct report_run *r, struct strbuf *t)
{
	(void)t;
	return r->virt;
}

static const char *f_tool(const struct report_run *r, struct strbuf *t)
{
	(void)t;
	return r->tool_version;
}

/*
 * The distinct values of one field over a side's runs, "a" or "a | b", in
 * the order first met: by a map (10^4 runs a side), asked only where a
 * run's value is not its predecessor's (mostly it is).
 */
static void distinct(const struct report_side *s, field_fn fn,
		     struct strbuf *out)
{
	struct strmap seen = STRMAP_INIT;
	struct strbuf t = STRBUF_INIT, last = STRBUF_INIT;
	size_t i, n = 0;
	const char *v;

	for (i = 0; i < s->nruns; i++) {
		strbuf_reset(&t);
		v = fn(&s->runs[i], &t);
		if (i && !strcmp(v, strbuf_str(&last)))
			continue;
		strbuf_reset(&last);
		strbuf_addstr(&last, v);
		if (strmap_put(&seen, &v, 1, n) < n)
			continue;
		n++;
		strbuf_addf(out, "%s'%s'", out->len ? " | " : "", v);
	}
	strbuf_release(&t);
	strbuf_release(&last);
	strmap_release(&seen);
}

int cmp_diff_meta(struct report_cmp *c, struct cmp_build *cb)
{
	static const struct {
		const char *name;
		field_fn fn;
	} fields[] = {
		{ "CPU model", f_cpu },
		{ "vCPUs", f_vcpus },
		{ "VM or bare metal", f_virt },
		{ "kernel command line", f_cmdline },
		{ "THP and shmem settings", f_thp },
		{ "/dev/shm mount", f_tmpfs },
		{ "tool version", f_tool },
	};
	int64_t lo = INT64_MAX, hi = 0;
	size_t i, k;
	int r = 0;

	for (k = 0; k < ARRAY_SIZE(fields) && !r; k++) {
		struct strbuf va = STRBUF_INIT, vb = STRBUF_INIT;

		distinct(c->a, fields[k].fn, &va);
		distinct(c->b, fields[k].fn, &vb);
		if (strcmp(strbuf_str(&va), strbuf_str(&vb)))
			r = cmp_warnf(c, cb, "%s differs: %s has %s; %s has %s",
				  fields[k].name, c->a->label, strbuf_str(&va),
				  c->b->label, strbuf_str(&vb));
		strbuf_release(&va);
		strbuf_release(&vb);
	}
	/*
	 * MemTotal moves by a few MiB with the size of the kernel image
	 * itself, so only a difference over 1% is a different machine.
	 */
	for (k = 0; k < 2; k++) {
		const struct report_side *s = k ? c->b : c->a;

		for (i = 0; i < s->nruns; i++) {
			if (s->runs[i].mem_bytes < lo)
				lo = s->runs[i].mem_bytes;
			if (s->runs[i].mem_bytes > hi)
				hi = s->runs[i].mem_bytes;
		}
	}
	/* 0 < lo <= hi: hi - lo cannot overflow where lo + lo / 100 did */
	if (!r && lo > 0 && hi - lo > lo / 100) {
		char l[32], h[32];

		human_size((uint64_t)lo, l, sizeof(l));
		human_size((uint64_t)hi, h, sizeof(h));
		r = cmp_warnf(c, cb, "memory differs by more than 1%%: from %s to "
			  "%s across the runs of %s and %s", l, h,
			  c->a->label, c->b->label);
	}
	return r;
}

struct invalid_count {
	const struct report_side *s;
	int64_t n, valid;
	char first[200];
};

static int count_invalid(const struct db_report_invalid *v, void *arg)
{
	struct invalid_count *ic = arg;
	size_t i;

	for (i = 0; i < ic->s->nruns; i++)
		if (ic->s->runs[i].id == v->run_id)
			break;
	if (i == ic->s->nruns)
		return 0;	/* a run of the other half */
	if (v->valid) {
		ic->valid += v->n;
		return 0;
	}
	if (!ic->n)
		snprintf(ic->first, sizeof(ic->first), "%s",
			 v->reason[0] ? v->reason : "no reason stored");
	ic->n += v->n;
	return 0;
}

/*
 * Why side s has no value of a case the other side has: its samples all
 * invalid (how many, the first reason), or invalid but for those left out
 * as noisy, added to why; nothing said where it has no sample of it.
 */
static void why_missing(const struct report_side *s, const char *workload,
			const char *params, struct strbuf *why)
{
	struct invalid_count ic = { .s = s };

	if (!s->db || db_report_invalid_case_each(s->db, s->db_label,
						  workload, params,
						  count_invalid, &ic) ||
	    !ic.n)
		return;
	if (ic.valid)	/* the valid ones were noisy, left out */
		strbuf_addf(why, ": of %s's %lld samples, %lld %s invalid (the "
			    "first: %s) and %lld left out as noisy", s->label,
			    (long long)(ic.n + ic.valid), (long long)ic.n,
			    ic.n == 1 ? "was" : "were", ic.first,
			    (long long)ic.valid);
	else
		strbuf_addf(why, ": %s's %lld sample%s %s invalid (the first: "
			    "%s)", s->label, (long long)ic.n,
			    ic.n == 1 ? "" : "s",
			    ic.n == 1 ? "was" : "were all", ic.first);
}

int cmp_diff_cases(struct report_cmp *c, struct cmp_build *cb)
{
	struct strbuf why = STRBUF_INIT;
	size_t i, k;
	int r = 0;

	for (i = 0; i < c->nrows && !r; i++) {
		const struct report_row *row = &c->rows[i];
		const struct report_series *x = row_ser(row);
		size_t j;

		if (row->a && row->b)
			continue;
		/* one line a case, however many of its metrics are rows */
		for (j = 0; j < i; j++) {
			const struct report_row *o = &c->rows[j];

			if (!o->a != !row->a || (o->a && o->b))
				continue;
			if (!strcmp(row_ser(o)->workload, x->workload) &&
			    !strcmp(row_ser(o)->params, x->params))
				break;
		}
		if (j < i)
			continue;
		strbuf_reset(&why);
		why_missing(row->a ? c->b : c->a, x->workload, x->params,
			    &why);
		r = cmp_warnf(c, cb, "%s %s was measured on %s only%s",
			      x->workload, x->params,
			      row->a ? c->a->label : c->b->label,
			      strbuf_str(&why));
	}
	for (k = 0; k < 2 && !r; k++) {
		const struct report_side *s = k ? c->b : c->a;

		for (i = 0; i < s->nnotdone && !r; i++)
			r = cmp_warnf(c, cb, "%s %s %s on %s%s%s",
				  s->notdone[i].workload,
				  s->notdone[i].params, s->notdone[i].status,
				  s->label, s->notdone[i].reason[0] ? ": " : "",
				  s->notdone[i].reason);
	}
	strbuf_release(&why);
	return r;
}

/*
 * The runs of a side whose kernel printed a problem (WARNING:, BUG:, ...)
 * while they ran: a table must never be made silently from such a kernel.
 */
int cmp_kernel_warnings(struct report_cmp *c, size_t *alloc,
			   const struct report_side *s)
{
	const struct report_run *first = NULL;
	int64_t lines = 0;
	size_t i, nruns = 0;
	char buf[2048];

	for (i = 0; i < s->nruns; i++) {
		if (s->runs[i].kernel_warnings <= 0)
			continue;
		if (!first)
			first = &s->runs[i];
		nruns++;
		lines += s->runs[i].kernel_warnings;
	}
	if (!nruns)
		return 0;
	snprintf(buf, sizeof(buf), "%s: the kernel printed %lld line%s "
		 "showing a problem during %zu of %zu runs; the first, in "
		 "boot %.8s, run %.8s: %s", s->label, (long long)lines,
		 lines == 1 ? "" : "s", nruns, s->nruns, first->boot_id,
		 first->uuid, first->kwarn_first);
	cmp_list_add(&c->kwarn, &c->nkwarn, alloc, buf);
	return 0;
}
