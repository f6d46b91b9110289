/*
 * The kernel profile of each case beside the other kernel's (schema 11):
 * the call chains of a side's runs read, a case's boots made into shares,
 * functions and a merged call tree; the text table of compare --profile.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/format.h"
#include "reports/profile.h"
#include "schema/db_report.h"

/* One row of a side: so many samples of a stack in a boot. */
struct hit {
	size_t stack, boot;
	int64_t count;
};

struct stack {
	char *s;
	double share[2];	/* mean over the side's boots */
};

/* A case while its rows are read. */
struct pcase {
	struct stack *st;
	size_t nst, st_alloc;
	struct strmap st_map;
	struct hit *hit[2];
	size_t nhit[2], hit_alloc[2];
	struct strmap fn_map;
	size_t fn_alloc, node_alloc;
};

struct prof_load {
	struct report_prof *p;
	struct pcase *pc;		/* beside p->c */
	size_t c_alloc, last;
	int k;				/* the side being read */
	const struct report_side *side;
	struct run_boot { int64_t id; size_t boot; } *rb;
	bool any[2];			/* a case of the side has a profile */
	char *off_any[2];		/* the first reason given for none */
};

static int rb_cmp(const void *a, const void *b)
{
	const struct run_boot *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static struct report_prof_case *find_case(struct prof_load *l,
					  const char *w, const char *params)
{
	struct report_prof *p = l->p;
	struct report_prof_case *c;
	size_t i;

	if (l->last < p->n && !strcmp(p->c[l->last].params, params) &&
	    !strcmp(p->c[l->last].workload, w))
		return &p->c[l->last];
	for (i = 0; i < p->n; i++)
		if (!strcmp(p->c[i].params, params) &&
		    !strcmp(p->c[i].workload, w)) {
			l->last = i;
			return &p->c[i];
		}
	if (p->n + 1 > l->c_alloc) {
		size_t old = l->c_alloc;

		ALLOC_GROW(p->c, p->n + 1, l->c_alloc);
		l->pc = xrealloc(l->pc, l->c_alloc * sizeof(*l->pc));
		memset(l->pc + old, 0, (l->c_alloc - old) * sizeof(*l->pc));
	}
	c = &p->c[p->n];
	memset(c, 0, sizeof(*c));
	c->workload = xstrdup(w);
	c->params = xstrdup(params);
	for (i = 0; i < 2; i++)
		c->s[i].period = c->s[i].median = NAN;
	l->last = p->n++;
	return c;
}

static int prof_row(const struct db_report_prof *r, void *arg)
{
	struct prof_load *l = arg;
	struct run_boot key = { .id = r->run_id }, *rb;
	struct report_prof_case *c;
	struct report_prof_side *s;
	struct pcase *pc;
	size_t i;
	int k = l->k;

	rb = bsearch(&key, l->rb, l->side->nruns, sizeof(*l->rb), rb_cmp);
	if (!rb)		/* a run of the other half of an A/A */
		return 0;
	c = find_case(l, r->workload, r->params);
	pc = &l->pc[c - l->p->c];
	s = &c->s[k];
	if (r->off) {
		if (!s->off && !s->has)
			s->off = xstrdup(r->off);
		if (!l->off_any[k])
			l->off_any[k] = xstrdup(r->off);
		return 0;
	}
	l->any[k] = true;
	if (!s->has) {
		s->has = true;
		free(s->off);
		s->off = NULL;
		s->unit = xstrdup(r->unit);
		s->event = xstrdup(r->event);
		s->period = r->period;
	}
	if (!r->stack)
		return 0;
	i = strmap_put(&pc->st_map, &r->stack, 1, pc->nst);
	if (i == pc->nst) {
		ALLOC_GROW(pc->st, pc->nst + 1, pc->st_alloc);
		pc->st[pc->nst++] = (struct stack){ xstrdup(r->stack),
						    { 0, 0 } };
	}
	ALLOC_GROW(pc->hit[k], pc->nhit[k] + 1, pc->hit_alloc[k]);
	pc->hit[k][pc->nhit[k]++] = (struct hit){ i, rb->boot,
						  r->count };
	s->samples += r->count;
	return 0;
}

/*
 * A side's stacks as shares: each boot's samples make its shares, and a
 * stack's share is their mean over the boots that have samples.  The boot
 * is compare's unit too: the layout of a boot moves a profile as it moves
 * a median, and summing the counts would let the boot with the most runs
 * (or the slowest calls, that take more ticks) speak for the others.
 */
static void side_shares(struct pcase *pc, struct report_prof_side *s, int k,
			size_t nboots)
{
	int64_t *tot = xcalloc(nboots ? nboots : 1, sizeof(*tot));
	size_t i, nb = 0;

	for (i = 0; i < pc->nhit[k]; i++)
		tot[pc->hit[k][i].boot] += pc->hit[k][i].count;
	for (i = 0; i < nboots; i++)
		nb += tot[i] > 0;
	s->nboots = nb;
	for (i = 0; i < pc->nhit[k]; i++) {
		const struct hit *h = &pc->hit[k][i];

		pc->st[h->stack].share[k] += (double)h->count /
					     (double)tot[h->boot] / (double)nb;
	}
	free(tot);
}

static size_t fn_get(struct report_prof_case *c, struct pcase *pc,
		     const char *name, size_t len)
{
	size_t i = strmap_put_len(&pc->fn_map, name, len, c->nfn);

	if (i == c->nfn) {
		ALLOC_GROW(c->fn, c->nfn + 1, pc->fn_alloc);
		memset(&c->fn[c->nfn], 0, sizeof(*c->fn));
		c->fn[c->nfn].name = xstrndup(name, len);
		c->fn[c->nfn].cost[0] = c->fn[c->nfn].cost[1] = NAN;
		c->nfn++;
	}
	return i;
}

/* The child of parent (SIZE_MAX: a root) of that name, made if new. */
static size_t node_get(struct report_prof_case *c, struct pcase *pc,
		       size_t parent, const char *name, size_t len)
{
	size_t i = parent == SIZE_MAX ? (c->nnode ? 0 : SIZE_MAX) :
		   c->node[parent].child, last = SIZE_MAX;
	struct report_prof_node *n;

	for (; i != SIZE_MAX; last = i, i = c->node[i].next) {
		if (!strncmp(c->node[i].name, name, len) &&
		    !c->node[i].name[len])
			return i;
	}
	ALLOC_GROW(c->node, c->nnode + 1, pc->node_alloc);
	n = &c->node[c->nnode];
	memset(n, 0, sizeof(*n));
	n->name = xstrndup(name, len);
	n->parent = parent;
	n->child = n->next = SIZE_MAX;
	n->depth = parent == SIZE_MAX ? 0 : c->node[parent].depth + 1;
	if (last != SIZE_MAX)
		c->node[last].next = c->nnode;
	else if (parent != SIZE_MAX)
		c->node[parent].child = c->nnode;
	return c->nnode++;
}

/*
 * The length of a frame's name without the suffix a compiler gave a part
 * of the function (f.part.0, f.isra.0, f.constprop.0, f.cold, f.llvm.123):
 * two kernels built apart split and clone a function differently, and a
 * profile that named the pieces apart would show f gone and f.part.0 come
 * where nothing changed but the compiler's choice.
 */
static size_t name_len(const char *p, size_t len)
{
	static const char *const sfx[] = { ".part.", ".isra.", ".constprop.",
					   ".cold", ".llvm.", ".lto_priv." };
	size_t i, k, n;

	for (i = 1; i < len; i++) {
		if (p[i] != '.')
			continue;
		for (k = 0; k < ARRAY_SIZE(sfx); k++) {
			n = strlen(sfx[k]);
			if (len - i >= n && !strncmp(p + i, sfx[k], n))
				return i;
		}
	}
	return len;
}

/* Is the function of name f (len bytes) among the frames before f? */
static bool seen_before(const char *stack, const char *f, size_t len)
{
	const char *p = stack, *e;

	for (; p < f; p = e + 1) {
		e = strchr(p, ';');
		if (name_len(p, (size_t)(e - p)) == len &&
		    !strncmp(p, f, len))
			return true;
	}
	return false;
}

/* Functions (self, with children once a stack) and the tree of a stack. */
static void add_stack(struct report_prof_case *c, struct pcase *pc,
		      const struct stack *st)
{
	const char *p = st->s, *e;
	size_t node = SIZE_MAX, f = SIZE_MAX, len;
	int k;

	for (; *p; p = *e ? e + 1 : e) {
		e = p + strcspn(p, ";");
		len = name_len(p, (size_t)(e - p));
		if (!len)
			continue;
		f = fn_get(c, pc, p, len);
		node = node_get(c, pc, node, p, len);
		for (k = 0; k < 2; k++) {
			c->node[node].incl[k] += st->share[k];
			if (!seen_before(st->s, p, len))
				c->fn[f].incl[k] += st->share[k];
		}
	}
	for (k = 0; f != SIZE_MAX && k < 2; k++)
		c->fn[f].self[k] += st->share[k];
}

/* A time (or a count of guest instructions) of one call, not a rate. */
static bool unit_is_call(const char *unit)
{
	char u[64];

	if (strchr(unit, '/'))
		return false;
	return report_unit_seconds(unit, u, sizeof(u)) != 1 ||
	       !strcmp(unit, "s") || report_unit_counted(unit);
}

/*
 * A case no row of the table has (every sample of it profiled): named by
 * its params, "op=unlink size=64M", from the flat object stored.
 */
static char *params_name(const char *params)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = params;
	char key[64], val[128];
	int n;

	while ((p = strchr(p, '"')) &&
	       sscanf(p, "\"%63[^\"]\":\"%127[^\"]\"%n", key, val, &n) == 2) {
		strbuf_addf(&sb, "%s%s=%s", sb.len ? " " : "", key, val);
		p += n;
	}
	if (!sb.len)
		strbuf_addstr(&sb, params);
	return strbuf_detach(&sb, NULL);
}

