#!/usr/bin/env bats
# bench kernel build: what needs no kernel compile.  The cache's keys (by
# content, not by name), the refusals, patches that apply and that do not
# (on small trees made here, with the real git apply), the source tree put
# back between builds, and the project's config fragment against the real
# Linux 6.12 tree (Debian's linux-source-6.12: its kconfig run for real,
# no compile).  A compile and a boot are bench-control's (make
# bench-control), not a test's: tens of minutes on 2 CPUs.

load test_helper
bats_require_minimum_version 1.5.0

ROOT=$BATS_TEST_DIRNAME/..
P000=$ROOT/kernel/patches/seed000-shmem-batch-remove.patch
P002=$ROOT/kernel/patches/seed002-shadow-truncate.patch

setup() {
	fb_setup
	export FOLIOBENCH_KERNEL_CACHE=$T/kc
	# a kernel-shaped tree: what the seeds' patches touch, as 6.12 has
	# it where the real source is in the cache, else a file of our own
	mkdir -p "$T/linux/mm"
	echo 'VERSION = 6' > "$T/linux/Makefile"
	printf 'int shmem;\n' > "$T/linux/mm/shmem.c"
	printf 'a\nb\nc\n' > "$T/linux/mm/list.c"
	cat > "$T/ok.patch" <<'EOF'
Subject: [PATCH] mm: a change to list.c

--- a/mm/list.c
+++ b/mm/list.c
@@ -1,3 +1,3 @@
 a
-b
+B
 c
--- /dev/null
+++ b/mm/new.c
@@ -0,0 +1 @@
+int fresh;
EOF
}

@test "kernel: usage, a source that is not there, a bad name, a bad ref: distinct codes, named" {
	run -64 "$BENCH" kernel
	assert_output --partial "is not build or list"
	run -64 "$BENCH" kernel build
	assert_output --partial "one source"
	run -0 "$BENCH" kernel --help
	assert_output --partial "linux-source"
	run -66 "$BENCH" kernel build "$T/nothing" --dry-run
	assert_output --partial "$T/nothing"
	run -66 "$BENCH" kernel build "$T/linux" --patch "$T/none.patch" --dry-run
	assert_output --partial "none.patch"
	run -64 "$BENCH" kernel build "$T/linux" --name 'a b' --dry-run
	assert_output --partial "kernel name 'a b'"
	run -64 "$BENCH" kernel build "$T/linux" --name '../x' --dry-run
	run -64 "$BENCH" kernel build "$T/linux" --ref v1 --dry-run
	assert_output --partial "not a git tree"
	run -66 "$BENCH" kernel build "$T/linux.txt" --dry-run
	echo x > "$T/linux.txt"
	run -66 "$BENCH" kernel build "$T/linux.txt" --dry-run
	assert_output --partial "not a directory, a linux-source .deb or a tarball"
	run -64 "$BENCH" kernel build "$T/linux" -j 0 --dry-run
	[ ! -e "$T/kc/built" ]
}

