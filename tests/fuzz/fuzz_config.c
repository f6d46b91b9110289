/*
 * libFuzzer harness for the config parser: any text either loads into a
 * plan whose every case names itself in valid JSON, or fails with a
 * message that is non-empty, one line, and clean text (what reaches a
 * terminal never carries the input's control bytes).  ASan and UBSan
 * watch everything in between, leaks included.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runner/runner.h"
#include "workloads/params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct strbuf err = STRBUF_INIT;
	struct config cfg;
	struct strbuf why = STRBUF_INIT;
	char *text;
	int i;

	/* what config_load refuses before parsing: NUL bytes, over 1 MiB */
	if (n > (1 << 20) || memchr(data, '\0', n))
		return 0;
	text = xmalloc(n + 1);
	memcpy(text, data, n);
	text[n] = '\0';
	if (config_parse(&cfg, "fuzz.json", text, &err)) {
		if (!err.len || strchr(err.buf, '\n') ||
		    check_text(err.buf, 1 << 16, &why))
			abort();	/* no message, or one that is not clean */
	} else {
		if (cfg.ncases < 1 || !cfg.json || !cfg.database)
			abort();
		if (cfg.label && label_check(cfg.label, &why))
			abort();
		/* a plan's kernels are labels too, and two of them */
		for (i = 0; cfg.plan.set && i < 2; i++)
			if (!cfg.plan.side[i].label ||
			    label_check(cfg.plan.side[i].label, &why))
				abort();
		for (i = 0; i < cfg.ncases; i++) {
			char *j = wl_params_json(cfg.cases[i].wl,
						 &cfg.cases[i].ps);
			cJSON *p = cJSON_Parse(j);

			if (!p || !cfg.cases[i].title || cfg.cases[i].runs < 1)
				abort();
			cJSON_Delete(p);
			free(j);
		}
		config_release(&cfg);
	}
	strbuf_release(&err);
	strbuf_release(&why);
	free(text);
	return 0;
}
