/*
 * shadow-truncate's control of its reader (shadow_reader.c): the child
 * started with two pipes, moved into the cgroup, followed through its
 * messages until it is ready, and reaped, saying why when it died.
 */
#include "shadow_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/sys.h"

/* The reader child, placed on the CPUs the runner does not measure on. */
static void __attribute__((noreturn)) reader_main(void *p)
{
	const struct reader_args *a = p;

	fuse_zero_place(a->cpus, a->ncpus);
	shadow_reader(a);
}

int shadow_start_reader(struct wl_case *c, struct state *st,
			struct strbuf *err)
{
	struct reader_args a;
	struct sys_child ch;
	int ctl[2] = { -1, -1 }, out[2] = { -1, -1 }, r;
	int keep[3] = { -1, -1, -1 };

	if (pipe2(ctl, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
		r = errno;
		goto fail;
	}
	memset(&a, 0, sizeof(a));
	a.path = st->path.buf;
	a.size = st->plan.size;
	a.keep = st->plan.keep;
	a.ballast = st->plan.ballast;
	a.m = &st->m;
	a.memory_reclaim = st->memory_reclaim;
	a.ra = st->ra;
	a.threads = c->nsetup_cpus;
	a.pin_vmas = st->pin_vmas;
	a.step = HEADROOM / 2;
	a.ctl = ctl[0];
	a.out = out[1];
	a.parent = getpid();
	a.cpus = c->setup_cpus;
	a.ncpus = c->nsetup_cpus;
	/*
	 * It keeps nothing of the runner's but the two pipes: an inherited
	 * descriptor of its lock or database must not outlive it.
	 */
	keep[0] = ctl[0];
	keep[1] = out[1];
	r = -sys_child_start(&ch, &(struct sys_child_spec){
		.fn = reader_main, .arg = &a, .keep = keep, .out = -1 });
	if (r)
		goto fail;
	st->reader = ch.pid;
	close(ctl[0]);
	close(out[1]);
	st->ctl = ctl[1];
	st->msgs = out[0];
	r = memcg_attach(&st->m, ch.pid);
	if (r)
		return err_setf(err, "cannot move the reader into %s: %s",
				st->m.path.buf, strerror(-r));
	if (write(st->ctl, "g", 1) != 1)
		return err_setf(err, "cannot start the reader: %s",
				strerror(errno));
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (ctl[i] >= 0)
			close(ctl[i]);
		if (out[i] >= 0)
			close(out[i]);
	}
	return err_setf(err, "cannot start the reader: %s", strerror(r));
}

void shadow_reap_reader(struct state *st)
{
	if (st->reader <= 0)
		return;
	if (st->ctl >= 0) {
		close(st->ctl);
		st->ctl = -1;
	}
	sys_child_finish(&(struct sys_child){ .pid = st->reader }, true);
	st->reader = 0;
}

/* Why the reader is gone, added to err. */
static void reader_death(struct state *st, struct strbuf *err)
{
	struct sys_child ch = { .pid = st->reader };
	int gone, s;

	if (st->ctl >= 0) {
		close(st->ctl);
		st->ctl = -1;
	}
	gone = !sys_child_finish(&ch, false);
	s = ch.status;
	if (gone)
		st->reader = 0;
	if (gone && WIFSIGNALED(s))
		strbuf_addf(err, "the reader was killed by %s%s",
			    strsignal(WTERMSIG(s)), WTERMSIG(s) == SIGKILL ?
			    " (the cgroup's OOM killer? its limit may be too "
			    "small)" : "");
	else if (gone)
		strbuf_addf(err, "the reader exited with status %d",
			    WEXITSTATUS(s));
	else
		strbuf_addf(err, "the reader is gone");
}

/* Follow the reader until it is ready; poll stop all along. */
int shadow_wait_reader(struct wl_case *c, struct state *st, struct strbuf *err)
{
	struct pollfd pfd = { .fd = st->msgs, .events = POLLIN };
	struct msg m;
	ssize_t n;

	for (;;) {
		if (*c->stop) {
			shadow_reap_reader(st);
			return err_setf(err, "interrupted");
		}
		if (poll(&pfd, 1, 100) <= 0)
			continue;	/* timeout, or EINTR: look at stop */
		n = read(st->msgs, &m, sizeof(m));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(m)) {
			err_setf(err, "setup of %s failed: ", st->path.buf);
			reader_death(st, err);
			return -1;
		}
		switch (m.kind) {
		case MSG_PROGRESS:
			if (m.ns)
				st->read_ns = m.ns;
			if (m.cpu_ns)
				st->read_cpu_ns = m.cpu_ns;
			if (m.pin_ns)
				st->pin_ns = m.pin_ns;
			if (c->progress)
				c->progress(m.what, m.done, m.total);
			break;
		case MSG_READY:
			st->reclaim_ns = m.done;
			st->unpin_ns = m.ns;
			return 0;
		default:
			shadow_reap_reader(st);
			return err_setf(err, "setup of %s failed: %s",
					st->path.buf, m.text);
		}
	}
}
