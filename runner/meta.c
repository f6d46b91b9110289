/* Machine and kernel facts stored with each run. */
#include "meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>


static void thp_add(struct strbuf *sb, const char *key, const char *path)
{
	char buf[256];

	if (read_file_str(path, buf, sizeof(buf)))
		return;
	strbuf_addf(sb, "%s", sb->len > 1 ? "," : "");
	strbuf_json_str(sb, key);
	strbuf_addf(sb, ":");
	strbuf_json_str(sb, buf);
}

static void cpu_model(char *out, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];

	snprintf(out, n, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (!c || strncmp(line, "model name", 10))
			continue;
		c++;
		c += strspn(c, " \t");
		c[strcspn(c, "\n")] = '\0';
		snprintf(out, n, "%s", c);
		break;
	}
	fclose(f);
}

/* The first line of a file of the kernel's, whole; "" when unread. */
static char *proc_line(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_read_file(&sb, path);
	strbuf_setlen(&sb, strcspn(strbuf_str(&sb), "\n"));
	return strbuf_detach(&sb, NULL);
}

/* The hypervisor CPUID bit shows in /proc/cpuinfo's flags inside a VM. */
static const char *virt_kind(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	const char *kind = "bare metal";

	if (!f)
		return "";
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5))
			continue;
		if (strstr(line, " hypervisor"))
			kind = "VM";
		break;
	}
	free(line);
	fclose(f);
	return kind;
}

/* The type and options of the mount at dir, into out. */
static void mount_opts(const char *dir, char *out, size_t n)
{
	FILE *f = fopen("/proc/mounts", "re");
	char *line = NULL, *mnt, *type, *opts;
	size_t cap = 0;

	snprintf(out, n, "unknown");
	while (f && getline(&line, &cap, f) > 0) {
		mnt = type = opts = NULL;
		if (sscanf(line, "%*s %ms %ms %ms", &mnt, &type, &opts) == 3 &&
		    !strcmp(mnt, dir))
			snprintf(out, n, "%.60s %.900s", type, opts);
		free(mnt);
		free(type);
		free(opts);
	}
	free(line);
	if (f)
		fclose(f);
}

void meta_collect(struct meta *m)
{
	struct utsname u;
	struct strbuf thp = STRBUF_INIT;
	char path[512];
	int i;
	static const char *const sizes[] = {
		"8", "16", "32", "64", "128", "256", "512", "1024", "2048",
	};

	memset(m, 0, sizeof(*m));
	uname(&u);
	snprintf(m->release, sizeof(m->release), "%s", u.release);
	snprintf(m->version, sizeof(m->version), "%s", u.version);
	snprintf(m->hostname, sizeof(m->hostname), "%s", u.nodename);
	/* both reach tables, file names and SQL: nothing but plain words */
	label_sanitize(m->hostname);
	snprintf(m->label, sizeof(m->label), "%s", u.release);
	label_sanitize(m->label);
	if (m->label[0] == '.' || m->label[0] == '-')
		m->label[0] = '_';
	boot_id_get(m->boot_id, sizeof(m->boot_id));
	m->cmdline = proc_line("/proc/cmdline");
	cpu_model(m->cpu_model, sizeof(m->cpu_model));
	m->virt = virt_kind();
	m->vcpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	meminfo_bytes("MemTotal", &m->mem_bytes);
	mount_opts("/dev/shm", m->tmpfs, sizeof(m->tmpfs));
	strbuf_addf(&thp, "{");
	thp_add(&thp, "enabled", "/sys/kernel/mm/transparent_hugepage/enabled");
	thp_add(&thp, "defrag", "/sys/kernel/mm/transparent_hugepage/defrag");
	thp_add(&thp, "shmem_enabled",
		"/sys/kernel/mm/transparent_hugepage/shmem_enabled");
	for (i = 0; i < (int)ARRAY_SIZE(sizes); i++) {
		char key[64];

		snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/"
			 "hugepages-%skB/shmem_enabled", sizes[i]);
		snprintf(key, sizeof(key), "shmem_enabled_%skB", sizes[i]);
		thp_add(&thp, key, path);
	}
	strbuf_addf(&thp, "}");
	m->thp = thp.buf;
	if (read_file_str("/proc/sys/kernel/random/uuid", m->uuid,
			  sizeof(m->uuid)))
		snprintf(m->uuid, sizeof(m->uuid), "%d-%llu", (int)getpid(),
			 (unsigned long long)now_ns());
}

void meta_release(struct meta *m)
{
	free(m->thp);
	free(m->cmdline);
	m->thp = m->cmdline = NULL;
}
