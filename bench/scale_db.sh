#!/bin/sh
# Make a lab-sized results database from real runs (make bench-scale):
#
#   sh bench/scale_db.sh BENCH DIR SAMPLES [SHAPE]
#
# The seed: two real `bench run` of a small suite (shmem-remove, seq-read,
# small-truncate; 10 runs and a warm-up a case) into DIR/seed.db, made once.
# DIR/scale-SAMPLES.db then replicates the seed's runs with SQL into a lab of
# 24 hosts that boot two kernels in turn for months: 12 kernel pairs (24
# labels, two hosts a pair), ABAB then BAAB boots, an aborted run
# rerun in its boot, a second complete run in some boots, failed runs,
# kernel warnings and an upload outbox; values vary by boot and the patch
# kernel is faster.  Made once: an existing DIR/scale-SAMPLES.db is kept.
# Every foreign key and uuid is consistent (checked, with PRAGMA
# integrity_check).  Prints the path of the database.
#
# SHAPE "spread" (the default) gives each of the 12 pairs two hosts; "two"
# gives 22 of the 24 hosts to the pair 6.18.0-lab00 (two kernels run
# nightly for months on most of the lab's machines: its two labels hold 22
# of 24 samples, 92%) and one host each to two other pairs, in
# DIR/scale-two-SAMPLES.db.
set -eu

BENCH=$1 DIR=$2 N=$3 SHAPE=${4:-spread}
HOSTS=24 PAIRS=12
case $SHAPE in
spread)	DB=$DIR/scale-$N.db
	PAIR_OF="b % $HOSTS % $PAIRS" ;;
two)	DB=$DIR/scale-two-$N.db
	PAIR_OF="CASE WHEN b % $HOSTS < 22 THEN 0 ELSE b % $HOSTS - 21 END" ;;
*)	echo "scale_db: unknown shape '$SHAPE' (spread or two)" >&2
	exit 64 ;;
esac
mkdir -p "$DIR"
[ -s "$DB" ] && { echo "$DB"; exit 0; }

SEED=$DIR/seed.db
if ! [ -s "$SEED" ]; then
	rm -f "$SEED" "$SEED-wal" "$SEED-shm" "$DIR/seed.json"
	cat > "$DIR/seed.json" <<EOF
{ "database": "$SEED", "runs": 10, "warmup": 1,
  "suite": [
   { "workload": "shmem-remove", "op": ["unlink", "ftruncate"],
     "size": "16M", "folio": "4k" },
   { "workload": "seq-read", "size": "8M", "duration": "100ms" },
   { "workload": "small-truncate", "count": 50, "pages": 64,
     "dir": "/dev/shm" } ] }
EOF
	for l in seed-a seed-b; do
		"$BENCH" run --config "$DIR/seed.json" --label $l > /dev/null ||
			{ rm -f "$SEED"*; exit 1; }
	done
fi

TMP=$DB.tmp
rm -f "$TMP" "$TMP-journal" "$TMP-wal" "$TMP-shm"
cp "$SEED" "$TMP"
# A lab's file as a year of nightly runs wrote it: schema 6, without what
# migration 7 adds (the read path's indexes), so that a binary from before
# reads it too; each binary timed migrates its own copy (bench/scale.sh).
if [ "$(sqlite3 "$TMP" "PRAGMA user_version")" = 7 ]; then
	sqlite3 "$TMP" "BEGIN; DROP INDEX runs_label_time;
		DROP INDEX sample_values_sample;
		CREATE INDEX runs_label ON runs(label, status);
		PRAGMA user_version = 6; COMMIT;"
fi
# Schema 15 keeps a sample's values in its row (samples.vals, a JSON array
# named by samples.layout): copied with the sample, each value times the
# factors below; before it, a row a value in the table sample_values.
FACTOR='(1 + ((r.id * 7919) % 41 - 20) / 1000.0 +
		   ((SID * 104729) % 13 - 6) / 2000.0) *
	CASE WHEN r.label LIKE '"'%+patch'"' AND UNIT IN ('"'ns', 'us'"') AND
		  BETTER = '"'lower'"' THEN 0.93 ELSE 1 END'
if [ "$(sqlite3 "$TMP" "PRAGMA user_version")" -ge 15 ]; then
	NEW_SID='((c.id - 1) * ns.n + s.rep + 1)'
	VCOLS=', layout, vals'
	VSEL=", s.layout, (SELECT json_group_array(v.atom * $(echo "$FACTOR" |
		sed "s/SID/$NEW_SID/; s/UNIT/(l.metrics ->> ('\$[' || v.key || '][1]'))/;
		     s/BETTER/(l.metrics ->> ('\$[' || v.key || '][2]'))/"))
	FROM value_layouts l, json_each(s.vals) v WHERE l.id = s.layout)"
	VALUES_SQL=
else
	VCOLS= VSEL=
	VALUES_SQL="INSERT INTO sample_values (sample_id, metric, value, unit,
	better, supported)
