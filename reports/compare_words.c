/*
 * The words of a comparison: each row's name from what varies over the
 * rows, the phrase of what every row shares, and the method sentence.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/compare.h"
#include "reports/stats.h"
#include "schema/db_report.h"
#include "reports/compare_priv.h"

static const char *kv_get(const struct report_series *x, const char *key)
{
	size_t i;

	for (i = 0; i < x->nkv; i++)
		if (!strcmp(x->kv[i].key, key))
			return x->kv[i].value;
	return NULL;
}

/* Does key take more than one value over the rows of this workload? */
static bool key_varies(const struct report_cmp *c, const char *workload,
		       const char *key)
{
	const char *first = NULL, *v;
	bool seen = false;
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		const struct report_series *x = row_ser(&c->rows[i]);

		if (strcmp(x->workload, workload))
			continue;
		v = kv_get(x, key);
		if (!seen) {
			first = v;
			seen = true;
		} else if (!v != !first || (v && strcmp(v, first))) {
			return true;
		}
	}
	return false;
}

/* Does the table hold more than one metric for this workload? */
static bool metrics_vary(const struct report_cmp *c, const char *workload)
{
	const char *first = NULL;
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		const struct report_series *x = row_ser(&c->rows[i]);

		if (strcmp(x->workload, workload))
			continue;
		if (!first)
			first = x->metric;
		else if (strcmp(first, x->metric))
			return true;
	}
	return false;
}

/* How the workload's table says key=value, its words in buf. */
static enum report_say say(const struct report_cmp *c, const char *workload,
			   const char *key, const char *value, char *buf,
			   size_t n)
{
	return c->words ? c->words(workload, key, value, buf, n) :
			  REPORT_SAY_NONE;
}

/* "key=value", and the value asked beside it where another one ran. */
static void kv_config(const struct report_kv *kv, struct strbuf *sb)
{
	strbuf_addf(sb, "%s=%s", kv->key, kv->value);
	if (kv->asked)
		strbuf_addf(sb, " (asked %s)", kv->asked);
}

/*
 * One param as a reader says it: sizes in bytes units ("8 GiB"), folios
 * the kernel's way ("4K folios"), a value the workload has words for in
 * them ("ftruncate() to 0"), anything else as "key=value".
 */
static void value_words(const struct report_cmp *c, const char *workload,
			const char *key, const char *value, struct strbuf *sb)
{
	char buf[96];

	switch (say(c, workload, key, value, buf, sizeof(buf))) {
	case REPORT_SAY_FOLIOS:
		strbuf_addf(sb, "%s folios", buf);
		break;
	case REPORT_SAY_FILE:
	case REPORT_SAY_WORDS:
		strbuf_addf(sb, "%s", buf);
		break;
	default:
		strbuf_addf(sb, "%s=%s", key, value);
	}
}

static void kv_words(const struct report_cmp *c, const char *workload,
		     const struct report_kv *kv, struct strbuf *sb)
{
	enum report_say k;
	char buf[96];

	value_words(c, workload, kv->key, kv->value, sb);
	if (!kv->asked)
		return;
	strbuf_addf(sb, " (asked ");
	k = say(c, workload, kv->key, kv->asked, buf, sizeof(buf));
	if (k == REPORT_SAY_FILE || k == REPORT_SAY_FOLIOS)
		strbuf_addf(sb, "%s", buf);
	else
		value_words(c, workload, kv->key, kv->asked, sb);
	strbuf_addf(sb, ")");
}

static const struct report_kv *kv_find(const struct report_series *x,
				       const char *key)
{
	size_t i;

	for (i = 0; i < x->nkv; i++)
		if (!strcmp(x->kv[i].key, key))
			return &x->kv[i];
	return NULL;
}

/*
 * Only what tells rows apart, twice: in config syntax for the machine
 * formats and the terminal ("shmem-remove op=unlink folio=4k wall"), and
 * in words for changelogs and markdown ("unlink(), 8 GiB, 4K folios").
 */
