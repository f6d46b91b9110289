/*
 * The configuration: strict validation against the workloads' parameter
 * tables, then sweep expansion (a parameter given as an array is a sweep).
 * Keys that start with "#" are comments and are ignored everywhere.
 */
#include "config_int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"
#include "schema/db.h"
#include "workloads/params.h"

static const char *const top_keys[] = {
	"database", "label", "runs", "warmup", "cpu", "scratch",
	"disk_scratch", "suite", "cpus", "placement", "steal_max",
	"dashboard", "plan", "profile", "profile_period", NULL,
};
static const char *const entry_keys[] = { "workload", "runs", "warmup", NULL };

/*
 * One scalar value of a parameter into its typed field.  v is the JSON
 * value, or NULL with def set for the table's default.
 */
static int parse_value(struct cfg_ctx *x, const char *path,
		       const struct param *p, const cJSON *v, const char *def,
		       union wl_field *out)
{
	struct strbuf why = STRBUF_INIT;
	const char *s = def;
	char *shown = NULL;
	int r = 0;

	if (v) {
		shown = cfg_show(v);
		if (cJSON_IsString(v))
			s = v->valuestring;
		else if (cJSON_IsNumber(v) && param_is_number(p->type))
			s = NULL;
		else
			r = cfg_errf(x, "%s: %s is not %s", path, shown,
				     wl_param_type_name(p->type));
	}
	if (!r && wl_param_parse(p, s, v ? v->valuedouble : 0, shown, out,
				 &why))
		r = cfg_errf(x, "%s: %s", path, strbuf_str(&why));
	strbuf_release(&why);
	free(shown);
	return r;
}

/* Values of one parameter in one entry: a scalar, or a sweep. */
struct axis {
	union wl_field vals[64];
	int n;
};

/*
 * A sweep takes each value once: the last of ax is e, an element of the
 * sweep v at path; refuse it when it is an earlier one again, in any
 * spelling ("1G" after "1024M").
 */
static int same_value(struct cfg_ctx *x, const char *path,
		      const struct param *p, const cJSON *v, const cJSON *e,
		      const struct axis *ax)
{
	const union wl_field *last = &ax->vals[ax->n - 1];
	const cJSON *f = v->child;
	char *a, *b;
	int i, line, col;

	for (i = 0; i < ax->n - 1; i++, f = f->next) {
		if (!wl_param_same(p, &ax->vals[i], last))
			continue;
		cfg_value_line_col(x, e, &line, &col);
		a = cfg_show(e);
		b = cfg_show(f);
		cfg_errf(x, "line %d, column %d: %s[%d]: %s is the value of "
			 "%s[%d] (%s) again; a sweep takes each value once",
			 line, col, path, ax->n - 1, a, path, i, b);
		free(a);
		free(b);
		return -1;
	}
	return 0;
}

static int parse_axis(struct cfg_ctx *x, const char *path,
		      const struct param *p, const cJSON *v, struct axis *ax)
{
	const cJSON *e;
	char sub[540];
	int i = 0;

	ax->n = 0;
	if (!v)
		return parse_value(x, path, p, NULL, p->def, &ax->vals[ax->n++]);
	if (!cJSON_IsArray(v))
		return parse_value(x, path, p, v, NULL, &ax->vals[ax->n++]);
	if (!v->child)
		return cfg_errf(x, "%s: an empty sweep runs nothing", path);
	for (e = v->child; e; e = e->next, i++) {
		if (ax->n == (int)ARRAY_SIZE(ax->vals))
			return cfg_errf(x, "%s: more than %zu values in one "
					"sweep", path, ARRAY_SIZE(ax->vals));
		snprintf(sub, sizeof(sub), "%s[%d]", path, i);
		utf8_trim(sub);
		if (cJSON_IsArray(e) || cJSON_IsObject(e))
			return cfg_errf(x, "%s: a sweep holds plain values",
					sub);
		if (parse_value(x, sub, p, e, NULL, &ax->vals[ax->n++]))
			return -1;
		if (same_value(x, path, p, v, e, ax))
			return -1;
	}
	return 0;
}

