/* `bench list`: the workloads, their parameters, defaults and metrics. */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "cmds.h"
#include "runner/runner.h"
#include "workloads/workload.h"

static const char *type_str(enum param_type t)
{
	switch (t) {
	case PT_SIZE: return "size";
	case PT_UINT: return "count";
	case PT_DURATION: return "duration";
	case PT_ENUM: return "choice";
	case PT_STRING:
	case PT_SIZE_AUTO: return "string";
	case PT_PERCENT: return "percent";
	}
	return "?";
}

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
			       type_str(p->type), p->def, p->help);
			if (param_is_number(p->type)) {
				config_range_str(p, range, sizeof(range));
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
