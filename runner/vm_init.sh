#!/bin/busybox sh
# The init of a `bench vm` guest (runner/vm_initrd.c puts it in the initramfs as
# /init, with a static busybox and the kernel's own modules in load order).
# It makes the host's root, shared read-only over 9p, writable under a tmpfs
# overlay, gives the guest its own /proc, /sys, /dev, /run, /tmp, /dev/shm,
# /var/tmp (an ext4 on a scratch disk) and cgroup tree, runs
# /run/fbvm/cmd.sh (written by the host into the share of its temp
# directory) in that root, keeps its exit status and the kernel log there,
# and powers off.  Nothing of the host is written but that temp directory.
/bin/busybox mkdir -p /bin /proc /sys /dev
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
say() { echo "foliobench-vm: $*" > /dev/console; }
die() {
	say "$*"
	echo 1 > /proc/sys/kernel/sysrq
	poweroff -f
	echo o > /proc/sysrq-trigger
	sleep 5
	reboot -f
}
arg() {
	for a in $(cat /proc/cmdline); do
		case $a in "$1="*) echo "${a#*=}"; return;; esac
	done
}
for m in /mods/*.ko; do
	[ -e "$m" ] || continue
	insmod "$m" 2>/dev/null || say "insmod ${m##*/} failed"
done
cgroup=$(arg fb.cgroup)
mkdir -p /lower /rw /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 \
	fbroot /lower || die "cannot mount the host's root (9p fbroot)"
mount -t tmpfs -o mode=0755 rw /rw || die "cannot mount the overlay's tmpfs"
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work \
	overlay /newroot || die "cannot mount the overlay over the host's root"
R=/newroot
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t devtmpfs devtmpfs $R/dev
mkdir -p $R/dev/pts $R/dev/shm
# what udev would make: bash's process substitution needs /dev/fd
ln -sf /proc/self/fd $R/dev/fd
ln -sf /proc/self/fd/0 $R/dev/stdin
ln -sf /proc/self/fd/1 $R/dev/stdout
ln -sf /proc/self/fd/2 $R/dev/stderr
mount -t devpts devpts $R/dev/pts
mount -t tmpfs -o mode=1777 shm $R/dev/shm
mount -t tmpfs -o mode=0755 run $R/run
mount -t tmpfs -o mode=1777 tmp $R/tmp
# /var/tmp, the runner's disk scratch: the ext4 on the virtio disk the host
# made (runner/vm_scratch.c), tmpfs where there is none
scratch=
if [ -e /sys/block/vda ]; then
	i=0
	while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	mount -t ext4 -o noinit_itable /dev/vda $R/var/tmp &&
		chmod 1777 $R/var/tmp && scratch=vda ||
		say "cannot mount the scratch disk: /var/tmp is on tmpfs"
fi
[ -n "$scratch" ] || mount -t tmpfs -o mode=1777 vartmp $R/var/tmp
mount -t debugfs debugfs $R/sys/kernel/debug 2>/dev/null
if [ "$cgroup" = v1 ]; then
	mount -t tmpfs -o mode=0755 cgroup $R/sys/fs/cgroup
	for c in cpu,cpuacct cpuset memory pids blkio devices freezer; do
		mkdir -p $R/sys/fs/cgroup/$c
		mount -t cgroup -o $c cgroup $R/sys/fs/cgroup/$c ||
			say "cannot mount the cgroup v1 controller $c"
	done
	ln -s cpu,cpuacct $R/sys/fs/cgroup/cpu
	ln -s cpu,cpuacct $R/sys/fs/cgroup/cpuacct
else
	mount -t cgroup2 -o nsdelegate cgroup2 $R/sys/fs/cgroup ||
		die "cannot mount cgroup v2"
	echo "+memory +cpuset +cpu +pids +io" > \
		$R/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
fi
mkdir -p $R/run/fbvm
mount -t 9p -o trans=virtio,version=9p2000.L,cache=none,msize=262144 \
	fbout $R/run/fbvm || die "cannot mount the host's share (9p fbout)"
# the host's directories under what the guest mounts anew (a checkout in
# /tmp, the working directory, files the command names), read-only at
# their own paths: runner/vm.c lists them, "TAG PATH" a line
while read -r tag path; do
	[ -n "$tag" ] || continue
	mkdir -p "$R$path"
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 \
		"$tag" "$R$path" || die "cannot mount the host's $path (9p $tag)"
done < $R/run/fbvm/shares
hostname foliobench-vm
awk '{ print $1 }' /proc/uptime > $R/run/fbvm/boot_s
say "command start"
chroot $R /bin/sh /run/fbvm/cmd.sh < /dev/console > /dev/console 2>&1
echo $? > $R/run/fbvm/status
say "command end: status $(cat $R/run/fbvm/status)"
dmesg > $R/run/fbvm/kmsg
sync
umount $R/run/fbvm
die "power off"
