/* Machine and kernel facts stored with each run. */
#ifndef FB_META_H
#define FB_META_H

#include <stdint.h>

#include "common/common.h"

struct meta {
	char release[128], version[256], hostname[256], boot_id[64];
	char label[LABEL_MAX + 1];	/* release, as a label (label_check) */
	char cpu_model[256], tmpfs[1024], uuid[40];
	char *cmdline;		/* /proc/cmdline, "" when unknown */
	char *thp;		/* JSON */
	const char *virt;	/* "VM", "bare metal" */
	int vcpus;
	uint64_t mem_bytes;
};

void meta_collect(struct meta *m);
void meta_release(struct meta *m);

#endif
