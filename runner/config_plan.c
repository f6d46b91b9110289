/* The config's plan section: the two kernels `bench plan` alternates. */
#include "config_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const plan_keys[] = { "base", "patch", "boots", "effect",
					 NULL };
static const char *const side_keys[] = { "label", "boot", NULL };
static const char *const boot_keys[] = { "grub", "kernel", "initrd",
					 "cmdline", NULL };

/* A non-empty string of at most 4000 bytes without control characters. */
static int plan_str(struct cfg_ctx *x, const cJSON *o, const char *key,
		    const char *path, bool abs_path, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	const char *p;
	char *s;

	if (!v)
		return 0;
	if (cJSON_IsString(v) && *v->valuestring &&
	    strlen(v->valuestring) <= 4000 &&
	    (!abs_path || v->valuestring[0] == '/')) {
		for (p = v->valuestring; *p && (unsigned char)*p >= 0x20 &&
		     *p != 0x7f; p++)
			;
		if (!*p) {
			*out = xstrdup(v->valuestring);
			return 0;
		}
	}
	s = cfg_show(v);
	cfg_errf(x, "%s.%s: %s is not %s", path, key, s, abs_path ?
		 "an absolute path" : "a non-empty string of one line");
	free(s);
	return -1;
}

static int load_plan_side(struct cfg_ctx *x, const cJSON *plan, const char *key,
			  struct plan_side *ps)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(plan, key);
	const cJSON *boot;
	struct strbuf err = STRBUF_INIT;
	char path[64], bpath[80];

	snprintf(path, sizeof(path), "plan.%s", key);
	if (!o)
		return cfg_errf(x, "plan: missing key \"%s\" (an object with "
				"\"label\" and \"boot\")", key);
	if (cfg_only_keys(x, o, path, side_keys) ||
	    plan_str(x, o, "label", path, false, &ps->label))
		return -1;
	if (!ps->label)
		return cfg_errf(x, "%s: missing key \"label\"", path);
	if (label_check(ps->label, &err)) {
		cfg_errf(x, "%s.label: \"%s\": %s", path, ps->label, err.buf);
		strbuf_release(&err);
		return -1;
	}
	boot = cJSON_GetObjectItemCaseSensitive(o, "boot");
	if (!boot)
		return 0;	/* `bench plan` works without; --reboot not */
	snprintf(bpath, sizeof(bpath), "%s.boot", path);
	if (cfg_only_keys(x, boot, bpath, boot_keys) ||
	    plan_str(x, boot, "grub", bpath, false, &ps->grub) ||
	    plan_str(x, boot, "kernel", bpath, true, &ps->kernel) ||
	    plan_str(x, boot, "initrd", bpath, true, &ps->initrd) ||
	    plan_str(x, boot, "cmdline", bpath, false, &ps->cmdline))
		return -1;
	if (!ps->grub == !ps->kernel)
		return cfg_errf(x, "%s: give either \"grub\" (a GRUB menu "
				"entry) or \"kernel\" (an image for kexec), "
				"not %s", bpath, ps->grub ? "both" : "neither");
	if (ps->grub && (ps->initrd || ps->cmdline))
		return cfg_errf(x, "%s: \"%s\" goes with \"kernel\" (kexec), "
				"not with \"grub\"", bpath,
				ps->initrd ? "initrd" : "cmdline");
	return 0;
}

/* Parse "5%", "5", 5 or "0.5%" as a percentage above 0 and below 1000. */
static int load_effect(struct cfg_ctx *x, const cJSON *v, double *out)
{
	char *end = NULL, *s;
	double d = NAN;

	if (cJSON_IsNumber(v)) {
		d = v->valuedouble;
	} else if (cJSON_IsString(v)) {
		d = strtod(v->valuestring, &end);
		if (end == v->valuestring || (*end && strcmp(end, "%")))
			d = NAN;
	}
	if (!(d > 0 && d < 1000)) {
		s = cfg_show(v);
		cfg_errf(x, "plan.effect: %s is not a change in percent above "
			 "0 and below 1000, such as \"5%%\"", s);
		free(s);
		return -1;
	}
	*out = d;
	return 0;
}

int cfg_load_plan(struct cfg_ctx *x, struct config *cfg, const cJSON *plan)
{
	struct config_plan *p = &cfg->plan;
	const cJSON *v;

	if (cfg_only_keys(x, plan, "plan", plan_keys) ||
	    load_plan_side(x, plan, "base", &p->side[0]) ||
	    load_plan_side(x, plan, "patch", &p->side[1]) ||
	    cfg_get_uint(x, plan, "boots", "plan.", 1, 10000, &p->boots))
		return -1;
	if (!strcmp(p->side[0].label, p->side[1].label))
		return cfg_errf(x, "plan: base and patch both have the label "
				"\"%s\"", p->side[0].label);
	v = cJSON_GetObjectItemCaseSensitive(plan, "effect");
	if (v && load_effect(x, v, &p->effect))
		return -1;
	p->set = true;
	return 0;
}
