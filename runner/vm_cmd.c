/*
 * The command the guest runs: a shell script in the shared out dir that
 * /init runs, bench's argv quoted (or the --sh line), the guest's
 * database copied out where the host reads it.
 */
#include "vm_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GUEST_DB "/var/tmp/fbvm/results.db"

/* s in single quotes for sh, each quote within as '\''. */
static void shell_quote(struct strbuf *sb, const char *s)
{
	strbuf_addf(sb, "'");
	for (; *s; s++)
		strbuf_addf(sb, *s == '\'' ? "'\\''" : "%c", *s);
	strbuf_addf(sb, "'");
}

int vm_write_cmd(const struct vm_opts *o, const char *path,
		 struct strbuf *cmd, struct strbuf *err)
{
	char *cwd = getcwd(NULL, 0);
	size_t i;
	FILE *f;
	bool run = o->cmd && o->cmd[0] && !strcmp(o->cmd[0], "run");

	strbuf_addf(cmd, "cd ");
	shell_quote(cmd, cwd ? cwd : "/");
	free(cwd);
	strbuf_addf(cmd, " 2>/dev/null || cd /\nexport HOME=/root TERM=dumb "
		    "FOLIOBENCH_VM=1 PATH=/usr/local/sbin:/usr/local/bin:"
		    "/usr/sbin:/usr/bin:/sbin:/bin\nexport FB_BIN=");
	shell_quote(cmd, o->bench);
	strbuf_addf(cmd, "\nmkdir -p /var/tmp/fbvm\n");
	if (!strcmp(o->accel, "icount"))
		strbuf_addf(cmd, "export FOLIOBENCH_CLOCK=instructions\n");
	if (o->sh) {
		strbuf_addf(cmd, "sh -c ");
		shell_quote(cmd, o->sh);
	} else {
		shell_quote(cmd, o->bench);
		for (i = 0; o->cmd && o->cmd[i]; i++) {
			strbuf_addf(cmd, " ");
			shell_quote(cmd, o->cmd[i]);
		}
		if (run)
			strbuf_addf(cmd, " --db " GUEST_DB);
	}
	strbuf_addf(cmd, "\nst=$?\nfor f in " GUEST_DB " " GUEST_DB "-wal; do "
		    "[ -e \"$f\" ] && cp \"$f\" /run/fbvm/; done\nexit $st\n");
	f = fopen(path, "we");
	if (!f || fputs(strbuf_str(cmd), f) < 0 || fclose(f)) {
		strbuf_addf(err, "cannot write %s: %s", path, strerror(errno));
		return VM_EINTERNAL;
	}
	return 0;
}
