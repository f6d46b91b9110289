/*
 * Parallel workers in threads or processes.  The release is a futex word
 * in shared memory, so that one mechanism serves both modes and a worker
 * that could not start does not leave the others waiting forever.
 */
#include "workers.h"
#include "noise.h"
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared {
	int ready;		/* workers waiting for the release */
	int go;			/* 0 wait, 1 go, -1 give up */
	int done, n;		/* workers past the timed call, of n */
	int efd;		/* processes: an eventfd the last done writes */
	pid_t runner_pid, runner_tid;	/* the thread that released them */
	struct worker_res res[];
};

struct warg {
	struct shared *sh;
	struct wl_case c;	/* the worker's own copy, worker set */
	pthread_t th;
	bool started;
};

static long futex(int *addr, int op, int val, const struct timespec *ts)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

/* se.nr_migrations of the calling thread (needs CONFIG_SCHED_DEBUG). */
static int64_t migrations(void)
{
	FILE *f = fopen("/proc/thread-self/sched", "re");
	char line[256];
	long long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "se.nr_migrations", 16)) {
			char *colon = strchr(line, ':');

			if (colon)
				v = strtoll(colon + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/*
 * Wait (at most 50 ms) until the runner's thread sleeps: after the
 * release it has a few system calls to make before it waits for the
 * workers, and they are not to overlap a timed call.
 */
static void runner_asleep(int fd)
{
	uint64_t until = now_ns() + 50000000;
	char buf[256], *p;
	ssize_t n;

	while (fd >= 0 && now_ns() < until) {
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			return;
		buf[n] = '\0';
		p = strrchr(buf, ')');
		if (!p || p[1] != ' ' || p[2] != 'R')
			return;
		sched_yield();
	}
}

/* Is the calling thread's affinity still exactly {pu}? */
static bool mask_is(int pu)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return true;	/* cannot tell: do not accuse */
	return CPU_COUNT(&set) == 1 && pu < CPU_SETSIZE && CPU_ISSET(pu, &set);
}

/*
 * Past the timed call: say so, and wait for every other worker to be past
 * its own, so that no worker's exit (a process's exit frees its memory),
 * nor the runner reaping it, runs while another is still timed.
 */
static void all_done(struct shared *sh)
{
	int seen;

	if (__atomic_add_fetch(&sh->done, 1, __ATOMIC_SEQ_CST) >= sh->n) {
		uint64_t one = 1;
		ssize_t w = 0;

		futex(&sh->done, FUTEX_WAKE, INT_MAX, NULL);
		if (sh->efd >= 0)
			w = write(sh->efd, &one, sizeof(one));
		(void)w;	/* an eventfd's counter does not fill up */
		return;
	}
	while ((seen = __atomic_load_n(&sh->done, __ATOMIC_ACQUIRE)) < sh->n)
		futex(&sh->done, FUTEX_WAIT, seen, NULL);
}

/* The counters a worker reads around its call, opened before the wait. */
struct wfds {
	int busy;	/* the runner's thread's schedstat */
	int state;	/* the runner's thread's stat */
	int self;	/* this thread's schedstat */
};

/*
 * Everything a worker does before the wait, untimed: pinned, named, its
 * memory bound, the workload's prepare run, the counters opened (so that
 * the release is quick).
 */
static void worker_arm(struct wl_case *c, struct shared *sh,
		       struct worker_res *r, struct wfds *fd,
		       struct strbuf *err)
{
	char name[16], path[64];

	r->tid = (pid_t)syscall(SYS_gettid);
	r->pu = c->cpu;
	r->rc = -1;
	if (c->pin_thread && c->pin_thread(c->cpu))
		r->pin_errno = errno ? errno : EINVAL;
	/* named once pinned: what finds it by name sees its placement */
	snprintf(name, sizeof(name), "fbw-%d", c->worker);
	prctl(PR_SET_NAME, name);
	if (c->bind_memory)
		c->bind_memory(c->cpu);
	/* the untimed work of the call, on its PU, right before the wait */
	if (!r->pin_errno && c->wl->prepare && c->wl->prepare(c, err))
		r->prep_failed = true;
	/* counters read before the wait, so that the release is quick */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat",
		 (int)sh->runner_pid, (int)sh->runner_tid);
	fd->busy = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat",
		 (int)sh->runner_pid, (int)sh->runner_tid);
	fd->state = open(path, O_RDONLY | O_CLOEXEC);
	fd->self = noise_schedstat_open();
}

/* A worker's counters, read once before its call and once after. */
struct wcount {
	struct rusage u;	/* its context switches */
	int64_t m;		/* its migrations */
	int64_t b;		/* the runner's thread's time on a CPU */
	int64_t q;		/* its own time on a run queue */
};

