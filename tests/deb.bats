#!/usr/bin/env bats
# The Debian package: debian/ builds a .deb with dpkg-buildpackage from a
# copy of the tree, lintian finds nothing that debian/ does not explain,
# and the package installs (bench runs, the timer is a unit systemd
# knows) and purges to nothing but what policy keeps.

load test_helper

bats_require_minimum_version 1.5.0

REPO=$BATS_TEST_DIRNAME/..
SRC=$BATS_FILE_TMPDIR/src/foliobench
VERSION=$(dpkg-parsechangelog -l "$REPO/debian/changelog" -S Version)
ARCH=$(dpkg --print-architecture)
DEB=$BATS_FILE_TMPDIR/src/foliobench_${VERSION}_$ARCH.deb
# what the package holds (files, not directories)
FILES='/lib/systemd/system/foliobench-nightly.service
/lib/systemd/system/foliobench-nightly.timer
/usr/bin/bench
/usr/share/doc/foliobench/changelog.gz
/usr/share/doc/foliobench/copyright
/usr/share/foliobench/bench/control/null.json
/usr/share/foliobench/bench/control/seed000.json
/usr/share/foliobench/bench/control/seed002.json
/usr/share/foliobench/config.example.json
/usr/share/foliobench/kernel/guest.config
/usr/share/foliobench/kernel/patches/seed000-shmem-batch-remove.patch
/usr/share/foliobench/kernel/patches/seed002-shadow-truncate.patch
/usr/share/man/man1/bench.1.gz'

setup_file() {
	# the tree as git sees it, committed or not, and never build/
	mkdir -p "$SRC"
	(cd "$REPO" && git ls-files -co --exclude-standard -z) |
		(cd "$REPO" && tar -c --null -T -) | tar -x -C "$SRC" ||
		return 1
	# not the make of `make test SAN=1` that runs us: its MAKEFLAGS and SAN would
	# build the package with the sanitizers
	(cd "$SRC" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SAN \
		dpkg-buildpackage -us -uc -b) \
		> "$BATS_FILE_TMPDIR/build.log" 2>&1 || {
		tail -n 40 "$BATS_FILE_TMPDIR/build.log" >&3
		return 1
	}
}

@test "dpkg-buildpackage: one .deb with the binary, man page, config, units and data" {
	run ls "$BATS_FILE_TMPDIR/src"
	assert_output "foliobench
foliobench-dbgsym_${VERSION}_$ARCH.deb
foliobench_${VERSION}_$ARCH.buildinfo
foliobench_${VERSION}_$ARCH.changes
foliobench_${VERSION}_$ARCH.deb"
	run bash -c "dpkg-deb -c '$DEB' | awk '\$1 !~ /^d/ { sub(/^\\./, \"\", \$6); print \$6 }' | sort"
	assert_output "$FILES"
	# the build's compiler said nothing
	run grep -i 'warning:' "$BATS_FILE_TMPDIR/build.log"
	assert_failure
	# built with the package's version (bench and the installed bench)
	# and Debian's paths (the installed bench's main.o)
	run grep -c -- "-DFB_VERSION='\"$VERSION\"'" "$BATS_FILE_TMPDIR/build.log"
	assert_output 2
	run grep -c -- "-DFB_SYSCONFDIR='\"/etc\"'" "$BATS_FILE_TMPDIR/build.log"
	assert_output 1
	run grep -c -- "-DFB_DATADIR='\"/usr/share/foliobench\"'" "$BATS_FILE_TMPDIR/build.log"
	assert_output 1
}

@test "the .deb declares the libraries it links and recommends the tools it runs" {
	run dpkg-deb -f "$DEB" Depends
	assert_success
	for lib in libc6 libsqlite3-0 libcjson1 libhwloc15 libcurl4 libfuse3-3 zlib1g; do
		[[ "$output" =~ (^|, )$lib( |,|$) ]] || fail "Depends lacks $lib: $output"
	done
	run dpkg-deb -f "$DEB" Recommends
	assert_output "fuse3, gnuplot-nox"
}

@test "lintian: no tag on the package" {
	# every tag lintian has, pedantic and informational ones included
	run --separate-stderr lintian --tag-display-limit 0 -I -E --pedantic \
		"$BATS_FILE_TMPDIR/src/foliobench_${VERSION}_$ARCH.changes"
	assert_success
	assert_output ""
}

@test "installed: bench --version and bench list run, the timer is a unit systemd takes; purged: nothing left" {
	if dpkg-query -W -f='${Status}' foliobench 2>/dev/null | grep -q installed; then
		skip "a foliobench package is installed on this machine: not replacing it"
	fi
	[ ! -e /var/lib/foliobench ] ||
		skip "/var/lib/foliobench exists: a nightly lab's results, not this test's to purge"
	fb_after dpkg --purge foliobench
	run dpkg -i "$DEB"
	if [ "$status" -ne 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get -f install -y -qq > /dev/null
		run dpkg-query -W -f='${Status}' foliobench
		assert_output "install ok installed"
	fi
	run /usr/bin/bench --version
	assert_success
	assert_output "foliobench $VERSION"
	run /usr/bin/bench list
	assert_success
	assert_line shmem-remove
	assert_line small-truncate
	# the installed binary finds the guest kernels' fragment in its data
	# (it looks for it first), so the source is what it refuses
	FOLIOBENCH_KERNEL_CACHE=$T/kc run --separate-stderr /usr/bin/bench kernel build "$T/none" --dry-run
	assert_failure 66
	assert_equal "$stderr" "bench: kernel: kernel source '$T/none': No such file or directory"
	if [ "$(ps -p 1 -o comm=)" = systemd ]; then
		run systemctl cat foliobench-nightly.timer
		assert_success
		assert_line "OnBootSec=5min"
		run systemctl is-enabled foliobench-nightly.timer
		assert_output disabled
	else
		# systemd is not PID 1 here: the units as systemd would load them
		run systemd-analyze verify /lib/systemd/system/foliobench-nightly.service \
			/lib/systemd/system/foliobench-nightly.timer
		assert_success
		assert_output ""
	fi
	run grep -x 'ExecStart=/usr/bin/bench nightly' /lib/systemd/system/foliobench-nightly.service
	assert_success
	# what the nightly service leaves: its state directory
	mkdir /var/lib/foliobench
	touch /var/lib/foliobench/results.db
	mkdir -p /etc/foliobench
	echo '{}' > /etc/foliobench/config.json
	fb_after rm -rf /etc/foliobench
	run dpkg --purge foliobench
	assert_success
	run dpkg-query -W -f='${Status}' foliobench
	refute_output --partial installed
	local f
	while read -r f; do
		[ ! -e "$f" ] || fail "left after purge: $f"
	done <<< "$FILES"
	[ ! -e /usr/share/foliobench ] || fail "left after purge: /usr/share/foliobench"
	[ ! -e /usr/share/doc/foliobench ] || fail "left after purge: /usr/share/doc/foliobench"
	[ ! -e /var/lib/foliobench ] || fail "left after purge: /var/lib/foliobench"
	run compgen -G '/var/lib/dpkg/info/foliobench.*'
	assert_failure
	# the administrator's config is theirs
	[ -f /etc/foliobench/config.json ]
}
