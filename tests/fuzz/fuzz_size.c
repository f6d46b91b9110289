/*
 * libFuzzer harness for the size, duration and number parsers and the
 * text checks: no crash or undefined behaviour on any input, and what
 * parses formats back to the same value.  The first byte picks the parser.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct strbuf err = STRBUF_INIT;
	char s[256], buf[128];
	uint64_t u, v;

	if (n < 1 || n >= sizeof(s))
		return 0;
	memcpy(s, data + 1, n - 1);
	s[n - 1] = '\0';
	switch (data[0] % 4) {
	case 0:
		if (parse_size(s, &u))
			break;
		format_size(u, buf, sizeof(buf));
		if (parse_size(buf, &v) || v != u)
			abort();	/* "8G" must read back as what it says */
		human_size(u, buf, sizeof(buf));
		break;
	case 1:
		if (parse_duration(s, &u))
			break;
		if (u >= 1ull << 63)
			abort();
		format_duration(u, buf, sizeof(buf));
		/* printed in whole microseconds at least */
		if (parse_duration(buf, &v) || v != u - u % 1000)
			abort();
		break;
	case 2:
		if (parse_u64(s, &u))
			break;
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)u);
		if (parse_u64(buf, &v) || v != u)
			abort();
		break;
	case 3:
		/* a label is always clean text; a sanitized one is a label */
		if (!label_check(s, &err) && check_text(s, LABEL_MAX, &err))
			abort();
		label_sanitize(s);
		if (s[0] && s[0] != '.' && s[0] != '-' && !strstr(s, "..") &&
		    strlen(s) <= LABEL_MAX && label_check(s, &err))
			abort();
		strbuf_release(&err);
		break;
	}
	return 0;
}
