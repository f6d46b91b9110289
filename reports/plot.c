/*
 * gnuplot through pipes: fork, exec with stdin, stdout and stderr on
 * pipes, feed the script while reading the SVG (a large script and a large
 * SVG would deadlock a write-then-read), and kill the child when it runs
 * past its time.  Nothing touches the disk.
 */
#include "reports/plot.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct child {
	pid_t pid;
	int in, out, errfd;	/* our ends; -1 when closed */
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static const char *gnuplot_path(void)
{
	const char *p = getenv(PLOT_ENV_GNUPLOT);

	return p && *p ? p : PLOT_GNUPLOT;
}

static int timeout_ms(void)
{
	const char *t = getenv(PLOT_ENV_TIMEOUT);
	uint64_t v;

	if (t && !parse_u64(t, &v) && v > 0 && v < 3600000)
		return (int)v;
	return PLOT_TIMEOUT_MS;
}

static int start(struct child *c, struct strbuf *err)
{
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	const char *prog = gnuplot_path();

	if (pipe2(pin, O_CLOEXEC) || pipe2(pout, O_CLOEXEC) ||
	    pipe2(perr, O_CLOEXEC)) {
		strbuf_addf(err, "cannot make pipes for gnuplot: %s",
			    strerror(errno));
		goto fail;
	}
	c->pid = fork();
	if (c->pid < 0) {
		strbuf_addf(err, "cannot fork for gnuplot: %s",
			    strerror(errno));
		goto fail;
	}
	if (!c->pid) {
		/* dup2 clears O_CLOEXEC on the copies; the rest close */
		if (dup2(pin[0], 0) < 0 || dup2(pout[1], 1) < 0 ||
		    dup2(perr[1], 2) < 0)
			_exit(127);
		/*
		 * --default-settings: no ~/.gnuplot, the same plot anywhere;
		 * the script as a file: gnuplot reads a pipe that is its
		 * stdin one byte a read(2), a file through stdio's buffer
		 * (0.37 s of CPU for 124 KB of data, then 0.1 s)
		 */
		execlp(prog, prog, "--default-settings", "/dev/stdin",
		       (char *)NULL);
		dprintf(2, "cannot run %s: %s\n", prog, strerror(errno));
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	c->in = pin[1];
	c->out = pout[0];
	c->errfd = perr[0];
	fcntl(c->in, F_SETFL, fcntl(c->in, F_GETFL) | O_NONBLOCK);
	return 0;
fail:
	close_fd(&pin[0]);
	close_fd(&pin[1]);
	close_fd(&pout[0]);
	close_fd(&pout[1]);
	close_fd(&perr[0]);
	close_fd(&perr[1]);
	return PLOT_EIO;
}

/* Read what fd has into sb; 1 at end of file, 0 more to come, -errno. */
static int drain(int fd, struct strbuf *sb)
{
	char buf[16384];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n > 0) {
		strbuf_add(sb, buf, (size_t)n);
		return 0;
	}
	if (!n)
		return 1;
	return errno == EINTR || errno == EAGAIN ? 0 : -errno;
}

/*
 * Feed script, collect stdout and stderr until both close or the time is
 * up.  PLOT_ETIME when it is; the caller kills.
 */
static int exchange(struct child *c, const char *script, size_t len,
		    struct strbuf *out, struct strbuf *errout,
		    struct strbuf *err)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms() * 1000000ull;
	size_t done = 0;

	if (!len)
		close_fd(&c->in);
	while (c->out >= 0 || c->errfd >= 0) {
		struct pollfd p[3];
		int np = 0, r, i_in = -1, i_out = -1, i_err = -1;
		uint64_t now = now_ns();

		if (now >= deadline) {
			strbuf_addf(err, "gnuplot did not finish within %d ms",
				    timeout_ms());
			return PLOT_ETIME;
		}
		if (c->in >= 0) {
			i_in = np;
			p[np++] = (struct pollfd){ c->in, POLLOUT, 0 };
		}
		if (c->out >= 0) {
			i_out = np;
			p[np++] = (struct pollfd){ c->out, POLLIN, 0 };
		}
		if (c->errfd >= 0) {
			i_err = np;
			p[np++] = (struct pollfd){ c->errfd, POLLIN, 0 };
		}
		r = poll(p, (nfds_t)np,
			 (int)((deadline - now) / 1000000ull) + 1);
		if (r < 0 && errno != EINTR) {
			strbuf_addf(err, "cannot wait for gnuplot: %s",
				    strerror(errno));
			return PLOT_EIO;
		}
		if (r <= 0)
			continue;
		if (i_in >= 0 && p[i_in].revents) {
			ssize_t n = write(c->in, script + done, len - done);

			if (n > 0)
				done += (size_t)n;
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				done = len;	/* EPIPE: it quit; see stderr */
			if (done == len)
				close_fd(&c->in);
		}
		if (i_out >= 0 && p[i_out].revents) {
			r = drain(c->out, out);
			if (r)
				close_fd(&c->out);
		}
		if (i_err >= 0 && p[i_err].revents) {
			r = drain(c->errfd, errout);
			if (r)
				close_fd(&c->errfd);
		}
	}
	close_fd(&c->in);
	return 0;
}