static int add_cases(struct config *cfg, const struct workload *w,
		     struct axis *axes, const bool *given, int np,
		     unsigned runs, unsigned warmup)
{
	int idx[WL_MAX_PARAMS] = { 0 }, i;

	for (;;) {
		struct plan_case *c;

		c = xrealloc(cfg->cases, sizeof(*c) * (size_t)(cfg->ncases + 1));
		cfg->cases = c;
		c = &cfg->cases[cfg->ncases++];
		memset(c, 0, sizeof(*c));
		c->wl = w;
		c->runs = runs;
		c->warmup = warmup;
		wl_params_init(&c->ps);
		for (i = 0; i < np; i++) {
			union wl_field f = axes[i].vals[idx[i]];

			wl_param_dup(&w->params[i], &f);
			wl_param_put(w, i, &c->ps, &f);
		}
		/* the title names what the config chose */
		c->title = wl_params_title(w, &c->ps, given);
		/* next point of the cartesian product, last axis fastest */
		for (i = np - 1; i >= 0; i--) {
			if (++idx[i] < axes[i].n)
				break;
			idx[i] = 0;
		}
		if (i < 0)
			return 0;
	}
}

#define MAX_CASES	10000	/* a week of runs at a minute a case */

/*
 * The cases of entry i, with those of the entries before, stay within
 * MAX_CASES: a product of sweeps (64^4) would otherwise be expanded in
 * memory until it runs out.
 */
static int too_many_cases(struct cfg_ctx *x, const struct config *cfg,
			  const struct workload *w, const struct axis *axes,
			  int np, int i)
{
	struct strbuf how = STRBUF_INIT;
	uint64_t n = 1, all;
	bool over = false;
	char total[96] = "";
	int k;

	for (k = 0; k < np; k++) {
		over |= __builtin_mul_overflow(n, (uint64_t)axes[k].n, &n);
		if (axes[k].n > 1)
			strbuf_addf(&how, "%s%s: %d values",
				    how.len ? " x " : "", w->params[k].name,
				    axes[k].n);
	}
	over |= __builtin_add_overflow(n, (uint64_t)cfg->ncases, &all);
	if (!over && all <= MAX_CASES) {
		strbuf_release(&how);
		return 0;
	}
	if (cfg->ncases)
		snprintf(total, sizeof(total), ", %llu with the %d before it",
			 (unsigned long long)all, cfg->ncases);
	if (over)
		cfg_errf(x, "suite[%d]: its sweeps (%s) make more than 2^64 "
			 "cases, more than the %d a config may run", i,
			 strbuf_str(&how), MAX_CASES);
	else
		cfg_errf(x, "suite[%d]: %s%s%s%s %llu case%s%s, more than the "
			 "%d a config may run", i,
			 how.len ? "its sweeps (" : "", strbuf_str(&how),
			 how.len ? ")" : "the entry",
			 how.len ? " make" : " makes", (unsigned long long)n,
			 n == 1 ? "" : "s", total, MAX_CASES);
	strbuf_release(&how);
	return -1;
}

/* A table whose fields do not fit their types is a bug: said, and abort. */
static void table_or_die(const struct workload *w)
{
	struct strbuf err = STRBUF_INIT;

	if (wl_params_check(w, &err)) {
		fprintf(stderr, "bench: internal error: %s\n", err.buf);
		abort();
	}
}

