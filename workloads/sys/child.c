/*
 * Child processes, as git's start_command/finish_command: one place that
 * forks, leaves the child only the descriptors it is meant to have,
 * records its pid in the journal (so that a runner killed meanwhile has it
 * ended by the next start) and reaps it.
 */
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child: close every descriptor from 3 up but those in keep. */
static void close_all_but(const int *keep)
{
	int lo = 3;

	for (;;) {
		int next = -1;

		/* the smallest kept descriptor at or above lo */
		for (const int *k = keep; k && *k >= 0; k++)
			if (*k >= lo && (next < 0 || *k < next))
				next = *k;
		if (next < 0) {
			syscall(SYS_close_range, (unsigned)lo, ~0u, 0u);
			return;
		}
		if (next > lo)
			syscall(SYS_close_range, (unsigned)lo,
				(unsigned)next - 1, 0u);
		lo = next + 1;
	}
}

int sys_child_start(struct sys_child *ch, const struct sys_child_spec *sp)
{
	pid_t pid;

	memset(ch, 0, sizeof(*ch));
	if (!sp->fn == !sp->path || (sp->path && !sp->argv))
		return -EINVAL;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (sp->path) {
			int null = open("/dev/null", O_RDONLY);

			if (null < 0 || dup2(null, 0) < 0 ||
			    (sp->out >= 0 && (dup2(sp->out, 1) < 0 ||
					      dup2(sp->out, 2) < 0)))
				_exit(127);
			close_all_but(sp->keep);
			execv(sp->path, (char *const *)sp->argv);
			_exit(127);
		}
		close_all_but(sp->keep);
		sp->fn(sp->arg);
		_exit(0);
	}
	ch->pid = pid;
	/* from here on a dead runner's successor ends it */
	sys_pid_record(pid);
	return 0;
}

int sys_child_finish(struct sys_child *ch, bool kill_it)
{
	pid_t w;

	if (ch->pid <= 0)
		return -ECHILD;
	if (kill_it)
		kill(ch->pid, SIGKILL);
	while ((w = waitpid(ch->pid, &ch->status, 0)) < 0 && errno == EINTR)
		;
	if (w < 0)
		return -errno;
	sys_pid_forget(ch->pid);
	ch->pid = 0;
	return 0;
}
