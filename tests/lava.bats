#!/usr/bin/env bats
# LAVA: the job templates (lava/jobs), the test definition
# (lava/automated/linux/foliobench), the renderer (lava/render-jobs), the
# ramdisk (lava/ramdisk.sh) and the database's way home through the log
# (lava/lava-db), with lava-run (Debian's lava-dispatcher) booting a
# Debian 6.1 kernel on a QEMU device under TCG (no_kvm: /dev/kvm here is
# PVM).  The device dictionary is rendered from lava-server's qemu.jinja2,
# taken from its .deb (apt-get download, not installed).

load test_helper
bats_require_minimum_version 1.5.0

KCACHE=${FOLIOBENCH_KERNEL_CACHE:-/var/cache/foliobench/kernels}
ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)

# A Debian 6.1 kernel as a directory holding boot/ and lib/modules/: the
# newest .deb of the cache (fetched there when missing, as vm.bats does),
# as bench vm unpacked it, else unpacked here.
fb_kernel_dir() {
	local d deb
	deb=$(fb_kernels | tail -n 1) || return 1
	d=$(ls -d "$KCACHE"/unpacked/"$(basename "$deb" .deb)"-* 2>/dev/null |
		sort | tail -n 1)
	if [ -z "$d" ] || [ ! -d "$d/boot" ]; then
		d=$BATS_FILE_TMPDIR/kernel
		dpkg-deb -x "$deb" "$d" || return 1
	fi
	printf '%s\n' "$d"
}

