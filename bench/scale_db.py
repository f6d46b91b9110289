#!/usr/bin/env python3
"""A results database of a lab's size, grown from real runs.

    python3 bench/scale_db.py [--bench BENCH] [--seed SEED.db] [--hosts H]
                              [--labels L] [--no-check] SAMPLES OUT.db

The seed is two real runs of a small suite on this machine (labels base and
patch: shmem-remove size=64M folio=4k and 2M, small-truncate count=200
pages=64; 20 runs after one warm-up, 126 samples), made with BENCH
(build/bench) into SEED (default: seed.db beside OUT.db) when that file is
missing, and reused when it is there.  OUT.db holds the seed and as many
copies of it as make at least SAMPLES samples (rows of `samples`): every
table under runs is copied through its foreign keys with ids offset per
copy, each copy's runs with new uuids (from run id and copy number), a
boot of their own, host lab00 .. lab{H-1} in turn (24 hosts by default)
and started a minute after the previous copy.  With --labels L > 1 the
copies whose number is not a multiple of L get the labels base~N and
patch~N (N = copy % L), so that base and patch are two labels among many.
OUT.db is in WAL mode, its foreign keys and PRAGMA integrity_check are
checked unless --no-check, and it is written whole or not at all
(OUT.db.tmp renamed).  The last line of the output says
"OUT.db: R runs, S samples, V values".
"""
import argparse
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

SUITE = [
    {"workload": "shmem-remove", "size": "64M", "folio": ["4k", "2M"]},
    {"workload": "small-truncate", "count": 200, "pages": 64},
]


def die(msg):
    print("scale_db: " + msg, file=sys.stderr)
    sys.exit(1)


def make_seed(bench, seed):
    """Two real runs, base and patch, into seed (written whole)."""
    if not os.access(bench, os.X_OK):
        die("no %s: run make first" % bench)
    work = tempfile.mkdtemp(prefix="fb-seed.", dir="/var/tmp")
    try:
        db = os.path.join(work, "seed.db")
        conf = os.path.join(work, "config.json")
        with open(conf, "w") as f:
            json.dump({"database": db, "runs": 20, "warmup": 1,
                       "suite": SUITE}, f)
        for label in ("base", "patch"):
            r = subprocess.run([bench, "run", "--config", conf, "--label",
                                label, "--quiet"], stdout=subprocess.DEVNULL)
            if r.returncode:
                die("bench run --label %s exited %d" % (label, r.returncode))
        src = sqlite3.connect(db)
        dst = sqlite3.connect(seed + ".tmp")
        src.backup(dst)
        src.close()
        dst.close()
        os.rename(seed + ".tmp", seed)
    finally:
        shutil.rmtree(work)


def q(name):
    return '"' + name.replace('"', '""') + '"'


def tables(con):
    """{table: (columns, id column or None, {column: parent table})}"""
    out = {}
    for (t,) in con.execute("SELECT name FROM s.sqlite_master WHERE type = "
                            "'table' AND name NOT LIKE 'sqlite_%'"):
        cols, pk = [], []
        for _cid, name, typ, _nn, _d, ispk in con.execute(
                "SELECT * FROM pragma_table_info(?, 's')", (t,)):
            cols.append(name)
            if ispk:
                pk.append((name, typ.upper()))
        idcol = pk[0][0] if len(pk) == 1 and pk[0][1] == "INTEGER" else None
        fks = {row[3]: row[2] for row in con.execute(
            "SELECT * FROM pragma_foreign_key_list(?, 's')", (t,))}
        out[t] = (cols, idcol, fks)
    return out


