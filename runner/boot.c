/* The commands that boot the next kernel of a plan, printed or run. */
#include "boot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int set(char **argv, int i, const char *fmt, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, fmt, s);
	argv[i] = sb.buf;
	return argv[i] ? 0 : -ENOMEM;
}

int boot_cmds_make(const struct plan_side *ps, struct boot_cmds *c)
{
	int r, i = 0;

	memset(c, 0, sizeof(*c));
	if (ps->grub) {
		r = set(c->argv[0], 0, "%s", "grub-reboot") ?:
		    set(c->argv[0], 1, "%s", ps->grub) ?:
		    set(c->argv[1], 0, "%s", "systemctl") ?:
		    set(c->argv[1], 1, "%s", "reboot");
		return r;
	}
	if (!ps->kernel)
		return -EINVAL;
	r = set(c->argv[0], i++, "%s", "kexec") ?:
	    set(c->argv[0], i++, "%s", "-l") ?:
	    set(c->argv[0], i++, "%s", ps->kernel);
	if (!r && ps->initrd)
		r = set(c->argv[0], i++, "--initrd=%s", ps->initrd);
	if (!r && ps->cmdline)
		r = set(c->argv[0], i++, "--command-line=%s", ps->cmdline);
	else if (!r)
		r = set(c->argv[0], i++, "%s", "--reuse-cmdline");
	return r ?: set(c->argv[1], 0, "%s", "systemctl") ?:
		    set(c->argv[1], 1, "%s", "kexec");
}

void boot_cmds_release(struct boot_cmds *c)
{
	int k, i;

	for (k = 0; k < 2; k++)
		for (i = 0; i < BOOT_MAX_ARGS; i++)
			free(c->argv[k][i]);
	memset(c, 0, sizeof(*c));
}

static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_-./=:,+@%";

/* A word the shell takes as it is, or in single quotes. */
static void quote(struct strbuf *sb, const char *w)
{
	const char *p, *eq = strchr(w, '=');

	if (*w && strspn(w, plain) == strlen(w)) {
		strbuf_addf(sb, "%s", w);
		return;
	}
	/* --option='a value': only the value needs the quotes */
	if (!strncmp(w, "--", 2) && eq && strspn(w, plain) > (size_t)(eq - w)) {
		strbuf_addf(sb, "%.*s", (int)(eq - w + 1), w);
		quote(sb, eq + 1);
		return;
	}
	strbuf_addf(sb, "'");
	for (p = w; *p; p++) {
		if (*p == '\'')
			strbuf_addf(sb, "'\\''");
		else
			strbuf_addf(sb, "%c", *p);
	}
	strbuf_addf(sb, "'");
}

void boot_cmds_line(const struct boot_cmds *c, struct strbuf *sb)
{
	int k, i;

	for (k = 0; k < 2; k++) {
		if (k)
			strbuf_addf(sb, " && ");
		for (i = 0; c->argv[k][i]; i++) {
			if (i)
				strbuf_addf(sb, " ");
			quote(sb, c->argv[k][i]);
		}
	}
}

int boot_cmds_run(const struct boot_cmds *c, struct strbuf *err)
{
	int k, st;
	pid_t pid;

	for (k = 0; k < 2; k++) {
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			strbuf_addf(err, "cannot start %s: %s", c->argv[k][0],
				    strerror(errno));
			return -1;
		}
		if (!pid) {
			execvp(c->argv[k][0], c->argv[k]);
			fprintf(stderr, "bench: cannot run %s: %s\n",
				c->argv[k][0], strerror(errno));
			_exit(127);
		}
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR) {
				strbuf_addf(err, "cannot wait for %s: %s",
					    c->argv[k][0], strerror(errno));
				return -1;
			}
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			struct strbuf line = STRBUF_INIT;
			int i;

			for (i = 0; c->argv[k][i]; i++) {
				if (i)
					strbuf_addf(&line, " ");
				quote(&line, c->argv[k][i]);
			}
			if (WIFEXITED(st))
				strbuf_addf(err, "%s exited %d", strbuf_str(&line),
					    WEXITSTATUS(st));
			else
				strbuf_addf(err, "%s was killed by signal %d",
					    strbuf_str(&line), WTERMSIG(st));
			strbuf_release(&line);
			return -1;
		}
	}
	return 0;
}