int cmp_name_rows(struct report_cmp *c)
{
	size_t i, k;

	/*
	 * One workload and nothing that varies: the heading names the
	 * workload, so the row takes its first param ("op=unlink").
	 */
	if (c->workload && c->nrows &&
	    !metrics_vary(c, row_ser(&c->rows[0])->workload)) {
		const struct report_series *x = row_ser(&c->rows[0]);
		bool varies = false;

		for (k = 0; k < x->nkv; k++)
			varies |= key_varies(c, x->workload, x->kv[k].key);
		if (!varies && x->nkv)
			c->name_key = x->kv[0].key;
	}
	for (i = 0; i < c->nrows; i++) {
		const struct report_series *x = row_ser(&c->rows[i]);
		struct strbuf sb = STRBUF_INIT, wb = STRBUF_INIT;
		const struct report_kv *nk = c->name_key ?
					     kv_find(x, c->name_key) : NULL;

		if (nk) {
			kv_config(nk, &sb);
			kv_words(c, x->workload, nk, &wb);
		}
		/* One workload: the table's heading names it, rows need not. */
		if (!c->workload) {
			strbuf_addf(&sb, "%s", x->workload);
			strbuf_addf(&wb, "%s", x->workload);
		}
		for (k = 0; k < x->nkv; k++) {
			if (nk || !key_varies(c, x->workload, x->kv[k].key))
				continue;
			strbuf_addf(&sb, "%s", sb.len ? " " : "");
			kv_config(&x->kv[k], &sb);
			strbuf_addf(&wb, "%s", wb.len ? ", " : "");
			kv_words(c, x->workload, &x->kv[k], &wb);
		}
		if (metrics_vary(c, x->workload)) {
			strbuf_addf(&sb, "%s%s", sb.len ? " " : "", x->metric);
			strbuf_addf(&wb, "%s%s", wb.len ? ", " : "",
				    x->metric);
		}
		if (!sb.len)
			strbuf_addf(&sb, "%s", x->workload);
		if (!wb.len)
			strbuf_addf(&wb, "%s", x->workload);
		c->rows[i].name = strbuf_detach(&sb, NULL);
		c->rows[i].words = strbuf_detach(&wb, NULL);
	}
	return 0;
}

/* Is kv of x said in the phrase's words (the file, its folios)? */
static enum report_say kv_say(const struct report_cmp *c,
			      const struct report_series *x,
			      const struct report_kv *kv, char *buf, size_t n)
{
	enum report_say k = say(c, x->workload, kv->key, kv->value, buf, n);

	return k == REPORT_SAY_FILE || k == REPORT_SAY_FOLIOS ? k :
	       REPORT_SAY_NONE;
}

static void workload_phrase(const struct report_cmp *c,
			    const struct report_series *x, struct strbuf *sb)
{
	const struct report_kv *size = NULL, *folio = NULL;
	char w1[96], w2[96];
	size_t k, start = sb->len;

	for (k = 0; k < x->nkv; k++) {
		if (key_varies(c, x->workload, x->kv[k].key) ||
		    (c->name_key && !strcmp(x->kv[k].key, c->name_key)))
			continue;
		switch (kv_say(c, x, &x->kv[k], w1, sizeof(w1))) {
		case REPORT_SAY_FILE:
			size = &x->kv[k];
			break;
		case REPORT_SAY_FOLIOS:
			folio = &x->kv[k];
			break;
		default:
			break;
		}
	}
	if (size) {
		say(c, x->workload, size->key, size->value, w1, sizeof(w1));
		strbuf_addf(sb, "%s file", w1);
		if (size->asked) {
			say(c, x->workload, size->key, size->asked, w1,
			    sizeof(w1));
			strbuf_addf(sb, " (asked %s)", w1);
		}
	}
	if (folio) {
		say(c, x->workload, folio->key, folio->value, w2, sizeof(w2));
		strbuf_addf(sb, "%s%s folios", size ? " of " : "", w2);
	}
	for (k = 0; k < x->nkv; k++) {
		const char *key = x->kv[k].key;

		if (kv_say(c, x, &x->kv[k], w1, sizeof(w1)) ||
		    key_varies(c, x->workload, key) ||
		    (c->name_key && !strcmp(key, c->name_key)))
			continue;
		strbuf_addf(sb, "%s", sb->len > start ? ", " : "");
		kv_config(&x->kv[k], sb);
	}
}

