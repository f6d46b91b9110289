/*
 * What the upload says to the dashboard and what its answers mean
 * (protocol.c).
 */
#ifndef FB_UPLOAD_PROTOCOL_H
#define FB_UPLOAD_PROTOCOL_H

#include "upload/http.h"
#include "upload/payload.h"
#include "upload/token.h"

/* What an answer means for the run. */
enum verdict { V_SENT, V_DUP, V_RETRY, V_DENIED, V_REJECTED, V_UNTRUSTED };

/* protocol.c says what each returns. */
CURLcode upload_post(const struct dashboard_cfg *d, const struct payload *p,
		     const struct db_upload_claim *c, const struct token *tk,
		     struct reply *r);
enum verdict upload_judge(const struct dashboard_cfg *d,
			  const struct payload *p, CURLcode cc,
			  const struct reply *r, const struct token *tk,
			  struct strbuf *why);
enum verdict squad_check(const struct dashboard_cfg *d,
			 const struct payload *p,
			 const struct db_upload_claim *c,
			 const struct token *tk, struct strbuf *why);

#endif