@test "kernel: the key is the content: source, each patch's bytes, the fragment, the name; not file names" {
	run -0 --separate-stderr "$BENCH" kernel build "$T/linux" --dry-run
	base=$output
	[[ $stderr == *"release *-fb-base-${base:0:8}"* ]]
	run -0 --separate-stderr "$BENCH" kernel build "$T/linux" --dry-run
	[ "$output" = "$base" ]
	run -0 --separate-stderr "$BENCH" kernel build "$T/linux" --patch "$T/ok.patch" --dry-run
	withp=$output
	[ "$withp" != "$base" ]
	# the same bytes under another name and place: the same kernel
	mkdir "$T/elsewhere"
	cp "$T/ok.patch" "$T/elsewhere/ok.patch"
	run -0 --separate-stderr "$BENCH" kernel build "$T/linux" --patch "$T/elsewhere/ok.patch" --name ok --dry-run
	named=$output
	run -0 --separate-stderr "$BENCH" kernel build "$T/linux" --patch "$T/ok.patch" --name ok --dry-run
	[ "$output" = "$named" ]
	# one byte of the patch changed: another kernel
	sed -i 's/+B/+C/' "$T/elsewhere/ok.patch"
	run -0 --separate-stderr "$BENCH" kernel build "$T/linux" --patch "$T/elsewhere/ok.patch" --name ok --dry-run
	[ "$output" != "$named" ]
	# the name: another kernel (the null control's rebuild)
	run -0 --separate-stderr "$BENCH" kernel build "$T/linux" --name base.rebuilt --dry-run
	[ "$output" != "$base" ]
	# the fragment's content
	cp "$ROOT/kernel/guest.config" "$T/frag"
	run -0 --separate-stderr "$BENCH" kernel build "$T/linux" --fragment "$T/frag" --dry-run
	[ "$output" = "$base" ]
	frag1=$output
	echo 'CONFIG_MEMCG=y' >> "$T/frag"
	run -0 --separate-stderr "$BENCH" kernel build "$T/linux" --fragment "$T/frag" --dry-run
	[ "$output" != "$frag1" ]
	# the tree's content (a file's size and time)
	echo 'int more;' >> "$T/linux/mm/shmem.c"
	run -0 --separate-stderr "$BENCH" kernel build "$T/linux" --dry-run
	[ "$output" != "$base" ]
	# two tarballs of one name in two directories: two kernels
	mkdir -p "$T/a" "$T/b"
	tar -C "$T" -cf "$T/a/linux.tar" linux
	echo 'int other;' >> "$T/linux/mm/shmem.c"
	tar -C "$T" -cf "$T/b/linux.tar" linux
	run -0 --separate-stderr "$BENCH" kernel build "$T/a/linux.tar" --dry-run
	ka=$output
	run -0 --separate-stderr "$BENCH" kernel build "$T/b/linux.tar" --dry-run
	[ "$output" != "$ka" ]
	[ ! -e "$T/kc/built" ]
}

# build_until_config SRC ARGS...: a build that gets past its patches and
# stops where this tree is no kernel (no kconfig): 78, said
build_until_config() {
	run -78 "$BENCH" kernel build "$@"
	assert_output --partial "cannot configure the kernel"
}

@test "kernel: patches apply to a copy in the cache, never to the source; the next build puts their files back" {
	cp -a "$T/linux" "$T/pristine"
	build_until_config "$T/linux" --patch "$T/ok.patch"
	assert_output --partial "applying $T/ok.patch"
	# the user's tree untouched
	diff -r "$T/pristine" "$T/linux"
	work=$(echo "$T"/kc/work/*/src)
	[ "$(sed -n 2p "$work/mm/list.c")" = B ]
	[ -f "$work/mm/new.c" ]
	# the next build, without the patch: list.c as it was, new.c gone
	build_until_config "$T/linux"
	diff -r "$T/pristine" "$work"
	[ ! -e "$T/kc/built" ]
}

@test "kernel: a patch that does not apply: 65, the patch and git apply's lines named, nothing built, the tree put back next time" {
	cp -a "$T/linux" "$T/pristine"
	run -65 "$BENCH" kernel build "$T/linux" --patch "$T/ok.patch" --patch "$P000"
	assert_output --partial "patch $P000 does not apply to $T/linux with the patches before it"
	assert_output --partial "mm/"
	[ ! -e "$T/kc/built" ]
	build_until_config "$T/linux"
	diff -r "$T/pristine" "$(echo "$T"/kc/work/*/src)"
	# not a patch at all
	echo "hello" > "$T/text.patch"
	run -65 "$BENCH" kernel build "$T/linux" --patch "$T/text.patch"
	assert_output --partial "patch $T/text.patch: not a patch git apply reads"
	[ ! -e "$T/kc/built" ]
}