/* A row's name without the metric it ends in where metrics vary. */
static char *case_name(const char *name, const char *metric)
{
	size_t n = strlen(name), m = strlen(metric);

	if (n > m && name[n - m - 1] == ' ' && !strcmp(name + n - m, metric))
		n -= m + 1;
	return xstrndup(name, n);
}

/* The case's medians from compare's row of it: its headline metric. */
static void case_medians(struct report_prof_case *pcase,
			 const struct report_cmp *cmp)
{
	size_t i;
	int k;

	for (i = 0; i < cmp->nrows; i++) {
		const struct report_row *r = &cmp->rows[i];
		const struct report_series *x = r->a ? r->a : r->b;

		if (strcmp(x->workload, pcase->workload) ||
		    strcmp(x->params, pcase->params))
			continue;
		if (!r->primary)
			continue;
		if (!pcase->name)
			pcase->name = case_name(r->name, x->metric);
		if (!unit_is_call(x->unit))
			break;
		for (k = 0; k < 2; k++) {
			pcase->s[k].median = k ? r->vb : r->va;
			if (isfinite(pcase->s[k].median))
				pcase->s[k].median_unit = xstrdup(x->unit);
		}
		break;
	}
	if (!pcase->name)
		pcase->name = params_name(pcase->params);
}

