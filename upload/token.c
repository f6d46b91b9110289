/*
 * The dashboard's token, from the environment variable dashboard.token_env
 * or the file dashboard.token_file, which only its owner may read.  The
 * token never appears in a message or in the database.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upload/token.h"

/* The token from dashboard.token_file, readable by its owner only. */
static int token_file(const struct dashboard_cfg *d, struct token *tk,
		      struct strbuf *err)
{
	struct stat sb;
	ssize_t n;
	int fd;

	snprintf(tk->from, sizeof(tk->from), "the file %s",
		 d->token_file);
	/* O_NONBLOCK: a FIFO would wait here for a writer */
	fd = open(d->token_file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &sb)) {
		strbuf_addf(err, "cannot read the dashboard token file "
			    "%s: %s", d->token_file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		strbuf_addf(err, "refusing the dashboard token file %s: "
			    "it is not a regular file", d->token_file);
		close(fd);
		return -1;
	}
	if (sb.st_mode & (S_IRGRP | S_IROTH)) {
		strbuf_addf(err, "refusing the dashboard token file %s: "
			    "it is readable by group or others (mode "
			    "%04o); chmod 600 %s", d->token_file,
			    (unsigned)(sb.st_mode & 07777),
			    d->token_file);
		close(fd);
		return -1;
	}
	n = read(fd, tk->v, sizeof(tk->v) - 1);
	close(fd);
	if (n < 0) {
		strbuf_addf(err, "cannot read the dashboard token file "
			    "%s: %s", d->token_file, strerror(errno));
		return -1;
	}
	tk->v[n] = '\0';
	if (strlen(tk->v) != (size_t)n) {
		strbuf_addf(err, "the dashboard token in %s holds a "
			    "NUL byte", tk->from);
		return -1;
	}
	return 0;
}

/* The token from the environment variable dashboard.token_env. */
static int token_env(const struct dashboard_cfg *d, struct token *tk,
		     struct strbuf *err)
{
	const char *e = secret_env(d->token_env);

	snprintf(tk->from, sizeof(tk->from),
		 "the environment variable %s", d->token_env);
	if (!e || !*e) {
		strbuf_addf(err, "no dashboard token: the environment "
			    "variable %s is not set (dashboard."
			    "token_env)", d->token_env);
		return -1;
	}
	snprintf(tk->v, sizeof(tk->v), "%s", e);
	return 0;
}

/*
 * The token from its variable or file, trailing white space dropped; an
 * empty one, or one with a control character, refused.
 */
int token_load(const struct dashboard_cfg *d, struct token *tk,
	       struct strbuf *err)
{
	size_t len;

	if (d->token_file ? token_file(d, tk, err) : token_env(d, tk, err))
		return -1;
	len = strlen(tk->v);
	while (len && isspace((unsigned char)tk->v[len - 1]))
		tk->v[--len] = '\0';
	if (!len) {
		strbuf_addf(err, "no dashboard token: %s is empty", tk->from);
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		if (iscntrl((unsigned char)tk->v[i])) {
			strbuf_addf(err, "the dashboard token in %s holds a "
				    "control character", tk->from);
			return -1;
		}
	return 0;
}
