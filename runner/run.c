/*
 * `bench run` and `bench check`, phase by phase: the machine's lock and
 * journal, preflight every case before anything is made (prepare.c), the
 * run's row, then each case's warm-ups and repetitions (rep.c: setup ->
 * run -> verify -> teardown, every sample stored as it is taken), the
 * run's end, and whatever happened, the system put back as it was.
 */
#include "run_priv.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "workloads/params.h"
#include "workloads/sys/fs.h"
#include "workloads/sys/sys.h"


volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

void say_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A database error, said for people; returns it, for bench/ to map. */
int db_failed(const char *what, const char *path, int r, const char *err)
{
	struct strbuf why = STRBUF_INIT;

	switch (r) {
	case DB_BUSY:
	case DB_READONLY:
		say_err("%s %s: %s (%s)", what, path, db_strerror(r), err);
		break;
	case DB_FULL:
		say_err("%s %s: %s (%s); what was stored before is kept", what,
			path, db_strerror(r), err);
		break;
	case DB_CORRUPT:
	case DB_NOT_DB:
		/* a directory, a device: nothing for integrity_check to see */
		if (r == DB_NOT_DB && db_file_kind(path, &why)) {
			say_err("%s %s: %s", what, path, why.buf);
			break;
		}
		say_err("%s %s: %s, or a damaged one (%s); see sqlite3 %s "
			"'PRAGMA integrity_check'", what, path, db_strerror(r),
			err, path);
		break;
	case DB_TOO_NEW:
		say_err("%s %s: %s; use a newer foliobench", what, path, err);
		break;
	default:
		say_err("%s %s: %s", what, path, err);
		if (r >= 0)
			r = DB_ERR;
	}
	strbuf_release(&why);
	return r;
}