static int load_entry(struct cfg_ctx *x, struct config *cfg, const cJSON *e,
		      int i)
{
	const struct workload *w;
	const cJSON *v, *name;
	struct axis *axes;
	bool given[WL_MAX_PARAMS] = { false };
	char path[64], sub[512];
	unsigned runs = cfg->runs, warmup = cfg->warmup;
	int np, k, r = -1;

	snprintf(path, sizeof(path), "suite[%d].", i);
	if (!cJSON_IsObject(e))
		return cfg_errf(x, "suite[%d]: a suite entry is an object with "
				"a \"workload\" key", i);
	name = cJSON_GetObjectItemCaseSensitive(e, "workload");
	if (!name)
		return cfg_errf(x, "suite[%d]: missing key \"workload\"", i);
	if (!cJSON_IsString(name))
		return cfg_errf(x, "suite[%d].workload: not a string", i);
	w = workload_find(name->valuestring);
	if (!w) {
		const struct workload *const *ws = workloads_get();
		const char *best = NULL;
		unsigned bd = UINT_MAX;

		for (; *ws; ws++) {
			unsigned d = edit_distance(name->valuestring,
						   (*ws)->name);
			if (d < bd) {
				bd = d;
				best = (*ws)->name;
			}
		}
		if (best && bd <= 3)
			return cfg_errf(x, "suite[%d].workload: unknown "
					"workload \"%s\"; did you mean \"%s\"?",
					i, name->valuestring, best);
		return cfg_errf(x, "suite[%d].workload: unknown workload "
				"\"%s\" (see `bench list`)", i,
				name->valuestring);
	}
	table_or_die(w);
	if (cfg_known_keys(x, e, path, entry_keys, w->params, w->name))
		return -1;
	if (cfg_get_uint(x, e, "runs", path, 1, 100000, &runs) ||
	    cfg_get_uint(x, e, "warmup", path, 0, 100000, &warmup))
		return -1;
	for (np = 0; w->params[np].name; np++)
		;
	axes = xcalloc((size_t)np + 1, sizeof(*axes));
	for (k = 0; k < np; k++) {
		snprintf(sub, sizeof(sub), "%s%s", path, w->params[k].name);
		v = cJSON_GetObjectItemCaseSensitive(e, w->params[k].name);
		given[k] = v != NULL;
		if (parse_axis(x, sub, &w->params[k], v, &axes[k]))
			goto out;
	}
	k = cfg->ncases;
	if (!too_many_cases(x, cfg, w, axes, np, i))
		r = add_cases(cfg, w, axes, given, np, runs, warmup);
	for (; !r && k < cfg->ncases; k++)
		cfg->cases[k].entry = i;
out:
	for (k = 0; k < np; k++)
		for (i = 0; i < axes[k].n; i++)
			wl_param_release(&w->params[k], &axes[k].vals[i]);
	free(axes);
	return r;
}

#define CONFIG_MAX	(1 << 20)	/* bytes: a config is a page or two */

static char *slurp(const char *path, int *err)
{
	FILE *f = fopen(path, "re");
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	size_t n;

	if (!f) {
		*err = errno;
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (sb.len + n > CONFIG_MAX) {
			fclose(f);
			strbuf_release(&sb);
			*err = EFBIG;
			return NULL;
		}
		if (memchr(buf, '\0', n)) {
			fclose(f);
			strbuf_release(&sb);
			*err = EILSEQ;
			return NULL;
		}
		strbuf_addf(&sb, "%.*s", (int)n, buf);
	}
	fclose(f);
	return sb.buf ? sb.buf : xstrdup("");
}

