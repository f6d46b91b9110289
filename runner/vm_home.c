/*
 * The guest's runs brought home: its status and times read from the
 * shared out dir, the guest recorded in its database (how QEMU made it,
 * its console and kmsg), and that database merged into the host's.
 */
#include "vm_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "schema/db.h"
#include "schema/db_vm.h"
#include "schema/merge.h"

struct home {
	const struct vm_opts *o;
	struct vm_result *res;
	struct strbuf said;	/* a line a run, said once it is home */
};

static int said_home(const struct db_vm_run *run, void *arg)
{
	struct home *h = arg;

	h->res->nruns++;
	if (!isnan(run->first_sample_s) && (isnan(h->res->first_sample_s) ||
	    run->first_sample_s < h->res->first_sample_s))
		h->res->first_sample_s = run->first_sample_s;
	strbuf_addf(&h->said, "bench: vm: run %s (label %s, kernel %s, boot "
		    "%.8s, %s) brought home into %s\n", run->uuid, run->label,
		    run->kernel_release, run->boot_id, run->status,
		    h->o->db_path);
	return 0;
}

/*
 * Record the guest in its database (path: tmp/out/results.db), then merge
 * that into the host's.
 */
static int bring_home(const struct vm_opts *o, const char *path,
		      const struct db_vm *vm, struct vm_result *res,
		      struct strbuf *err)
{
	struct home h = { o, res, STRBUF_INIT };
	struct db_merge_stats ms;
	struct db g = { 0 }, out = { 0 };
	int r;

	if (access(path, F_OK))
		return 0;	/* the command stored nothing */
	r = db_open(&g, path, false);
	if (!r)
		r = db_vm_attach(&g, vm, said_home, &h);
	if (r) {
		strbuf_addf(err, "cannot record the guest in its database "
			    "%s: %s", path, db_errmsg(&g));
		db_close(&g);
		strbuf_release(&h.said);
		return VM_EDB;
	}
	db_close(&g);
	r = db_open(&out, o->db_path, true);
	if (!r)
		r = db_merge(&out, path, &ms);
	if (r) {
		strbuf_addf(err, "cannot merge the guest's runs into %s: %s",
			    o->db_path, db_errmsg(&out));
		db_close(&out);
		strbuf_release(&h.said);
		return VM_EDB;
	}
	db_close(&out);
	fputs(strbuf_str(&h.said), stderr);
	strbuf_release(&h.said);
	return 0;
}

static void json_argv(char *const *v, struct strbuf *sb)
{
	size_t i;

	strbuf_addf(sb, "[");
	for (i = 0; v[i]; i++) {
		if (i)
			strbuf_addf(sb, ", ");
		strbuf_json_str(sb, v[i]);
	}
	strbuf_addf(sb, "]");
}

/* What the guest's /init wrote into tmp/out/name, into b: 0 or -errno. */
static int read_out(const char *tmp, const char *name, struct strbuf *b)
{
	char *path = xstrfmt("%s/out/%s", tmp, name);
	int r = vm_slurp(path, b);

	free(path);
	return r;
}

int vm_home(const struct vm_guest *g, struct strbuf *err)
{
	struct strbuf b = STRBUF_INIT, con = STRBUF_INIT;
	struct strbuf kmsg = STRBUF_INIT, args = STRBUF_INIT;
	struct vm_result *res = g->res;
	char *path;
	int r;

	if (!read_out(g->tmp, "status", &b))
		res->status = (int)strtol(b.buf, NULL, 10);
	strbuf_release(&b);
	if (!read_out(g->tmp, "boot_s", &b))
		res->uptime_s = strtod(b.buf, NULL);
	strbuf_release(&b);
	path = xstrfmt("%s/console.log", g->tmp);
	vm_slurp(path, &con);
	free(path);
	read_out(g->tmp, "kmsg", &kmsg);
	json_argv(g->qa.v, &args);
	{
		struct db_vm vm = {
			.accel = res->accel, .accel_why = g->why,
			.shape = g->shape.buf, .kernel = g->o->kernel,
			.kernel_image = g->image_desc,
			.qemu_version = g->ver.buf, .qemu_args = args.buf,
			.guest_cmdline = g->cmdline.buf,
			.command = g->cmd.buf, .started_at = g->started,
			.boot_s = res->boot_s, .wall_s = res->wall_s,
			.console = con.buf ? con.buf : "",
			.kmsg = kmsg.buf ? kmsg.buf : "",
			.clock = g->icount ? "instructions" : "time",
			.icount_shift = g->icount ? 0 : -1,
			.kernel_sha256 = g->image_sha256[0] ?
					 g->image_sha256 : NULL,
		};

		path = xstrfmt("%s/out/results.db", g->tmp);
		r = bring_home(g->o, path, &vm, res, err);
		free(path);
	}
	strbuf_release(&con);
	strbuf_release(&kmsg);
	strbuf_release(&args);
	return r;
}
