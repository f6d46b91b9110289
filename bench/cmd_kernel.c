/*
 * `bench kernel build SRC [--patch FILE]...`: a guest kernel from source
 * (runner/kbuild.c), its directory printed for `bench vm` and `bench lab`.
 * `bench kernel list`: the kernels of the cache.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "runner/kbuild.h"

static const char kernel_usage[] =
"usage: bench kernel build SRC [--ref REF] [--patch FILE]... [--name NAME]\n"
"                          [--fragment FILE] [-j N] [--dry-run]\n"
"                          [--config-only]\n"
"       bench kernel list\n"
"\n"
"Builds a guest kernel for `bench vm` and `bench lab` from SRC: Debian's\n"
"linux-source .deb (apt-get download linux-source-6.12), a kernel tarball,\n"
"an unpacked tree, or a git tree at --ref; with the patches (diffs or\n"
"mboxes) applied in order.  The config: x86_64_defconfig, kvm_guest.config\n"
"and the project's kernel/guest.config (everything the guests need built\n"
"in; --fragment names another).  The release says what it is:\n"
"VERSION-fb-NAME-KEY (NAME: --name, else the patches' first words, else\n"
"base).  Kernels are kept in the cache (" "$FOLIOBENCH_KERNEL_CACHE, else\n"
"/var/cache/foliobench/kernels) under a key of source, patches, config,\n"
"compiler and name; builds of one source share one build directory, so\n"
"the second kernel of a pair is an incremental build.  Prints the\n"
"kernel's directory (what `bench vm` boots) on stdout.\n"
"\n"
"  --ref REF        the commit of a git tree SRC to build\n"
"  --patch FILE     a patch to apply (repeat for more, in order)\n"
"  --name NAME      the release's name (letters, digits, . _ +)\n"
"  --fragment FILE  a config fragment in place of kernel/guest.config\n"
"  -j N             make's jobs (default: CPUs + 1)\n"
"  --dry-run        the key and release only; build nothing\n"
"  --config-only    the source, the patches and the config, checked; no\n"
"                   compile: prints the .config made (in a build\n"
"                   directory of its own, removed after)\n"
"\n"
"Exit: 64 usage, 65 a patch does not apply, 66 no such source or patch,\n"
"69 a build tool missing, 70 internal error, 73 the build failed, 78 the\n"
"config fragment did not survive olddefconfig.\n";

int kbuild_exit(int r)
{
	switch (r) {
	case 0: return EX_OK;
	case KB_EUSAGE: return EX_USAGE;
	case KB_ENOSRC: return EX_NOINPUT;
	case KB_ENOTOOL: return EX_UNAVAILABLE;
	case KB_EPATCH: return EX_DATAERR;
	case KB_ECONFIG: return EX_CONFIG;
	case KB_EBUILD: return EX_CANTCREAT;
	default: return EX_SOFTWARE;
	}
}

/* The kernel's message: its first line, then each further line. */
static void say_err(const char *err)
{
	size_t n = strcspn(err, "\n");

	fb_err("kernel: %.*s", (int)n, err);
	for (err += n; *err; err += n) {
		err++;
		n = strcspn(err, "\n");
		if (n)
			fb_err("  %.*s", (int)n, err);
	}
}

int kernel_build(const struct kbuild_opts *o, struct kbuild_result *res)
{
	struct strbuf err = STRBUF_INIT;
	int r = kbuild(o, res, &err);

	if (r)
		say_err(strbuf_str(&err));
	else if (res->cached)
		fprintf(stderr, "bench: kernel: %s: in the cache (%s)\n",
			res->release, res->dir);
	else if (o->config_only)
		fprintf(stderr, "bench: kernel: configured, every line of the "
			"fragment kept: %s\n", res->dir);
	else if (!o->dry)
		fprintf(stderr, "bench: kernel: %s: built in %.0f s, %u files "
			"compiled (%s)\n", res->release, res->seconds,
			res->compiled, res->dir);
	strbuf_release(&err);
	return kbuild_exit(r);
}

