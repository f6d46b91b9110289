/*
 * Typed params: every workload's table against its params struct; a
 * config's cases as typed sets (numbers, enums as their index, strings,
 * size-or-auto and folio sizes with the text kept, the runner's own),
 * and the params JSON and title made from set and table alone; what
 * preflight adapts in place stored beside what was asked; a key spelt in
 * the table, not the field's name; the words reports take from a type.
 */
#include <stdlib.h>
#include <string.h>

#include "runner/runner.h"
#include "workloads/params.h"
#include "workloads/workload.h"
#include "tap.h"

/* A workload of this test's own, to see a bad table refused. */
struct t_params {
	uint64_t size;
	int pick;
	const char *name;
};

static const char *const picks[] = { "a", "b", "c", NULL };
static const char *const pick_words[] = { "ay", "bee", "sea" };

static enum wl_verdict shrink(struct wl_case *c, struct strbuf *err)
{
	struct t_params *p = wl_params_mut(c);

	(void)err;
	p->size /= 2;
	return WL_OK;
}

static struct param t_table[] = {
	{ WL_PARAM(struct t_params, size, "size"), PT_SIZE, "1G",
	  .say = WL_SAY_FILE },
	{ WL_PARAM(struct t_params, pick, "pick"), PT_ENUM, "a", picks,
	  .words = pick_words },
	/* the key is the table's: the field may be renamed */
	{ WL_PARAM(struct t_params, name, "label"), PT_STRING, "x" },
	{ WL_RUN_PARAM(threads), PT_UINT, "1" },
	{ NULL },
};

static const struct workload t_wl = {
	.name = "t",
	.params = t_table,
	.params_size = sizeof(struct t_params),
	.preflight = shrink,
};

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

/* What each case of config is stored under, as the runner always wrote it. */
static const char *const json[] = {
	"{\"op\":\"ftruncate\",\"size\":\"2M\",\"folio\":\"pmd\","
	"\"dir\":\"/dev/shm\",\"populate\":\"fallocate\",\"threads\":\"3\","
	"\"mode\":\"processes\"}",
	"{\"op\":\"memfd-close\",\"size\":\"2M\",\"folio\":\"pmd\","
	"\"dir\":\"/dev/shm\",\"populate\":\"fallocate\",\"threads\":\"3\","
	"\"mode\":\"processes\"}",
	"{\"size\":\"200G\",\"fs\":\"fuse\",\"dir\":\"scratch\","
	"\"op\":\"truncate\",\"keep\":\"none\",\"ballast\":\"1G\","
	"\"reclaim\":\"auto\",\"limit\":\"auto\",\"coverage\":\"90\"}",
	"{\"size\":\"200G\",\"fs\":\"fuse\",\"dir\":\"scratch\","
	"\"op\":\"truncate\",\"keep\":\"none\",\"ballast\":\"1G\","
	"\"reclaim\":\"auto\",\"limit\":\"512M\",\"coverage\":\"90\"}",
	"{\"dir\":\"/dev/shm\",\"size\":\"1G\",\"bs\":\"4k\","
	"\"duration\":\"10s\",\"populate\":\"write\",\"threads\":\"2\","
	"\"shared\":\"yes\",\"file\":\"\",\"lat_every\":\"1\"}",
	"{\"count\":\"10000\",\"pages\":\"1024\",\"dir\":\"ext4-loop\","
	"\"op\":\"truncate\",\"wsize\":\"64k\",\"threads\":\"1\","
	"\"mode\":\"threads\"}",
};

static const char *const titles[] = {
	"op=ftruncate size=2M folio=pmd threads=3 mode=processes",
	"op=memfd-close size=2M folio=pmd threads=3 mode=processes",
	"keep=none ballast=1G limit=auto",
	"keep=none ballast=1G limit=512M",
	"threads=2 shared=yes",
	"(defaults)",
};

