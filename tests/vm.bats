#!/usr/bin/env bats
# bench vm and bench lab: Debian's 6.1 kernels booted in QEMU guests (TCG
# where KVM is not hardware virtualisation), the host's root read-only,
# runs brought home.  Needs qemu-system-x86 and busybox-static (mk/deps.sh)
# and two linux-image-6.1.0-N-amd64-unsigned packages, taken from the cache
# (FOLIOBENCH_KERNEL_CACHE, default /var/cache/foliobench/kernels) or
# fetched there with apt-get download.  Boots cost minutes under TCG, so
# only the SAN=0 pass of `make test` runs them.
#
# FB_VM_BATS="tests/workers.bats tests/shadow_truncate.bats" also runs those
# bats files inside the 32-vCPU guest (the kernel-compatibility checks of
# issue 21); FB_VM_SMP=4 makes that guest smaller, FB_VM_KERNEL=KERNEL
# boots another kernel for it (bookworm-backports' 6.12 .deb, say).

load test_helper
bats_require_minimum_version 1.5.0

KCACHE=${FOLIOBENCH_KERNEL_CACHE:-/var/cache/foliobench/kernels}
ROOT=$BATS_TEST_DIRNAME/..

setup_file() {
	export FB_VM_SKIP=
	case $FB_BIN in
	*/san/*) FB_VM_SKIP="the sanitizer build: guests boot only in the SAN=0 pass (each boot takes minutes under TCG)" ;;
	esac
	if [ -z "$FB_VM_SKIP" ] && ! command -v qemu-system-x86_64 > /dev/null; then
		FB_VM_SKIP="qemu-system-x86_64 is missing (Debian's qemu-system-x86)"
	fi
	if [ -z "$FB_VM_SKIP" ] && [ ! -x /bin/busybox ]; then
		FB_VM_SKIP="/bin/busybox is missing (Debian's busybox-static)"
	fi
	if [ -z "$FB_VM_SKIP" ]; then
		K=$(fb_kernels) || FB_VM_SKIP="no two Debian 6.1 kernel packages in $KCACHE, and apt-get download could not fetch them"
		export K_OLD=${K%%$'\n'*} K_NEW=${K##*$'\n'}
	fi
	export VMDIR=$BATS_FILE_TMPDIR
}

setup() {
	[ -z "$FB_VM_SKIP" ] || skip "$FB_VM_SKIP"
	fb_setup
	# a guest cannot change the host's knobs; what changes them here is
	# another test run on this machine, not ours to judge
	FB_IGNORE_KNOBS=1
	export TMPDIR=$T/tmp
	mkdir -p "$TMPDIR"
}

teardown() {
	# every guest, its temp dir and its QEMU gone on every path
	local left
	left=$(ls -A "$TMPDIR" 2>/dev/null; pgrep -f "qemu-system-x86_64.*$TMPDIR")
	if [ -n "$left" ]; then
		echo "left behind: $left" >&2
		return 1
	fi
	# a guest has its own /dev/shm, mounts and cgroups: the host's are
	# judged only after a test that ran bench on the host (FB_HOST_RUN),
	# not for what other runs on this machine have there
	[ -z "$FB_HOST_RUN" ] || fb_teardown
}

# the release of a .deb: linux-image-6.1.0-57-amd64-unsigned_... -> 6.1.0-57-amd64
rel() { basename "$1" | sed 's/^linux-image-//; s/-unsigned_.*//'; }

@test "a 32-vCPU guest on 2 sockets: check shows its topology and scatter over sockets, then the small suite runs" {
	local t0 t1 try
	t0=$(date +%s)
	for try in 1 2; do
		run "$BENCH" vm "$K_NEW" --smp 32 --sockets 2 --threads-per-core 1 \
			--numa --mem 4G --cgroup v2 --db "$VMDIR/suite.db" --timeout 480 \
			--sh "\"\$FB_BIN\" check --config $ROOT/tests/fixtures/vm/check.json &&
			      \"\$FB_BIN\" run --config $ROOT/tests/fixtures/vm/suite.json --db /var/tmp/fbvm/results.db --quiet"
		# Debian's QEMU 7.2 itself, under TCG with 32 vCPUs, now and
		# then dies of SIGSEGV early in the boot (seen once in about
		# 15 boots); and the 32 vCPU threads on this host's 2 CPUs now
		# and then starve the guest's kernel (soft lockups and RCU
		# stalls on every CPU, the guest past its timeout: seen once in
		# 5 CI runs, at 0.8 CPUs' worth for 32 workers, 119-143 s a boot
		# otherwise): that boot is made again, once, and said
		[ "$status" -eq 70 ] && [ "$try" = 1 ] || break
		if [[ $output == *"QEMU exited (signal "* ]]; then
			echo "# QEMU crashed ($(grep -o 'QEMU exited (signal [0-9]*)' <<< "$output")): booting again" >&3
		elif [[ $output == *"soft lockup - CPU#"* && $output == *"ran past --timeout"* ]]; then
			echo "# the guest's kernel starved ($(grep -c 'soft lockup - CPU#' <<< "$output") soft lockups) and ran past its timeout: booting again" >&3
		else
			break
		fi
	done
	t1=$(date +%s)
	printf '%s\n' "$output" > "$VMDIR/suite.out"
	echo "# 32-vCPU TCG boot + check + suite: $((t1 - t0)) s; load $(cut -d' ' -f1-3 /proc/loadavg)" >&3
	assert_success
	assert_output --partial "topology: 2 packages, 2 NUMA nodes"
	assert_output --regexp "topology: 2 packages, [^;]*32 PUs"
	assert_output --partial "4 workers: PUs 0,16,1,17"
	assert_output --partial "bench: vm: run "
	assert_output --partial "brought home into $VMDIR/suite.db"
}

# the suite's database, from the boot above
suite_db() {
	[ -s "$VMDIR/suite.db" ] || skip "the 32-vCPU boot above brought nothing home"
	DB=$VMDIR/suite.db
}

@test "the guest's run keeps the guest's boot, kernel and topology, and how QEMU made it" {
	suite_db
	run q "SELECT label, kernel_release, vcpus, hostname, status FROM runs"
	assert_output "$(rel "$K_NEW")|$(rel "$K_NEW")|32|foliobench-vm|complete"
	[ "$(q 'SELECT boot_id FROM runs')" != "$(cat /proc/sys/kernel/random/boot_id)" ]
	run q "SELECT accel, shape, qemu_version LIKE 'QEMU emulator version %', json_extract(qemu_args, '\$[0]'), guest_cmdline FROM run_vm"
	# lpj=: TCG's APs skip their delay-loop calibration (runner/vm_tcg.c)
	assert_output --regexp "^tcg\|smp=32 sockets=2 threads=1 numa=on mem=4G cgroup=v2\|1\|qemu-system-x86_64\|console=ttyS0 quiet panic=-1 rdinit=/init fb.cgroup=v2 cgroup_no_v1=all lpj=[1-9][0-9]*\$"
	# under TCG the kernel is decompressed on the host and entered
	# through PVH
	run q "SELECT kernel_image FROM run_vm"
	# the cache keys a .deb by its content: NAME-SHA16
	assert_output --regexp "^$KCACHE/unpacked/$(basename "${K_NEW%.deb}")-[0-9a-f]{16}/boot/vmlinuz-$(rel "$K_NEW") \(its vmlinux, decompressed here, entered through PVH\)\$"
	run q "SELECT accel_why FROM run_vm"
	assert_output --regexp "^TCG: "
	run q "SELECT boot_s > 1, first_sample_s > boot_s, wall_s > first_sample_s, console LIKE '%foliobench-vm: command start%', kmsg LIKE '%Linux version 6.1.0%' FROM run_vm"
	assert_output "1|1|1|1|1"
	echo "# boot: $(q 'SELECT printf("command started %.1f s after QEMU started, first sample %.1f s after QEMU started, QEMU %.1f s", boot_s, first_sample_s, wall_s) FROM run_vm')" >&3
}

@test "in the guest: shmem-remove with 1 to 32 threads, seq-read and small-truncate: every sample valid, every worker on its PU" {
	suite_db
	run q "SELECT c.workload, c.params, s.invalid_reason FROM samples s JOIN cases c ON c.id = s.case_id WHERE s.valid = 0 AND c.workload != 'shadow-truncate'"
	assert_output ""
	run q "SELECT count(*) FROM cases WHERE workload = 'shmem-remove' AND status = 'done'"
	assert_output 6
	run q "SELECT group_concat(DISTINCT workload) FROM cases WHERE status = 'done' AND workload IN ('seq-read', 'small-truncate')"
	assert_output "seq-read,small-truncate"
	run q "SELECT count(*), sum(w.pu_checked = w.pu), count(DISTINCT w.pu) FROM sample_workers w JOIN samples s ON s.id = w.sample_id JOIN cases c ON c.id = s.case_id WHERE c.workload = 'shmem-remove' AND json_extract(c.params, '\$.threads') = '32'"
	assert_output "32|32|32"
	# scatter: 4 workers on 0,16,1,17
	run q "SELECT group_concat(pu) FROM (SELECT w.pu FROM sample_workers w JOIN samples s ON s.id = w.sample_id JOIN cases c ON c.id = s.case_id WHERE c.workload = 'shmem-remove' AND json_extract(c.params, '\$.threads') = '4' AND s.rep = 0 ORDER BY w.worker)"
	assert_output "0,16,1,17"
}

@test "in the guest: shadow-truncate at 1G on cgroup v2 gives valid samples (compat: 6.1 has no cachestat)" {
	suite_db
	run q "SELECT count(*), sum(s.valid) FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.workload = 'shadow-truncate'"
	echo "# shadow-truncate samples (count|valid): $output; $(q "SELECT group_concat(DISTINCT s.invalid_reason) FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.workload = 'shadow-truncate' AND s.valid = 0")" >&3
	[ "${output%%|*}" -ge 1 ]
	if [ "$output" != "${output%%|*}|${output%%|*}" ] &&
	   q "SELECT invalid_reason FROM samples" | grep -q "estimated from /proc/vmstat"; then
		# issue 21's compat helper makes these valid (coverage bounded
		# without cachestat); until that lands this is the known state
		skip "compat (issue 21): shadow entries on 6.1 (no cachestat) are only estimated: $output valid"
	fi
	assert_output "${output%%|*}|${output%%|*}"
}

@test "bench lab of two Debian 6.1 kernels, 2 boots each: 4 runs of 4 boots, alternated, and a compare table" {
	local a b t0 t1
	a=$(rel "$K_OLD") b=$(rel "$K_NEW")
	t0=$(date +%s)
	run "$BENCH" lab "$K_OLD" "$K_NEW" --boots 2 --smp 2 --sockets 2 \
		--mem 1G --db "$DB" --timeout 600 \
		-- run --config "$ROOT/tests/fixtures/vm/lab.json" --quiet
	t1=$(date +%s)
	echo "# bench lab, 4 boots of 2 vCPUs: $((t1 - t0)) s; load $(cut -d' ' -f1-3 /proc/loadavg)" >&3
	printf '%s\n' "$output" | sed -n '/^workload\|^before\|^Median\|^shmem-remove/,$p' | sed 's/^/# /' >&3
	assert_success
	assert_output --partial "lab: boot 1: $K_OLD (label $a)"
	assert_output --partial "lab: boot 4: $K_NEW (label $b)"
	assert_output --partial "lab: both kernels have their 2 boots"
	assert_output --regexp "shmem-remove +op=unlink size=16M"
	run q "SELECT count(*), count(DISTINCT boot_id) FROM runs WHERE status = 'complete'"
	assert_output "4|4"
	run q "SELECT group_concat(label, ' ') FROM (SELECT label FROM runs ORDER BY started_at, id)"
	assert_output "$a $b $a $b"
	run q "SELECT count(*) FROM run_vm WHERE accel = 'tcg' AND shape = 'smp=2 sockets=2 threads=1 numa=off mem=1G cgroup=v2'"
	assert_output 4
	cp "$DB" "$VMDIR/lab.db"
}

@test "compare refuses TCG guests' runs beside the host's own, always" {
	[ -s "$VMDIR/lab.db" ] || skip "the lab above brought nothing home"
	local a
	a=$(rel "$K_OLD")
	cp "$VMDIR/lab.db" "$DB"
	FB_HOST_RUN=1
	fb_config '[ { "workload": "shmem-remove", "op": "unlink", "size": "16M" } ]'
	run "$BENCH" run --config "$T/config.json" --label "$a" --quiet
	assert_success
	run "$BENCH" compare --db "$DB" "$a" "$(rel "$K_NEW")"
	assert_failure 69
	assert_output --partial "bench: refusing to compare $a with $(rel "$K_NEW"): runs under QEMU's TCG emulator (functional checks, not kernel measurements) beside runs that are not: $a has 'not a bench vm guest' | 'tcg smp=2 sockets=2 threads=1 numa=off mem=1G cgroup=v2'; "
}

@test "compare refuses a TCG guest's runs beside a KVM guest's, and says TCG in its method sentence" {
	[ -s "$VMDIR/lab.db" ] || skip "the lab above brought nothing home"
	local a b
	a=$(rel "$K_OLD") b=$(rel "$K_NEW")
	cp "$VMDIR/lab.db" "$DB"
	# both sides TCG: compared, and the method sentence says so
	run --separate-stderr "$BENCH" compare --db "$DB" --format json "$a" "$b"
	assert_success
	# nothing but, where a guest's call waited on its run queue (a busy
	# host), the count of samples flagged noisy
	[ -z "$stderr" ] || [[ $stderr == "bench: warning: samples flagged noisy "* && $stderr != *$'\n'* ]]
	run python3 -c 'import json, sys; print(json.load(sys.stdin)["method"])' <<< "$output"
	assert_output --regexp ", in a 2 vCPU VM under QEMU's TCG emulator \(functional checks, not kernel measurements\)[;.]"
	# the base's guests as if KVM had run them (the boots are real; only
	# the recorded accelerator of one side is changed)
	q "UPDATE run_vm SET accel = 'kvm' WHERE run_id IN (SELECT id FROM runs WHERE label = '$a')"
	run "$BENCH" compare --db "$DB" "$a" "$b"
	assert_failure 69
	assert_output --partial "bench: refusing to compare $a with $b: runs under QEMU's TCG emulator (functional checks, not kernel measurements) beside runs that are not: $a has 'kvm smp=2 sockets=2 threads=1 numa=off mem=1G cgroup=v2'; $b has 'tcg smp=2 sockets=2 threads=1 numa=off mem=1G cgroup=v2'"
	run "$BENCH" compare --db "$DB" --strict "$a" "$b"
	assert_failure 69
}

@test "compare --strict refuses two sides whose VM shape differs, and warns without it" {
	[ -s "$VMDIR/lab.db" ] || skip "the lab above brought nothing home"
	local a b
	a=$(rel "$K_OLD") b=$(rel "$K_NEW")
	cp "$VMDIR/lab.db" "$DB"
	# the base's guests as if booted with 8 vCPUs (the boots above are
	# real; only the recorded shape of one side is changed)
	q "UPDATE run_vm SET shape = replace(shape, 'smp=2', 'smp=8') WHERE run_id IN (SELECT id FROM runs WHERE label = '$a')"
	run "$BENCH" compare --db "$DB" "$a" "$b"
	assert_success
	assert_output --partial "bench: warning: VM shape differs: $a has 'tcg smp=8 sockets=2 threads=1 numa=off mem=1G cgroup=v2', $b has 'tcg smp=2 sockets=2 threads=1 numa=off mem=1G cgroup=v2'"
	run "$BENCH" compare --db "$DB" --strict "$a" "$b"
	assert_failure 69
	assert_output --partial "besides the kernel (--strict)"
}

@test "a guest past --timeout is stopped: exit 70, nothing brought home, nothing left" {
	run "$BENCH" vm "$K_OLD" --smp 2 --mem 1G --db "$DB" --timeout 3s
	assert_failure 70
	assert_output --partial "the guest ran past --timeout 3 s and was stopped"
	[ ! -e "$DB" ]
}

@test "bench lab retries a failed boot once and says so, then stops" {
	run "$BENCH" lab "$K_OLD" "$K_NEW" --boots 1 --smp 2 --mem 1G \
		--db "$DB" --timeout 2s
	assert_failure 70
	assert_output --partial "lab: boot 1: $K_OLD (label $(rel "$K_OLD"))"$'\n'
	assert_output --partial "bench: warning: lab: boot 1 of $(rel "$K_OLD") failed: the guest ran past --timeout 2 s and was stopped"
	assert_output --partial "lab: boot 1: $K_OLD (label $(rel "$K_OLD")), again"
	assert_output --partial "bench: lab: $(rel "$K_OLD") failed twice; stopping"
	refute_output --partial "lab: boot 2"
	[ ! -e "$DB" ]
}

@test "SIGTERM stops the guest: exit 143, QEMU and the temp dir gone" {
	"$BENCH" vm "$K_OLD" --smp 2 --mem 1G --db "$DB" > "$T/out" 2>&1 &
	local pid=$! i
	for i in $(seq 60); do
		pgrep -f "qemu-system-x86_64.*$TMPDIR" > /dev/null && break
		sleep 0.5
	done
	pgrep -f "qemu-system-x86_64.*$TMPDIR" > /dev/null
	sleep 1
	kill -TERM $pid
	local st=0
	wait $pid || st=$?
	[ "$st" -eq 143 ]
	grep -q "interrupted: the guest was stopped" "$T/out"
}

@test "a kernel that is none of release, tree or .deb: exit 66 naming it" {
	run "$BENCH" vm 9.9.9-none --db "$DB"
	assert_failure 66
	assert_output "bench: vm: 9.9.9-none: kernel '9.9.9-none': not an installed release (no /boot/vmlinuz-9.9.9-none), a kernel build tree (arch/x86/boot/bzImage) or a linux-image .deb file"
	echo "not a package" > "$T/bad.deb"
	FOLIOBENCH_KERNEL_CACHE=$T/cache run "$BENCH" vm "$T/bad.deb" --db "$DB"
	assert_failure 66
	assert_output --partial "cannot unpack $T/bad.deb with dpkg-deb"
	[ -z "$(ls -A "$T/cache/unpacked")" ]
}

@test "a kernel build tree boots: its bzImage, its release, its modules from INSTALL_MOD_PATH; /var/tmp on the scratch disk" {
	local d r
	d=$(ls -d "$KCACHE/unpacked/$(basename "${K_OLD%.deb}")"-* | head -n 1)
	[ -d "$d" ] || skip "the lab above did not unpack $K_OLD"
	r=$(rel "$K_OLD")
	mkdir -p "$T/tree/arch/x86/boot" "$T/tree/include/config" "$T/tree/lib/modules"
	cp "$d/boot/vmlinuz-$r" "$T/tree/arch/x86/boot/bzImage"
	echo "$r" > "$T/tree/include/config/kernel.release"
	ln -s "$d/lib/modules/$r" "$T/tree/lib/modules/$r"
	run "$BENCH" vm "$T/tree" --smp 2 --mem 1G --db "$DB" --sh 'uname -r; nproc; grep -c "^fbout /run/fbvm 9p " /proc/mounts; grep -c "^overlay / overlay" /proc/mounts; grep -c "^/dev/vda /var/tmp ext4 " /proc/mounts'
	assert_success
	# the root over 9p under an overlay; /var/tmp (the disk scratch) an
	# ext4 on the scratch disk
	assert_output --partial "$r"$'\n'"2"$'\n'"1"$'\n'"1"$'\n'"1"
}

@test "usage errors: a shape QEMU cannot make, --db after --, two commands" {
	run "$BENCH" vm "$K_OLD" --smp 30 --sockets 4 --db "$DB"
	assert_failure 64
	assert_output "bench: vm: $K_OLD: --smp 30 is not a whole number of sockets (4) times threads per core (1)"
	run "$BENCH" vm "$K_OLD" --db "$DB" -- run --db x.db
	assert_failure 64
	assert_output "bench: the guest's run goes home into the --db of bench vm, not one given after --"
	run "$BENCH" vm "$K_OLD" --sh true -- check
	assert_failure 64
	run "$BENCH" vm "$K_OLD" --cgroup v3
	assert_failure 64
	assert_output "bench: --cgroup: 'v3' is not v1 or v2"
	run "$BENCH" lab "$K_OLD" "$K_OLD"
	assert_failure 64
	assert_output "bench: lab: both kernels are $(rel "$K_OLD"): name them with --labels BASE,PATCH"
	if [ -e /sys/module/kvm_pvm ]; then
		run -69 "$BENCH" vm "$K_OLD" --accel kvm --db "$DB"
		assert_output "bench: vm: $K_OLD: --accel kvm: /dev/kvm here is PVM (the kvm_pvm module: no hardware virtualisation), under which a stock kernel stalls; use --accel tcg or icount"
	fi
	if [ ! -e /dev/kvm ]; then
		run "$BENCH" vm "$K_OLD" --accel kvm --db "$DB"
		assert_failure 69
		assert_output "bench: vm: $K_OLD: --accel kvm: /dev/kvm cannot be opened: No such file or directory"
	fi
}

@test "bats files inside the 32-vCPU guest (FB_VM_BATS)" {
	[ -n "$FB_VM_BATS" ] || skip "FB_VM_BATS names no bats files to run in the guest"
	run "$BENCH" vm "${FB_VM_KERNEL:-$K_NEW}" --smp "${FB_VM_SMP:-32}" --sockets 2 --mem 8G --cgroup v2 \
		--db "$DB" --timeout 3000 --sh "cd $ROOT && bats --tap $FB_VM_BATS"
	printf '%s\n' "$output" | sed 's/^/# /' >&3
	assert_success
}

@test "in a cgroup v2 guest: shadow_truncate.bats's cgroup v2 test runs, not skips" {
	# the twin of its cgroup v1 test, which this host (cgroup v1) runs
	run "$BENCH" vm "$K_NEW" --smp 4 --mem 4G --cgroup v2 --db "$DB" \
		--timeout 900 --sh "cd $ROOT && bats --tap -f 'on cgroup v2' tests/shadow_truncate.bats"
	printf '%s\n' "$output" | sed 's/^/# /' >&3
	assert_success
	assert_line --partial "ok 1 reclaim=memory.reclaim runs on cgroup v2, and limit uses memory.max"
	refute_output --partial "# skip"
}

@test "a checkout under /tmp, run from a directory there, with a kernel cache that does not exist yet: the guest sees them all" {
	# the tree as a clone in /tmp has it: bench under build/, the
	# config example beside it; a config named relative to the working
	# directory, also in /tmp; the .deb unpacked into a cache whose
	# parents are made
	local tree=$T/clone cwd=$T/work
	case $T in /tmp/*|/var/tmp/*) ;; *) tree=/tmp/fbtest-clone.$$ ;; esac
	fb_after rm -rf /tmp/fbtest-clone.$$
	mkdir -p "$tree/build" "$cwd"
	cp "$BENCH" "$tree/build/bench"
	cp "$ROOT/config.example.json" "$tree/"
	cat > "$cwd/tiny.json" <<'JSON'
{ "runs": 1, "warmup": 0,
  "suite": [ { "workload": "shmem-remove", "op": "unlink", "size": "16M" } ] }
JSON
	cd "$cwd"
	FOLIOBENCH_KERNEL_CACHE=$T/fresh/a/b run "$tree/build/bench" vm "$K_OLD" \
		--smp 1 --sockets 1 --mem 1G --db "$T/home.db" --timeout 900 \
		-- run --config tiny.json
	assert_success
	assert_output --partial "brought home into $T/home.db"
	[ -d "$T/fresh/a/b/unpacked" ]
	[ "$(sqlite3 "$T/home.db" "SELECT count(*) FROM samples")" -ge 1 ]
	# what the guest saw: its bench and the config from this host's /tmp
	sqlite3 "$T/home.db" "SELECT command FROM run_vm" | grep -qF "$tree/build/bench"
	sqlite3 "$T/home.db" "SELECT qemu_args FROM run_vm" | grep -qF "path=$tree,"
}

@test "the host's --db is checked before any boot: empty, :memory:, no directory, a directory, a newer schema, another program's file" {
	local t0 t1
	sqlite3 "$T/foreign.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1)"
	sqlite3 "$T/newer.db" "PRAGMA user_version = 999; CREATE TABLE runs(x)"
	t0=$(date +%s)
	run -64 "$BENCH" vm "$K_OLD" --db ''
	assert_output --partial "--db '':"
	run -64 "$BENCH" vm "$K_OLD" --db :memory:
	assert_output --partial "--db ':memory:':"
	run -74 "$BENCH" vm "$K_OLD" --db "$T/no/such/dir/r.db"
	assert_output --partial "its directory $T/no/such/dir does not exist"
	run -74 "$BENCH" vm "$K_OLD" --db "$T"
	assert_output --partial "--db $T: a directory, not a database file"
	run -74 "$BENCH" vm "$K_OLD" --db "$T/foreign.db"
	assert_output --partial "--db $T/foreign.db:"
	run -74 "$BENCH" vm "$K_OLD" --db "$T/newer.db"
	assert_output --partial "--db $T/newer.db:"
	refute_output --partial "booting"
	t1=$(date +%s)
	# none of them booted (a boot is minutes under TCG)
	[ $((t1 - t0)) -lt 60 ]
	[ "$(sqlite3 "$T/foreign.db" "SELECT count(*) FROM t")" = 1 ]
}

@test "a guest's run that cannot be brought home is kept, and where is said: bench merge brings it home later" {
	cat > "$T/tiny.json" <<'JSON'
{ "runs": 1, "warmup": 0,
  "suite": [ { "workload": "shmem-remove", "op": "unlink", "size": "16M" } ] }
JSON
	"$BENCH" vm "$K_OLD" --smp 1 --sockets 1 --mem 1G --db "$T/home.db" --timeout 900 \
		-- run --config "$T/tiny.json" > "$T/out" 2>&1 &
	local pid=$! i
	for i in $(seq 600); do
		grep -q "booting" "$T/out" && break
		sleep 0.5
	done
	# the home goes away while the guest runs: a directory in its place
	rm -f "$T/home.db" && mkdir "$T/home.db"
	local st=0
	wait "$pid" || st=$?
	[ "$st" -eq 74 ]
	run cat "$T/out"
	assert_output --partial "cannot merge the guest's runs into $T/home.db"
	refute_output --partial "brought home into"
	local kept
	kept=$(sed -n "s/.*the guest's results are kept in \([^:]*\): .*/\1/p" "$T/out")
	[ -f "$kept" ]
	rmdir "$T/home.db"
	run -0 "$BENCH" merge "$T/home.db" "$kept"
	[ "$(sqlite3 "$T/home.db" "SELECT count(*) FROM run_vm")" -ge 1 ]
	rm -rf "$(dirname "$(dirname "$kept")")"
}

@test "a bench vm killed with SIGKILL leaves its temp dir; the next bench vm removes it, never a live one's or kept results" {
	local boot
	boot=$(cat /proc/sys/kernel/random/boot_id)
	mkdir -p "$TMPDIR/foliobench-vm.dead01/out" "$TMPDIR/foliobench-vm.live01/out" \
		"$TMPDIR/foliobench-vm.kept01/out" "$TMPDIR/foliobench-vm.other1/out"
	truncate -s 1G "$TMPDIR/foliobench-vm.dead01/scratch.img"
	echo "999999 $boot" > "$TMPDIR/foliobench-vm.dead01/owner"
	echo "$$ $boot" > "$TMPDIR/foliobench-vm.live01/owner"
	echo "999999 $boot" > "$TMPDIR/foliobench-vm.kept01/owner"
	touch "$TMPDIR/foliobench-vm.kept01/out/kept" "$TMPDIR/foliobench-vm.kept01/out/results.db"
	# the pid of a process of this boot, recorded in another boot
	echo "$$ 00000000-0000-0000-0000-000000000000" > "$TMPDIR/foliobench-vm.other1/owner"
	# a guest stopped at once: what matters is what it found on its way
	run "$BENCH" vm "$K_OLD" --smp 1 --sockets 1 --mem 1G --db "$DB" --timeout 1s
	assert_output --partial "removing $TMPDIR/foliobench-vm.dead01, the temp dir of a bench vm (pid 999999) that died without its cleanup"
	assert_output --partial "removing $TMPDIR/foliobench-vm.other1"
	[ ! -e "$TMPDIR/foliobench-vm.dead01" ]
	[ ! -e "$TMPDIR/foliobench-vm.other1" ]
	[ -d "$TMPDIR/foliobench-vm.live01" ]
	[ -f "$TMPDIR/foliobench-vm.kept01/out/results.db" ]
	rm -rf "$TMPDIR/foliobench-vm.live01" "$TMPDIR/foliobench-vm.kept01"
}

@test "counting mode: two boots count the same unlink to within 3%, stored as instructions, compared in instructions" {
	local i a b
	cat > "$T/tiny.json" <<'JSON'
{ "runs": 5, "warmup": 1,
  "suite": [ { "workload": "shmem-remove", "op": "unlink", "size": "256M" } ] }
JSON
	for i in a b; do
		run "$BENCH" vm "$K_OLD" --accel icount --smp 1 --sockets 1 --mem 1G \
			--db "$T/c.db" --timeout 900 -- run --config "$T/tiny.json" --label "count-$i"
		assert_success
		# the guest's own lines say what it counted
		assert_output --regexp "wall median [0-9.]+ M instr"
		assert_output --partial "TCG counting instructions (-icount shift=0)"
	done
	run sqlite3 "$T/c.db" "SELECT DISTINCT accel, clock, icount_shift FROM run_vm"
	assert_output "tcg|instructions|0"
	run sqlite3 "$T/c.db" "SELECT qemu_args FROM run_vm LIMIT 1"
	assert_output --partial '"-icount", "shift=0,sleep=off"'
	assert_output --partial '"tcg,thread=single"'
	# the image booted, by its hash
	local img
	img=$(sqlite3 "$T/c.db" "SELECT kernel_sha256 FROM run_vm LIMIT 1")
	[ ${#img} -eq 64 ]
	# the median of each boot, within 3% of the other's.  Not 1%: a call
	# of 120-135 M instructions meets the guest's own background work, in
	# steps of 1.4-2 M; the boot medians of a 4K unlink of 256M spread
	# with a standard deviation of 0.4-0.6% (8 boots in control-null.db,
	# docs/control.md), so two boots differ by 1.1% now and then (CI,
	# 2026-12-06: 134.05 and 135.58 M), and 3% is 3.5 standard deviations
	# of their difference.  Timed, the same call varies 5-10% a sample.
	walls() {
		sqlite3 "$T/c.db" "SELECT v.value FROM sample_values v JOIN samples s ON s.id = v.sample_id JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id WHERE v.metric = 'wall' AND s.warmup = 0 AND r.label = '$1' ORDER BY v.value"
	}
	a=$(walls count-a | sed -n 3p)
	b=$(walls count-b | sed -n 3p)
	echo "# counted unlink of 256M, the median of 5 a boot: $a and $b instructions (each: $(walls count-a | tr '\n' ' '); $(walls count-b | tr '\n' ' '))" >&3
	awk -v a="$a" -v b="$b" 'BEGIN { d = a / b - 1; if (d < 0) d = -d; exit !(a > 1e6 && d < 0.03) }'
	run -0 "$BENCH" compare --db "$T/c.db" count-a count-b
	assert_output --partial "instr"
	refute_output --regexp "[0-9] ms"
	# a timed TCG guest's run is never put beside them
	run "$BENCH" vm "$K_OLD" --accel tcg --smp 1 --sockets 1 --mem 1G \
		--db "$T/c.db" --timeout 900 -- run --config "$T/tiny.json" --label timed
	assert_success
	run -69 "$BENCH" compare --db "$T/c.db" count-a timed
	assert_output --partial "count-a"
	assert_output --partial "timed"
}

@test "counting mode with --profile: the guest's own kallsyms names the unlink's kernel functions, in instructions" {
	cat > "$T/tiny.json" <<'JSON'
{ "runs": 3, "warmup": 1,
  "suite": [ { "workload": "shmem-remove", "op": "unlink", "size": "64M" } ] }
JSON
	run "$BENCH" vm "$K_OLD" --accel icount --smp 1 --sockets 1 --mem 1G \
		--db "$T/p.db" --timeout 900 -- run --config "$T/tiny.json" --profile
	assert_success
	assert_output --regexp "; profile [0-9]+ samples in 3 calls"
	refute_output --partial "no kernel profile"
	run sqlite3 "$T/p.db" "SELECT json_extract(profile, '$.unit'),
		json_extract(profile, '$.symbols') LIKE '/proc/kallsyms of $(rel "$K_OLD") (%',
		json_extract(profile, '$.samples') = (SELECT sum(count) FROM profile_stacks),
		(SELECT sum(profiled) FROM samples) FROM cases"
	assert_output "instructions|1|1|3"
	# the guest kernel's names, not the host's: its unlink evicts through
	# shmem_undo_range, most of the call
	run sqlite3 "$T/p.db" "SELECT 2 * sum(count) > (SELECT sum(count) FROM profile_stacks)
		FROM profile_stacks WHERE stack LIKE '%do_unlinkat;%shmem_evict_inode;%shmem_undo_range%'"
	assert_output 1
}
