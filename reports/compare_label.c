/*
 * A label a comparison cannot use, said: no runs at all, an unknown label
 * (and the nearest one), none complete; and the database's errors as a
 * report's exit codes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/compare.h"
#include "schema/db_report.h"
#include "reports/compare_priv.h"
#include "reports/compare_load.h"

/* Why a label cannot be used: no runs at all, unknown, or none complete. */
struct near_label {
	const char *want;
	char best[256];
	unsigned dist;
	struct strbuf all;
	int n;
};

static int near_label(const char *label, void *arg)
{
	struct near_label *nl = arg;
	unsigned d = edit_distance(nl->want, label);

	if (d < nl->dist) {
		nl->dist = d;
		snprintf(nl->best, sizeof(nl->best), "%s", label);
	}
	if (nl->n < 8)
		strbuf_addf(&nl->all, "%s%s", nl->n ? ", " : "", label);
	else if (nl->n == 8)
		strbuf_addf(&nl->all, ", ...");
	nl->n++;
	return 0;
}

int cmp_check_label(struct db *db, const char *label, struct strbuf *err)
{
	struct near_label nl = { .want = label, .dist = ~0u,
				 .all = STRBUF_INIT };
	int64_t nall, nruns, ncomplete;
	int r;

	if ((r = db_report_nruns(db, &nall)))
		goto db_err;
	if (!nall) {
		strbuf_addf(err, "%s holds no runs yet (record some with "
			    "`bench run`)", db->path);
		return REPORT_EEMPTY;
	}
	if ((r = db_report_label(db, label, &nruns, &ncomplete)))
		goto db_err;
	if (!nruns) {
		r = db_report_labels_each(db, near_label, &nl);
		if (r) {
			strbuf_release(&nl.all);
			goto db_err;
		}
		if (nl.dist <= 3)
			strbuf_addf(err, "no run has the label '%s' in %s; "
				    "did you mean '%s'?", label, db->path,
				    nl.best);
		else
			strbuf_addf(err, "no run has the label '%s' in %s "
				    "(labels: %s)", label, db->path,
				    strbuf_str(&nl.all));
		strbuf_release(&nl.all);
		return REPORT_ELABEL;
	}
	if (!ncomplete) {
		strbuf_addf(err, "label '%s' has %lld run%s in %s but none "
			    "complete (see `bench runs`)", label,
			    (long long)nruns, nruns == 1 ? "" : "s", db->path);
		return REPORT_ENOCOMPLETE;
	}
	return 0;
db_err:
	return report_db_status(db, r, err);
}

int report_db_status(const struct db *db, int r, struct strbuf *err)
{
	if (r > DB_ERR || r < DB_BADROW)
		return r;
	if (r == DB_BUSY) {
		strbuf_addf(err, "cannot read %s: another process holds it "
			    "locked, still after %d s (%s)", db->path,
			    DB_BUSY_MS / 1000, db_errmsg(db));
		return REPORT_EBUSY;
	}
	if (r == DB_BADROW) {
		strbuf_addf(err, "%s: %s", db->path, db_errmsg(db));
		return REPORT_EDATA;
	}
	strbuf_addf(err, "cannot read %s: %s", db->path, db_errmsg(db));
	return REPORT_EDB;
}