/* What the journal could not undo, one message a change; how many. */
static int say_undo_failures(const char *head, struct strbuf *note)
{
	struct strbuf sb = STRBUF_INIT;
	char *line, *save = NULL;
	int n = sys_undo_failures(&sb, false);

	if (!sb.buf)
		return n;
	for (line = strtok_r(sb.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		say_err("%s%s", head, line);
		if (note)
			strbuf_addf(note, "%s%s", note->len ? "; " : "", line);
	}
	strbuf_release(&sb);
	return n;
}

static int exit_for_signal(void)
{
	return RUNNER_SIGNALED(stop_sig);	/* bench/: 128 + the signal */
}

static void handle_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: long calls stop */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/*
 * The kernel log lines of the run that show a problem, stored with it and
 * said on stderr: a kernel that warned must not pass unnoticed.
 */
static void store_kmsg(struct db *db, int64_t run_id, struct kmsg_scan *km)
{
	struct db_kwarn *w;
	size_t i;
	int r;

	r = kmsg_end(km);
	if (r && !km->said_err)
		say_err("warning: cannot read the kernel log /dev/kmsg: %s; "
			"this run's kernel warnings are not known",
			strerror(-r));
	km->said_err = r != 0;
	if (r)
		return;		/* runs.kernel_warnings stays NULL */
	if (km->lost)
		say_err("warning: %llu kernel log record%s of this run were "
			"overwritten before they were read",
			(unsigned long long)km->lost, km->lost == 1 ? "" : "s");
	km->lost = 0;
	w = xcalloc(km->n + 1, sizeof(*w));
	for (i = 0; i < km->n; i++) {
		w[i].seq = km->lines[i].seq;
		w[i].at_us = km->lines[i].at_us;
		w[i].prio = km->lines[i].prio;
		w[i].line = km->lines[i].text;
	}
	if (db_kwarn_store(db, run_id, w, km->n))
		say_err("cannot store the run's kernel warnings: %s",
			db_errmsg(db));
	free(w);
	for (i = km->said; i < km->n; i++)
		say_err("warning: kernel: [%5llu.%06llu] %s",
			(unsigned long long)(km->lines[i].at_us / 1000000),
			(unsigned long long)(km->lines[i].at_us % 1000000),
			km->lines[i].text);
	km->said = km->n;
}

/*
 * Every end of a run: its kernel log first, then its status.  On a full
 * disk the status is tried again after a checkpoint (the -wal's frames
 * move into the file and the -wal is cut short); where it still cannot be
 * written the run stays `running` in the file, and that is said, with who
 * will see it dead.
 */
static void run_finish(struct db *db, int64_t run_id, struct kmsg_scan *km,
		       const char *status, const char *reason)
{
	int r;

	store_kmsg(db, run_id, km);
	r = db_run_end(db, run_id, status, reason);
	if (r == DB_FULL) {
		db_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
		r = db_run_end(db, run_id, status, reason);
	}
	if (r)
		say_err("cannot mark the run %s in %s: %s (%s); it stays "
			"'running' there: `bench runs` shows it dead, and the "
			"next `bench run` or `bench check` marks it aborted",
			status, db->path, db_strerror(r), db_errmsg(db));
}

/* A fault after the run's row exists: the run ends failed. */
int give_up(struct runner *rn, int ret)
{
	run_finish(&rn->db, rn->run_id, &rn->km, "failed",
		   "the runner could not go on");
	return ret;
}

/* Phase 1: the command line over the config, the PUs, root. */
static int settle(struct runner *rn)
{
	const struct run_opts *o = rn->o;
	struct strbuf why = STRBUF_INIT;
	int i, r;

	if (o->only && config_only(&rn->cfg, o->only, &rn->err)) {
		say_err("%s", strbuf_str(&rn->err));
		return RUNNER_EUSAGE;
	}
	if (o->runs > 0)
		for (i = 0; i < rn->cfg.ncases; i++)
			rn->cfg.cases[i].runs = (unsigned)o->runs;
	if (o->profile)
		rn->cfg.profile = true;
	rn->db_path = o->db_path ? o->db_path : rn->cfg.database;
	if (db_path_check(rn->db_path, &why)) {
		struct strbuf q = STRBUF_INIT;

		strbuf_json_str(&q, rn->db_path);
		if (o->db_path)
			say_err("--db %s: %s", q.buf, why.buf);
		else
			say_err("%s: database: %s: %s", rn->cfg_path, q.buf,
				why.buf);
		strbuf_release(&q);
		strbuf_release(&why);
		return o->db_path ? RUNNER_EUSAGE : RUNNER_ECONFIG;
	}
	r = placement_init(&rn->pl, &rn->cfg, &rn->err);
	if (r == -2) {
		say_err("refused: %s", strbuf_str(&rn->err));
		/* check shows the machine even when nothing can run on it */
		if (o->check_only)
			printf("topology: %s; usable PUs none (%s)\n",
			       rn->pl.shape, rn->pl.sources);
		return RUNNER_EREFUSED;
	}
	if (r) {
		say_err("%s: %s", rn->cfg_path, strbuf_str(&rn->err));
		return RUNNER_ECONFIG;
	}
	if (o->check_only && geteuid() != 0)
		printf("topology: %s; usable PUs %s (%s); placement %s\n",
		       rn->pl.shape, rn->pl.usable, rn->pl.sources,
		       place_name(rn->pl.place));
	if (geteuid() != 0) {
		say_err("refused: foliobench needs root (it mounts, makes "
			"cgroups and sets THP knobs); run it with sudo");
		return RUNNER_EREFUSED;
	}
	return RUNNER_OK;
}

/* When pid started, as a wall-clock second; 0 when it cannot be told. */
static time_t proc_started(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ticks = 0, btime = 0;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (hz <= 0 || read_file_str(path, buf, sizeof(buf)))
		return 0;
	/* field 22, starttime: clock ticks after boot; comm may hold spaces */
	p = strrchr(buf, ')');
	for (i = 3; i <= 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &ticks) != 1)
		return 0;
	f = fopen("/proc/stat", "re");
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f) &&
	       sscanf(buf, "btime %llu", &btime) != 1)
		;
	fclose(f);
	return btime ? (time_t)(btime + ticks / (unsigned long long)hz) : 0;
}

/*
 * Is the runner that began a run at started_at (pid, this boot) alive?  A
 * pid taken again since is a process that started after the run did.
 * What cannot be told counts as alive: a live run is never marked dead.
 */
