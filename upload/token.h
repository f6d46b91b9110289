/*
 * The dashboard's token (token.c), from its variable or its file; it
 * never appears in a message or in the database.
 */
#ifndef FB_UPLOAD_TOKEN_H
#define FB_UPLOAD_TOKEN_H

#include "common/common.h"
#include "common/dashboard.h"

#define TOKEN_MAX	4096

struct token {
	char v[TOKEN_MAX];
	char from[2200];	/* "the environment variable X", "the file Y" */
};

/* 0, or -1 with err. */
int token_load(const struct dashboard_cfg *d, struct token *tk,
	       struct strbuf *err);

#endif
