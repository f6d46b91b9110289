/* The kernel-log record parser and the patterns of a kernel problem. */
#include <errno.h>
#include <string.h>

#include "common/common.h"
#include "runner/kmsg.h"
#include "tap.h"

int main(void)
{
	char rec[] = "4,1234,5678901,-;WARNING: CPU: 0 PID: 1 at mm/x.c:1 f+0x0\n"
		     " SUBSYSTEM=cpu\n DEVICE=+cpu:0\n";
	char cont[] = "12,99,1,c,caller=T1;Call Trace:\n";
	char bad1[] = "no semicolon here";
	char bad2[] = "x,1,2,-;text";
	struct kmsg_line l;
	int r;
	static const char *const yes[] = {
		"WARNING: CPU: 3 PID: 42 at mm/shmem.c:100 shmem_undo_range",
		"BUG: unable to handle page fault for address: 0000",
		"Oops: 0000 [#1] PREEMPT SMP NOPTI",
		"Call Trace:",
		"general protection fault, probably for non-canonical address",
		"INFO: task kworker/0:1:12 blocked for more than 122 seconds.",
		"watchdog: BUG: soft lockup - CPU#1 stuck for 22s!",
		"rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
		"Out of memory: Killed process 123 (bench) total-vm:1kB",
		"Memory cgroup out of memory: Killed process 9 (x)",
		"bench invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL)",
	};
	static const char *const no[] = {
		"EXT4-fs (loop0): mounted filesystem with ordered data mode",
		"loop0: detected capacity change from 0 to 131072",
		"fuse: init (API version 7.41)",
		"warning: this is lower case and not the kernel's WARN",
	};
	size_t i;

	tap_plan(9 + ARRAY_SIZE(yes) + ARRAY_SIZE(no));
	/* OK() evaluates its condition twice: parse (which writes) first */
	r = kmsg_parse(rec, &l);
	OK(r == 0, "a record with a dictionary parses");
	OK(l.prio == 4 && l.seq == 1234 && l.at_us == 5678901,
	   "prio, sequence number and time are read");
	OK(!strcmp(l.text, "WARNING: CPU: 0 PID: 1 at mm/x.c:1 f+0x0"),
	   "the text stops before the dictionary");
	r = kmsg_parse(cont, &l);
	OK(r == 0 && l.seq == 99 && l.prio == 12,
	   "flags with a caller field parse");
	OK(!strcmp(l.text, "Call Trace:"), "its text");
	r = kmsg_parse(bad1, &l);
	OK(r == -EINVAL, "a record without ';' is refused");
	r = kmsg_parse(bad2, &l);
	OK(r == -EINVAL, "a record without numbers is refused");
	for (i = 0; i < ARRAY_SIZE(yes); i++)
		OK(kmsg_is_problem(yes[i]), "a problem: %s", yes[i]);
	for (i = 0; i < ARRAY_SIZE(no); i++)
		OK(!kmsg_is_problem(no[i]), "not a problem: %s", no[i]);
	OK(kmsg_is_problem("x WARNING: y"), "WARNING: anywhere in the line");
	OK(!kmsg_is_problem(""), "an empty line is none");
	return tap_done();
}