int cmp_build_phrase(struct report_cmp *c)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, j, nwl = 0;

	/* One workload: its phrase; several: "name: phrase; name: ..." */
	for (i = 0; i < c->nrows; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(row_ser(&c->rows[j])->workload,
				    row_ser(&c->rows[i])->workload))
				break;
		nwl += j == i;
	}
	for (i = 0; i < c->nrows; i++) {
		const struct report_series *x = row_ser(&c->rows[i]);
		size_t before;

		for (j = 0; j < i; j++)
			if (!strcmp(row_ser(&c->rows[j])->workload,
				    x->workload))
				break;
		if (j < i)
			continue;
		before = sb.len;
		if (nwl > 1)
			strbuf_addf(&sb, "%s%s: ", sb.len ? "; " : "",
				    x->workload);
		workload_phrase(c, x, &sb);
		if (nwl > 1 && sb.len == before + strlen(x->workload) + 2 +
		    (before ? 2 : 0)) {
			/* nothing shared: drop "name: " */
			strbuf_setlen(&sb, before);
		}
	}
	c->phrase = strbuf_detach(&sb, NULL);
	return 0;
}

/*
 * The boots of each kernel that the rows stand on: those of the first row
 * measured on both (all such rows have them unless boots_vary).
 */
static void table_boots(const struct report_cmp *c, size_t *ba, size_t *bb)
{
	size_t i;

	*ba = *bb = 0;
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];

		if (r->a && (r->b || !c->b)) {
			*ba = r->a->nboots;
			*bb = r->b ? r->b->nboots : 0;
			return;
		}
	}
	for (i = 0; i < c->nrows; i++) {
		*ba = c->rows[i].a ? c->rows[i].a->nboots : *ba;
		*bb = c->rows[i].b ? c->rows[i].b->nboots : *bb;
	}
}

/* Does the table count more than one vCPU's or worker's instructions? */
static bool counts_summed(const struct report_cmp *c)
{
	const struct report_side *side[2] = { c->a, c->b };
	const struct report_series *x;
	char buf[96];
	size_t i, k;

	for (k = 0; k < 2; k++)
		for (i = 0; side[k] && i < side[k]->nruns; i++)
			if (side[k]->runs[i].vcpus > 1)
				return true;
	for (i = 0; i < c->nrows; i++) {
		x = row_ser(&c->rows[i]);
		for (k = 0; k < x->nkv; k++)
			if (say(c, x->workload, x->kv[k].key, x->kv[k].value,
				buf, sizeof(buf)) == REPORT_SAY_WORKERS &&
			    strtoul(x->kv[k].value, NULL, 10) > 1)
				return true;
	}
	return false;
}

/*
 * Counting mode: what was counted, and what a count misses (a count is
 * not a time: what costs time without instructions costs one here).  Both
 * sides have the clock of a (report_cmd_load refuses any other pair).
 */
static void counted_words(const struct report_cmp *c, struct strbuf *sb)
{
	const struct report_clock *ck = &c->a->clock;

	strbuf_addf(sb, ", counted in guest instructions");
	if (c->a->nruns)
		strbuf_addf(sb, " in a %lld vCPU VM",
			    (long long)c->a->runs[0].vcpus);
	strbuf_addf(sb, " under QEMU's TCG with -icount shift=%d (one "
		    "instruction = %.0f ns of the guest's clock",
		    ck->shift, ldexp(1, ck->shift));
	if (ck->shift)
		strbuf_addf(sb, ", shown in instructions");
	strbuf_addf(sb, "): a cache miss, a contended lock and an atomic "
		    "cost one instruction each, and a rep-prefixed string "
		    "instruction counts once per iteration");
	if (counts_summed(c))
		strbuf_addf(sb, "; with more than one vCPU the count is the "
			    "sum over all vCPUs (QEMU runs them in turn)");
}

