/*
 * Placement orders over an hwloc topology: pure functions of the topology
 * and the allowed PUs (no system calls), so that tests can run them on
 * synthetic topologies of machines this one is not.
 */
#include "topo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int place_parse(const char *name, enum place *p)
{
	if (!strcmp(name, "scatter"))
		*p = PLACE_SCATTER;
	else if (!strcmp(name, "compact"))
		*p = PLACE_COMPACT;
	else if (!strcmp(name, "explicit"))
		*p = PLACE_EXPLICIT;
	else
		return -1;
	return 0;
}

const char *place_name(enum place p)
{
	return p == PLACE_COMPACT ? "compact" :
	       p == PLACE_EXPLICIT ? "explicit" : "scatter";
}

static int read_num(const char **p, int max_cpu, int *v)
{
	const char *s = *p;
	long n = 0;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		n = n * 10 + (*s - '0');
		if (n > max_cpu)
			return -2;
		s++;
	}
	*p = s;
	*v = (int)n;
	return 0;
}

int cpulist_parse(const char *s, int *out, int max, int max_cpu,
		  struct strbuf *err)
{
	const char *p = s;
	int count = 0, a, b, i, k, r;

	if (!*s) {
		return err_setf(err, "an empty CPU list");
	}
	for (;;) {
		r = read_num(&p, max_cpu, &a);
		b = a;
		if (!r && *p == '-') {
			p++;
			r = read_num(&p, max_cpu, &b);
		}
		if (r == -2) {
			return err_setf(err, "a CPU number over %d", max_cpu);
		}
		if (r || (*p && *p != ',')) {
			return err_setf(err, "not a CPU list (such as "
					"2-15,18)");
		}
		if (b < a) {
			return err_setf(err, "the range %d-%d runs backwards",
					a, b);
		}
		for (i = a; i <= b; i++) {
			for (k = 0; out && k < count && k < max; k++)
				if (out[k] == i)
					return err_setf(err, "CPU %d is listed "
							"twice", i);
			if (out && count < max)
				out[count] = i;
			count++;
		}
		if (!*p)
			break;
		p++;
	}
	return count;
}

void cpulist_format(hwloc_const_bitmap_t set, char *buf, size_t n)
{
	if (hwloc_bitmap_iszero(set)) {
		snprintf(buf, n, "none");
		return;
	}
	hwloc_bitmap_list_snprintf(buf, n, set);
}

/* A core, or a PU of a topology that has no cores. */
static bool is_core(hwloc_topology_t t, hwloc_obj_t o)
{
	return o->type == HWLOC_OBJ_CORE ||
	       (o->type == HWLOC_OBJ_PU &&
		!hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, o));
}

/*
 * The cores under o that hold an allowed PU, interleaved child by child:
 * the first core of each child (package, NUMA group, cache) in turn, then
 * the second of each, so that the first workers land as far apart as the
 * tree allows.
 */
static int interleave(hwloc_topology_t t, hwloc_obj_t o,
		      hwloc_const_bitmap_t allowed, hwloc_obj_t *out, int max)
{
	hwloc_obj_t **lists = NULL;
	int *len = NULL, *pos = NULL, total = 0, i, k, more;

	if (!hwloc_bitmap_intersects(o->cpuset, allowed))
		return 0;
	if (is_core(t, o)) {
		if (max < 1)
			return 0;
		out[0] = o;
		return 1;
	}
	if (!o->arity)
		return 0;
	lists = calloc(o->arity, sizeof(*lists));
	len = calloc(o->arity, sizeof(*len));
	pos = calloc(o->arity, sizeof(*pos));
	if (!lists || !len || !pos)
		goto out;
	for (i = 0; i < (int)o->arity; i++) {
		lists[i] = calloc((size_t)max, sizeof(**lists));
		if (!lists[i])
			goto out;
		len[i] = interleave(t, o->children[i], allowed, lists[i], max);
	}
	do {
		more = 0;
		for (i = 0; i < (int)o->arity && total < max; i++) {
			if (pos[i] >= len[i])
				continue;
			out[total++] = lists[i][pos[i]++];
			more = 1;
		}
	} while (more && total < max);
out:
	for (k = 0; lists && k < (int)o->arity; k++)
		free(lists[k]);
	free(lists);
	free(len);
	free(pos);
	return total;
}

