/*
 * `bench vm KERNEL`: one boot of a kernel in a QEMU guest, a command run
 * there, its runs brought home (runner/vm*.c).  `bench lab BASE PATCH`:
 * boots of both kernels in the order `bench plan` gives until the plan is
 * met, then `bench compare`.  The host is never changed: nothing is
 * installed, its root is shared read-only.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "cmds.h"
#include "bench/report_cmd.h"
#include "reports/plan.h"
#include "runner/kbuild.h"
#include "runner/vm.h"
#include "schema/db.h"

static const char vm_usage[] =
"usage: bench vm KERNEL [options] [-- BENCH-COMMAND ARGS...]\n"
"       bench vm KERNEL [options] --sh 'COMMAND'\n"
"\n"
"Boots KERNEL (an installed release R: /boot/vmlinuz-R and /lib/modules/R;\n"
"a kernel build tree: arch/x86/boot/bzImage, modules under TREE/lib/modules\n"
"from `make modules_install INSTALL_MOD_PATH=TREE`; or a Debian linux-image\n"
".deb file, unpacked into /var/cache/foliobench/kernels) in QEMU with the\n"
"host's root read-only, runs `bench run` there (or the bench command after\n"
"--, or a shell command) and brings its runs home into --db.\n"
"\n"
"  --smp N              vCPUs (default 32)\n"
"  --sockets N          sockets (default 2)\n"
"  --threads-per-core N SMT threads per core (default 1)\n"
"  --numa               one NUMA node per socket\n"
"  --mem SIZE           memory (default 16G)\n"
"  --cgroup v1|v2       the guest's cgroup hierarchy (default v2)\n"
"  --accel auto|kvm|tcg|icount  KVM where it is hardware virtualisation\n"
"                       (default auto); icount: counting mode, one TCG\n"
"                       thread with -icount shift=0,sleep=off: every time\n"
"                       the guest measures is a count of its instructions\n"
"                       (1 ns = 1 instruction), the same from boot to boot\n"
"  --timeout DURATION   stop the guest after this long (default 3600s)\n"
"  --db FILE            the host's database (default results.db)\n"
"  --sh COMMAND         run a shell command in the guest instead (bats...)\n"
"  -v, --verbose        show the whole console, the boot included\n"
"\n"
"Exit: the guest command's status; 64 usage, 66 no such kernel, 69 no\n"
"QEMU or busybox (or --accel kvm without /dev/kvm), 70 the guest did not\n"
"run its command to the end, 74 the run could not be brought home.\n";

static const char lab_usage[] =
"usage: bench lab BASE PATCH [--boots N] [--labels A,B] [--effect PCT]\n"
"                 [--format FORMAT] [vm options] [-- run ARGS...]\n"
"\n"
"Boots BASE and PATCH (kernels as `bench vm` takes them) one `bench vm` at a\n"
"time in the order `bench plan` gives (ABAB, then BAAB), until both have N\n"
"boots (default 4) or the plan says both have the boots needed, then prints\n"
"`bench compare` (--format: its format, default text).  A boot that fails\n"
"is retried once.  Labels: each kernel's release, or --labels.\n"
"\n"
"Kernels from source (built as `bench kernel build` does, what the cache\n"
"lacks, before the first boot):\n"
"  bench lab --src SRC --patch FILE [--patch FILE]...  SRC against SRC with\n"
"                       the patches\n"
"  bench lab --src GIT --ref BASE --ref PATCH          two commits of a tree\n"
"  bench lab --src SRC --rebuild                       the null control: SRC\n"
"                       against SRC built again under another name\n"
"  --name NAME          the patched kernel's name in its release\n";

struct vm_cli {
	struct vm_opts o;
	const char *labels;
	const char *format;	/* compare's --format */
	double effect;
	long boots;
	const char *pos[2];	/* KERNEL, or BASE PATCH */
	char **rest;		/* after -- */
	/* kernels from source: --src, --ref (twice), --patch, --rebuild */
	const char *src, *ref[2], *name;
	const char **patches;
	size_t npatches, nrefs;
	bool rebuild;
	char *built[2];		/* the kernels built from source */
};