static int kernel_list(void)
{
	char *p = xstrfmt("%s/built", kbuild_cache()), rel[128];
	struct dirent *e;
	DIR *d = opendir(p);

	while (d && (e = readdir(d))) {
		char *f;

		if (e->d_name[0] == '.' || strchr(e->d_name, '.'))
			continue;	/* a temp dir of a build under way */
		f = xstrfmt("%s/%s/include/config/kernel.release", p,
			    e->d_name);
		if (!read_file_str(f, rel, sizeof(rel)))
			printf("%s\t%s/%s\n", rel, p, e->d_name);
		free(f);
	}
	if (d)
		closedir(d);	/* else nothing built yet */
	free(p);
	return EX_OK;
}

/*
 * build's options into o (its patches into patches, room for argc):
 * 0, -1 for --help, else an exit code.
 */
static int build_opts(int argc, char **argv, struct kbuild_opts *o,
		      const char **patches)
{
	static const struct option longopts[] = {
		{ "ref", required_argument, NULL, 'r' },
		{ "patch", required_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'n' },
		{ "fragment", required_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'd' },
		{ "config-only", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t u;
	int ch;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":j:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'r': o->ref = optarg; break;
		case 'p': patches[o->npatches++] = optarg; break;
		case 'n': o->name = optarg; break;
		case 'f': o->fragment = optarg; break;
		case 'd': o->dry = true; break;
		case 'c': o->config_only = true; break;
		case 'j':
			if (parse_u64(optarg, &u) || !u || u > 1024) {
				fb_err("-j: '%s' is not a whole number from 1 "
				       "to 1024", optarg);
				return EX_USAGE;
			}
			o->jobs = (unsigned)u;
			break;
		case 'h':
			fputs(kernel_usage, stdout);
			return -1;
		default:
			return fb_opt_error(ch, argv, kernel_usage);
		}
	}
	if (optind != argc - 1) {
		fb_err("kernel build takes one source: a linux-source .deb, a "
		       "tarball, a kernel tree or a git tree with --ref");
		return EX_USAGE;
	}
	o->src = argv[optind];
	return 0;
}

/*
 * --config-only: the .config made in a build directory of its own,
 * printed (where the build did not fail), then gone with it.
 */
static void config_shown(const char *config, int r)
{
	char *dir = xstrdup(config), *rm[] = { "rm", "-rf", dir, NULL };
	FILE *f = r ? NULL : fopen(config, "re");
	char buf[65536];
	size_t n;

	while (f && (n = fread(buf, 1, sizeof(buf), f)))
		fwrite(buf, 1, n, stdout);
	if (f)
		fclose(f);
	*strrchr(dir, '/') = '\0';
	if (!fork()) {
		execvp("rm", rm);
		_exit(127);
	}
	wait(NULL);
	free(dir);
}

int cmd_kernel(int argc, char **argv)
{
	struct kbuild_opts o = { 0 };
	struct kbuild_result res;
	const char **patches;
	int r;

	if (argc >= 2 && (!strcmp(argv[1], "--help") ||
			  !strcmp(argv[1], "-h"))) {
		fputs(kernel_usage, stdout);
		return EX_OK;
	}
	if (argc >= 2 && !strcmp(argv[1], "list") && argc == 2)
		return kernel_list();
	if (argc < 2 || strcmp(argv[1], "build")) {
		fb_err("kernel: '%s' is not build or list",
		       argc < 2 ? "" : argv[1]);
		fputs(kernel_usage, stderr);
		return EX_USAGE;
	}
	patches = xcalloc((size_t)argc, sizeof(*patches));
	o.patches = patches;
	o.progress = isatty(STDERR_FILENO);
	r = build_opts(argc - 1, argv + 1, &o, patches);
	if (r) {
		free(patches);
		return r < 0 ? EX_OK : r;
	}
	if (!o.fragment)
		o.fragment = fb_kernel_fragment();
	r = kernel_build(&o, &res);
	if (o.config_only && res.dir)
		config_shown(res.dir, r);
	else if (!r)
		printf("%s\n", o.dry && !res.cached ? res.key : res.dir);
	if (!r && o.dry)
		fprintf(stderr, "bench: kernel: key %s, release %s\n", res.key,
			res.release);
	kbuild_result_release(&res);
	free(patches);
	return r;
}
