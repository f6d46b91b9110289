/*
 * The runs `bench vm` brought home from a guest (schema 8): how the guest
 * was made, kept beside the guest's own run.
 */
#ifndef FB_DB_VM_H
#define FB_DB_VM_H

#include "db.h"

struct db_vm {
	const char *accel;		/* "kvm" or "tcg" */
	const char *accel_why;
	const char *shape;		/* "smp=32 sockets=2 ..." */
	const char *kernel, *kernel_image;
	const char *qemu_version, *qemu_args, *guest_cmdline, *command;
	const char *started_at;		/* QEMU start, ISO 8601 UTC */
	double boot_s;			/* NAN: unknown */
	double wall_s;
	const char *console, *kmsg;
	/*
	 * Schema 9: what a "time" of the guest is.  "time" (nanoseconds), or
	 * "instructions" in counting mode (`--accel icount`: one TCG thread,
	 * -icount shift=N,sleep=off, so the guest's clocks advance 2^N ns
	 * an instruction: with shift 0 a "nanosecond" is one guest
	 * instruction); icount_shift is N there, -1 otherwise.
	 */
	const char *clock;
	int icount_shift;
	const char *kernel_sha256;	/* of the image booted, hex */
};

/* One run of a guest's database, as db_vm_attach() found it. */
struct db_vm_run {
	const char *uuid, *label, *kernel_release, *boot_id, *status;
	double first_sample_s;		/* NAN: no sample */
};

/*
 * Give every run of db (a guest's database: the runs of its one boot) the
 * row of vm, its first sample's time from started_at included, in one
 * transaction, and pass each run to fn.  Returns DB_OK, DB_ERR, or what fn
 * returned to stop.
 */
int db_vm_attach(struct db *db, const struct db_vm *vm,
		 int (*fn)(const struct db_vm_run *, void *), void *arg);

/* How the guest of a run was made, as compare tells the sides apart. */
struct db_vm_shape {
	const char *accel;		/* "kvm", "tcg"; "": not a guest's */
	const char *shape;		/* "smp=2 ..."; "": not a guest's */
	const char *clock;		/* "time" or "instructions" */
	int icount_shift;		/* -1: timed */
};

/*
 * The distinct guests (accel, clock, shift, shape) of the complete runs of
 * a label, in order; accel and shape "" for a run not made by `bench vm`.
 */
int db_vm_shapes_each(struct db *db, const char *label,
		      int (*fn)(const struct db_vm_shape *, void *arg),
		      void *arg);

/*
 * The clock of one run: *shift N where it was counted in guest
 * instructions with -icount shift=N, -1 where timed (no run_vm row, or a
 * timed guest).
 */
int db_vm_run_clock(struct db *db, int64_t run_id, int *shift);

#endif