enum { O_SMP = 256, O_SOCKETS, O_THREADS, O_NUMA, O_MEM, O_CGROUP,
       O_ACCEL, O_TIMEOUT, O_DB, O_SH, O_BOOTS, O_LABELS, O_EFFECT,
       O_FORMAT, O_SRC, O_REF, O_PATCH, O_REBUILD, O_NAME };

static int parse_uint(const char *opt, const char *s, unsigned lo,
		      unsigned hi, unsigned *out)
{
	uint64_t u;

	if (parse_u64(s, &u) || u < lo || u > hi) {
		fb_err("%s: '%s' is not a whole number from %u to %u", opt, s,
		       lo, hi);
		return EX_USAGE;
	}
	*out = (unsigned)u;
	return 0;
}

/* A guest's option (its shape, --accel, --timeout): 0 or EX_USAGE; 1
 * when ch is none of them. */
static int guest_opt(int ch, const char *arg, struct vm_opts *o)
{
	uint64_t u;
	unsigned n;
	int r;

	switch (ch) {
	case O_SMP:
		if ((r = parse_uint("--smp", arg, 1, 288, &n)))
			return r;
		o->smp = n;
		break;
	case O_SOCKETS:
		if ((r = parse_uint("--sockets", arg, 1, 8, &n)))
			return r;
		o->sockets = n;
		break;
	case O_THREADS:
		if ((r = parse_uint("--threads-per-core", arg, 1, 8, &n)))
			return r;
		o->threads = n;
		break;
	case O_NUMA: o->numa = true; break;
	case O_MEM:
		if (parse_size(arg, &u) || u < (256ULL << 20) ||
		    u > (4ULL << 40)) {
			fb_err("--mem: '%s' is not a size from 256M to 4T",
			       arg);
			return EX_USAGE;
		}
		o->mem = u;
		break;
	case O_CGROUP:
		if (strcmp(arg, "v1") && strcmp(arg, "v2")) {
			fb_err("--cgroup: '%s' is not v1 or v2", arg);
			return EX_USAGE;
		}
		o->cgroup = arg[1] - '0';
		break;
	case O_ACCEL:
		if (strcmp(arg, "auto") && strcmp(arg, "kvm") &&
		    strcmp(arg, "tcg") && strcmp(arg, "icount")) {
			fb_err("--accel: '%s' is not auto, kvm, tcg or icount",
			       arg);
			return EX_USAGE;
		}
		o->accel = arg;
		break;
	case O_TIMEOUT:
		if (parse_duration(arg, &u) || u < 1000000000ULL ||
		    u > 7 * 86400ULL * 1000000000ULL) {
			fb_err("--timeout: '%s' is not a duration from 1s to 7 "
			       "days", arg);
			return EX_USAGE;
		}
		o->timeout_s = (unsigned)(u / 1000000000ULL);
		break;
	default:
		return 1;
	}
	return 0;
}

/* An option of bench lab's own: 0 or EX_USAGE; 1 when ch is none. */
static int lab_opt(int ch, const char *arg, struct vm_cli *c)
{
	unsigned n;
	int r;

	switch (ch) {
	case O_BOOTS:
		if ((r = parse_uint("--boots", arg, 1, 1000, &n)))
			return r;
		c->boots = n;
		break;
	case O_LABELS: c->labels = arg; break;
	case O_EFFECT:
		if (report_cmd_effect(arg, &c->effect)) {
			fb_err("--effect: '%s' is not a change in percent "
			       "above 0 and below 1000, such as 5%%", arg);
			return EX_USAGE;
		}
		break;
	case O_FORMAT: c->format = arg; break;
	case O_SRC: c->src = arg; break;
	case O_REF:
		if (c->nrefs == 2) {
			fb_err("--ref: two at most, BASE and PATCH");
			return EX_USAGE;
		}
		c->ref[c->nrefs++] = arg;
		break;
	case O_PATCH: c->patches[c->npatches++] = arg; break;
	case O_REBUILD: c->rebuild = true; break;
	case O_NAME: c->name = arg; break;
	default:
		return 1;
	}
	return 0;
}

