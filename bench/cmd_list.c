/* `bench list`: the workloads, their parameters, defaults and metrics. */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "cmds.h"
#include "workloads/params.h"
#include "workloads/workload.h"

int cmd_list(int argc, char **argv)
{
	const struct workload *const *w;
	char range[160];
	int i, k;

	(void)argv;
	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			printf("usage: bench list\n\nLists the workloads, "
			       "their parameters (type, default, help, range or "
			       "choices)\nand metrics.\n");
			return EX_OK;
		}
		fb_err("list takes no arguments");
		return EX_USAGE;
	}
	for (w = workloads_get(); *w; w++) {
		printf("%s\n  %s\n  parameters:\n", (*w)->name, (*w)->summary);
		for (i = 0; (*w)->params[i].name; i++) {
			const struct param *p = &(*w)->params[i];

			printf("    %-12s %-8s default %-10s %s", p->name,
			       wl_param_kind(p->type), p->def, p->help);
			if (param_is_number(p->type)) {
				wl_param_range(p, range, sizeof(range));
				printf(" (range %s)", range);
			}
			if (p->type == PT_ENUM) {
				printf(" (");
				for (k = 0; p->choices[k]; k++)
					printf("%s%s", k ? ", " : "",
					       p->choices[k]);
				printf(")");
			}
			printf("\n");
		}
		printf("  metrics:\n");
		for (i = 0; (*w)->metrics[i].name; i++) {
			const struct metric *m = &(*w)->metrics[i];

			printf("    %-16s %-9s %s is better%s%s\n", m->name,
			       m->unit, m->better == LOWER_IS_BETTER ?
			       "lower" : "higher", m->help ? "; " : "",
			       m->help ? m->help : "");
		}
		printf("\n");
	}
	return EX_OK;
}