static bool runner_alive(int pid, const char *started_at)
{
	struct tm tm = { 0 };
	time_t born;

	if (pid <= 0 || (kill(pid, 0) && errno == ESRCH))
		return false;
	born = proc_started(pid);
	if (!born || !strptime(started_at, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return true;
	/* btime and started_at are whole seconds */
	return born <= timegm(&tm) + 2;
}

bool runner_run_dead(const char *hostname, const char *boot_id, int pid,
		     const char *started_at)
{
	char host[sizeof(((struct utsname *)0)->nodename)], boot[64];
	struct utsname u;

	if (uname(&u))
		return false;
	snprintf(host, sizeof(host), "%s", u.nodename);
	label_sanitize(host);	/* as meta_collect stores it */
	if (!hostname || strcmp(hostname, host))
		return false;
	boot_id_get(boot, sizeof(boot));
	if (!boot_id || strcmp(boot_id, boot))
		return true;
	return started_at && !runner_alive(pid, started_at);
}

/* The runs of this host that a dead runner left `running` end aborted. */
static int mark_dead_runs(struct db *db, const char *path,
			  const struct meta *meta)
{
	int n = 0, r = db_mend_running(db, meta->hostname, meta->boot_id,
				       runner_alive, &n);

	if (r)
		return db_failed("cannot write", path, r, db_errmsg(db));
	if (n)
		say_err("marked %d run%s that died as aborted", n,
			n == 1 ? "" : "s");
	return 0;
}

/*
 * `bench check` mends a dead run's changes to the system (sys_init) and,
 * as `bench run` would, its row in the database, where there is one (it
 * creates none).  A database it cannot write is the run's problem, not
 * the preflight's: a warning.
 */
static void check_dead_runs(struct runner *rn)
{
	struct db db;
	int r;

	if (access(rn->db_path, F_OK))
		return;
	meta_collect(&rn->meta);
	r = db_open(&db, rn->db_path, false);
	if (r)
		db_failed("warning: cannot mark dead runs aborted in",
			  rn->db_path, r, db_errmsg(&db));
	else
		mark_dead_runs(&db, rn->db_path, &rn->meta);
	db_close(&db);
}

/* Phase 2: the machine's lock and journal; what an earlier run left. */
static int take_machine(struct runner *rn)
{
	char mended[2048];
	pid_t holder = 0;
	int r;

	handle_signals();
	r = sys_init(mended, sizeof(mended), &holder);
	if (r == -EBUSY) {
		say_err("another foliobench runner (pid %d) is running on this "
			"machine; wait for it to finish", (int)holder);
		return RUNNER_ELOCKED;
	}
	if (r) {
		say_err("cannot take the runner lock in %s: %s",
			sys_state_dir(), strerror(-r));
		return RUNNER_ESTATE;
	}
	rn->sys_up = true;
	if (mended[0])
		say_err("mended what an earlier run left: %s", mended);
	say_undo_failures("cannot undo what an earlier run left: ", NULL);
	if (rn->o->check_only)
		check_dead_runs(rn);
	return RUNNER_OK;
}

/* Phase 4: the database, the run's row and facts, the scratch dirs. */
static int begin_run(struct runner *rn)
{
	const struct run_opts *o = rn->o;
	struct meta *meta = &rn->meta;
	struct db_run row = { 0 };
	unsigned long magic;
	const char *base[2] = { rn->cfg.scratch, rn->cfg.disk_scratch };
	const char *out[2] = { rn->scratch, rn->disk_scratch };
	struct strbuf made = STRBUF_INIT;
	size_t len = 0;
	char *xml;
	int i, r;

	r = db_open(&rn->db, rn->db_path, true);
	if (r)
		return db_failed("cannot open database", rn->db_path, r,
				 db_errmsg(&rn->db));
	if (!o->db_path && !fs_magic(rn->db_path, &magic) &&
	    magic == TMPFS_MAGIC)
		say_err("warning: database %s is on tmpfs: it is lost at "
			"reboot", rn->db_path);
	meta_release(meta);	/* mark_dead_runs' look, where it had one */
	meta_collect(meta);
	r = mark_dead_runs(&rn->db, rn->db_path, meta);
	if (r)
		return r;
	snprintf(row.uuid, sizeof(row.uuid), "%s", meta->uuid);
	row.label = o->label ? o->label : rn->cfg.label ? rn->cfg.label :
		    meta->label;
	row.kernel_release = meta->release;
	row.kernel_version = meta->version;
	row.boot_id = meta->boot_id;
	row.hostname = meta->hostname;
	row.cpu_model = meta->cpu_model;
	row.cmdline = meta->cmdline;
	row.thp = meta->thp;
	row.tmpfs = meta->tmpfs;
	row.topology = rn->pl.summary;
	row.tool_version = rn->version;
	row.config = rn->cfg.json;
	row.virt = meta->virt;
	row.vcpus = meta->vcpus;
	row.mem_bytes = meta->mem_bytes;
	row.pid = (int)getpid();
	kmsg_begin(&rn->km);
	r = db_run_begin(&rn->db, &row, &rn->run_id);
	if (r)
		return db_failed("cannot record the run in", rn->db_path, r,
				 db_errmsg(&rn->db));
	xml = placement_xml(&len);
	if (xml && db_run_topology(&rn->db, rn->run_id, rn->pl.shape, xml,
				   len))
		say_err("warning: cannot store the topology: %s",
			db_errmsg(&rn->db));
	free(xml);
	if (!o->quiet)
		printf("run %s, label %s, kernel %s, boot %.8s, CPU %d\n",
		       meta->uuid, row.label, meta->release, meta->boot_id,
		       rn->pl.cpu);
	profile_init(&rn->prof, rn->cfg.profile, rn->cfg.profile_period);
	profile_say_off(rn);
	for (i = 0; i < 2; i++) {
		/* made under the name preflight_all gave it (the same
		 * base and pid) */
		r = sys_scratch(base[i], &made);
		strbuf_release(&made);
		if (r) {
			/* the one that failed, not the first */
			say_err("cannot make scratch directory %s: %s", out[i],
				strerror(-r));
			return give_up(rn, RUNNER_ESCRATCH);
		}
	}
	return RUNNER_OK;
}

/*
 * The case's row, under the params that run (what preflight left) made
 * from the typed case now, and those the config asked beside them where
 * preflight adapted one.
 */
static int store_case(struct runner *rn, const struct plan_case *pc,
		      const struct prepared *pr, int i, int64_t *case_id)
{
	const struct workload *w = pc->wl;
	char *runs = wl_params_json(w, &pr->ps), *asked = NULL;
	int r;

	if (!wl_params_same(w, &pr->ps, &pc->ps))
		asked = wl_params_json(w, &pc->ps);
	r = db_case_add(&rn->db, rn->run_id, i, w->name, runs, asked,
			case_id);
	free(runs);
	free(asked);
	return r;
}

/* Asked and not had: said once, the run goes on unprofiled. */
void profile_say_off(struct runner *rn)
{
	if (!rn->cfg.profile || rn->prof.on || rn->prof_said)
		return;
	progress_undraw();
	say_err("warning: no kernel profile: %s; the run goes on "
		"unprofiled", rn->prof.off);
	rn->prof_said = true;
}

/*
 * A profiled case's events on its workers' PUs, and cases.profile: the
 * profile so far, or why there is none.
 */
static void profile_case_begin(struct runner *rn, int64_t case_id,
			       const struct prepared *pr)
{
	struct strbuf sb = STRBUF_INIT;

	if (!rn->cfg.profile)
		return;
	if (rn->prof.on)
		profile_case_open(&rn->prof, pr->pus, pr->nworkers);
	profile_say_off(rn);
	profile_json(&rn->prof, &sb);
	if (db_case_profile(&rn->db, case_id, strbuf_str(&sb)))
		say_err("warning: cannot store the case's profile: %s",
			db_errmsg(&rn->db));
	strbuf_release(&sb);
}

/* "; profile: 12345 samples in 5 calls", and where they are too few. */
static void profile_summary(const struct runner *rn, struct strbuf *sb)
{
	const struct profile *p = &rn->prof;
	char tick[32];

	if (!p->on || !p->calls)
		return;
	strbuf_addf(sb, "; profile %llu sample%s in %llu call%s",
		    (unsigned long long)p->samples, p->samples == 1 ? "" : "s",
		    (unsigned long long)p->calls, p->calls == 1 ? "" : "s");
	format_duration(p->period, tick, sizeof(tick));
	if (p->samples < PROFILE_FEW * p->calls)
		strbuf_addf(sb, " (too few to compare: fewer than %d a call, "
			    "a tick is %s)", PROFILE_FEW, tick);
	if (p->lost)
		strbuf_addf(sb, ", %llu lost (a call longer than the ring "
			    "holds: raise profile_period)",
			    (unsigned long long)p->lost);
}

/* Phase 5, once a case: its row, its warm-ups and repetitions, its line. */
static int run_case(struct runner *rn, int i)
{
	const struct plan_case *pc = &rn->cfg.cases[i];
	const struct prepared *pr = &rn->pr[i];
	unsigned rep, nreps = pc->warmup + pc->runs;
	const char *fail = NULL;
	struct strbuf err = STRBUF_INIT;	/* fail points into it */
	int64_t case_id;
	int r;

	r = store_case(rn, pc, pr, i, &case_id);
	if (r)
		return give_up(rn, db_failed("cannot record a case in",
					     rn->db_path, r,
					     db_errmsg(&rn->db)));
	/* skipped: the workload's reason, or a refusal of this machine's */
	if (pr->verdict != WL_OK) {
		db_case_status(&rn->db, case_id, "skipped",
			       strbuf_str(&pr->err),
			       pr->info[0] ? pr->info : NULL);
		progress_case_drop(i);
		if (!rn->o->quiet)
			printf("%s %s: skipped: %s\n", pc->wl->name, pc->title,
			       strbuf_str(&pr->err));
		return RUNNER_OK;
	}
	/* the runner's own thread: off the workers' PUs if it can */
	if (pc->wl->parallel ?
	    placement_bind_spare(&rn->pl, pr->pus, pr->nworkers) :
	    placement_bind(pr->pus[0]))
		say_err("warning: cannot bind to CPU %d; samples will say "
			"where they ran", pr->pus[0]);
	if (pr->info[0] && !rn->o->quiet) {
		progress_undraw();
		printf("%s %s: %s\n", pc->wl->name, pc->title, pr->info);
	}
	profile_case_begin(rn, case_id, pr);
	for (rep = 0; rep < nreps && !stop_sig; rep++) {
		r = one_rep(rn, i, rep, case_id, &err, &fail);
		if (r == RUNNER_DONE)
			break;
		if (r) {
			strbuf_release(&err);
			return r;
		}
	}
	progress_undraw();
	profile_case_close(&rn->prof);
	if (!stop_sig && fail) {
		rn->nfailed++;
		say_err("%s %s: %s", pc->wl->name, pc->title, fail);
		db_case_status(&rn->db, case_id, "failed", fail, NULL);
		progress_case_drop(i);
	}
	strbuf_release(&err);
	if (stop_sig || fail)
		return RUNNER_OK;
	db_case_status(&rn->db, case_id, "done", NULL,
		       pr->info[0] ? pr->info : NULL);
	if (!rn->o->quiet) {
		struct strbuf sb = STRBUF_INIT;

		case_summary(pc->wl, &rn->tl[i], &sb);
		profile_summary(rn, &sb);
		printf("%s %s: %s\n", pc->wl->name, pc->title, strbuf_str(&sb));
		fflush(stdout);
		strbuf_release(&sb);
	}
	return RUNNER_OK;
}

/* Phase 5: every case, until the last or a signal. */
static int run_cases(struct runner *rn)
{
	int i, r;

	probe_parallel(&rn->cfg, rn->pr, false);
	progress_estimate(&rn->cfg, rn->pr, &rn->pl, rn->scratch,
			  rn->disk_scratch);
	for (i = 0; i < rn->cfg.ncases && !stop_sig; i++) {
		r = run_case(rn, i);
		if (r)
			return r;
	}
	progress_undraw();
	return RUNNER_OK;
}

/*
 * Samples a busy CPU slowed, in one line after the table: the summary's,
 * on standard output (a run's warnings on stderr are about the run).
 */
static void warn_waited(const struct runner *rn)
{
	int i, n = 0;

	for (i = 0; i < rn->cfg.ncases; i++)
		n += rn->tl[i].waited;
	if (n)
		printf("%d sample%s waited on a run queue during their timed "
		       "call (another task on their CPU?): flagged noisy\n", n,
		       n == 1 ? "" : "s");
}

/* Phase 6: the summary, the kernel's log, the run's status. */
static int end_run(struct runner *rn)
{
	int r;

	if (stop_sig) {
		say_err("interrupted by %s: run %s marked aborted",
			strsignal(stop_sig), rn->meta.uuid);
		run_finish(&rn->db, rn->run_id, &rn->km, "aborted",
			   strsignal(stop_sig));
		return exit_for_signal();
	}
	final_table(&rn->cfg, rn->tl, rn->pr);
	warn_waited(rn);
	progress_eta_log(&rn->cfg);
	store_kmsg(&rn->db, rn->run_id, &rn->km);
	if (rn->nfailed) {
		char why[64];

		snprintf(why, sizeof(why), "%d case%s failed", rn->nfailed,
			 rn->nfailed == 1 ? "" : "s");
		db_run_end(&rn->db, rn->run_id, "failed", why);
		return RUNNER_EFAILED;
	}
	r = db_run_complete(&rn->db, rn->run_id,
			    dashboard_target_name(rn->cfg.dash.target));
	if (r)
		return db_failed("cannot mark the run complete in",
				 rn->db_path, r, db_errmsg(&rn->db));
	rn->complete = true;
	return RUNNER_OK;
}

/*
 * Last, whatever came before: undo what the run changed (what cannot be
 * undone stays in the journal and fails the run), a late signal, the lock
 * released, then bench/'s hook.
 */
static int finish(struct runner *rn, int ret)
{
	const struct run_opts *o = rn->o;
	int i;

	progress_undraw();
	if (rn->sys_up && sys_undo_all()) {
		struct strbuf note = STRBUF_INIT;

		/* kept in the journal: the next start tries again */
		say_undo_failures("cannot undo: ", &note);
		say_err("the journal in %s keeps what is left; the next `bench "
			"run` or `bench check` tries again", sys_state_dir());
		if (rn->run_id >= 0 && note.len)
			db_run_note(&rn->db, rn->run_id, "could not undo: %s",
				    note.buf);
		strbuf_release(&note);
		if (ret == RUNNER_OK)
			ret = RUNNER_EFAILED;
	}
	if (rn->sys_up)
		sys_fini();	/* keeps the journal while it holds anything */
	if (stop_sig && ret != exit_for_signal()) {
		if (rn->run_id >= 0)
			run_finish(&rn->db, rn->run_id, &rn->km, "aborted",
				   strsignal(stop_sig));
		ret = exit_for_signal();
	}
	kmsg_release(&rn->km);
	profile_release(&rn->prof);
	db_close(&rn->db);
	/* the lock is released: an upload may take its time */
	/* bench/'s hook: it returns an exit code, passed on as it is */
	if (rn->complete && ret == RUNNER_OK && o->after)
		ret = o->after(&rn->cfg, rn->db_path, rn->meta.uuid,
			       o->after_arg);
	meta_release(&rn->meta);
	for (i = 0; rn->tl && i < rn->cfg.ncases; i++)
		tally_release(&rn->tl[i]);
	for (i = 0; rn->pr && i < rn->cfg.ncases; i++) {
		free(rn->pr[i].pus);
		strbuf_release(&rn->pr[i].err);
	}
	free(rn->tl);
	free(rn->pr);
	free(rn->scratch);
	free(rn->disk_scratch);
	placement_release(&rn->pl);
	progress_release();
	config_release(&rn->cfg);
	strbuf_release(&rn->err);
	return ret;
}

/*
 * The scratch dirs as places to work in: a file there passed `check` and
 * failed the run (73), named by the other dir's path.  One that does not
 * exist yet is made by the run, and said then.
 */
static int scratch_dirs(const struct config *cfg)
{
	const char *key[2] = { "scratch", "disk_scratch" };
	const char *dir[2] = { cfg->scratch, cfg->disk_scratch };
	struct stat st;
	int i;

	for (i = 0; i < 2; i++)
		if (!stat(dir[i], &st) && !S_ISDIR(st.st_mode)) {
			say_err("%s: %s: \"%s\" is not a directory", cfg->path,
				key[i], dir[i]);
			return RUNNER_ECONFIG;
		}
	return RUNNER_OK;
}

int runner_main(const struct run_opts *o, const char *version)
{
	struct runner rn = {
		.o = o,
		.version = version,
		.cfg_path = o->config_path ? o->config_path :
			    config_default_path(),
		.err = STRBUF_INIT,
		.km = KMSG_SCAN_INIT,
		.run_id = -1,
	};
	int ret;

	progress_init(o->quiet);
	if (config_load(&rn.cfg, rn.cfg_path, &rn.err)) {
		say_err("%s", strbuf_str(&rn.err));
		strbuf_release(&rn.err);
		return RUNNER_ECONFIG;
	}
	ret = scratch_dirs(&rn.cfg);
	if (!ret)
		ret = settle(&rn);
	if (!ret)
		ret = take_machine(&rn);
	if (!ret)
		ret = preflight_all(&rn);
	if (!ret)
		ret = begin_run(&rn);
	if (!ret)
		ret = run_cases(&rn);
	if (!ret)
		ret = end_run(&rn);
	if (ret == RUNNER_DONE)
		ret = RUNNER_OK;
	return finish(&rn, ret);
}
