/*
 * QEMU run to its end: started in a process group of its own, its console
 * followed (the command's lines to the terminal as they come), killed
 * when --timeout is past or a stop signal came.
 */
#include "vm_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono_s(void)
{
	return (double)now_ns() / 1e9;
}

static volatile sig_atomic_t vm_signal;

static void on_signal(int sig)
{
	vm_signal = sig;
}

/* The console so far, from *off: lines to the terminal as they come. */
struct follow {
	int fd;
	off_t off;
	struct strbuf line;
	bool in_cmd, verbose;
	bool started, ended;
	double t0, start_s, end_s;	/* when the markers came, after t0 */
};

static void follow_line(struct follow *f, char *l)
{
	size_t n = strlen(l);

	while (n && (l[n - 1] == '\r' || l[n - 1] == '\n'))
		l[--n] = '\0';
	if (strstr(l, "foliobench-vm: command start")) {
		f->in_cmd = f->started = true;
		f->start_s = mono_s() - f->t0;
		if (!f->verbose)
			return;
	} else if (strstr(l, "foliobench-vm: command end")) {
		f->in_cmd = false;
		f->ended = true;
		f->end_s = mono_s() - f->t0;
		if (!f->verbose)
			return;
	}
	if (f->verbose || f->in_cmd)
		printf("%s\n", l);
	else if (strstr(l, "foliobench-vm: "))
		fprintf(stderr, "bench: guest: %s\n",
			strstr(l, "foliobench-vm: ") + 15);
}

static void follow(struct follow *f)
{
	char chunk[16384];
	ssize_t n;

	while ((n = pread(f->fd, chunk, sizeof(chunk), f->off)) > 0) {
		ssize_t i, s = 0;

		f->off += n;
		for (i = 0; i < n; i++)
			if (chunk[i] == '\n') {
				strbuf_add(&f->line, chunk + s,
					   (size_t)(i - s));
				follow_line(f, f->line.buf);
				strbuf_reset(&f->line);
				s = i + 1;
			}
		strbuf_add(&f->line, chunk + s, (size_t)(n - s));
	}
	fflush(stdout);
}

/* The signals that stop the guest: caught while QEMU runs. */
static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };

/*
 * QEMU started on argv, its output into tmp/qemu.log, tmp/console.log
 * made empty for it first.  Its pid, or -1 with errno set.
 */
static pid_t qemu_start(char *const *argv, const char *tmp)
{
	char *log = xstrfmt("%s/qemu.log", tmp);
	char *con = xstrfmt("%s/console.log", tmp);
	pid_t pid;
	int i, logfd, e;

	logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	close(open(con, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
	free(log);
	free(con);
	pid = fork();
	if (!pid) {
		int nul = open("/dev/null", O_RDWR);

		for (i = 0; i < (int)ARRAY_SIZE(stop_sigs); i++)
			signal(stop_sigs[i], SIG_DFL);
		/* its own process group: a ^C reaches us, and we stop it;
		 * and it dies with us, even with a SIGKILL */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(nul, 0);
		dup2(logfd >= 0 ? logfd : nul, 1);
		dup2(logfd >= 0 ? logfd : nul, 2);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	e = errno;
	if (logfd >= 0)
		close(logfd);
	errno = e;
	return pid;
}

/*
 * Follow the console while QEMU runs; kill it when the time is up or a
 * stop signal came.  Its wait status; *timed_out when the time was up.
 */
static int qemu_watch(pid_t pid, struct follow *f, unsigned timeout_s,
		      bool *timed_out)
{
	int st = 0;

	for (;;) {
		struct timespec ts = { 0, 200 * 1000 * 1000 };
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (f->fd >= 0)
			follow(f);
		if (w == pid)
			break;
		if (vm_signal || (timeout_s &&
				  mono_s() - f->t0 > timeout_s)) {
			*timed_out = !vm_signal;
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			break;
		}
		nanosleep(&ts, NULL);
	}
	if (f->fd >= 0) {
		follow(f);
		if (f->line.len)
			follow_line(f, f->line.buf);
	}
	return st;
}

/* How the guest ended, into res; 0, or VM_ESIGNAL - sig, VM_EBOOT. */
static int qemu_verdict(const struct vm_opts *o, const struct follow *f,
			int st, bool timed_out, struct vm_result *res,
			struct strbuf *err)
{
	res->wall_s = mono_s() - f->t0;
	res->booted = f->started;
	res->boot_s = f->started ? f->start_s : NAN;
	res->cmd_s = f->ended ? f->end_s - f->start_s : NAN;
	if (vm_signal) {
		strbuf_addf(err, "interrupted: the guest was stopped");
		return VM_ESIGNAL - vm_signal;
	}
	if (timed_out) {
		strbuf_addf(err, "the guest ran past --timeout %u s and was "
			    "stopped", o->timeout_s);
		return VM_EBOOT;
	}
	if (!f->ended) {
		strbuf_addf(err, "QEMU exited (%s %d) before the guest's "
			    "command ended", WIFEXITED(st) ? "status" :
			    "signal", WIFEXITED(st) ? WEXITSTATUS(st) :
			    WTERMSIG(st));
		return VM_EBOOT;
	}
	return 0;
}

/* The last lines of a file, for an error message. */
static void tail_of(const char *path, int lines, struct strbuf *sb)
{
	struct strbuf b = STRBUF_INIT;
	const char *p;
	int n = 0;

	if (vm_slurp(path, &b) || !b.len) {
		strbuf_release(&b);
		return;
	}
	for (p = b.buf + b.len - 1; p > b.buf; p--)
		if (*p == '\n' && ++n > lines)
			break;
	strbuf_addf(sb, "\n%s:\n%s", path, p == b.buf ? p : p + 1);
	strbuf_release(&b);
}

/*
 * Start QEMU, follow the console until it exits (or the time is up, or a
 * signal came: then it is killed).  0, or VM_ESIGNAL - sig, VM_EBOOT (the
 * tails of QEMU's log and of the console in err), VM_EINTERNAL.
 */
int vm_qemu_run(const struct vm_opts *o, char *const *argv,
		const char *tmp, struct vm_result *res, struct strbuf *err)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct sigaction old[ARRAY_SIZE(stop_sigs)];
	struct follow f = { .fd = -1, .verbose = o->verbose, .t0 = mono_s() };
	char *con = xstrfmt("%s/console.log", tmp), *log;
	bool timed_out = false;
	pid_t pid;
	size_t i;
	int r;

	vm_signal = 0;
	for (i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaction(stop_sigs[i], &sa, &old[i]);
	pid = qemu_start(argv, tmp);
	if (pid < 0) {
		strbuf_addf(err, "cannot fork: %s", strerror(errno));
		r = VM_EINTERNAL;
		goto out;
	}
	f.fd = open(con, O_RDONLY | O_CLOEXEC);
	r = qemu_watch(pid, &f, o->timeout_s, &timed_out);
	r = qemu_verdict(o, &f, r, timed_out, res, err);
	if (r == VM_EBOOT) {
		log = xstrfmt("%s/qemu.log", tmp);
		tail_of(log, 10, err);
		free(log);
		tail_of(con, 20, err);
	}
out:
	free(con);
	if (f.fd >= 0)
		close(f.fd);
	strbuf_release(&f.line);
	for (i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaction(stop_sigs[i], &old[i], NULL);
	return r;
}