/* The r-th allowed PU of a core (OS index), or -1. */
static int nth_pu(hwloc_topology_t t, hwloc_obj_t core,
		  hwloc_const_bitmap_t allowed, int r)
{
	hwloc_obj_t pu = NULL;

	while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(t,
			core->cpuset, HWLOC_OBJ_PU, pu)))
		if (hwloc_bitmap_isset(allowed, pu->os_index) && !r--)
			return (int)pu->os_index;
	return -1;
}

int topo_order(hwloc_topology_t t, hwloc_const_bitmap_t allowed,
	       enum place p, int *out, int max)
{
	int npu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU), n = 0, i, r;
	hwloc_obj_t *cores, pu;
	int ncores;

	if (npu <= 0)
		return 0;
	if (p != PLACE_SCATTER) {
		for (i = 0; i < npu && n < max; i++) {
			pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU,
						   (unsigned)i);
			if (hwloc_bitmap_isset(allowed, pu->os_index))
				out[n++] = (int)pu->os_index;
		}
		return n;
	}
	cores = calloc((size_t)npu, sizeof(*cores));
	if (!cores)
		return 0;
	ncores = interleave(t, hwloc_get_root_obj(t), allowed, cores, npu);
	/* a round takes one PU of every core; SMT siblings come later */
	for (r = 0; n < max; r++) {
		int got = 0;

		for (i = 0; i < ncores && n < max; i++) {
			int os = nth_pu(t, cores[i], allowed, r);

			if (os >= 0) {
				out[n++] = os;
				got++;
			}
		}
		if (!got)
			break;
	}
	free(cores);
	return n;
}

int topo_pick(hwloc_topology_t t, hwloc_const_bitmap_t allowed, enum place p,
	      const int *list, int nlist, int count, int *out,
	      struct strbuf *err)
{
	int npu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU), n, i;
	int *order;

	if (count < 1)
		return -1;
	if (p == PLACE_EXPLICIT) {
		if (nlist < count) {
			strbuf_addf(err, "%d worker%s need%s %d PUs, the "
				    "explicit list in cpus names %d", count,
				    count == 1 ? "" : "s",
				    count == 1 ? "s" : "", count, nlist);
			return -1;
		}
		for (i = 0; i < count; i++) {
			if (list[i] < 0 ||
			    !hwloc_bitmap_isset(allowed, (unsigned)list[i])) {
				strbuf_addf(err, "PU %d of the explicit list "
					    "is not one this process may use",
					    list[i]);
				return -1;
			}
			out[i] = list[i];
		}
		return 0;
	}
	order = calloc((size_t)(npu > 0 ? npu : 1), sizeof(*order));
	if (!order)
		return -1;
	n = topo_order(t, allowed, p, order, npu);
	if (n < count) {
		strbuf_addf(err, "%d worker%s need%s %d PUs, %d %s usable here",
			    count, count == 1 ? "" : "s",
			    count == 1 ? "s" : "", count, n,
			    n == 1 ? "is" : "are");
		free(order);
		return -1;
	}
	memcpy(out, order, (size_t)count * sizeof(*out));
	free(order);
	return 0;
}

int topo_node_of(hwloc_topology_t t, int pu)
{
	hwloc_obj_t node = NULL;

	if (pu < 0)
		return -1;
	while ((node = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE,
						  node)))
		if (node->cpuset &&
		    hwloc_bitmap_isset(node->cpuset, (unsigned)pu))
			return (int)node->os_index;
	return -1;
}

void topo_shape(hwloc_topology_t t, char *buf, size_t n)
{
	int pk = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
	int nn = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
	int co = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
	int pu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	char smt[32];

	if (co > 0 && pu > co && pu % co == 0)
		snprintf(smt, sizeof(smt), "%d-way SMT", pu / co);
	else if (co > 0 && pu > co)
		snprintf(smt, sizeof(smt), "SMT");
	else
		snprintf(smt, sizeof(smt), "no SMT");
	snprintf(buf, n, "%d package%s, %d NUMA node%s, %d core%s, %d PU%s, "
		 "%s", pk, pk == 1 ? "" : "s", nn, nn == 1 ? "" : "s", co,
		 co == 1 ? "" : "s", pu, pu == 1 ? "" : "s", smt);
}

int topo_load_xml(hwloc_topology_t *t, const char *path)
{
	if (hwloc_topology_init(t))
		return -1;
	if (hwloc_topology_set_xml(*t, path) || hwloc_topology_load(*t)) {
		int e = errno;

		hwloc_topology_destroy(*t);
		*t = NULL;
		errno = e ? e : EINVAL;
		return -1;
	}
	return 0;
}