/* cpus ("all", "node:N" or a list), placement, steal_max. */
static int load_placement(struct cfg_ctx *x, struct config *cfg,
			  const cJSON *root)
{
	struct strbuf err = STRBUF_INIT;
	const cJSON *v;
	char *s;
	int n, r = 0;

	if (cfg_get_str(x, root, "cpus", &cfg->cpus))
		return -1;
	if (!strncmp(cfg->cpus, "node:", 5)) {
		uint64_t u;

		if (parse_u64(cfg->cpus + 5, &u) || u > 4095)
			return cfg_errf(x, "cpus: \"%s\": not a NUMA node "
					"(node:0, node:1, ...)", cfg->cpus);
		cfg->cpus_node = (int)u;
	} else if (strcmp(cfg->cpus, "all")) {
		n = cpulist_parse(cfg->cpus, NULL, 0, CPU_MAX, &err);
		if (n < 0)
			r = cfg_errf(x, "cpus: \"%s\": %s (all, node:N, or a "
				     "list such as 2-15,18)", cfg->cpus,
				     err.buf);
		else if (!(cfg->cpu_list = calloc((size_t)n, sizeof(int))))
			r = cfg_errf(x, "out of memory");
		/* a CPU listed twice is seen only with the list at hand */
		else if ((cfg->ncpu_list = cpulist_parse(cfg->cpus,
							 cfg->cpu_list, n,
							 CPU_MAX, &err)) < 0)
			r = cfg_errf(x, "cpus: \"%s\": %s", cfg->cpus,
				     err.buf);
		strbuf_release(&err);
		if (r)
			return r;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "placement");
	if (v && (!cJSON_IsString(v) ||
		  place_parse(v->valuestring, &cfg->placement))) {
		s = cfg_show(v);
		cfg_errf(x, "placement: %s is not \"scatter\", \"compact\" or "
			 "\"explicit\"", s);
		free(s);
		return -1;
	}
	if (cfg->placement == PLACE_EXPLICIT && !cfg->cpu_list)
		return cfg_errf(x, "placement: \"explicit\" places workers on "
				"the list in cpus, which is \"%s\"", cfg->cpus);
	v = cJSON_GetObjectItemCaseSensitive(root, "steal_max");
	if (v && (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
		  v->valuedouble > 100)) {
		s = cfg_show(v);
		cfg_errf(x, "steal_max: %s is not a percentage from 0 to 100",
			 s);
		free(s);
		return -1;
	}
	if (v)
		cfg->steal_max = v->valuedouble;
	return 0;
}

static void config_defaults(struct config *cfg, const char *path)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->path = xstrdup(path);
	cfg->runs = 5;
	cfg->warmup = 1;
	cfg->cpu = -1;
	cfg->database = xstrdup("results.db");
	cfg->scratch = xstrdup("/dev/shm");
	cfg->disk_scratch = xstrdup("/var/tmp");
	cfg->cpus = xstrdup("all");
	cfg->cpus_node = -1;
	cfg->placement = PLACE_SCATTER;
	cfg->steal_max = 2;
	cfg->profile_period = PROFILE_PERIOD_NS;
	cfg->plan.boots = 4;
	cfg->plan.effect = NAN;
}

int config_load(struct config *cfg, const char *path, struct strbuf *err)
{
	char *text;
	int e = 0, r;

	memset(cfg, 0, sizeof(*cfg));	/* config_parse sets the defaults */
	text = slurp(path, &e);
	if (!text) {
		strbuf_addf(err, "cannot read %s: %s", path,
			    e == EILSEQ ? "not a text file" :
			    e == EFBIG ? "larger than 1 MiB, not a config" :
			    strerror(e));
		config_release(cfg);
		return -1;
	}
	r = config_parse(cfg, path, text, err);
	free(text);
	return r;
}

/* The text as one JSON object, or NULL with the place it goes wrong. */
static cJSON *parse_json(struct cfg_ctx *x, const char *text)
{
	const char *end = NULL, *at;
	cJSON *root = cJSON_ParseWithOpts(text, &end, 0);
	int line, col;

	if (!root) {
		at = cJSON_GetErrorPtr();
		cfg_line_col(text, at ? at : text, &line, &col);
		if (at && !*at)
			cfg_errf(x, "line %d, column %d: malformed JSON: "
				 "unexpected end of file", line, col);
		else
			cfg_errf(x, "line %d, column %d: malformed JSON near "
				 "'%s'", line, col, cfg_excerpt(at ? at : ""));
		return NULL;
	}
	end += strspn(end, " \t\r\n");
	if (*end) {
		cfg_line_col(text, end, &line, &col);
		cfg_errf(x, "line %d, column %d: trailing garbage after the "
			 "JSON value: '%s'", line, col, cfg_excerpt(end));
	} else if (!cJSON_IsObject(root)) {
		cfg_errf(x, "the config is a JSON object ({ ... })");
	} else {
		return root;
	}
	cJSON_Delete(root);
	return NULL;
}