@test "kernel: a git tree at a ref: a shared clone checked out at the commit, the user's repository untouched" {
	git -C "$T/linux" init -q
	git -C "$T/linux" -c user.email=t@t -c user.name=t add -A
	git -C "$T/linux" -c user.email=t@t -c user.name=t commit -qm one
	one=$(git -C "$T/linux" rev-parse HEAD)
	echo 'int two;' > "$T/linux/mm/shmem.c"
	git -C "$T/linux" -c user.email=t@t -c user.name=t commit -qam two
	run -64 "$BENCH" kernel build "$T/linux" --ref nosuchref --dry-run
	assert_output --partial "--ref 'nosuchref': not a commit"
	build_until_config "$T/linux" --ref "$one" --patch "$T/ok.patch"
	work=$(echo "$T"/kc/work/*/src)
	[ "$(cat "$work/mm/shmem.c")" = "int shmem;" ]
	[ "$(sed -n 2p "$work/mm/list.c")" = B ]
	build_until_config "$T/linux" --ref HEAD
	[ "$(cat "$work/mm/shmem.c")" = "int two;" ]
	[ "$(sed -n 2p "$work/mm/list.c")" = b ]
	[ ! -e "$work/mm/new.c" ]
	# the user's repository: its HEAD, its work tree, no worktree added
	[ "$(git -C "$T/linux" rev-parse HEAD)" != "$one" ]
	[ -z "$(git -C "$T/linux" status --porcelain)" ]
	[ "$(git -C "$T/linux" worktree list | wc -l)" -eq 1 ]
}

@test "kernel: two builds of one source at once: one waits for the other (the lock)" {
	cp "$ROOT/kernel/guest.config" "$T/frag"
	build_until_config "$T/linux"
	lock=$(echo "$T"/kc/work/*.lock)
	# hold the lock as a build would, then start one
	flock "$lock" sleep 3 &
	sleep 0.5
	run -78 "$BENCH" kernel build "$T/linux"
	assert_output --partial "another build of this source is running; waiting"
	wait
}

@test "kernel list: the kernels of the cache, a build's temp dir left out" {
	run -0 "$BENCH" kernel list
	assert_output ""
	mkdir -p "$T/kc/built/0123456789abcdef/include/config" \
		"$T/kc/built/fedcba9876543210.tmp.99/include/config"
	echo 6.12.118-fb-base-01234567 > "$T/kc/built/0123456789abcdef/include/config/kernel.release"
	echo 6.12.118-fb-half > "$T/kc/built/fedcba9876543210.tmp.99/include/config/kernel.release"
	run -0 "$BENCH" kernel list
	assert_output "6.12.118-fb-base-01234567	$T/kc/built/0123456789abcdef"
}

# The real Linux 6.12 tree: the cache's, else Debian's linux-source-6.12
# fetched into this test's cache (150 MB).
linux612() {
	local d
	for d in /var/cache/foliobench/kernels/downloads /var/cache/foliobench/src \
		 "$FB_LINUX_SOURCE_DIR"; do
		ls "$d"/linux-source-6.12_*_all.deb 2>/dev/null | sort -V | tail -n 1
	done | head -n 1 | grep . && return 0
	mkdir -p /var/cache/foliobench/kernels/downloads &&
	(cd /var/cache/foliobench/kernels/downloads &&
	 apt-get download linux-source-6.12 > /dev/null 2>&1) &&
	ls /var/cache/foliobench/kernels/downloads/linux-source-6.12_*_all.deb |
		sort -V | tail -n 1
}

@test "kernel: the project's fragment survives olddefconfig on Linux 6.12 as it is; a line that does not is named, 78" {
	deb=$(linux612) || skip "no linux-source-6.12 .deb in the cache and apt-get download could not fetch it"
	# the real tree, unpacked once into the real cache: tests share it
	export FOLIOBENCH_KERNEL_CACHE=/var/cache/foliobench/kernels
	run -0 --separate-stderr "$BENCH" kernel build "$deb" --config-only
	printf '%s\n' "$output" > "$T/config"
	grep -qx 'CONFIG_PVH=y' "$T/config"
	grep -qx 'CONFIG_MEMCG_V1=y' "$T/config"
	grep -qx 'CONFIG_FUSE_FS=y' "$T/config"
	grep -qx 'CONFIG_TRANSPARENT_HUGEPAGE=y' "$T/config"
	grep -qx '# CONFIG_RANDOMIZE_BASE is not set' "$T/config"
	cp "$ROOT/kernel/guest.config" "$T/frag"
	printf 'CONFIG_NOT_A_THING=y\nCONFIG_X86_X32_ABI=m\n' >> "$T/frag"
	n=$(wc -l < "$T/frag")
	run -78 "$BENCH" kernel build "$deb" --config-only --fragment "$T/frag"
	assert_output --partial "$T/frag:$((n - 1)): CONFIG_NOT_A_THING=y became nothing"
	assert_output --partial "$T/frag:$n: CONFIG_X86_X32_ABI=m became"
	# its build directory gone, the shared one never touched
	[ -z "$(ls -d /var/cache/foliobench/kernels/work/*/config.tmp 2>/dev/null)" ]
}

