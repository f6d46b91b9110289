/*
 * The kernel-warning scan of a run.  /dev/kmsg is opened when the run
 * starts and moved to its end (SEEK_END), so that the descriptor's next
 * record is the first one printed during the run; at the end every record
 * since then is read without blocking.  Records the ring buffer overwrote
 * meanwhile make read(2) fail once with EPIPE (the descriptor then moves
 * to the oldest record still there, which is still newer than the run's
 * start): they are counted as lost, not silently skipped.
 */
#include "kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"

/*
 * What the kernel prints when something is wrong: WARN(), BUG(), an oops
 * and its trace, a general protection fault, the hung-task and soft-lockup
 * watchdogs, RCU stall warnings and the OOM killer's kills.
 */
static const char *const problems[] = {
	"WARNING:",
	"BUG:",
	"Oops",
	"Call Trace",
	"general protection fault",
	"blocked for more than",	/* INFO: task x:1 blocked for ... */
	"soft lockup",
	"hard LOCKUP",
	"rcu_sched detected stall",
	"rcu_preempt detected stall",
	"detected stalls on CPUs",
	"RCU stall",
	"Out of memory",		/* Out of memory: Killed process */
	"out of memory: Killed process", /* Memory cgroup out of memory */
	"invoked oom-killer",
};

bool kmsg_is_problem(const char *text)
{
	size_t i;

	for (i = 0; i < sizeof(problems) / sizeof(problems[0]); i++)
		if (strstr(text, problems[i]))
			return true;
	return false;
}

int kmsg_parse(char *rec, struct kmsg_line *out)
{
	unsigned long long prio, seq, ts;
	char *semi, *end, *nl;

	semi = strchr(rec, ';');
	if (!semi)
		return -EINVAL;
	*semi = '\0';
	errno = 0;
	prio = strtoull(rec, &end, 10);
	if (end == rec || *end != ',')
		return -EINVAL;
	rec = end + 1;
	seq = strtoull(rec, &end, 10);
	if (end == rec || *end != ',')
		return -EINVAL;
	rec = end + 1;
	ts = strtoull(rec, &end, 10);
	if (end == rec || (*end != ',' && *end != '\0') || errno)
		return -EINVAL;
	nl = strchr(semi + 1, '\n');
	if (nl)
		*nl = '\0';	/* what follows are " KEY=value" lines */
	out->prio = (int)prio;
	out->seq = seq;
	out->at_us = ts;
	out->text = semi + 1;
	return 0;
}

void kmsg_begin(struct kmsg_scan *s)
{
	memset(s, 0, sizeof(*s));
	s->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (s->fd < 0) {
		s->err = errno;
		return;
	}
	if (lseek(s->fd, 0, SEEK_END) < 0) {
		s->err = errno;
		close(s->fd);
		s->fd = -1;
	}
}

static int keep(struct kmsg_scan *s, const struct kmsg_line *l)
{
	struct kmsg_line *d;

	ALLOC_GROW(s->lines, s->n + 1, s->alloc);
	d = &s->lines[s->n++];
	*d = *l;
	d->text = xstrdup(l->text);
	return 0;
}

int kmsg_end(struct kmsg_scan *s)
{
	char rec[8192];	/* a record is at most about 1 KiB plus its dict */
	struct kmsg_line l;
	ssize_t n;
	int r;

	if (s->fd < 0)
		return -(s->err ? s->err : EBADF);
	for (;;) {
		n = read(s->fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE) {
			s->lost++;
			continue;
		}
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			s->err = errno;
			return -s->err;
		}
		if (n == 0)
			break;
		rec[n] = '\0';
		if (kmsg_parse(rec, &l))
			continue;
		if (!s->seq_known) {
			s->start_seq = l.seq;
			s->seq_known = true;
		}
		if (l.seq < s->start_seq || !kmsg_is_problem(l.text))
			continue;
		r = keep(s, &l);
		if (r)
			return r;
	}
	return 0;
}

void kmsg_release(struct kmsg_scan *s)
{
	size_t i;

	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	for (i = 0; i < s->n; i++)
		free(s->lines[i].text);
	free(s->lines);
	s->lines = NULL;
	s->n = s->alloc = 0;
}