/* Param key of w's case ps as a union. */
static union wl_field field(const struct workload *w,
			    const struct wl_params_set *ps, const char *key)
{
	const struct param *p = wl_param_find(w, key);
	union wl_field f = { 0 };

	if (p)
		wl_param_get(w, (int)(p - w->params), ps, &f);
	return f;
}

static void config_cases(void)
{
	struct config cfg;
	struct strbuf err = STRBUF_INIT;
	union wl_field f;
	int i;

	memset(&cfg, 0, sizeof(cfg));
	OK(!config_parse(&cfg, "t.json", config, &err), "the config parses%s%s",
	   err.len ? ": " : "", strbuf_str(&err));
	OK(cfg.ncases == 6, "six cases (%d)", cfg.ncases);
	for (i = 0; i < cfg.ncases && i < 6; i++) {
		char *j = wl_params_json(cfg.cases[i].wl, &cfg.cases[i].ps);

		OK(!strcmp(j, json[i]), "%s case %d: stored as %s",
		   cfg.cases[i].wl->name, i, j);
		OK(!strcmp(cfg.cases[i].title, titles[i]),
		   "%s case %d: titled %s", cfg.cases[i].wl->name, i,
		   cfg.cases[i].title);
		free(j);
	}
	OK(cfg.cases[0].ps.run.threads == 3 &&
	   cfg.cases[0].ps.run.mode == WL_MODE_PROCESSES &&
	   field(cfg.cases[1].wl, &cfg.cases[1].ps, "op").e == 2,
	   "shmem-remove: threads and mode the runner's, op memfd-close "
	   "its index 2");
	f = field(cfg.cases[0].wl, &cfg.cases[0].ps, "folio");
	OK(f.z.bytes == WL_FOLIO_PMD && !strcmp(f.z.text, "pmd"),
	   "folio pmd: WL_FOLIO_PMD, kept as \"pmd\"");
	f = field(cfg.cases[2].wl, &cfg.cases[2].ps, "ballast");
	OK(f.z.bytes == 1ull << 30 && !strcmp(f.z.text, "1G"),
	   "ballast 1G: 1 GiB, kept as \"1G\"");
	f = field(cfg.cases[2].wl, &cfg.cases[2].ps, "limit");
	OK(f.z.bytes == 0 && !strcmp(f.z.text, "auto"), "limit auto: 0");
	f = field(cfg.cases[3].wl, &cfg.cases[3].ps, "limit");
	OK(f.z.bytes == 512ull << 20, "limit 512M: %llu bytes",
	   (unsigned long long)f.z.bytes);
	OK(cfg.cases[4].ps.run.threads == 2 &&
	   cfg.cases[4].ps.run.mode == WL_MODE_THREADS,
	   "seq-read: two threads, no mode of its own");
	OK(cfg.cases[5].ps.run.threads == 1 &&
	   cfg.cases[5].ps.run.mode == WL_MODE_THREADS,
	   "small-truncate: threads and mode by default");
	config_release(&cfg);
	strbuf_release(&err);
}

/* What preflight adapts in place is what runs; the asked set stays. */
static void adapted(void)
{
	struct wl_params_set asked;
	struct wl_case c;
	struct strbuf why = STRBUF_INIT;
	union wl_field f;
	bool given[4] = { true, false, true, false };
	char *j;

	wl_params_init(&asked);
	f.u = 1ull << 30;
	wl_param_put(&t_wl, 0, &asked, &f);
	OK(!wl_param_parse(&t_table[1], "c", 0, NULL, &f, &why) && f.e == 2,
	   "enum c is index 2");
	wl_param_put(&t_wl, 1, &asked, &f);
	OK(!wl_param_parse(&t_table[2], "x", 0, NULL, &f, &why),
	   "a string parses");
	wl_param_put(&t_wl, 2, &asked, &f);
	memset(&c, 0, sizeof(c));
	c.wl = &t_wl;
	c.ps = asked;
	OK(t_wl.preflight(&c, NULL) == WL_OK &&
	   !wl_params_same(&t_wl, &c.ps, &asked),
	   "a size preflight halves differs from the asked one");
	j = wl_params_json(&t_wl, &c.ps);
	OK(!strcmp(j, "{\"size\":\"512M\",\"pick\":\"c\",\"label\":\"x\","
		   "\"threads\":\"1\"}"),
	   "stored under what runs, the key the table's: %s", j);
	free(j);
	j = wl_params_title(&t_wl, &asked, given);
	OK(!strcmp(j, "size=1G label=x"), "titled by the given keys: %s", j);
	free(j);
	wl_params_release(&t_wl, &asked);
	strbuf_release(&why);
}

