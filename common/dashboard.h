/*
 * The `dashboard` section of the config, as the runner's config loader
 * fills it and the upload (upload/) reads it.  Data only.
 */
#ifndef FB_DASHBOARD_H
#define FB_DASHBOARD_H

#include <stdbool.h>
#include <stdint.h>

enum dashboard_target {
	DASHBOARD_NONE,		/* no dashboard section: nothing is queued */
	DASHBOARD_SQUAD,	/* SQUAD's submit API, multipart */
	DASHBOARD_JSON,		/* the run document, POSTed as JSON */
};

struct dashboard_cfg {
	enum dashboard_target target;
	char *url;
	char *group, *project;		/* squad only */
	char *environment;		/* squad only; NULL: the host name */
	char *token_env;		/* the variable holding the token, or */
	char *token_file;		/* the file holding it (mode 0600) */
	char *ca_file;			/* NULL: the system's CAs */
	bool upload;			/* every `bench run` uploads at its end */
	uint64_t timeout_ns, connect_timeout_ns;
	uint64_t backoff_ns;		/* first wait between tries, doubled */
	uint64_t retry_after_max_ns;	/* bound on a Retry-After honoured */
	unsigned max_attempts;		/* tries per run per upload */
};

/* "squad", "json" (the outbox's target column); NULL for none. */
static inline const char *dashboard_target_name(enum dashboard_target t)
{
	return t == DASHBOARD_SQUAD ? "squad" :
	       t == DASHBOARD_JSON ? "json" : (const char *)0;
}

#endif
