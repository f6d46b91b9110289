/*
 * Typed params: every workload's table against its params struct, the
 * runner's fill from a config's values (numbers, enums as their index,
 * strings, size-or-auto), and preflight's adapted numbers going back into
 * the values the runner stores.
 */
#include <string.h>

#include "runner/runner.h"
#include "workloads/workload.h"
#include "tap.h"

/* A workload of this test's own, to see a bad table refused. */
struct t_params {
	uint64_t size;
	int pick;
	const char *name;
};

static const char *const picks[] = { "a", "b", "c", NULL };

static enum wl_verdict shrink(struct wl_case *c, struct fb_err *e)
{
	struct t_params *p = wl_params_mut(c);

	(void)e;
	p->size /= 2;
	return WL_OK;
}

static struct param t_table[] = {
	{ WL_PARAM(struct t_params, size), PT_SIZE, "1G" },
	{ WL_PARAM(struct t_params, pick), PT_ENUM, "a", picks },
	{ WL_PARAM(struct t_params, name), PT_STRING, "x" },
	{ WL_RUN_PARAM(threads), PT_UINT, "1" },
	{ NULL },
};

static const struct workload t_wl = {
	.name = "t",
	.params = t_table,
	.params_size = sizeof(struct t_params),
	.preflight = shrink,
};

/* Does the field of param i hold what value v says? */
static int field_holds(const struct wl_case *c, int i)
{
	const struct param *p = &c->wl->params[i];
	const unsigned char *base = p->runner ? (const void *)&c->run :
					       (const void *)c->params.b;
	const struct wl_value *v = &c->v[i];
	const char *s;
	uint64_t u;
	int k;

	switch (p->type) {
	case PT_ENUM:
		memcpy(&k, base + p->off, sizeof(k));
		return k >= 0 && !strcmp(p->choices[k], v->str);
	case PT_STRING:
		memcpy(&s, base + p->off, sizeof(s));
		return s == v->str;
	default:
		memcpy(&u, base + p->off, sizeof(u));
		return u == v->u;
	}
}

static const char config[] =
	"{ \"suite\": ["
	" { \"workload\": \"shmem-remove\", \"op\": [\"ftruncate\", "
	"\"memfd-close\"], \"size\": \"2M\", \"folio\": \"pmd\", "
	"\"threads\": 3, \"mode\": \"processes\" },"
	" { \"workload\": \"shadow-truncate\", \"limit\": [\"auto\", "
	"\"512M\"], \"ballast\": \"1G\", \"keep\": \"none\" },"
	" { \"workload\": \"seq-read\", \"shared\": \"yes\", "
	"\"threads\": 2 },"
	" { \"workload\": \"small-truncate\" } ] }";

int main(void)
{
	const struct workload *const *w;
	struct config cfg;
	struct strbuf err = STRBUF_INIT;
	struct wl_case c;
	struct fb_err e;
	int i, k, good, nw = 0;

	/* one check a workload, then 20 fixed by the config below */
	for (w = workloads_get(); *w; w++)
		nw++;
	tap_plan(nw + 20);
	for (w = workloads_get(); *w; w++)
		OK(!wl_params_check(*w, &e),
		   "%s: its table fits its params struct", (*w)->name);

	memset(&cfg, 0, sizeof(cfg));
	OK(!config_parse(&cfg, "t.json", config, &err), "the config parses%s%s",
	   err.len ? ": " : "", strbuf_str(&err));
	OK(cfg.ncases == 6, "six cases (%d)", cfg.ncases);
	for (i = 0; i < cfg.ncases; i++) {
		memset(&c, 0, sizeof(c));
		c.wl = cfg.cases[i].wl;
		memcpy(c.v, cfg.cases[i].v, sizeof(c.v));
		wl_params_fill(&c);
		good = 1;
		for (k = 0; c.wl->params[k].name; k++)
			good &= field_holds(&c, k);
		OK(good, "%s %s: every field holds its value", c.wl->name,
		   cfg.cases[i].title);
		if (!strcmp(c.wl->name, "shmem-remove"))
			OK(c.run.threads == 3 && c.run.mode == WL_MODE_PROCESSES,
			   "shmem-remove: threads and mode are the runner's");
		if (!strcmp(c.wl->name, "small-truncate"))
			OK(c.run.threads == 1 && c.run.mode == WL_MODE_THREADS,
			   "small-truncate: threads and mode by default");
	}
	{
		struct wl_run_params rp;

		wl_run_params_of(cfg.cases[4].wl, cfg.cases[4].v, &rp);
		OK(!strcmp(cfg.cases[4].wl->name, "seq-read") &&
		   rp.threads == 2 && rp.mode == WL_MODE_THREADS,
		   "seq-read: two threads, no mode of its own");
	}
	/* size-or-auto: "auto" is 0, a size its bytes, the string kept */
	for (i = 0; i < cfg.ncases; i++) {
		const struct workload *sw = cfg.cases[i].wl;
		int l = -1, b = -1;

		if (strcmp(sw->name, "shadow-truncate"))
			continue;
		for (k = 0; sw->params[k].name; k++) {
			if (!strcmp(sw->params[k].name, "limit"))
				l = k;
			if (!strcmp(sw->params[k].name, "ballast"))
				b = k;
		}
		OK(l >= 0 && b >= 0 && sw->params[l].type == PT_SIZE_AUTO &&
		   cfg.cases[i].v[b].u == 1ull << 30 &&
		   !strcmp(cfg.cases[i].v[b].str, "1G"),
		   "ballast 1G: 1 GiB, kept as \"1G\"");
		OK(l >= 0 && (!strcmp(cfg.cases[i].v[l].str, "auto") ?
			      cfg.cases[i].v[l].u == 0 :
			      cfg.cases[i].v[l].u == 512ull << 20),
		   "limit %s: %llu bytes", l >= 0 ? cfg.cases[i].v[l].str : "?",
		   l >= 0 ? (unsigned long long)cfg.cases[i].v[l].u : 0ull);
	}
	config_release(&cfg);
	strbuf_release(&err);

	/* preflight's adapted number goes back into the values */
	memset(&c, 0, sizeof(c));
	c.wl = &t_wl;
	c.v[0] = (struct wl_value){ "1G", 1ull << 30 };
	c.v[1] = (struct wl_value){ "c", 0 };
	c.v[2] = (struct wl_value){ "x", 0 };
	c.v[3] = (struct wl_value){ "4", 4 };
	wl_params_fill(&c);
	OK(((const struct t_params *)wl_params(&c))->pick == 2 &&
	   c.run.threads == 4, "enum c is index 2, threads 4");
	OK(wl_preflight(&c, &e) == WL_OK && c.v[0].u == 512ull << 20,
	   "a size preflight halves is the value stored (%llu)",
	   (unsigned long long)c.v[0].u);

	/* a field that does not fit its type is refused */
	t_table[1].size = sizeof(uint64_t);
	OK(wl_params_check(&t_wl, &e) == -1 &&
	   strstr(e.msg, "param pick"), "an enum in a uint64_t: %s", e.msg);
	t_table[1].size = sizeof(int);
	t_table[3].name = "thread";
	OK(wl_params_check(&t_wl, &e) == -1 &&
	   strstr(e.msg, "the runner's"), "a runner param not its own: %s",
	   e.msg);
	return tap_done();
}