# A tree whose Makefile stands in for Linux's (kconfig's targets, and
# bzImage printing make's CC lines and writing what the cache keeps): the
# compile and the install as bench runs them, in a second; FB_FAKE_FAIL
# in the environment makes bzImage fail as a compiler would.
fake_kbuild() {
	local t=$T/fake
	mkdir -p "$t/scripts/kconfig" "$t/kernel/configs"
	: > "$t/kernel/configs/kvm_guest.config"
	cat > "$t/scripts/kconfig/merge_config.sh" <<'EOF'
#!/bin/sh
while [ "${1#-}" != "$1" ]; do [ "$1" = -O ] && shift; shift; done
out=$1; shift
cat "$@" >> "$out"
EOF
	chmod +x "$t/scripts/kconfig/merge_config.sh"
	printf 'x86_64_defconfig:\n\tmkdir -p $(O) && echo CONFIG_BASE=y > $(O)/.config\n' > "$t/Makefile"
	printf 'olddefconfig:\n\t@:\n' >> "$t/Makefile"
	cat >> "$t/Makefile" <<'EOF'
bzImage:
	@echo '  CC      mm/shmem.o'; echo '  CC      mm/filemap.o'
	@echo '  AS      arch/x86/entry/entry_64.o'; echo '  LD      vmlinux'
	@if [ -n "$$FB_FAKE_FAIL" ]; then echo 'mm/shmem.c:12:1: error: expected ;' >&2; exit 2; fi
	@mkdir -p $(O)/arch/x86/boot $(O)/include/config
	@echo image > $(O)/arch/x86/boot/bzImage; echo map > $(O)/System.map
	@echo elf > $(O)/vmlinux; echo 6.12.0$(LOCALVERSION) > $(O)/include/config/kernel.release
EOF
	echo 'CONFIG_FAKE=y' > "$T/frag"
}

@test "kernel: a build (a Makefile standing in for Linux's): CC lines counted, the kernel installed whole, found in the cache next time; make failing: 73, its error lines, nothing in built/" {
	fake_kbuild
	FB_FAKE_FAIL=1 run "$BENCH" kernel build "$T/fake" --fragment "$T/frag" --name fake
	[ "$status" -ne 69 ] || skip "a kernel build tool is missing: $output"
	[ "$status" -eq 73 ] || { echo "$output"; false; }
	assert_output --partial "the kernel build failed (make exited non-zero"
	assert_output --partial "mm/shmem.c:12:1: error: expected ;"
	[ -z "$(ls "$T/kc/built" 2>/dev/null)" ]
	run -0 --separate-stderr "$BENCH" kernel build "$T/fake" --fragment "$T/frag" --name fake
	dir=$output
	[[ "$stderr" == *"built in "*" s, 3 files compiled ($dir)"* ]]
	[ "$(dirname "$dir")" = "$T/kc/built" ]
	[ "$(cat "$dir/arch/x86/boot/bzImage")" = image ]
	[[ "$(cat "$dir/include/config/kernel.release")" == 6.12.0-fb-fake-* ]]
	grep -qx 'CONFIG_FAKE=y' "$dir/.config"
	grep -q '  CC      mm/filemap.o' "$dir/build.log"
	grep -q '^source tree ' "$dir/key.txt"
	[ -f "$dir/vmlinux" ] && [ -f "$dir/System.map" ]
	[ -z "$(ls -d "$T"/kc/built/*.tmp.* 2>/dev/null)" ]
	run -0 --separate-stderr "$BENCH" kernel build "$T/fake" --fragment "$T/frag" --name fake
	[ "$output" = "$dir" ]
	[[ "$stderr" == *": in the cache ($dir)"* ]]
	run -0 "$BENCH" kernel list
	assert_output "$(cat "$dir/include/config/kernel.release")	$dir"
	# the tree changed (a file edited, one added): another kernel, made
	# of the tree as it is now, not of the cache's first copy
	sed -i 's/echo image >/echo image2 >/' "$T/fake/Makefile"
	echo 'int added;' > "$T/fake/added.c"
	run -0 --separate-stderr "$BENCH" kernel build "$T/fake" --fragment "$T/frag" --name fake
	[ "$output" != "$dir" ]
	[ "$(cat "$output/arch/x86/boot/bzImage")" = image2 ]
	[[ "$stderr" == *"the source tree has changed: copying it into the cache again"* ]]
	[ -f "$T"/kc/work/*/src/added.c ]
}