/* What moved around the call, from the counters read before and after. */
static void worker_tally(const struct wl_case *c, struct worker_res *r,
			 const struct wcount *k0, const struct wcount *k1)
{
	r->mask_moved = !mask_is(c->cpu);
	r->migrations = k0->m >= 0 && k1->m >= 0 ? k1->m - k0->m : -1;
	r->nvcsw = k1->u.ru_nvcsw - k0->u.ru_nvcsw;
	r->nivcsw = k1->u.ru_nivcsw - k0->u.ru_nivcsw;
	r->runner_ns = k0->b >= 0 && k1->b >= k0->b ? k1->b - k0->b : -1;
	r->runq_wait_ns = k0->q >= 0 && k1->q >= k0->q ? k1->q - k0->q : -1;
	if (r->s.t_begin && r->s.t_end >= r->s.t_begin) {
		r->t_begin = r->s.t_begin;
		r->t_end = r->s.t_end;
	}
	r->ran = true;
}

/* The worker's message into its slot, its counters closed, done said. */
static void worker_finish(struct shared *sh, struct worker_res *r,
			  struct wfds *fd, struct strbuf *err)
{
	/* before all_done: the runner reads it once the last one is done */
	if (err->len)
		snprintf(r->err, sizeof(r->err), "%s", err->buf);
	strbuf_release(err);
	if (fd->busy >= 0)
		close(fd->busy);
	if (fd->state >= 0)
		close(fd->state);
	if (fd->self >= 0)
		close(fd->self);
	if (sh->go > 0)
		all_done(sh);
}

/*
 * A worker: armed, then waits for the release, times its call, and says
 * it is done.  From the release to the second clock reading it does what
 * the call needs and nothing else (the helpers run before and after).
 */
static void worker_body(struct wl_case *c, struct shared *sh)
{
	struct worker_res *r = &sh->res[c->worker];
	struct wcount k0, k1;
	struct strbuf err = STRBUF_INIT;	/* written only on a failure */
	struct wfds fd;

	worker_arm(c, sh, r, &fd, &err);
	k0.m = migrations();
	getrusage(RUSAGE_THREAD, &k0.u);
	__atomic_add_fetch(&sh->ready, 1, __ATOMIC_SEQ_CST);
	futex(&sh->ready, FUTEX_WAKE, INT_MAX, NULL);
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		futex(&sh->go, FUTEX_WAIT, 0, NULL);
	if (sh->go < 0)
		goto out;
	if (r->pin_errno) {
		err_setf(&err, "cannot bind worker %d to PU %d: %s",
			 c->worker, c->cpu, strerror(r->pin_errno));
		goto out;
	}
	if (r->prep_failed)
		goto out;
	runner_asleep(fd.state);
	r->pu_before = sched_getcpu();
	/* the runner's thread's time on a CPU, this one's on a run queue */
	k0.b = noise_schedstat(fd.busy, 0);
	k0.q = noise_schedstat(fd.self, 1);
	if (r->prof_fd >= 0)
		profile_start(r->prof_fd);
	r->t_begin = now_ns();
	r->rc = c->wl->run(c, &r->s, &err);
	r->t_end = now_ns();
	if (r->prof_fd >= 0)
		profile_stop(r->prof_fd);
	k1.q = noise_schedstat(fd.self, 1);
	k1.b = noise_schedstat(fd.busy, 0);
	r->pu_after = sched_getcpu();
	getrusage(RUSAGE_THREAD, &k1.u);
	k1.m = migrations();
	worker_tally(c, r, &k0, &k1);
out:
	worker_finish(sh, r, &fd, &err);
}

static void *thread_main(void *arg)
{
	struct warg *a = arg;

	worker_body(&a->c, a->sh);
	return NULL;
}

/* Wait until every started worker is ready, or one process is gone. */
static int wait_ready(struct shared *sh, int n, pid_t *pids,
		      struct strbuf *err)
{
	const struct timespec tick = { 0, 10000000 };	/* 10 ms */
	int seen, i, st;

	/* threads cannot end apart: no look at them, no tick */
	while ((seen = __atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE)) < n) {
		futex(&sh->ready, FUTEX_WAIT, seen, pids ? &tick : NULL);
		for (i = 0; pids && i < n; i++)
			if (pids[i] > 0 &&
			    waitpid(pids[i], &st, WNOHANG) == pids[i]) {
				int pid = (int)pids[i];

				pids[i] = 0;	/* reaped */
				return err_setf(err, "worker %d (pid %d) ended "
						"before the timed call", i,
						pid);
			}
	}
	return 0;
}

static void release(struct shared *sh, int go)
{
	__atomic_store_n(&sh->go, go, __ATOMIC_RELEASE);
	futex(&sh->go, FUTEX_WAKE, INT_MAX, NULL);
}

