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

/* One menuentry or submenu of grub.cfg: its title, id, and where. */
struct grub_item {
	char title[256], id[256];
	bool sub;
	int parent;		/* index of its submenu, -1 at the top */
	int depth;		/* braces open where it starts */
};

/* A word of a grub.cfg line: quoted ('...', "...") or bare; p after it. */
static const char *grub_word(const char *p, char *out, size_t n)
{
	size_t k = 0;
	char q = 0;

	p += strspn(p, " \t");
	for (; *p && (q || !strchr(" \t{", *p)); p++) {
		if (!q && (*p == '\'' || *p == '"')) {
			q = *p;
			continue;
		}
		if (q && *p == q) {
			q = 0;
			continue;
		}
		if (*p == '\\' && q != '\'' && p[1])
			p++;
		if (k + 1 < n)
			out[k++] = *p;
	}
	out[k] = '\0';
	return p;
}

/* Parse one "menuentry 'T' ... $menuentry_id_option 'ID' {" line. */
static void grub_item_parse(const char *line, struct grub_item *it)
{
	char w[256];
	const char *p = grub_word(line, w, sizeof(w));	/* the keyword */

	it->sub = !strcmp(w, "submenu");
	p = grub_word(p, it->title, sizeof(it->title));
	it->id[0] = '\0';
	while (*(p += strspn(p, " \t")) && *p != '{') {
		p = grub_word(p, w, sizeof(w));
		if (!strcmp(w, "$menuentry_id_option") || !strcmp(w, "--id"))
			p = grub_word(p, it->id, sizeof(it->id));
		else if (!strncmp(w, "--id=", 5))
			snprintf(it->id, sizeof(it->id), "%s", w + 5);
		if (!w[0])
			break;
	}
}