static double fn_key(const struct report_prof_fn *f, bool cost)
{
	if (cost)
		return fabs(f->cost[1] - f->cost[0]);
	return fabs(f->incl[1] - f->incl[0]);
}

/* By the change of the cost (*by_cost: both medians known), or share. */
static int fn_cmp(const void *a, const void *b, void *by_cost)
{
	const struct report_prof_fn *x = a, *y = b;
	bool cost = *(const bool *)by_cost;
	double kx = fn_key(x, cost), ky = fn_key(y, cost);

	if (kx != ky)
		return kx < ky ? 1 : -1;
	kx = fabs(x->self[1] - x->self[0]);
	ky = fabs(y->self[1] - y->self[0]);
	if (kx != ky)
		return kx < ky ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int node_name_cmp(const void *a, const void *b, void *arg)
{
	const struct report_prof_node *n = arg;

	return strcmp(n[*(const size_t *)a].name, n[*(const size_t *)b].name);
}

/*
 * Each list of siblings (the roots' too) linked anew in the order of
 * their names, as flamegraph.pl draws them: a graph of the same stacks
 * is the same graph.  Returns the first root.
 */
static size_t sort_siblings(struct report_prof_case *c)
{
	size_t *v = xcalloc(c->nnode + 1, sizeof(*v)), i, j, n, root = 0;
	size_t parent;

	for (parent = 0; parent <= c->nnode && c->nnode; parent++) {
		size_t first = parent == c->nnode ? 0 : c->node[parent].child;

		n = 0;
		for (i = first; i != SIZE_MAX; i = c->node[i].next)
			v[n++] = i;
		if (n < 1)
			continue;
		qsort_r(v, n, sizeof(*v), node_name_cmp, c->node);
		for (j = 0; j + 1 < n; j++)
			c->node[v[j]].next = v[j + 1];
		c->node[v[n - 1]].next = SIZE_MAX;
		if (parent == c->nnode)
			root = v[0];
		else
			c->node[parent].child = v[0];
	}
	free(v);
	return root;
}

static void case_finish(struct report_prof *p, struct report_prof_case *c,
			struct pcase *pc, const struct report_cmp *cmp)
{
	const struct report_side *side[2] = { cmp->a, cmp->b };
	bool by_cost;
	size_t i;
	int k;

	for (k = 0; k < 2 && side[k]; k++) {
		side_shares(pc, &c->s[k], k, side[k]->nboots);
		if (c->s[k].has && c->s[k].samples < (int64_t)p->min)
			c->few = true;
	}
	for (i = 0; i < pc->nst; i++)
		add_stack(c, pc, &pc->st[i]);
	c->root = sort_siblings(c);
	case_medians(c, cmp);
	for (i = 0; i < c->nfn; i++)
		for (k = 0; k < 2; k++)
			if (isfinite(c->s[k].median) && c->s[k].has)
				c->fn[i].cost[k] = c->fn[i].incl[k] *
						   c->s[k].median;
	by_cost = isfinite(c->s[0].median) && isfinite(c->s[1].median) &&
		  c->s[0].has && c->s[1].has;
	qsort_r(c->fn, c->nfn, sizeof(*c->fn), fn_cmp, &by_cost);
}

static void pcase_release(struct pcase *pc)
{
	size_t i;

	for (i = 0; i < pc->nst; i++)
		free(pc->st[i].s);
	free(pc->st);
	strmap_release(&pc->st_map);
	free(pc->hit[0]);
	free(pc->hit[1]);
	strmap_release(&pc->fn_map);
}

/* Read side k's rows into l. */
static int side_read(struct db *db, struct prof_load *l, int k,
		     const struct report_side *s, struct strbuf *err)
{
	size_t i;
	int r;

	l->k = k;
	l->side = s;
	l->rb = xcalloc(s->nruns ? s->nruns : 1, sizeof(*l->rb));
	for (i = 0; i < s->nruns; i++)
		l->rb[i] = (struct run_boot){ s->runs[i].id,
					      (size_t)s->runs[i].boot };
	qsort(l->rb, s->nruns, sizeof(*l->rb), rb_cmp);
	r = db_report_prof_each(db, s->db_label, prof_row, l);
	free(l->rb);
	l->rb = NULL;
	return r ? report_db_status(db, r, err) : 0;
}

/* Cases in compare's row order, those without a row after them. */
static void order_cases(struct report_prof *p, struct pcase *pc,
			const struct report_cmp *cmp)
{
	size_t i, j, done = 0;

	for (i = 0; i < cmp->nrows; i++) {
		const struct report_row *r = &cmp->rows[i];
		const struct report_series *x = r->a ? r->a : r->b;

		for (j = done; j < p->n; j++) {
			if (strcmp(p->c[j].workload, x->workload) ||
			    strcmp(p->c[j].params, x->params))
				continue;
			if (j != done) {
				struct report_prof_case t = p->c[j];
				struct pcase u = pc[j];

				p->c[j] = p->c[done];
				p->c[done] = t;
				pc[j] = pc[done];
				pc[done] = u;
			}
			done++;
			break;
		}
	}
}

int report_prof_load(struct db *db, const struct report_cmp *cmp, size_t min,
		     size_t top, struct report_prof *p, struct strbuf *err)
{
	const struct report_side *side[2] = { cmp->a, cmp->b };
	struct prof_load l = { .p = p };
	size_t i;
	int k, r = 0;

	memset(p, 0, sizeof(*p));
	p->min = min;
	p->top = top;
	for (k = 0; k < 2 && side[k] && !r; k++) {
		p->label[k] = side[k]->label;
		r = side_read(db, &l, k, side[k], err);
	}
	if (!r) {
		order_cases(p, l.pc, cmp);
		for (i = 0; i < p->n; i++)
			case_finish(p, &p->c[i], &l.pc[i], cmp);
		for (k = 0; k < 2 && side[k]; k++) {
			struct strbuf sb = STRBUF_INIT;

			if (l.any[k])
				continue;
			if (l.off_any[k])
				strbuf_addf(&sb, "profiling was asked for "
					    "and could not be had: %s",
					    l.off_any[k]);
			else
				strbuf_addstr(&sb, "its runs were not "
					      "profiled (bench run --profile)");
			p->none[k] = strbuf_detach(&sb, NULL);
		}
	}
	for (i = 0; i < p->n; i++)
		pcase_release(&l.pc[i]);
	free(l.pc);
	free(l.off_any[0]);
	free(l.off_any[1]);
	return r;
}

void report_prof_release(struct report_prof *p)
{
	size_t i, j;
	int k;

	for (i = 0; i < p->n; i++) {
		struct report_prof_case *c = &p->c[i];

		free(c->workload);
		free(c->params);
		free(c->name);
		for (k = 0; k < 2; k++) {
			free(c->s[k].off);
			free(c->s[k].unit);
			free(c->s[k].event);
			free(c->s[k].median_unit);
		}
		for (j = 0; j < c->nfn; j++)
			free(c->fn[j].name);
		free(c->fn);
		for (j = 0; j < c->nnode; j++)
			free(c->node[j].name);
		free(c->node);
	}
	free(p->c);
	free(p->none[0]);
	free(p->none[1]);
	memset(p, 0, sizeof(*p));
}