/*
 * Asleep until every worker is past its timed call: one wake-up at the
 * end, none in between (joining or reaping the first to finish would run
 * the runner while the others are timed).  Processes may die without
 * saying so: then poll(2) on the eventfd the last one done writes and a
 * pidfd of each (a look once a second where pidfds are not to be had),
 * and *st keeps the status of one found dead, pids[i] its pid negated.
 */
static void wait_done(struct shared *sh, int n, pid_t *pids, int *st)
{
	const struct timespec sec = { 1, 0 };
	struct pollfd *pf = NULL;
	int seen, i;
	bool polled;

	if (pids && sh->efd >= 0)
		pf = calloc((size_t)n + 1, sizeof(*pf));
	polled = pf;
	for (i = 0; pf && i < n; i++) {
		pf[i].fd = (int)syscall(SYS_pidfd_open, pids[i], 0);
		pf[i].events = POLLIN;
		if (pf[i].fd < 0)
			polled = false;
	}
	if (pf) {
		pf[n].fd = sh->efd;
		pf[n].events = POLLIN;
	}
	while ((seen = __atomic_load_n(&sh->done, __ATOMIC_ACQUIRE)) < n) {
		if (!pids) {
			futex(&sh->done, FUTEX_WAIT, seen, NULL);
			continue;
		}
		if (polled ? poll(pf, (nfds_t)n + 1, -1) <= 0 :
		    !futex(&sh->done, FUTEX_WAIT, seen, &sec) ||
		    errno != ETIMEDOUT)
			continue;
		if (__atomic_load_n(&sh->done, __ATOMIC_ACQUIRE) >= n)
			break;
		for (i = 0; i < n; i++)
			if (pids[i] > 0 &&
			    waitpid(pids[i], &st[i], WNOHANG) == pids[i]) {
				pids[i] = -pids[i];	/* reaped */
				goto out;
			}
	}
out:
	for (i = 0; pf && i < n; i++)
		if (pf[i].fd >= 0)
			close(pf[i].fd);
	free(pf);
}

/* A process a worker; 0, or -1 with err set (pids[i] 0 from the failed). */
static int fork_workers(struct workers *w, struct shared *sh, struct warg *a,
			pid_t *pids, struct strbuf *err)
{
	pid_t parent = getpid();
	int i, k;

	fflush(NULL);	/* nothing buffered is written twice */
	for (i = 0; i < w->n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			pids[i] = 0;
			return err_setf(err, "cannot fork worker %d: %s", i,
					strerror(errno));
		}
		if (!pids[i]) {
			/* the worker dies with the runner, never outlives it */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(1);
			/* what later workers own is not ours to hold */
			for (k = i + 1; a[i].c.wl->forked && k < w->n; k++)
				a[i].c.wl->forked(&a[i].c, k);
			worker_body(&a[i].c, sh);
			_exit(0);
		}
		if (a[i].c.wl->forked)
			a[i].c.wl->forked(&a[i].c, i);
	}
	return 0;
}

/* A worker process that ended badly says so in its slot. */
static void worker_ended(struct shared *sh, int i, pid_t pid, int st)
{
	struct worker_res *res = &sh->res[i];

	res->ran = false;
	res->rc = -1;
	snprintf(res->err, sizeof(res->err), "worker %d (pid %d) %s %d", i,
		 (int)pid, WIFSIGNALED(st) ? "was killed by signal" :
		 "exited with", WIFSIGNALED(st) ? WTERMSIG(st) :
		 WEXITSTATUS(st));
}

/*
 * Every worker process reaped, after the calls (or after a failure, r):
 * when one died before it was done, the others wait for it in vain and
 * are killed, and the dead one's message is every stopped one's.
 */