SELECT s.id, v.metric, v.value * $(echo "$FACTOR" |
	sed 's/SID/s.id/; s/UNIT/v.unit/; s/BETTER/v.better/'),
	v.unit, v.better, v.supported
FROM samples s JOIN cases c ON c.id = s.case_id
JOIN runs r ON r.id = c.run_id
JOIN seed ON seed.k = r.id % (SELECT count(*) FROM seed)
JOIN s_cases sc ON sc.run_id = seed.sid AND sc.seq = c.seq
JOIN s_samples ss ON ss.case_id = sc.id AND ss.rep = s.rep
JOIN s_values v ON v.sample_id = ss.id ORDER BY s.id, v.rid;"
fi
# samples a seed run holds: the number of boots that make about N samples
SPR=$(sqlite3 "$TMP" "SELECT count(*) / (SELECT count(*) FROM runs)
		       FROM samples")
BOOTS=$(( (N + SPR - 1) / SPR * 100 / 104 ))
[ "$BOOTS" -ge $((HOSTS * 4)) ] || BOOTS=$((HOSTS * 4))

sqlite3 "$TMP" > /dev/null <<SQL
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -262144;
PRAGMA foreign_keys = OFF;
BEGIN;
CREATE TEMP TABLE seed AS SELECT id AS sid,
	row_number() OVER (ORDER BY id) - 1 AS k FROM runs;
CREATE TEMP TABLE nc AS SELECT max(n) AS n FROM
	(SELECT count(*) AS n FROM cases GROUP BY run_id);
CREATE TEMP TABLE ns AS SELECT max(n) AS n FROM
	(SELECT count(*) AS n FROM samples GROUP BY case_id);

-- Boot b is boot b / $HOSTS of host b % $HOSTS; a host boots A B A B, then
-- B A A B; each pair of kernels has hosts of its own (SHAPE above).
CREATE TEMP TABLE boots AS WITH RECURSIVE n(b) AS
	(SELECT 0 UNION ALL SELECT b + 1 FROM n WHERE b + 1 < $BOOTS)
	SELECT b, b % $HOSTS AS host, b / $HOSTS AS slot,
	       substr('01011001', (b / $HOSTS) % 8 + 1, 1) + 0 AS side,
	       $PAIR_OF AS pair
	FROM n;
-- Runs of a boot: one; an aborted run then its rerun (1 boot in 29); two
-- complete runs (1 in 31); a failed run alone (1 in 97).
CREATE TEMP TABLE gen AS SELECT row_number() OVER (ORDER BY b, r) AS g,
	b, host, slot, side, pair, r, st, printf('6.18.0-lab%02d', pair) ||
	CASE side WHEN 1 THEN '+patch' ELSE '' END AS lbl FROM (
	SELECT b, host, slot, side, pair, 0 AS r,
	       CASE WHEN b % 29 = 7 THEN 'aborted'
		    WHEN b % 97 = 5 THEN 'failed' ELSE 'complete' END AS st
	FROM boots
	UNION ALL SELECT b, host, slot, side, pair, 1, 'complete' FROM boots
	WHERE b % 29 = 7 OR b % 31 = 3);

DELETE FROM uploads;
DELETE FROM kernel_warnings;
DELETE FROM sample_workers;
CREATE TEMP TABLE s_runs AS SELECT * FROM runs;
CREATE TEMP TABLE s_cases AS SELECT * FROM cases;
CREATE TEMP TABLE s_samples AS SELECT * FROM samples;
$([ -n "$VALUES_SQL" ] && echo "CREATE TEMP TABLE s_values AS SELECT rowid AS rid, * FROM sample_values;
DELETE FROM sample_values;")
DELETE FROM samples;
DELETE FROM cases;
DELETE FROM runs;

INSERT INTO runs (id, uuid, label, kernel_release, kernel_version, boot_id,
	hostname, cpu_model, vcpus, mem_bytes, cmdline, thp, tmpfs, topology,
	tool_version, config, pid, started_at, ended_at, status,
	status_reason, virt, topology_shape, topology_xml, topology_xml_zlib,
	topology_xml_len, kernel_warnings)
SELECT g.g, printf('%08x-%04x-4%03x-8000-%012x', g.b, g.host, g.r, g.g),
	g.lbl, g.lbl, '#1 SMP PREEMPT_DYNAMIC',
	printf('%08x-b007-4000-a000-%012x', g.host, g.b),
	printf('lab%02d', g.host), s.cpu_model, s.vcpus, s.mem_bytes,
	'BOOT_IMAGE=/vmlinuz-' || g.lbl || ' ro console=ttyS0', s.thp, s.tmpfs,
	s.topology, s.tool_version, s.config, 1000 + g.g,
	strftime('%Y-%m-%dT%H:%M:%SZ', 1733011200 + g.slot * 43200 +
		 g.host * 60 + g.r * 1800, 'unixepoch'),
	strftime('%Y-%m-%dT%H:%M:%SZ', 1733011200 + g.slot * 43200 +
		 g.host * 60 + g.r * 1800 + 1500, 'unixepoch'),
	g.st, CASE g.st WHEN 'aborted' THEN 'interrupted by signal 15'
		WHEN 'failed' THEN 'a case failed' END,
	s.virt, s.topology_shape, s.topology_xml, s.topology_xml_zlib,
	s.topology_xml_len, CASE WHEN g.b % 41 = 3 THEN 1 ELSE 0 END
FROM gen g JOIN seed ON seed.k = g.g % (SELECT count(*) FROM seed)
JOIN s_runs s ON s.id = seed.sid;

INSERT INTO kernel_warnings (run_id, seq, at_us, prio, line)
SELECT id, 4242, 441867364 + id, 4,
	'WARNING: CPU: 3 PID: ' || pid || ' at mm/filemap.c:1532 ' ||
	'folio_unlock+0x40/0x50'
FROM runs WHERE kernel_warnings = 1;

-- an aborted run stopped after its second case
INSERT INTO cases (id, run_id, seq, workload, params, status, reason, info,
		   asked)
SELECT (g.g - 1) * nc.n + c.seq + 1, g.g, c.seq, c.workload, c.params,
	CASE WHEN g.st = 'aborted' AND c.seq >= 2 THEN 'aborted'
	     WHEN g.st = 'failed' AND c.seq = 3 THEN 'failed'
	     ELSE c.status END,
	CASE WHEN g.st = 'failed' AND c.seq = 3 THEN 'verify failed' END,
	c.info, c.asked
FROM gen g JOIN seed ON seed.k = g.g % (SELECT count(*) FROM seed)
JOIN s_cases c ON c.run_id = seed.sid, nc ORDER BY 1;

INSERT INTO samples (id, case_id, rep, warmup, valid, invalid_reason, cpu,
		     verify, taken_at, workers, noise, noisy$VCOLS)
SELECT (c.id - 1) * ns.n + s.rep + 1, c.id, s.rep, s.warmup,
	CASE WHEN c.id % 211 = 17 AND s.rep = 4 THEN 0 ELSE s.valid END,
	CASE WHEN c.id % 211 = 17 AND s.rep = 4 THEN 'migrated to CPU 1'
	     ELSE s.invalid_reason END,
	s.cpu, s.verify, r.started_at, s.workers, s.noise,
	CASE WHEN c.id % 97 = 11 AND s.rep = 3 THEN 1 ELSE s.noisy END$VSEL
FROM cases c JOIN runs r ON r.id = c.run_id
JOIN seed ON seed.k = r.id % (SELECT count(*) FROM seed)
JOIN s_cases sc ON sc.run_id = seed.sid AND sc.seq = c.seq
JOIN s_samples s ON s.case_id = sc.id, ns
WHERE c.status IN ('done', 'failed') ORDER BY 1;

-- Values: the seed's, times a factor of the boot (a few percent) and of
-- the sample (under one percent); the patch takes 7% less time (with the
-- samples above, from schema 15).
$VALUES_SQL

-- the outbox: sent, but for the last nights (pending) and a few failures
INSERT INTO uploads (run_id, target, state, attempts, last_error,
		     next_try, created_at, sent_at, reply)
SELECT id, 'https://squad.example.org/', CASE
	WHEN id > (SELECT max(id) FROM runs) - 48 THEN 'pending'
	WHEN id % 53 = 9 THEN 'failed' ELSE 'sent' END,
	CASE WHEN id % 53 = 9 THEN 3 ELSE 1 END,
	CASE WHEN id % 53 = 9 THEN 'HTTP 502: Bad Gateway' END, NULL,
	ended_at, CASE WHEN id % 53 = 9 OR
	id > (SELECT max(id) FROM runs) - 48 THEN NULL ELSE ended_at END,
	CASE WHEN id % 53 = 9 THEN NULL ELSE '201 Created' END
FROM runs WHERE status = 'complete';
COMMIT;
SQL

ok=$(sqlite3 "$TMP" "PRAGMA integrity_check; PRAGMA foreign_key_check;")
if [ "$ok" != ok ]; then
	echo "scale_db: $TMP is not consistent: $ok" >&2
	exit 1
fi
sqlite3 "$TMP" "VACUUM; PRAGMA journal_mode = WAL;" > /dev/null
# Each run's series (run_series, schema 10), as the runner keeps them and
# a lab's file migrated to schema 10 has them: a seed of schema 10 or later
# gives a file of that schema whose runs lack them (the SQL above wrote
# rows a run ends with none), which every reader would read from the
# samples.  A merge into a new file copies it and makes them.
if [ "$(sqlite3 "$TMP" "PRAGMA user_version")" -ge 10 ]; then
	rm -f "$TMP.m" "$TMP.m-wal" "$TMP.m-shm"
	"$BENCH" merge "$TMP.m" "$TMP" > /dev/null
	sqlite3 "$TMP.m" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null
	rm -f "$TMP" "$TMP-wal" "$TMP-shm"
	mv "$TMP.m" "$TMP"
fi
mv "$TMP" "$DB"
echo "$DB"
