/*
 * The machine facts, checked against sources the code does not read: the
 * VM bit straight from CPUID (the code reads /proc/cpuinfo's flags), the
 * host name and release from uname(2) made into plain words.
 */
#include <string.h>
#include <sys/utsname.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "runner/meta.h"
#include "tap.h"

int main(void)
{
	struct meta m;
	struct utsname u;
	struct strbuf err = STRBUF_INIT;

	tap_plan(4);
	meta_collect(&m);
	uname(&u);
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned a = 0, b = 0, c = 0, d = 0;

		/* CPUID.1:ECX bit 31, the hypervisor-present bit */
		__get_cpuid(1, &a, &b, &c, &d);
		STREQ(m.virt, c >> 31 ? "VM" : "bare metal",
		      "VM or bare metal agrees with CPUID");
	}
#else
	OK(!strcmp(m.virt, "VM") || !strcmp(m.virt, "bare metal") ||
	   !*m.virt, "virt is one of its values (no CPUID here)");
#endif
	OK(!label_check(m.label, &err), "the default label is a label: %s "
	   "(%s)", m.label, err.len ? err.buf : "ok");
	strbuf_release(&err);
	OK(strlen(m.label) == strlen(u.release), "as long as uname -r");
	OK(strspn(m.hostname, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		  "0123456789._+~:@-") == strlen(m.hostname) &&
	   strlen(m.hostname) == strlen(u.nodename),
	   "host name in plain words: %s", m.hostname);
	meta_release(&m);
	return tap_done();
}
