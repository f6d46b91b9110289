/*
 * Counting mode (schema 9): the unit a counted side shows a stored unit in
 * and the factor to it (report_clock_unit), times in seconds for Go's
 * tools (report_unit_seconds), how such values print, and the run_vm row
 * db_vm_attach writes for a timed and a counted guest.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "reports/compare.h"
#include "schema/db.h"
#include "schema/db_priv.h"
#include "schema/db_vm.h"
#include "tap.h"

static void unit(const struct report_clock *ck, const char *in,
		 const char *want, double factor)
{
	char out[64], name[128];
	double f = report_clock_unit(ck, in, out, sizeof(out));

	snprintf(name, sizeof(name), "%s, shift %d: unit", in, ck->shift);
	STREQ(out, want, name);
	snprintf(name, sizeof(name), "%s, shift %d: factor", in, ck->shift);
	NEAR(f, factor, 1e-12, name);
}

static void secs(const char *in, const char *want, double factor)
{
	char out[64], name[128];
	double f = report_unit_seconds(in, out, sizeof(out));

	snprintf(name, sizeof(name), "%s in seconds: unit", in);
	STREQ(out, want, name);
	snprintf(name, sizeof(name), "%s in seconds: factor", in);
	NEAR(f, factor, 1e-18, name);
}

static void shown(double v, const char *u, const char *want)
{
	char buf[64];

	report_value(v, v, u, true, buf, sizeof(buf));
	STREQ(buf, want, "a value printed");
}

static int64_t shift_of(struct db *db)
{
	int shift = -2;

	if (db_vm_run_clock(db, 1, &shift))
		return -3;
	return shift;
}

/* Write a guest's row as the VM lab does; the row's (clock, shift, sha). */
static int attach(struct db *db, const char *clock, int shift,
		  const char *sha, char *got, size_t n)
{
	struct db_vm vm = {
		.accel = "tcg", .accel_why = "asked", .shape = "smp=1",
		.kernel = "k", .kernel_image = "/boot/k", .qemu_version = "q",
		.qemu_args = "[]", .guest_cmdline = "", .command = "",
		.started_at = "2026-12-06T00:00:00Z", .boot_s = 1,
		.wall_s = 2, .console = "", .kmsg = "", .clock = clock,
		.icount_shift = shift, .kernel_sha256 = sha,
	};
	sqlite3_stmt *st;
	int r = db_vm_attach(db, &vm, NULL, NULL);

	got[0] = 0;
	if (r)
		return r;
	if (sqlite3_prepare_v2(db->h, "SELECT clock || '|' || "
			       "coalesce(icount_shift, 'NULL') || '|' || "
			       "coalesce(kernel_sha256, 'NULL') FROM run_vm",
			       -1, &st, NULL))
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(got, n, "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return 0;
}

int main(void)
{
	const struct report_clock timed = REPORT_CLOCK_TIMED;
	const struct report_clock c0 = { true, 0 }, c3 = { true, 3 };
	char path[] = "/tmp/fb-test-clock-XXXXXX", db_path[64], got[128];
	struct db db;
	int fd;

	tap_plan(69);
	/* a timed side keeps every unit */
	unit(&timed, "ns", "ns", 1);
	unit(&timed, "ns/folio", "ns/folio", 1);
	unit(&timed, "MiB/s", "MiB/s", 1);
	/* shift 0: a nanosecond is an instruction, a second 10^9 of them */
	unit(&c0, "ns", "instr", 1);
	unit(&c0, "ns/folio", "instr/folio", 1);
	unit(&c0, "ms", "instr", 1e6);
	unit(&c0, "/s", "/Ginstr", 1);
	unit(&c0, "MiB/s", "MiB/Ginstr", 1);
	unit(&c0, "IOPS", "ops/Ginstr", 1);
	unit(&c0, "count", "count", 1);
	unit(&c0, "CPUs", "CPUs", 1);
	/* shift 3: 8 ns an instruction; a second holds 10^9 / 8 of them */
	unit(&c3, "ns", "instr", 1.0 / 8);
	unit(&c3, "ns/entry", "instr/entry", 1.0 / 8);
	unit(&c3, "MiB/s", "MiB/Ginstr", 8);
	/* seconds for benchstat: every time, never a count or a rate */
	secs("ns", "sec", 1e-9);
	secs("ns/folio", "sec/folio", 1e-9);
	secs("ms", "sec", 1e-3);
	secs("s", "sec", 1);
	secs("instr/folio", "instr/folio", 1);
	secs("MiB/s", "MiB/s", 1);
	secs("sys", "sys", 1);
	/* the words of a count, never of a time */
	shown(135.0e6, "instr", "135.0 M instr");
	shown(1.2e9, "instr", "1.200 G instr");
	shown(169, "instr/folio", "169.0 instr/folio");
	shown(4.2e6, "instr/folio", "4.200 M instr/folio");
	shown(135.0e6, "ns", "135.0 ms");
	OK(report_unit_counted("instr/folio") &&
	   report_unit_counted("MiB/Ginstr") && !report_unit_counted("ns") &&
	   !report_unit_counted("count"), "which units are counts");
	OK(!report_unit_speed("instr", false) && report_unit_speed("ns", false),
	   "fewer instructions are better, not faster");

	/* db_vm_attach: the row of schema 9 */
	fd = mkstemp(path);
	OK(fd >= 0, "temp file");
	close(fd);
	unlink(path);
	OK(!mkdir(path, 0700), "temp dir");
	snprintf(db_path, sizeof(db_path), "%s/g.db", path);
	OK(!db_open(&db, db_path, true), "a guest's database");
	OK(!db_exec(&db, "INSERT INTO runs (uuid, label, kernel_release, "
		    "kernel_version, boot_id, hostname, cpu_model, vcpus, "
		    "mem_bytes, cmdline, thp, tmpfs, topology, tool_version, "
		    "config, pid, started_at, status) VALUES ('u', 'l', 'k', "
		    "'v', 'b', 'h', 'c', 1, 1, '', '{}', '', '{}', 't', '{}', "
		    "1, '2026-12-06T00:00:01Z', 'complete')"), "a run");
	/* a timed guest: no shift, whatever the field holds (0 unset) */
	OK(!attach(&db, NULL, 0, NULL, got, sizeof(got)), "timed, clock NULL");
	STREQ(got, "time|NULL|NULL", "timed: clock time, no shift, no sha");
	OK(shift_of(&db) == -1, "a timed run's clock: -1");
	OK(!attach(&db, "time", -1, "ab12", got, sizeof(got)),
	   "timed, clock time");
	STREQ(got, "time|NULL|ab12", "timed: the sha kept");
	OK(!attach(&db, "instructions", 0, "ab12", got, sizeof(got)),
	   "counted, shift 0");
	STREQ(got, "instructions|0|ab12", "counted: clock and shift");
	OK(shift_of(&db) == 0, "a counted run's clock: its shift");
	OK(!attach(&db, "instructions", 3, NULL, got, sizeof(got)),
	   "counted, shift 3");
	STREQ(got, "instructions|3|NULL", "counted: shift 3");
	OK(attach(&db, "instructions", -1, NULL, got, sizeof(got)) == DB_ERR,
	   "counted without a shift: refused");
	OK(strstr(db_errmsg(&db), "clock 'instructions' with icount shift -1"),
	   "and said: %s", db_errmsg(&db));
	OK(attach(&db, "cycles", 0, NULL, got, sizeof(got)) == DB_ERR,
	   "a clock that is none of time, instructions: refused");
	OK(attach(&db, "instructions", 11, NULL, got, sizeof(got)) == DB_ERR,
	   "a shift QEMU does not take: refused");
	OK(!attach(&db, "time", -1, NULL, got, sizeof(got)) &&
	   !strcmp(got, "time|NULL|NULL"), "the row is written anew");
	db_close(&db);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", path);
		OK(!system(cmd), "temp dir removed");
	}
	return tap_done();
}