def grow(seed, out, samples, hosts, labels):
    tmp = out + ".tmp"
    for f in (tmp, tmp + "-journal", tmp + "-wal", tmp + "-shm"):
        if os.path.exists(f):
            os.unlink(f)
    src = sqlite3.connect(seed)
    con = sqlite3.connect(tmp, isolation_level=None)
    src.backup(con)
    src.close()
    con.execute("PRAGMA journal_mode = DELETE")
    con.execute("PRAGMA synchronous = OFF")
    con.execute("ATTACH DATABASE ? AS s", (seed,))
    n_seed = con.execute("SELECT count(*) FROM s.samples").fetchone()[0]
    if not n_seed:
        die("%s has no samples" % seed)
    copies = max(1, math.ceil(samples / n_seed))
    con.execute("BEGIN")
    con.execute("CREATE TEMP TABLE copies (n INTEGER PRIMARY KEY)")
    con.execute("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 "
                "FROM c WHERE n < ?) INSERT INTO copies SELECT n FROM c "
                "WHERE n < ?", (copies, copies))
    tabs = tables(con)
    span = {}
    for t, (cols, idcol, fks) in tabs.items():
        if idcol:
            span[t] = con.execute("SELECT coalesce(max(%s), 0) FROM s.%s" %
                                  (q(idcol), q(t))).fetchone()[0]
    for t, (cols, idcol, fks) in tabs.items():
        if t != "runs" and not (set(fks.values()) & set(span)):
            continue        # not under runs: once is enough
        exprs = []
        for c in cols:
            x = "x." + q(c)
            if c == idcol:
                e = "%s + c.n * %d" % (x, span[t])
            elif c in fks and fks[c] in span:
                e = "%s + c.n * %d" % (x, span[fks[c]])
            elif t == "runs" and c == "uuid":
                e = ("printf('%%08x-0000-4000-8000-%%012x', x.%s, c.n)" %
                     q(idcol))
            elif t == "runs" and c == "boot_id":
                e = "%s || printf('.%%d', c.n)" % x
            elif t == "runs" and c == "hostname":
                e = "printf('lab%%02d', c.n %% %d)" % hosts
            elif t == "runs" and c == "label" and labels > 1:
                e = ("CASE WHEN c.n %% %d = 0 THEN %s ELSE %s || '~' || "
                     "(c.n %% %d) END" % (labels, x, x, labels))
            elif t == "runs" and c in ("started_at", "ended_at"):
                e = ("strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ', %s, "
                     "printf('+%%d minutes', c.n))" % x)
            else:
                e = x
            exprs.append(e)
        con.execute("INSERT INTO main.%s (%s) SELECT %s FROM copies AS c "
                    "CROSS JOIN s.%s AS x" %
                    (q(t), ", ".join(q(c) for c in cols), ", ".join(exprs),
                     q(t)))
    con.execute("COMMIT")
    con.execute("DETACH DATABASE s")
    return con, tmp


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default="build/bench")
    ap.add_argument("--seed")
    ap.add_argument("--hosts", type=int, default=24)
    ap.add_argument("--labels", type=int, default=1)
    ap.add_argument("--no-check", action="store_true")
    ap.add_argument("samples", type=int)
    ap.add_argument("out")
    a = ap.parse_args()
    if a.samples < 1 or a.hosts < 1 or a.labels < 1:
        die("SAMPLES, --hosts and --labels are at least 1")
    seed = a.seed or os.path.join(os.path.dirname(os.path.abspath(a.out)),
                                  "seed.db")
    if not os.path.exists(seed):
        make_seed(a.bench, seed)
    con, tmp = grow(seed, a.out, a.samples, a.hosts, a.labels)
    if not a.no_check:
        bad = con.execute("PRAGMA foreign_key_check").fetchall()
        if bad:
            die("foreign keys broken: %r" % bad[:5])
        ok = con.execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            die("integrity_check: " + ok)
        if con.execute("SELECT count(*) - count(DISTINCT uuid) FROM "
                       "runs").fetchone()[0]:
            die("two runs with one uuid")
    con.execute("PRAGMA journal_mode = WAL")
    r, s, v = (con.execute("SELECT count(*) FROM " + t).fetchone()[0]
               for t in ("runs", "samples", "sample_values"))
    con.close()
    os.rename(tmp, a.out)
    print("%s: %d runs, %d samples, %d values" % (a.out, r, s, v))


if __name__ == "__main__":
    main()
