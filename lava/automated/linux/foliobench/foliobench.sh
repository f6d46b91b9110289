#!/bin/sh
# foliobench in a LAVA test shell: `bench run` of a config, each case's
# headline median as a lava-test-case with its measurement and unit (pass
# where every sample verified), and the run's database printed gzip'd in
# base64 between FOLIOBENCH-DB-BEGIN and FOLIOBENCH-DB-END lines, so that
# `lava/lava-db` takes it from the job's log for `bench merge` and nothing
# of the run is lost to LAVA's results.  Runs under busybox sh.
#
# usage: foliobench.sh -c CONFIG [-b BENCH] [-l LABEL] [-r TAG] [-s TAG]
#   -c CONFIG  the config `bench run` reads (a path in the root it runs in)
#   -b BENCH   the bench to run (default: bench on PATH)
#   -l LABEL   the run's label (default: the kernel's release)
#   -r TAG     run in the host's root, shared read-only over virtio 9p
#              with this mount tag (a QEMU device of foliobench's job):
#              mounted under a tmpfs overlay and entered with chroot
#   -s TAG     also copy the database into the host's directory shared
#              writable over virtio 9p with this mount tag
set -u
CONFIG= BENCH=bench LABEL= ROOT_TAG= SHARE_TAG=
while getopts c:b:l:r:s: o; do
	case $o in
	c) CONFIG=$OPTARG ;;
	b) BENCH=$OPTARG ;;
	l) LABEL=$OPTARG ;;
	r) ROOT_TAG=$OPTARG ;;
	s) SHARE_TAG=$OPTARG ;;
	*) echo "usage: $0 -c CONFIG [-b BENCH] [-l LABEL] [-r TAG] [-s TAG]" >&2
	   exit 64 ;;
	esac
done
[ -n "$CONFIG" ] || { echo "$0: no config given (-c)" >&2; exit 64; }
HERE=$(cd "$(dirname "$0")" && pwd)
OUTPUT=$HERE/output
RESULT_FILE=$OUTPUT/result.txt
mkdir -p "$OUTPUT"
: > "$RESULT_FILE"

# report NAME RESULT [MEASUREMENT UNITS]: to LAVA where this runs in its
# test shell, always to result.txt (test-definitions' send-to-lava.sh rule)
report() {
	echo "$*" >> "$RESULT_FILE"
	if command -v lava-test-case > /dev/null; then
		if [ $# -ge 4 ]; then
			lava-test-case "$1" --result "$2" --measurement "$3" --units "$4"
		else
			lava-test-case "$1" --result "$2"
		fi
	else
		echo "<TEST_CASE_ID=$1 RESULT=$2${3:+ MEASUREMENT=$3 UNITS=$4}>"
	fi
}

NS_OPT=trans=virtio,version=9p2000.L,msize=262144
ROOT=
if [ -n "$ROOT_TAG" ]; then
	# as runner/vm_init.sh does: writes stay in the guest's memory
	ROOT=/run/foliobench-root
	mkdir -p /run/foliobench-lower /run/foliobench-rw "$ROOT"
	mount -t 9p -o $NS_OPT,ro,cache=loose "$ROOT_TAG" /run/foliobench-lower &&
	mount -t tmpfs -o mode=0755 rw /run/foliobench-rw &&
	mkdir -p /run/foliobench-rw/upper /run/foliobench-rw/work &&
	mount -t overlay -o lowerdir=/run/foliobench-lower,upperdir=/run/foliobench-rw/upper,workdir=/run/foliobench-rw/work overlay "$ROOT" || {
		report foliobench-root fail
		exit 1
	}
	mount -t proc proc "$ROOT/proc"
	mount -t sysfs sysfs "$ROOT/sys"
	mount -t devtmpfs devtmpfs "$ROOT/dev"
	mkdir -p "$ROOT/dev/pts" "$ROOT/dev/shm"
	ln -sf /proc/self/fd "$ROOT/dev/fd"
	mount -t devpts devpts "$ROOT/dev/pts"
	mount -t tmpfs -o mode=1777 shm "$ROOT/dev/shm"
	mount -t tmpfs -o mode=0755 run "$ROOT/run"
	# /tmp and /var/tmp stay the host's under the overlay: a config or a
	# bench there is found, and what is written there stays in the guest
	mount -t cgroup2 cgroup2 "$ROOT/sys/fs/cgroup" 2>/dev/null
	report foliobench-root pass
	inroot() { chroot "$ROOT" /usr/bin/env PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
else
	inroot() { "$@"; }
fi
WORK=/tmp/foliobench-lava.$$
mkdir -p "$ROOT$WORK"
DB=$WORK/run.db
set -- run --config "$CONFIG" --db "$DB" --quiet
[ -z "$LABEL" ] || set -- "$@" --label "$LABEL"
inroot "$BENCH" "$@"
rc=$?
if [ $rc -eq 0 ]; then report foliobench-run pass; else report foliobench-run fail; fi
if [ -f "$ROOT$DB" ]; then
	cp "$HERE/results.py" "$ROOT$WORK/results.py"
	inroot /usr/bin/python3 "$WORK/results.py" "$BENCH" "$DB" \
		> "$OUTPUT/cases.txt" 2> "$OUTPUT/cases.err" ||
		cat "$OUTPUT/cases.err"
	while read -r name result value unit; do
		report "$name" "$result" $value $unit
	done < "$OUTPUT/cases.txt"
	echo "FOLIOBENCH-DB-BEGIN run.db.gz"
	gzip -c "$ROOT$DB" | base64
	echo "FOLIOBENCH-DB-END"
	if [ -n "$SHARE_TAG" ]; then
		mkdir -p /run/foliobench-share
		mount -t 9p -o $NS_OPT,cache=none "$SHARE_TAG" /run/foliobench-share &&
			cp "$ROOT$DB" /run/foliobench-share/run.db &&
			umount /run/foliobench-share
	fi
fi
exit $rc