/* "FILE: line L, column C: KEY: VALUE WHY"; -1. */
static int value_errf(struct cfg_ctx *x, const cJSON *v, const char *key,
		      const char *why)
{
	char *s = cfg_show(v);
	int line, col;

	cfg_value_line_col(x, v, &line, &col);
	cfg_errf(x, "line %d, column %d: %s: %s %s", line, col, key, s, why);
	free(s);
	return -1;
}

/*
 * profile (true or false: sample the kernel during each timed call) and
 * profile_period (a duration: the cpu-clock's period).
 */
static int load_profile(struct cfg_ctx *x, struct config *cfg,
			const cJSON *root)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "profile");
	uint64_t ns;

	if (v && !cJSON_IsBool(v))
		return value_errf(x, v, "profile", "is not true or false");
	cfg->profile = v && cJSON_IsTrue(v);
	v = cJSON_GetObjectItemCaseSensitive(root, "profile_period");
	if (!v)
		return 0;
	if (!cJSON_IsString(v) || parse_duration(v->valuestring, &ns))
		return value_errf(x, v, "profile_period", "is not a duration "
				  "(\"100us\", \"1ms\")");
	if (ns < PROFILE_PERIOD_MIN_NS || ns > PROFILE_PERIOD_MAX_NS)
		return value_errf(x, v, "profile_period", "is not from 10us "
				  "(the kernel's shortest cpu-clock period) "
				  "to 1s");
	cfg->profile_period = ns;
	return 0;
}

/* A scratch directory is journalled and mended wherever a runner runs. */
static bool bad_scratch(const char *dir)
{
	return dir[0] != '/' || strpbrk(dir, "\t\n") || strlen(dir) > 1024;
}

/* The top level's own keys: database, label, scratch, runs, cpu, ... */
static int load_top(struct cfg_ctx *x, struct config *cfg, const cJSON *root)
{
	struct strbuf err = STRBUF_INIT;
	const cJSON *v;
	char *s;
	uint64_t u;

	if (cfg_known_keys(x, root, "", top_keys, NULL, "the top level"))
		return -1;
	if (cfg_get_str(x, root, "database", &cfg->database) ||
	    cfg_get_str(x, root, "label", &cfg->label) ||
	    cfg_get_str(x, root, "scratch", &cfg->scratch) ||
	    cfg_get_str(x, root, "disk_scratch", &cfg->disk_scratch) ||
	    cfg_get_uint(x, root, "runs", "", 1, 100000, &cfg->runs) ||
	    cfg_get_uint(x, root, "warmup", "", 0, 100000, &cfg->warmup))
		return -1;
	/* a name SQLite keeps in memory: the runs would go nowhere */
	if (cfg->database && db_path_check(cfg->database, &err)) {
		cfg_errf(x, "database: \"%s\": %s", cfg->database, err.buf);
		strbuf_release(&err);
		return -1;
	}
	if (cfg->label && label_check(cfg->label, &err)) {
		cfg_errf(x, "label: \"%s\": %s", cfg->label, err.buf);
		strbuf_release(&err);
		return -1;
	}
	if (bad_scratch(cfg->scratch) || bad_scratch(cfg->disk_scratch))
		return cfg_errf(x, "%s: \"%s\" is not an absolute path (of at "
				"most 1024 characters, without tabs or "
				"newlines)", bad_scratch(cfg->scratch) ?
				"scratch" : "disk_scratch",
				bad_scratch(cfg->scratch) ? cfg->scratch :
				cfg->disk_scratch);
	v = cJSON_GetObjectItemCaseSensitive(root, "cpu");
	if (!v || (cJSON_IsString(v) && !strcmp(v->valuestring, "auto")))
		return 0;
	if (cfg_json_uint(v, &u) || u > 65535) {
		s = cfg_show(v);
		cfg_errf(x, "cpu: %s is not \"auto\" or a logical CPU index", s);
		free(s);
		return -1;
	}
	cfg->cpu = (int)u;
	return 0;
}