/* Read the menu's items; -1 with why in err when there is no menu to read. */
static int grub_read(const char *path, struct grub_item **items, int *nitems,
		     bool *next_entry, struct strbuf *err)
{
	int stack[64], depth = 0, cur = -1, alloc = 0;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "re");

	*items = NULL;
	*nitems = 0;
	*next_entry = false;
	if (!f) {
		strbuf_addf(err, "no GRUB menu %s: %s", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		char *p = line + strspn(line, " \t");
		size_t len = strcspn(p, "\r\n");
		bool sub = false;

		p[len] = '\0';
		if (strstr(p, "next_entry"))
			*next_entry = true;
		if (!strncmp(p, "menuentry ", 10) || !strncmp(p, "submenu ", 8)) {
			struct grub_item *it;

			if (*nitems == alloc) {
				alloc = alloc ? alloc * 2 : 16;
				*items = xrealloc(*items, (size_t)alloc *
						  sizeof(**items));
			}
			it = &(*items)[(*nitems)++];
			grub_item_parse(p, it);
			it->parent = cur;
			it->depth = depth;
			sub = it->sub;
		}
		/* braces open and close blocks: functions, entries, menus */
		if (len && p[len - 1] == '{' && depth < (int)ARRAY_SIZE(stack)) {
			stack[depth++] = cur;
			if (sub)
				cur = *nitems - 1;
		} else if (!strcmp(p, "}") && depth > 0) {
			cur = stack[--depth];
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/* The item of part (title, id or number) under parent; -1 when none. */
static int grub_find(const struct grub_item *it, int nitems, int parent,
		     const char *part)
{
	char *end;
	long k = strtol(part, &end, 10);
	int i, idx = 0;

	for (i = 0; i < nitems; i++) {
		if (it[i].parent != parent)
			continue;
		if (!strcmp(it[i].title, part) ||
		    (it[i].id[0] && !strcmp(it[i].id, part)) ||
		    (*part && !*end && k == idx))
			return i;
		idx++;
	}
	return -1;
}

/* "'A', 'B', 'C' and 2 more": what the menu has under parent. */
static void grub_list(const struct grub_item *it, int nitems, int parent,
		      struct strbuf *sb)
{
	int i, k = 0;

	for (i = 0; i < nitems; i++) {
		if (it[i].parent != parent)
			continue;
		if (k < 4)
			strbuf_addf(sb, "%s%s'%s'", k ? ", " : "",
				    it[i].sub ? "submenu " : "", it[i].title);
		k++;
	}
	if (k > 4)
		strbuf_addf(sb, " and %d more", k - 4);
	if (!k)
		strbuf_addf(sb, "nothing");
}

/*
 * What was likely meant by part, not found where asked (i: what was found
 * there, of the wrong kind, or -1): a submenu named as the entry, or an
 * entry that lies in a submenu, given its whole path.
 */
static void grub_hint(const struct grub_item *it, int nitems, int i,
		      const char *part, struct strbuf *sb)
{
	int k;

	if (i >= 0 && it[i].sub) {
		strbuf_addf(sb, ": that is a submenu; name an entry in it, "
			    "'%s>ENTRY'", part);
		return;
	}
	for (k = 0; i < 0 && k < nitems; k++)
		if (!it[k].sub && it[k].parent >= 0 &&
		    (!strcmp(it[k].title, part) ||
		     (it[k].id[0] && !strcmp(it[k].id, part)))) {
			strbuf_addf(sb, ": it is in a submenu, named "
				    "'%s>%s'", it[it[k].parent].title, part);
			return;
		}
}

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	const char *p, *e;
	bool found = false;

	for (p = path ? path : "/usr/sbin:/usr/bin:/sbin:/bin"; *p && !found;
	     p = *e ? e + 1 : e) {
		char *f;

		e = p + strcspn(p, ":");
		if (e == p)
			continue;
		f = xstrfmt("%.*s/%s", (int)(e - p), p, prog);
		found = !access(f, X_OK);
		free(f);
	}
	return found;
}

int boot_grub_check(const char *entry, struct strbuf *err)
{
	static const char *const menus[] = { "/boot/grub/grub.cfg",
					     "/boot/grub2/grub.cfg" };
	const char *path = getenv("FOLIOBENCH_GRUB_CFG");
	struct strbuf sb = STRBUF_INIT, place = STRBUF_INIT;
	struct strbuf hint = STRBUF_INIT;
	struct grub_item *it = NULL;
	int nitems, parent = -1, i, r = -1;
	bool next_entry;
	char *parts = xstrdup(entry), *part, *more;

	for (i = 0; !path && i < (int)ARRAY_SIZE(menus); i++)
		if (!access(menus[i], F_OK))
			path = menus[i];
	if (!path)
		path = menus[0];
	if (!in_path("grub-reboot")) {
		strbuf_addf(err, "grub-reboot is not installed (Debian's "
			    "grub2-common): nothing would choose the next "
			    "boot");
		goto out;
	}
	if (grub_read(path, &it, &nitems, &next_entry, err))
		goto out;
	if (!next_entry) {
		strbuf_addf(err, "the GRUB menu %s never reads next_entry: "
			    "grub-reboot would not change the next boot", path);
		goto out;
	}
	/* each part but the last a submenu, the last an entry */
	for (part = parts; part; part = more) {
		more = strchr(part, '>');
		if (more)
			*more++ = '\0';
		i = grub_find(it, nitems, parent, part);
		if (i < 0 || it[i].sub != !!more) {
			grub_list(it, nitems, parent, &sb);
			if (parent >= 0)
				strbuf_addf(&place, " in submenu '%s'",
					    it[parent].title);
			grub_hint(it, nitems, i, part, &hint);
			strbuf_addf(err, "the GRUB menu %s has no %s '%s'%s "
				    "(it has %s)%s", path, more ? "submenu" :
				    "entry", part, strbuf_str(&place),
				    strbuf_str(&sb), strbuf_str(&hint));
			goto out;
		}
		parent = i;
	}
	r = 0;
out:
	free(parts);
	free(it);
	strbuf_release(&sb);
	strbuf_release(&place);
	strbuf_release(&hint);
	return r;
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
