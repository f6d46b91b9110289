/*
 * Memory cgroups for workloads, on either hierarchy.  The child is made at
 * the root of the hierarchy that holds the memory controller: on v2 the
 * root is the one cgroup exempt from the no-internal-process rule, so a
 * child there has the memory.* files although the root holds processes
 * (one made under the runner's own, populated cgroup would have none); on
 * v1 the root is simply the place every tool looks.
 */
#include "memcg.h"
#include "sys.h"
#include "common/common.h"

#include <errno.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *memcg_version_name(enum memcg_version v)
{
	return v == MEMCG_V2 ? "v2" : v == MEMCG_V1 ? "v1" : "none";
}

/* Whether a space-separated list ("cpu io memory") holds word. */
static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') &&
		    (p[len] == '\0' || p[len] == ' ' || p[len] == '\n'))
			return true;
		p += len;
	}
	return false;
}

static int file_has_word(const char *dir, const char *file, const char *word,
			 bool *yes)
{
	struct strbuf path = STRBUF_INIT;
	char buf[1024];
	int r;

	strbuf_addf(&path, "%s/%s", dir, file);
	r = read_file_str(path.buf, buf, sizeof(buf));
	strbuf_release(&path);
	if (r)
		return r;
	*yes = has_word(buf, word);
	return 0;
}

/* The hierarchy to use, of the cgroup2 and v1 memory mounts ("": none). */
static int memcg_pick(struct memcg *m, const char *v2, const char *v1,
		      struct strbuf *err)
{
	bool yes;

	/*
	 * A hybrid machine mounts cgroup2 without the memory controller
	 * (it is bound to v1 then): look at what the v2 root offers.
	 */
	if (v2[0] && !file_has_word(v2, "cgroup.controllers", "memory", &yes) &&
	    yes) {
		if (file_has_word(v2, "cgroup.subtree_control", "memory",
				  &yes) || !yes) {
			err_setf(err, "cgroup v2 at %s does not enable the "
				 "memory controller for its children (echo "
				 "+memory > %s/cgroup.subtree_control)", v2,
				 v2);
			return -ENOENT;
		}
		m->version = MEMCG_V2;
		strbuf_addstr(&m->root, v2);
		return 0;
	}
	if (v1[0]) {
		m->version = MEMCG_V1;
		strbuf_addstr(&m->root, v1);
		return 0;
	}
	err_setf(err, "no memory cgroup: neither cgroup v2 with the memory "
		 "controller nor a cgroup v1 memory hierarchy is mounted");
	return -ENOENT;
}

int memcg_detect(struct memcg *m, struct strbuf *err)
{
	struct strbuf v2 = STRBUF_INIT, v1 = STRBUF_INIT;
	struct mntent ent, *me;
	char line[8192];	/* getmntent_r's strings */
	FILE *f;
	int r;

	memset(m, 0, sizeof(*m));
	f = setmntent("/proc/self/mounts", "re");
	if (!f) {
		r = -errno;
		err_setf(err, "cannot read /proc/self/mounts: %s",
			 strerror(-r));
		return r;
	}
	while ((me = getmntent_r(f, &ent, line, sizeof(line)))) {
		if (!strcmp(me->mnt_type, "cgroup2") && !v2.len)
			strbuf_addstr(&v2, me->mnt_dir);
		else if (!strcmp(me->mnt_type, "cgroup") && !v1.len &&
			 hasmntopt(me, "memory"))
			strbuf_addstr(&v1, me->mnt_dir);
	}
	endmntent(f);
	r = memcg_pick(m, strbuf_str(&v2), strbuf_str(&v1), err);
	strbuf_release(&v2);
	strbuf_release(&v1);
	return r;
}

/* The cgroup's file, into path (reset first). */
static const char *cg_path(const struct memcg *m, const char *file,
			   struct strbuf *path)
{
	strbuf_reset(path);
	strbuf_addf(path, "%s/%s", m->path.buf, file);
	return path->buf;
}

static int cg_write(const struct memcg *m, const char *file, const char *val)
{
	struct strbuf path = STRBUF_INIT;
	int r = write_file_str(cg_path(m, file, &path), val);

	strbuf_release(&path);
	return r;
}

int memcg_create(struct memcg *m, const char *tag, struct strbuf *err)
{
	int r;

	r = memcg_detect(m, err);
	if (r)
		return r;
	strbuf_addf(&m->path, "%s/foliobench.%d", m->root.buf, (int)getpid());
	if (tag && *tag)
		strbuf_addf(&m->path, ".%s", tag);
	r = sys_cgroup_mkdir(m->path.buf);
	if (r) {
		err_setf(err, "cannot create cgroup %s: %s", m->path.buf,
			 strerror(-r));
		return r;
	}
	m->made = true;
	return 0;
}

int memcg_attach(const struct memcg *m, pid_t pid)
{
	char val[32];

	snprintf(val, sizeof(val), "%d", (int)pid);
	return cg_write(m, "cgroup.procs", val);
}

int memcg_set_limit(const struct memcg *m, uint64_t bytes)
{
	char val[32];

	if (m->version == MEMCG_V2) {
		if (bytes)
			snprintf(val, sizeof(val), "%llu",
				 (unsigned long long)bytes);
		else
			snprintf(val, sizeof(val), "max");
		return cg_write(m, "memory.max", val);
	}
	snprintf(val, sizeof(val), "%lld", bytes ? (long long)bytes : -1LL);
	return cg_write(m, "memory.limit_in_bytes", val);
}

int memcg_reclaim(const struct memcg *m, uint64_t bytes)
{
	char val[32];
	uint64_t cur;
	int r;

	if (m->version == MEMCG_V1) {
		/*
		 * force_empty loops try_to_free_mem_cgroup_pages(), the same
		 * reclaim as memory.reclaim, until nothing more goes; it can
		 * only be asked for everything.
		 */
		if (bytes != UINT64_MAX)
			return -EOPNOTSUPP;
		return cg_write(m, "memory.force_empty", "0");
	}
	if (bytes == UINT64_MAX) {
		r = memcg_usage(m, &cur);
		if (r)
			return r;
		if (!cur)
			return 0;
		bytes = cur;
	}
	snprintf(val, sizeof(val), "%llu", (unsigned long long)bytes);
	return cg_write(m, "memory.reclaim", val);
}

int memcg_usage(const struct memcg *m, uint64_t *bytes)
{
	struct strbuf path = STRBUF_INIT;
	int r;

	r = read_file_u64(cg_path(m, m->version == MEMCG_V2 ?
				  "memory.current" : "memory.usage_in_bytes",
				  &path), bytes);
	strbuf_release(&path);
	return r;
}

int memcg_stat(const struct memcg *m, const char *key, uint64_t *val)
{
	struct strbuf path = STRBUF_INIT;
	size_t klen = strlen(key);
	char line[256];
	int r = -ENOENT;
	FILE *f;

	f = fopen(cg_path(m, "memory.stat", &path), "re");
	if (!f)
		r = -errno;
	strbuf_release(&path);
	if (!f)
		return r;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (strncmp(line, key, klen) || line[klen] != ' ')
			continue;
		if (sscanf(line + klen + 1, "%llu", &v) == 1) {
			*val = v;
			r = 0;
		}
		break;
	}
	fclose(f);
	return r;
}

void memcg_destroy(struct memcg *m)
{
	if (m->made)
		sys_cgroup_rmdir(m->path.buf);
	m->made = false;
	strbuf_release(&m->path);
	strbuf_release(&m->root);
}
