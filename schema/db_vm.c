/* The run_vm rows of `bench vm` (schema 8; its clock, schema 9): written
 * in the guest's database before it is merged home, read by compare. */
#include "db_vm.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "db_priv.h"

static int bind_texts(sqlite3_stmt *st, const char *const *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (sqlite3_bind_text(st, i + 1, v[i] ? v[i] : "", -1,
				      SQLITE_TRANSIENT) != SQLITE_OK)
			return -1;
	return 0;
}

/* The guest's row of run_vm for the run its database holds. */
static int insert_vm(struct db *db, const struct db_vm *vm, bool counted)
{
	const char *text[] = { vm->accel, vm->accel_why, vm->shape, vm->kernel,
			       vm->kernel_image, vm->qemu_version,
			       vm->qemu_args, vm->guest_cmdline, vm->command,
			       vm->console, vm->kmsg, vm->started_at };
	sqlite3_stmt *ins = NULL;
	int r = DB_OK;

	if (sqlite3_prepare_v2(db->h,
			       "INSERT OR REPLACE INTO run_vm (run_id, accel, "
			       "accel_why, shape, kernel, kernel_image, "
			       "qemu_version, qemu_args, guest_cmdline, "
			       "command, console, kmsg, boot_s, wall_s, "
			       "clock, icount_shift, kernel_sha256, "
			       "first_sample_s) SELECT id, ?1, ?2, ?3, ?4, ?5, "
			       "?6, ?7, ?8, ?9, ?10, ?11, ?13, ?14, ?15, ?16, "
			       "?17, (SELECT (julianday(min(s.taken_at)) - "
			       "julianday(?12)) * 86400 FROM samples s JOIN "
			       "cases c ON c.id = s.case_id WHERE c.run_id = "
			       "runs.id) FROM runs", -1, &ins, NULL) ||
	    bind_texts(ins, text, 12) ||
	    (isnan(vm->boot_s) ? sqlite3_bind_null(ins, 13) :
	     sqlite3_bind_double(ins, 13, vm->boot_s)) ||
	    sqlite3_bind_double(ins, 14, vm->wall_s) ||
	    sqlite3_bind_text(ins, 15, vm->clock ? vm->clock : "time", -1,
			      SQLITE_TRANSIENT) ||
	    (!counted || vm->icount_shift < 0 ? sqlite3_bind_null(ins, 16) :
	     sqlite3_bind_int(ins, 16, vm->icount_shift)) ||
	    (vm->kernel_sha256 ? sqlite3_bind_text(ins, 17, vm->kernel_sha256,
						   -1, SQLITE_TRANSIENT) :
	     sqlite3_bind_null(ins, 17)) ||
	    sqlite3_step(ins) != SQLITE_DONE)
		r = db_fail(db, "cannot record the guest");
	sqlite3_finalize(ins);
	return r;
}

/* fn on each run the guest's database holds, until it returns non-zero. */
static int each_run(struct db *db,
		    int (*fn)(const struct db_vm_run *, void *), void *arg,
		    int *stop)
{
	sqlite3_stmt *sel = NULL;
	int r;

	if (sqlite3_prepare_v2(db->h,
			       "SELECT uuid, label, kernel_release, boot_id, "
			       "status, v.first_sample_s FROM runs JOIN run_vm "
			       "v ON v.run_id = runs.id ORDER BY runs.id", -1,
			       &sel, NULL)) {
		r = db_fail(db, "cannot read the guest's runs");
		sqlite3_finalize(sel);
		return r;
	}
	while ((r = sqlite3_step(sel)) == SQLITE_ROW) {
		struct db_vm_run run = {
			.uuid = db_col_text(sel, 0),
			.label = db_col_text(sel, 1),
			.kernel_release = db_col_text(sel, 2),
			.boot_id = db_col_text(sel, 3),
			.status = db_col_text(sel, 4),
			.first_sample_s = db_col_real(sel, 5),
		};

		if (fn && (*stop = fn(&run, arg)))
			break;
	}
	r = !*stop && r != SQLITE_DONE ?
	    db_fail(db, "cannot read the guest's runs") : DB_OK;
	sqlite3_finalize(sel);
	return r;
}

int db_vm_attach(struct db *db, const struct db_vm *vm,
		 int (*fn)(const struct db_vm_run *, void *), void *arg)
{
	/* a timed guest has no shift, whatever icount_shift holds */
	bool counted = vm->clock && strcmp(vm->clock, "time");
	int r, stop = 0;

	if (counted && (strcmp(vm->clock, "instructions") ||
			vm->icount_shift < 0 || vm->icount_shift > 10)) {
		snprintf(db->errbuf, sizeof(db->errbuf), "cannot record the guest: "
			 "clock '%s' with icount shift %d (a counted guest "
			 "has clock 'instructions' and a shift of 0 to 10)",
			 vm->clock, vm->icount_shift);
		return DB_ERR;
	}
	if (db_exec(db, "BEGIN IMMEDIATE"))
		return DB_ERR;
	r = insert_vm(db, vm, counted);
	if (!r)
		r = each_run(db, fn, arg, &stop);
	if (r || stop) {
		db_rollback(db);
		return r ? r : stop;
	}
	return db_exec(db, "COMMIT") ? DB_ERR : DB_OK;
}

struct shape_walk {
	int (*fn)(const struct db_vm_shape *, void *arg);
	void *arg;
};

static int row_shape(struct db *db, sqlite3_stmt *st, void *arg)
{
	const struct shape_walk *w = arg;
	struct db_vm_shape v = {
		.accel = db_col_text(st, 0),
		.clock = db_col_text(st, 1),
		.icount_shift = sqlite3_column_type(st, 2) == SQLITE_NULL ?
				-1 : sqlite3_column_int(st, 2),
		.shape = db_col_text(st, 3),
	};

	(void)db;
	return w->fn(&v, w->arg);
}

int db_vm_shapes_each(struct db *db, const char *label,
		      int (*fn)(const struct db_vm_shape *, void *arg),
		      void *arg)
{
	struct shape_walk w = { fn, arg };

	return db_each(db, "cannot read the runs' VM shapes", row_shape, &w,
		       "SELECT DISTINCT coalesce(v.accel, ''), "
		       "coalesce(v.clock, 'time'), v.icount_shift, "
		       "coalesce(v.shape, '') FROM runs LEFT JOIN "
		       "run_vm v ON v.run_id = runs.id WHERE label = ?1 "
		       "AND status = 'complete' ORDER BY 1, 2, 3, 4", "t",
		       label);
}

static int row_clock(struct db *db, sqlite3_stmt *st, void *arg)
{
	int *shift = arg;

	(void)db;
	*shift = sqlite3_column_int(st, 0);
	return 0;
}

int db_vm_run_clock(struct db *db, int64_t run_id, int *shift)
{
	*shift = -1;
	return db_each(db, "cannot read the run's clock", row_clock, shift,
		       "SELECT icount_shift FROM run_vm WHERE run_id = ?1 "
		       "AND clock = 'instructions'", "i", run_id);
}