setup_file() {
	export LAVA_SKIP= KDIR= KREL= DTDIR=
	case $FB_BIN in
	*/san/*) LAVA_SKIP="the sanitizer build: bench runs in a QEMU guest, where ASan's runtime of the host is not what is tested" ;;
	esac
	if [ -z "$LAVA_SKIP" ] && ! command -v lava-run > /dev/null; then
		LAVA_SKIP="lava-run is missing (Debian's lava-dispatcher, mk/deps.sh)"
	fi
	if [ -z "$LAVA_SKIP" ] && ! command -v qemu-system-x86_64 > /dev/null; then
		LAVA_SKIP="qemu-system-x86_64 is missing (Debian's qemu-system-x86)"
	fi
	if [ -z "$LAVA_SKIP" ]; then
		KDIR=$(fb_kernel_dir) ||
			LAVA_SKIP="no Debian 6.1 kernel package in $KCACHE, and apt-get download could not fetch one"
		KREL=$(ls "$KDIR/lib/modules" 2>/dev/null | head -n 1)
	fi
	if [ -z "$LAVA_SKIP" ]; then
		# lava-server's device-type templates, from its package
		DTDIR=$BATS_FILE_TMPDIR/lava-server/usr/share/lava-server/device-types
		(cd "$BATS_FILE_TMPDIR" && apt-get download lava-server > /dev/null 2>&1 &&
			dpkg-deb -x lava-server_*.deb lava-server) ||
			LAVA_SKIP="apt-get download lava-server failed (its qemu.jinja2 renders the device)"
	fi
}

setup() {
	[ -z "$LAVA_SKIP" ] || skip "$LAVA_SKIP"
	fb_setup
	# a guest cannot change the host's knobs
	FB_IGNORE_KNOBS=1
	export TMPDIR=$T/tmp
	mkdir -p "$TMPDIR"
	JOB_ID=$((90000 + $$ % 10000))
}

teardown() {
	# no QEMU, no temp dir, no dispatcher directory left on any path
	local left
	[ -z "$LAVA_SKIP" ] || return 0	# skipped: nothing was made
	left=$(ls -A "$TMPDIR" 2>/dev/null
	       pgrep -f "qemu-system-x86_64.*$T" 2>/dev/null
	       ls -d "/var/lib/lava/dispatcher/tmp/$JOB_ID" 2>/dev/null)
	if [ -n "$left" ]; then
		echo "left behind: $left" >&2
		return 1
	fi
}

# fb_context KERNEL_URL: $T/ctx.json for two labels A and B of that kernel
fb_context() {
	cat > "$T/ctx.json" <<JSON
{ "common": { "testdef_repo": "file://$T/repo", "config": "$T/suite.json",
              "bench": "$FB_BIN", "no_kvm": true, "smp": 1, "memory": 1024,
              "db_dir": "$T/direct" },
  "base": { "label": "A", "kernel_url": "$1", "ramdisk_url": "file://$T/rd.cpio.gz" },
  "patch": { "label": "B", "kernel_url": "$1", "ramdisk_url": "file://$T/rd.cpio.gz" } }
JSON
}

# fb_device JOB: $T/device.yaml, lava-server's qemu device rendered with
# the job's context, as the server renders it for each job
fb_device() {
	/usr/bin/python3 - "$DTDIR" "$1" "$T/device.yaml" <<'PY'
import sys, jinja2, yaml
dt, job, out = sys.argv[1:4]
ctx = yaml.safe_load(open(job))["context"]
env = jinja2.Environment(loader=jinja2.FileSystemLoader(dt))
t = env.from_string("{% extends 'qemu.jinja2' %}\n")
open(out, "w").write(t.render(**ctx))
PY
}

# fb_results: the foliobench definition's results of lava-run's log
# $T/lava.out, "CASE RESULT MEASUREMENT UNITS" a line
fb_results() {
	/usr/bin/python3 - "$T/lava.out" <<'PY'
import sys, yaml
for line in open(sys.argv[1]):
    if '"lvl": "results"' not in line:
        continue
    m = yaml.safe_load(line)["msg"]
    if m.get("definition") == "0_foliobench":
        print(m["case"], m["result"], m.get("measurement", "-"),
              m.get("units", "-"))
PY
}

@test "bench plan --remaining lists the boots still to go, ABAB then BAAB" {
	run "$BENCH" plan A B --db "$T/none.db" --remaining
	assert_success
	assert_output "$(printf '%s\n' A B A B B A A B)"
	run "$BENCH" plan A B --db "$T/none.db" --remaining --boots 1
	assert_output "$(printf '%s\n' A B)"
}

@test "render-jobs writes a job a boot in the plan's order, each valid to LAVA" {
	fb_context "file:///boot/vmlinuz"
	run "$ROOT/lava/render-jobs" --bench "$BENCH" -o "$T/jobs" "$T/ctx.json"
	assert_success
	assert_output "$(for j in 01-A 02-B 03-A 04-B 05-B 06-A 07-A 08-B; do echo "$T/jobs/$j.yaml"; done)"
	cat > "$T/dev.json" <<JSON
{ "common": { "device_type": "x86", "testdef_repo": "file://$T/repo",
              "nfsrootfs_url": "file://$T/rootfs.tar.xz", "tags": ["32-cpus"] },
  "base": { "label": "A", "kernel_url": "file:///a/bzImage" },
  "patch": { "label": "B", "kernel_url": "file:///b/bzImage" } }
JSON
	run "$ROOT/lava/render-jobs" --bench "$BENCH" --boots 1 \
		--template "$ROOT/lava/jobs/device.yaml.j2" -o "$T/dev" "$T/dev.json"
	assert_success
	# LAVA's own job schema (lava-common), strict: no key it does not know
	run /usr/bin/python3 -c '
import sys, yaml
from lava_common.schemas import validate
for f in sys.argv[1:]:
    validate(yaml.safe_load(open(f)), strict=True)
print(len(sys.argv) - 1, "valid")' "$T"/jobs/*.yaml "$T"/dev/*.yaml
	assert_success
	assert_output "10 valid"
}

@test "lava-db refuses a log with no database" {
	echo '{"dt": "x", "lvl": "target", "msg": "no database here"}' > "$T/log"
	run "$ROOT/lava/lava-db" "$T/log" "$T/out"
	assert_failure 65
	assert_output "lava-db: $T/log: no database in the log"
}

@test "a LAVA job on a QEMU device reports each case and brings its database home" {
	"$ROOT/lava/ramdisk.sh" "$KDIR" "$KREL" "$T/rd.cpio.gz"
	# the test definition as a git repository of the working tree's files
	mkdir -p "$T/repo" "$T/direct"
	cp -r "$ROOT/lava" "$T/repo/"
	git -C "$T/repo" init -q
	git -C "$T/repo" add -A
	git -C "$T/repo" -c user.email=t@t -c user.name=t commit -qm lava
	# two cases that verify, and one whose PMD folios a huge=never tmpfs
	# (the guest's /run) cannot give: every sample invalid
	cat > "$T/suite.json" <<'JSON'
{ "runs": 2, "warmup": 0,
  "suite": [ { "workload": "shmem-remove", "size": "16M", "op": ["ftruncate", "unlink"] },
             { "workload": "shmem-remove", "size": "16M", "op": "unlink", "folio": "pmd", "dir": "/run" } ] }
JSON
	fb_context "file://$KDIR/boot/vmlinuz-$KREL"
	"$ROOT/lava/render-jobs" --bench "$BENCH" --boots 1 -o "$T/jobs" "$T/ctx.json"
	fb_device "$T/jobs/01-A.yaml"
	# lava-run exits 0 also when the test failed: the results say
	run timeout 900 lava-run --job-id "$JOB_ID" --output-dir "$T/out" \
		--device "$T/device.yaml" "$T/jobs/01-A.yaml"
	printf '%s\n' "$output" > "$T/lava.out"
	assert_success
	assert_output --partial '"msg": "Job finished correctly"'
	fb_results | sed 's/^/# /' >&3
	run fb_results
	assert_output --regexp "^foliobench-root pass - -
foliobench-run pass - -
shmem-remove_op-ftruncate_folio-4k_dir-_dev_shm\.wall pass [0-9.]+ ns
shmem-remove_op-unlink_folio-4k_dir-_dev_shm\.wall pass [0-9.]+ ns
shmem-remove_op-unlink_folio-pmd_dir-_run\.wall fail - -\$"
	# the database from the log, merged, is the run the guest stored
	run "$ROOT/lava/lava-db" "$T/lava.out" "$T/got"
	assert_success
	assert_output "$T/got/run-1.db"
	"$BENCH" merge "$T/from-log.db" "$T/got/run-1.db"
	"$BENCH" merge "$T/direct.db" "$T/direct/run.db"
	uuid=$(sqlite3 "$T/from-log.db" "select uuid from runs")
	"$BENCH" export --run "$uuid" --db "$T/from-log.db" --format run-json > "$T/a.json"
	"$BENCH" export --run "$uuid" --db "$T/direct.db" --format run-json > "$T/b.json"
	run sqlite3 "$T/from-log.db" "select count(*) from cases; select count(*) from samples; select count(*) from sample_values"
	assert_output "$(printf '%s\n' 3 6 24)"
	cmp "$T/a.json" "$T/b.json"
}