static void reap_workers(struct workers *w, struct shared *sh,
			 const struct warg *a, pid_t *pids, const int *sts,
			 int r)
{
	bool gone = false;
	int i, k, st;

	for (i = 0; i < w->n; i++)
		gone |= pids[i] < 0;
	for (i = 0; gone && i < w->n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (i = 0; i < w->n; i++) {
		if (!pids[i])
			continue;
		if (pids[i] < 0) {
			pids[i] = -pids[i];	/* reaped by wait_done */
			st = sts[i];
		} else {
			if (r)
				kill(pids[i], SIGKILL);
			while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
				;
			/* killed above: what went wrong is the dead one's */
			if (gone)
				continue;
		}
		if (!r && (!WIFEXITED(st) || WEXITSTATUS(st)))
			worker_ended(sh, i, pids[i], st);
	}
	for (i = 0; gone && i < w->n; i++)
		if (sh->res[i].rc && !sh->res[i].ran && sh->res[i].err[0])
			break;
	for (k = 0; gone && i < w->n && k < w->n; k++)
		if (k != i) {
			sh->res[k] = sh->res[i];
			sh->res[k].pu = a[k].c.cpu;
		}
}

static int run_processes(struct workers *w, struct shared *sh,
			 struct warg *a, void (*before)(void *), void *arg,
			 struct strbuf *err)
{
	pid_t *pids = calloc((size_t)w->n, sizeof(pid_t));
	int *sts = calloc((size_t)w->n, sizeof(int));
	int r;

	if (!pids || !sts) {
		free(pids);
		free(sts);
		return err_setf(err, "out of memory");
	}
	r = fork_workers(w, sh, a, pids, err);
	if (!r)
		r = wait_ready(sh, w->n, pids, err);
	if (!r && before)
		before(arg);
	w->t_release = now_ns();
	release(sh, r ? -1 : 1);
	if (!r)
		wait_done(sh, w->n, pids, sts);
	reap_workers(w, sh, a, pids, sts, r);
	free(pids);
	free(sts);
	return r;
}

static int run_threads(struct workers *w, struct shared *sh, struct warg *a,
		       void (*before)(void *), void *arg, struct strbuf *err)
{
	int i, n = 0, r = 0, en;

	for (i = 0; i < w->n; i++) {
		en = pthread_create(&a[i].th, NULL, thread_main, &a[i]);
		if (en) {
			r = err_setf(err, "cannot start worker thread %d: %s",
				     i, strerror(en));
			break;
		}
		a[i].started = true;
		n++;
	}
	if (!r)
		r = wait_ready(sh, n, NULL, err);
	if (!r && before)
		before(arg);
	w->t_release = now_ns();
	release(sh, r ? -1 : 1);
	if (!r)
		wait_done(sh, n, NULL, NULL);
	for (i = 0; i < w->n; i++)
		if (a[i].started)
			pthread_join(a[i].th, NULL);
	return r;
}

int workers_run(struct workers *w, struct wl_case *c, int n, const int *pus,
		bool processes, void (*before)(void *), void *arg,
		const int *prof_fds, struct strbuf *err)
{
	struct warg *a;
	struct shared *sh;
	int i, r;

	memset(w, 0, sizeof(*w));
	w->n = n;
	w->processes = processes;
	w->shm_len = sizeof(*sh) + (size_t)n * sizeof(struct worker_res);
	w->shm = mmap(NULL, w->shm_len, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w->shm == MAP_FAILED) {
		w->shm = NULL;
		return err_setf(err, "cannot map memory for %d workers: %s", n,
				strerror(errno));
	}
	/*
	 * Never a huge page for these few KiB: with shmem_enabled=always (a
	 * memfd case of PMD folios sets it) 6.1 gives a small shared anonymous
	 * mapping a 2 MiB folio, which lands in the machine-wide counters the
	 * case reads (thp_file_alloc: 33 PMD folios for a 32-folio file).
	 */
	madvise(w->shm, w->shm_len, MADV_NOHUGEPAGE);
	sh = w->shm;
	sh->runner_pid = getpid();
	sh->runner_tid = (pid_t)syscall(SYS_gettid);
	sh->n = n;
	sh->efd = processes ? eventfd(0, EFD_CLOEXEC) : -1;
	w->res = sh->res;
	a = calloc((size_t)n, sizeof(*a));
	if (!a)
		return err_setf(err, "out of memory");
	for (i = 0; i < n; i++) {
		a[i].sh = sh;
		a[i].c = *c;
		a[i].c.worker = i;
		a[i].c.cpu = pus[i];
		sh->res[i].pu = pus[i];
		sh->res[i].pu_before = sh->res[i].pu_after = -1;
		sh->res[i].migrations = -1;
		sh->res[i].runner_ns = -1;
		sh->res[i].prof_fd = prof_fds ? prof_fds[i] : -1;
	}
	r = processes ? run_processes(w, sh, a, before, arg, err) :
			run_threads(w, sh, a, before, arg, err);
	if (sh->efd >= 0)
		close(sh->efd);
	free(a);
	return r;
}

void workers_check(const struct workers *w, int i, struct strbuf *err)
{
	const struct worker_res *r = &w->res[i];

	if (!r->ran)
		return;
	if (r->pu_before != r->pu || r->pu_after != r->pu)
		strbuf_addf(err, "worker %d ran on PU %d at the start of the "
			    "timed call and on PU %d at its end, not on its "
			    "PU %d", i, r->pu_before, r->pu_after, r->pu);
	else if (r->migrations > 0)
		strbuf_addf(err, "worker %d migrated %lld time%s during the "
			    "timed call (its PU %d)", i,
			    (long long)r->migrations,
			    r->migrations == 1 ? "" : "s", r->pu);
	else if (r->mask_moved)
		strbuf_addf(err, "worker %d's affinity was changed during the "
			    "timed call (its PU %d)", i, r->pu);
}

void workers_release(struct workers *w)
{
	if (w->shm)
		munmap(w->shm, w->shm_len);
	memset(w, 0, sizeof(*w));
}