/*
 * Is l gnuplot's "line N: message" (or "\"-\" line N: ...", "\"/dev/stdin\"
 * line N: ...")?
 */
static const char *error_line(const char *l)
{
	l += strspn(l, " \t");
	if (!strncmp(l, "\"-\" ", 4))
		l += 4;
	else if (!strncmp(l, "\"/dev/stdin\" ", 13))
		l += 13;
	if (strncmp(l, "line ", 5) || !isdigit((unsigned char)l[5]))
		return NULL;
	return l;
}

/* gnuplot's message of what went wrong: after the failing line echoed. */
static void first_error(const struct strbuf *e, struct strbuf *err)
{
	const char *s = strbuf_str(e), *l = s, *nl, *m;

	for (; *l; l = nl + 1) {
		nl = strchrnul(l, '\n');
		m = error_line(l);
		if (m) {
			strbuf_addf(err, ": %.*s", (int)(nl - m), m);
			return;
		}
		if (!*nl)
			break;
	}
	s += strspn(s, " \t\n");
	if (*s)
		strbuf_addf(err, ": %.*s", (int)(strchrnul(s, '\n') - s), s);
}

/* Copy the SVG from its <svg tag, ids prefixed. */
static int embed(const char *svg, const char *idp, struct strbuf *out,
		 struct strbuf *err)
{
	static const char *const ref[] = { "id='", "id=\"", "href='#",
					   "href=\"#", "url(#" };
	const char *p = strstr(svg, "<svg");
	size_t i;

	if (!p || !strstr(p, "</svg>")) {
		strbuf_addf(err, "gnuplot printed no SVG");
		return PLOT_EFAIL;
	}
	while (*p) {
		/* up to the next letter a reference starts with, in one go */
		size_t run = strcspn(p, "ihu");

		if (run) {
			strbuf_add(out, p, run);
			p += run;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(ref); i++) {
			size_t n = strlen(ref[i]);

			if (!strncmp(p, ref[i], n)) {
				strbuf_addf(out, "%s%s_", ref[i], idp);
				p += n;
				break;
			}
		}
		if (i == ARRAY_SIZE(ref))
			strbuf_addch(out, *p++);
	}
	return PLOT_OK;
}

int plot_svg(const char *script, size_t len, const char *idp,
	     struct strbuf *svg, struct strbuf *err)
{
	struct child c = { -1, -1, -1, -1 };
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	int r, status = 0;

	/* a gnuplot that dies early must not take us with SIGPIPE */
	sigaction(SIGPIPE, &ign, &old);
	r = start(&c, err);
	if (r)
		goto out;
	r = exchange(&c, script, len, &out, &errout, err);
	if (r == PLOT_ETIME)
		kill(c.pid, SIGKILL);
	while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR)
		;
	if (r)
		goto out;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		strbuf_addf(err, "cannot run %s (install gnuplot-nox)",
			    gnuplot_path());
		r = PLOT_ESTART;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		strbuf_addf(err, "gnuplot failed");
		first_error(&errout, err);
		r = PLOT_EFAIL;
	} else {
		r = embed(strbuf_str(&out), idp, svg, err);
	}
out:
	close_fd(&c.in);
	close_fd(&c.out);
	close_fd(&c.errfd);
	sigaction(SIGPIPE, &old, NULL);
	strbuf_release(&out);
	strbuf_release(&errout);
	return r;
}

void plot_str(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '\'')
			strbuf_addstr(sb, "''");
		else if (ch < 0x20 || ch == 0x7f)
			strbuf_addch(sb, ' ');
		else
			strbuf_addch(sb, ch);
	}
	strbuf_addch(sb, '\'');
}
