#!/bin/sh
# Install the Debian packages foliobench needs, if any is missing.  As root
# this runs apt-get; otherwise it prints the exact command and stops.
PKGS="build-essential pkg-config libsqlite3-dev libcjson-dev libhwloc-dev
libcurl4-openssl-dev libfuse3-dev fuse3 bats bats-assert bats-support
e2fsprogs util-linux sqlite3 zlib1g-dev fio python3 python3-jsonschema gnuplot-nox
clang libclang-rt-14-dev strace mandoc systemd
qemu-system-x86 busybox-static
flex bison bc libelf-dev libssl-dev git xz-utils"
# What only the tests use: a real browser that opens the HTML report
# (driven by tests/cdp.py), the tools the exports are made for, and the
# tools that build and check the Debian package, and LAVA's dispatcher
# (lava-run runs tests/lava.bats's job on a QEMU device).
TEST_PKGS="chromium file ministat openssl debhelper dpkg-dev lintian
lava-dispatcher"
missing=
for p in $PKGS $TEST_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "foliobench: missing Debian packages:$missing" >&2
	echo "run as root: apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "foliobench: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq $missing >/dev/null || {
	echo "foliobench: apt-get install$missing failed" >&2
	exit 1
}