/* What makes a case the case it is: its workload and each value. */
static char *case_key(const struct plan_case *c)
{
	struct strbuf sb = STRBUF_INIT;
	union wl_field f;
	char buf[160];
	int i;

	strbuf_addf(&sb, "%s", c->wl->name);
	for (i = 0; c->wl->params[i].name; i++) {
		wl_param_get(c->wl, i, &c->ps, &f);
		if (param_is_number(c->wl->params[i].type))
			strbuf_addf(&sb, "\x1f%llu", (unsigned long long)f.u);
		else {
			wl_param_format(&c->wl->params[i], &f, buf,
					sizeof(buf));
			strbuf_addf(&sb, "\x1f%s", buf);
		}
	}
	return sb.buf ? sb.buf : xstrdup("");
}

struct keyed {
	char *key;
	int i;
};

static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int r = strcmp(x->key, y->key);

	return r ? r : x->i - y->i;
}

/*
 * Each case once in the suite: two entries that make one case (the same
 * entry twice, "16M" and "16384k") would run it twice and pool both as
 * one case's samples, "mean of 6 runs" for runs 2.  The first case made
 * again is named, with the entry that made it first.
 */
static int twice_in_suite(struct cfg_ctx *x, const struct config *cfg,
			  const cJSON *suite)
{
	struct keyed *k = xcalloc((size_t)cfg->ncases + 1, sizeof(*k));
	const struct plan_case *b;
	int i, dup = -1, first = -1, line, col;

	for (i = 0; i < cfg->ncases; i++) {
		k[i].key = case_key(&cfg->cases[i]);
		k[i].i = i;
	}
	qsort(k, (size_t)cfg->ncases, sizeof(*k), keyed_cmp);
	for (i = 1; i < cfg->ncases; i++) {
		int g = i;

		if (strcmp(k[i].key, k[i - 1].key))
			continue;
		while (g > 0 && !strcmp(k[g - 1].key, k[i].key))
			g--;
		if (dup < 0 || k[i].i < dup) {
			dup = k[i].i;
			first = k[g].i;
		}
	}
	for (i = 0; i < cfg->ncases; i++)
		free(k[i].key);
	free(k);
	if (dup < 0)
		return 0;
	b = &cfg->cases[dup];
	cfg_value_line_col(x, cJSON_GetArrayItem(suite, b->entry), &line,
			   &col);
	return cfg_errf(x, "line %d, column %d: suite[%d] makes %s %s, a case "
			"suite[%d] makes too; a suite runs each case once",
			line, col, b->entry, b->wl->name, b->title,
			cfg->cases[first].entry);
}

/* The suite: a non-empty list of workload entries. */
static int load_suite(struct cfg_ctx *x, struct config *cfg,
		      const cJSON *root)
{
	const cJSON *suite = cJSON_GetObjectItemCaseSensitive(root, "suite");
	const cJSON *v;
	int i;

	if (!suite)
		return cfg_errf(x, "missing key \"suite\" (the list of "
				"workloads to run)");
	if (!cJSON_IsArray(suite) || !suite->child)
		return cfg_errf(x, "suite: a non-empty array of workload "
				"entries");
	for (i = 0, v = suite->child; v; v = v->next, i++)
		if (load_entry(x, cfg, v, i))
			return -1;
	return twice_in_suite(x, cfg, suite);
}