/*
 * "Median of 5 runs, averaged over 2 boots of each kernel, on a 2-CPU
 * machine; 8 GiB file of 4K folios." from what the database holds.  Where
 * every row stands on the runs of a single boot (row_values), the values
 * are means of runs and the sentence says so; a table with only some such
 * rows says it in its notes.
 */
int cmp_build_method(struct report_cmp *c)
{
	struct strbuf sb = STRBUF_INIT;
	size_t ba, bb;
	bool means = c->nrows && c->nwithin == c->nrows;
	const char *over = means ? " in" : ", averaged over";
	char runs[48];

	table_boots(c, &ba, &bb);
	if (c->runs_min == c->runs_max)
		snprintf(runs, sizeof(runs), "%zu", c->runs_max);
	else
		snprintf(runs, sizeof(runs), "%zu-%zu", c->runs_min,
			 c->runs_max);
	if (c->runs_max == 1 && ba <= 1 && bb <= 1 && !c->boots_vary) {
		/* "One run of each kernel, in a 32 vCPU VM" */
		strbuf_addf(&sb, "One run of %s", !c->b ? "the kernel" :
			    c->aa ? "each half" : "each kernel");
		goto where;
	}
	if (c->runs_max == 1)
		strbuf_addf(&sb, "One run a boot");
	else if (means && ba <= 1 && bb <= 1)
		strbuf_addf(&sb, "Mean of %s runs", runs);
	else if (means)
		strbuf_addf(&sb, "Mean of all runs (%s a boot)", runs);
	else
		strbuf_addf(&sb, "Median of %s runs", runs);
	if (c->boots_vary) {
		strbuf_addf(&sb, "%s %zu to %zu boots%s, as the boots column "
			    "gives for each row", over, c->boots_min,
			    c->boots_max, !c->b ? "" : c->aa ?
			    " in each half" : " of each kernel");
	} else if (!c->b) {
		if (ba == 1)
			strbuf_addf(&sb, " in one boot");
		else
			strbuf_addf(&sb, "%s %zu boots", over, ba);
	} else if (c->aa && ba == bb && ba == 1) {
		strbuf_addf(&sb, " in one boot in each half of %s",
			    c->a->db_label);
	} else if (c->aa && ba == bb) {
		strbuf_addf(&sb, "%s %zu boots in each half of %s", over, ba,
			    c->a->db_label);
	} else if (c->aa) {
		strbuf_addf(&sb, "%s %zu and %zu boots in the two halves of "
			    "%s", over, ba, bb, c->a->db_label);
	} else if (ba == bb && ba == 1) {
		strbuf_addf(&sb, " in one boot of each kernel");
	} else if (ba == bb) {
		strbuf_addf(&sb, "%s %zu boots of each kernel", over, ba);
	} else {
		strbuf_addf(&sb, "%s %zu boot%s of %s and %zu of %s", over,
			    ba, ba == 1 ? "" : "s", c->a->label, bb,
			    c->b->label);
	}
where:
	if (c->a->clock.counted)
		counted_words(c, &sb);
	else if (c->a->nruns && !strcmp(c->a->runs[0].virt, "VM"))
		strbuf_addf(&sb, ", in a %lld vCPU VM",
			    (long long)c->a->runs[0].vcpus);
	else if (c->a->nruns && !strcmp(c->a->runs[0].virt, "VM under TCG"))
		/* bench vm's guests: never beside runs that are not (bench
		 * compare refuses), so the first run speaks for all */
		strbuf_addf(&sb, ", in a %lld vCPU VM under QEMU's TCG "
			    "emulator (functional checks, not kernel "
			    "measurements)", (long long)c->a->runs[0].vcpus);
	else if (c->a->nruns)
		strbuf_addf(&sb, ", on a %lld-CPU machine",
			    (long long)c->a->runs[0].vcpus);
	if (c->phrase[0])
		strbuf_addf(&sb, "; %s", c->phrase);
	strbuf_addf(&sb, ".");
	c->method = strbuf_detach(&sb, NULL);
	return 0;
}