/* What parse() checks once the options are read: the words after --. */
static int check_rest(struct vm_cli *c, bool lab)
{
	char **a;

	if (c->o.sh && *c->rest) {
		fb_err("--sh and a bench command after -- are two commands; "
		       "give one");
		return EX_USAGE;
	}
	for (a = c->rest; *a; a++)
		if (!strcmp(*a, "--db") || !strncmp(*a, "--db=", 5) ||
		    !strcmp(*a, "-d")) {
			fb_err("the guest's run goes home into the --db of "
			       "bench %s, not one given after --",
			       lab ? "lab" : "vm");
			return EX_USAGE;
		}
	return 0;
}

/* The options of vm and lab, both: parse() refuses those that are not
 * the command's. */
static const struct option vm_longopts[] = {
	{ "smp", required_argument, NULL, O_SMP },
	{ "sockets", required_argument, NULL, O_SOCKETS },
	{ "threads-per-core", required_argument, NULL, O_THREADS },
	{ "numa", no_argument, NULL, O_NUMA },
	{ "mem", required_argument, NULL, O_MEM },
	{ "cgroup", required_argument, NULL, O_CGROUP },
	{ "accel", required_argument, NULL, O_ACCEL },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "db", required_argument, NULL, O_DB },
	{ "sh", required_argument, NULL, O_SH },
	{ "verbose", no_argument, NULL, 'v' },
	{ "boots", required_argument, NULL, O_BOOTS },
	{ "labels", required_argument, NULL, O_LABELS },
	{ "effect", required_argument, NULL, O_EFFECT },
	{ "format", required_argument, NULL, O_FORMAT },
	{ "src", required_argument, NULL, O_SRC },
	{ "ref", required_argument, NULL, O_REF },
	{ "patch", required_argument, NULL, O_PATCH },
	{ "rebuild", no_argument, NULL, O_REBUILD },
	{ "name", required_argument, NULL, O_NAME },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * The kernels named: npos words still missing, or kernels from source
 * (lab's --src with one of its ways) in their place; then what follows --.
 */
static int check_pos(struct vm_cli *c, bool lab, int npos)
{
	if (lab && (c->src || c->nrefs || c->npatches || c->rebuild ||
		    c->name)) {
		int ways = (c->nrefs == 2) + (c->npatches > 0) + c->rebuild;

		if (!c->src || npos != 2 || ways != 1 ||
		    (c->nrefs == 1 && c->rebuild)) {
			fb_err("lab: kernels from source are --src SRC with "
			       "one of: --patch FILE..., --ref BASE --ref "
			       "PATCH, or --rebuild; and no BASE PATCH "
			       "kernels beside them");
			return EX_USAGE;
		}
		npos = 0;
	}
	if (npos > 0) {
		fb_err(lab ? "lab takes two kernels, BASE and PATCH" :
		       "vm takes a kernel: a release, a kernel build tree or "
		       "a linux-image .deb file");
		fputs(lab ? lab_usage : vm_usage, stderr);
		return EX_USAGE;
	}
	return check_rest(c, lab);
}

static int parse(int argc, char **argv, struct vm_cli *c, bool lab,
		 int npos)
{
	const char *usage = lab ? lab_usage : vm_usage;
	int ch, r;

	opterr = 0;
	optind = 1;
	/* "-": the words that are not options (KERNEL, BASE PATCH) come
	 * in order among them; what follows -- is the guest's */
	while ((ch = getopt_long(argc, argv, "-:vh", vm_longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 1:
			if (npos <= 0) {
				fb_err("unexpected argument '%s'", optarg);
				return EX_USAGE;
			}
			c->pos[lab ? 2 - npos : 0] = optarg;
			npos--;
			continue;
		case O_DB: c->o.db_path = optarg; continue;
		case O_SH:
			if (lab)
				break;	/* vm's alone: unknown to lab */
			c->o.sh = optarg;
			continue;
		case 'v': c->o.verbose = true; continue;
		case 'h':
			fputs(usage, stdout);
			return -1;
		}
		r = guest_opt(ch, optarg, &c->o);
		if (r == 1 && lab)
			r = lab_opt(ch, optarg, c);
		if (r == 1)
			return fb_opt_error(ch, argv, usage);
		if (r)
			return r;
	}
	c->rest = argv + optind;
	return check_pos(c, lab, npos);
}

static void defaults(struct vm_cli *c)
{
	memset(c, 0, sizeof(*c));
	c->o.smp = 32;
	c->o.sockets = 2;
	c->o.threads = 1;
	c->o.mem = 16ULL << 30;
	c->o.cgroup = 2;
	c->o.accel = "auto";
	c->o.timeout_s = 3600;
	c->o.db_path = "results.db";
	c->effect = NAN;
	c->boots = 4;
}

/* What side i (0 BASE, 1 PATCH) of a lab from --src is built from. */
static void lab_side(const struct vm_cli *c, int i, struct kbuild_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->src = c->src;
	o->ref = c->ref[i && c->nrefs == 2];
	o->fragment = fb_kernel_fragment();
	o->progress = isatty(STDERR_FILENO);
	if (!i) {
		o->name = c->nrefs == 2 ? NULL : "base";
		return;
	}
	o->patches = c->patches;
	o->npatches = c->npatches;
	o->name = c->rebuild && !c->name ? "base.rebuilt" : c->name;
}

/*
 * --src: both kernels built (what the cache lacks), base first so that
 * the patched one is an incremental build of it; c->pos set to them.
 * PATCH's inputs are checked first (its patches there, its name good):
 * nothing is built for a lab that would stop at its second kernel.
 */
static int lab_build(struct vm_cli *c)
{
	struct kbuild_opts o;
	struct kbuild_result res;
	int i, r;

	lab_side(c, 1, &o);
	o.dry = true;
	r = kernel_build(&o, &res);
	kbuild_result_release(&res);
	for (i = 0; !r && i < 2; i++) {
		lab_side(c, i, &o);
		printf("lab: %s kernel: %s%s%s%s\n", i ? "PATCH" : "BASE",
		       c->src, o.ref ? " at " : "", o.ref ? o.ref : "",
		       i && c->npatches ? " with its patches" :
		       i && c->rebuild ? ", built again" : "");
		fflush(stdout);
		r = kernel_build(&o, &res);
		c->built[i] = res.dir;
		c->pos[i] = c->built[i];
	}
	return r;
}

static int vm_exit(int r)
{
	if (r <= VM_ESIGNAL)
		return 128 + (VM_ESIGNAL - r);
	switch (r) {
	case 0: return EX_OK;
	case VM_EUSAGE: return EX_USAGE;
	case VM_ENOKERNEL: return EX_NOINPUT;
	case VM_ENOQEMU: return EX_UNAVAILABLE;
	case VM_EDB: return EX_IOERR;
	default: return EX_SOFTWARE;	/* VM_EBOOT, VM_EINTERNAL */
	}
}

static char *self_path(void)
{
	char *p = realpath("/proc/self/exe", NULL);

	return p ? p : xstrdup("/proc/self/exe");
}

static void say_boot(const struct vm_result *res)
{
	fprintf(stderr, "bench: vm: %s guest: the command started %.1f s "
		"after QEMU (guest uptime %.1f s), ran %.1f s; first sample "
		"%s%.1f s after QEMU started; QEMU ran %.1f s; status %d\n",
		res->accel, res->boot_s, res->uptime_s, res->cmd_s,
		isnan(res->first_sample_s) ? "(none) " : "",
		isnan(res->first_sample_s) ? 0 : res->first_sample_s,
		res->wall_s, res->status);
}

/*
 * What vm_boot() said: its first line as the message (fn: fb_err or
 * fb_warn, with head before it), then each further line (the tails of
 * QEMU's log and the console, where it kept them) as a line of its own,
 * each escaped as every message is.
 */
static void say_vm_err(void (*fn)(const char *, ...), const char *head,
		       const char *err)
{
	size_t n = strcspn(err, "\n");

	fn("%s%.*s", head, (int)n, err);
	for (err += n; *err; err += n) {
		err++;
		n = strcspn(err, "\n");
		if (n)
			fb_err("  %.*s", (int)n, err);
	}
}

int cmd_vm(int argc, char **argv)
{
	static char *run_cmd[] = { "run", NULL };
	struct strbuf err = STRBUF_INIT;
	struct vm_result res;
	struct vm_cli c;
	const char *kernel = NULL;
	char *self;
	int r;

	defaults(&c);
	r = parse(argc, argv, &c, false, 1);
	if (r)
		return r < 0 ? EX_OK : r;
	kernel = c.pos[0];
	self = self_path();
	c.o.kernel = kernel;
	c.o.bench = self;
	c.o.cmd = c.o.sh ? NULL : *c.rest ? c.rest : run_cmd;
	r = vm_boot(&c.o, &res, &err);
	if (r) {
		char *head = xstrfmt("vm: %s: ", kernel);

		say_vm_err(fb_err, head, strbuf_str(&err));
		free(head);
		strbuf_release(&err);
		free(self);
		return vm_exit(r);
	}
	say_boot(&res);
	strbuf_release(&err);
	free(self);
	return res.status < 0 ? EX_SOFTWARE : res.status;
}

/* One boot of side k; a failed one is retried once.  0 or an exit code. */
static int lab_boot(struct vm_cli *c, const char *kernel, const char *label,
		    int boot_no)
{
	struct strbuf err = STRBUF_INIT;
	struct vm_result res;
	char *head;
	int try, r = 0;

	for (try = 1; try <= 2; try++) {
		printf("lab: boot %d: %s (label %s)%s\n", boot_no, kernel,
		       label, try > 1 ? ", again" : "");
		c->o.kernel = kernel;
		r = vm_boot(&c->o, &res, &err);
		if (r <= VM_ESIGNAL || r == VM_EUSAGE || r == VM_ENOKERNEL ||
		    r == VM_ENOQEMU) {
			head = xstrfmt("lab: %s: ", kernel);
			say_vm_err(fb_err, head, strbuf_str(&err));
			free(head);
			strbuf_release(&err);
			return vm_exit(r);
		}
		if (!r && res.status == 0 && res.nruns > 0) {
			say_boot(&res);
			strbuf_release(&err);
			return 0;
		}
		if (r) {
			head = xstrfmt("lab: boot %d of %s failed: ",
				       boot_no, label);
			say_vm_err(fb_warn, head, strbuf_str(&err));
			free(head);
		}
		else
			fb_warn("lab: boot %d of %s failed: the guest's bench "
				"exited %d with %d run%s brought home",
				boot_no, label, res.status, res.nruns,
				res.nruns == 1 ? "" : "s");
		strbuf_release(&err);
		r = r ? vm_exit(r) : res.status ? res.status : EX_SOFTWARE;
	}
	fb_err("lab: %s failed twice; stopping", label);
	return r;
}

/* The two labels: --labels, else each kernel's release; checked. */
static int lab_labels(const struct vm_cli *c, char label[2][LABEL_MAX + 1])
{
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;
	int i, r;

	if (c->labels) {
		const char *comma = strchr(c->labels, ',');

		if (!comma || comma == c->labels || !comma[1] ||
		    (size_t)(comma - c->labels) > LABEL_MAX ||
		    strlen(comma + 1) > LABEL_MAX) {
			fb_err("--labels: '%s' is not two labels, BASE,PATCH",
			       c->labels);
			return EX_USAGE;
		}
		snprintf(label[0], sizeof(label[0]), "%.*s",
			 (int)(comma - c->labels), c->labels);
		snprintf(label[1], sizeof(label[1]), "%s", comma + 1);
	}
	for (i = 0; !c->labels && i < 2; i++) {
		r = vm_kernel_release(c->pos[i], label[i], sizeof(label[i]),
				      &err);
		if (r) {
			/* a tool's lines each a line, as vm says them */
			say_vm_err(fb_err, "lab: ", strbuf_str(&err));
			strbuf_release(&err);
			return vm_exit(r);
		}
	}
	for (i = 0; i < 2; i++)
		if (label_check(label[i], &why)) {
			fb_err("lab: label '%s': %s", label[i], why.buf);
			strbuf_release(&why);
			return EX_USAGE;
		}
	if (!strcmp(label[0], label[1])) {
		fb_err("lab: both kernels are %s: name them with --labels "
		       "BASE,PATCH", label[0]);
		return EX_USAGE;
	}
	return 0;
}

/*
 * The guest's command: run and the arguments that follow run after --,
 * with room for --label L at cmd[*at] (set each boot).  NULL, said, where
 * what follows -- is not run.
 */
static char **lab_cmd(const struct vm_cli *c, size_t *at)
{
	char **cmd;
	size_t n = 0, i;

	while (c->rest[n])
		n++;
	if (n && strcmp(c->rest[0], "run")) {
		fb_err("lab: the guest's command is bench run; after -- come "
		       "its arguments (run --config FILE ...)");
		return NULL;
	}
	cmd = xcalloc(n + 4, sizeof(*cmd));
	cmd[0] = "run";
	for (i = 1; i < n; i++)
		cmd[i] = c->rest[i];
	*at = n ? n : 1;
	return cmd;
}

/*
 * Which kernel boots next, by the plan of what the database holds: 0 or
 * 1, or -1 when the plan is met or (*ex set) it cannot be known.
 */
static int lab_next(const struct vm_cli *c, char label[2][LABEL_MAX + 1],
		    int *ex)
{
	struct strbuf err = STRBUF_INIT;
	struct report_bootplan p = { 0 };
	struct db db = { 0 };
	bool have_db = !access(c->o.db_path, F_OK);
	int r, next;

	if (have_db && (*ex = report_cmd_open(&db, c->o.db_path)))
		return -1;
	r = report_plan(have_db ? &db : NULL, label[0], label[1],
			(unsigned)c->boots, c->effect, report_cmd_published,
			report_cmd_primary, &p, &err);
	*ex = report_cmd_load_exit(r, &err);
	db_close(&db);
	next = p.next;
	if (!*ex && next >= 0 && p.boots[0] >= 2 && p.boots[1] >= 2 &&
	    p.need_max >= 2 && p.boots[0] >= (size_t)p.need_max &&
	    p.boots[1] >= (size_t)p.need_max) {
		printf("lab: the plan says %ld boots of each kernel detect the "
		       "change; both have them\n", p.need_max);
		next = -1;
	} else if (!*ex && next < 0) {
		printf("lab: both kernels have their %ld boots\n", c->boots);
	}
	report_plan_release(&p);
	strbuf_release(&err);
	return *ex ? -1 : next;
}

/* `bench compare` of the two labels, as the lab's last word. */
static int lab_compare(const struct vm_cli *c, char label[2][LABEL_MAX + 1])
{
	char *cargv[] = { "compare", "--db", (char *)c->o.db_path,
			  "--format", (char *)(c->format ? c->format : "text"),
			  label[0], label[1], NULL };
	char *reinit[] = { "lab", NULL };

	/* glibc's getopt keeps the order mode of its first scan (our "-")
	 * until optind is 0: start it anew for compare's */
	optind = 0;
	getopt_long(1, reinit, "", NULL, NULL);
	fflush(stdout);
	return cmd_compare(7, cargv);
}

/* The lab's boots, until the plan is met, then compare: an exit code. */
static int lab_run(struct vm_cli *c)
{
	char label[2][LABEL_MAX + 1];
	char **cmd, *self;
	size_t at;
	int r, ex = EX_OK, next, boot_no = 0;

	r = lab_labels(c, label);
	if (r)
		return r;
	cmd = lab_cmd(c, &at);
	if (!cmd)
		return EX_USAGE;
	self = self_path();
	c->o.bench = self;
	c->o.cmd = cmd;
	while ((next = lab_next(c, label, &ex)) >= 0) {
		if (boot_no >= 2 * c->boots + 2) {
			fb_err("lab: %d boots and the plan is not met (runs "
			       "that are not complete?); stopping", boot_no);
			ex = EX_SOFTWARE;
			break;
		}
		cmd[at] = "--label";
		cmd[at + 1] = label[next];
		ex = lab_boot(c, c->pos[next], label[next], ++boot_no);
		if (ex)
			break;
	}
	if (!ex)
		ex = lab_compare(c, label);
	free(cmd);
	free(self);
	return ex;
}

int cmd_lab(int argc, char **argv)
{
	struct vm_cli c;
	int r;

	defaults(&c);
	c.patches = xcalloc((size_t)argc + 1, sizeof(*c.patches));
	r = parse(argc, argv, &c, true, 2);
	if (!r && c.src)
		r = lab_build(&c);
	free(c.patches);
	c.patches = NULL;
	if (!r)
		r = lab_run(&c);
	free(c.built[0]);
	free(c.built[1]);
	return r < 0 ? EX_OK : r;
}