/* Each type's parse errors, and its words for reports. */
static void types(void)
{
	const struct workload *shm = workload_find("shmem-remove");
	const struct workload *st = workload_find("small-truncate");
	struct strbuf why = STRBUF_INIT;
	union wl_field f;
	char buf[96];

	OK(wl_param_parse(wl_param_find(shm, "folio"), "3k", 0, NULL, &f,
			  &why) &&
	   !strcmp(strbuf_str(&why), "\"3k\": not a folio size (4k, pmd, or "
		   "a power of two such as 64k)"), "folio 3k: %s",
	   strbuf_str(&why));
	strbuf_release(&why);
	OK(wl_param_parse(wl_param_find(st, "dir"), "shm", 0, NULL, &f,
			  &why) &&
	   !strcmp(strbuf_str(&why), "\"shm\": not \"ext4-loop\" nor an "
		   "absolute path"), "dir shm: %s", strbuf_str(&why));
	strbuf_release(&why);
	OK(!wl_param_parse(wl_param_find(st, "dir"), "ext4-loop", 0, NULL,
			   &f, &why) && !strcmp(f.s, "ext4-loop"),
	   "dir ext4-loop: the runner's own");
	wl_param_release(wl_param_find(st, "dir"), &f);
	OK(!wl_param_words(wl_param_find(shm, "size"), "8G", buf,
			   sizeof(buf)) && !strcmp(buf, "8 GiB"),
	   "size 8G in words: %s", buf);
	OK(!wl_param_words(wl_param_find(shm, "folio"), "pmd", buf,
			   sizeof(buf)) && !strcmp(buf, "PMD-sized"),
	   "folio pmd in words: %s", buf);
	OK(!wl_param_words(wl_param_find(shm, "op"), "unlink", buf,
			   sizeof(buf)) && !strcmp(buf, "unlink()"),
	   "op unlink in words: %s", buf);
	OK(wl_param_words(wl_param_find(st, "wsize"), "64k", buf,
			  sizeof(buf)) == -1,
	   "wsize, a size reports do not say: key=value");
	strbuf_release(&why);
}

int main(void)
{
	const struct workload *const *w;
	struct strbuf err = STRBUF_INIT;
	int nw = 0;

	/* one check a workload, then 35 fixed below */
	for (w = workloads_get(); *w; w++)
		nw++;
	tap_plan(nw + 35);
	for (w = workloads_get(); *w; w++)
		OK(!wl_params_check(*w, &err),
		   "%s: its table fits its params struct", (*w)->name);
	config_cases();
	adapted();
	types();

	/* a field that does not fit its type is refused */
	t_table[1].size = sizeof(uint64_t);
	OK(wl_params_check(&t_wl, &err) == -1 &&
	   strstr(strbuf_str(&err), "param pick"),
	   "an enum in a uint64_t: %s", strbuf_str(&err));
	t_table[1].size = sizeof(int);
	t_table[3].name = "thread";
	OK(wl_params_check(&t_wl, &err) == -1 &&
	   strstr(strbuf_str(&err), "the runner's"),
	   "a runner param not its own: %s", strbuf_str(&err));
	strbuf_release(&err);
	return tap_done();
}