int config_parse(struct config *cfg, const char *path, const char *text,
		 struct strbuf *err)
{
	struct cfg_ctx x = { .file = path, .text = text, .err = err };
	cJSON *root = NULL, *v;
	int r = -1;

	static cJSON_Hooks hooks = { xmalloc, free };

	cJSON_InitHooks(&hooks);	/* allocation failure dies, never NULL */
	config_defaults(cfg, path);
	if (cfg_scan_text(&x, text))
		goto out;
	root = parse_json(&x, text);
	x.root = root;
	if (!root || cfg_check_values(&x, root, "") ||
	    cfg_check_dups(&x, root, "") || load_top(&x, cfg, root) ||
	    load_placement(&x, cfg, root) || load_profile(&x, cfg, root) ||
	    load_suite(&x, cfg, root))
		goto out;
	v = cJSON_GetObjectItemCaseSensitive(root, "plan");
	if (v && cfg_load_plan(&x, cfg, v))
		goto out;
	v = cJSON_GetObjectItemCaseSensitive(root, "dashboard");
	if (cfg_load_dashboard(&x, &cfg->dash, v))
		goto out;
	cfg->json = cfg_show(root);
	r = 0;
out:
	cJSON_Delete(root);
	if (r)
		config_release(cfg);
	return r;
}

void config_release(struct config *cfg)
{
	int i;

	for (i = 0; i < cfg->ncases; i++) {
		wl_params_release(cfg->cases[i].wl, &cfg->cases[i].ps);
		free(cfg->cases[i].title);
	}
	free(cfg->cases);
	free(cfg->path);
	free(cfg->database);
	free(cfg->label);
	free(cfg->scratch);
	free(cfg->disk_scratch);
	for (i = 0; i < 2; i++) {
		struct plan_side *ps = &cfg->plan.side[i];

		free(ps->label);
		free(ps->grub);
		free(ps->kernel);
		free(ps->initrd);
		free(ps->cmdline);
	}
	free(cfg->cpus);
	free(cfg->cpu_list);
	free(cfg->json);
	cfg_dashboard_release(&cfg->dash);
	memset(cfg, 0, sizeof(*cfg));
}

int config_only(struct config *cfg, const char *list, struct strbuf *err)
{
	char *dup = xstrdup(list), *tok, *save = NULL;
	int i, n = 0;

	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (!workload_find(tok)) {
			strbuf_addf(err, "--only: unknown workload \"%s\" "
				    "(see `bench list`)", tok);
			free(dup);
			return -1;
		}
	for (i = 0; i < cfg->ncases; i++) {
		bool keep = false;

		memcpy(dup, list, strlen(list) + 1);	/* same length */
		for (tok = strtok_r(dup, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			keep |= !strcmp(tok, cfg->cases[i].wl->name);
		if (keep) {
			cfg->cases[n++] = cfg->cases[i];
		} else {
			wl_params_release(cfg->cases[i].wl,
					  &cfg->cases[i].ps);
			free(cfg->cases[i].title);
		}
	}
	cfg->ncases = n;
	free(dup);
	if (!n) {
		strbuf_addf(err, "--only %s: the config runs none of these",
			    list);
		return -1;
	}
	return 0;
}

char *tree_file(const char *rel)
{
	char *exe = realpath("/proc/self/exe", NULL), *slash, *path;

	for (int up = 0; exe && up < 3; up++) {
		slash = strrchr(exe, '/');
		if (!slash)
			break;
		*slash = '\0';
		path = xstrfmt("%s/%s", exe, rel);
		if (!access(path, R_OK)) {
			free(exe);
			return path;
		}
		free(path);
	}
	free(exe);
	return NULL;
}

const char *config_default_path(void)
{
	static char *path;

	if (!access("config.json", F_OK))
		return "config.json";
	/* the example beside the source tree the binary was built in */
	if (!path)
		path = tree_file("config.example.json");
	return path ? path : "config.example.json";
}
