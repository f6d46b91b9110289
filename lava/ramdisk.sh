#!/bin/sh
# The ramdisk of foliobench's LAVA jobs on a QEMU device: a gzip'd newc cpio
# of a static busybox, an /init that gives LAVA a shell on the console, and
# the kernel's own modules the test definition needs to reach the host's
# root over virtio 9p and make it writable (virtio_pci, 9pnet_virtio, 9p,
# overlay), each after what it depends on, loaded by /init in that order.
# LAVA adds its test shell to it (overlays: lava: true).
#
# usage: lava/ramdisk.sh MODROOT RELEASE OUT.cpio.gz
#   MODROOT: the directory holding lib/modules/RELEASE (/ for an installed
#   kernel, an unpacked linux-image .deb, a tree's INSTALL_MOD_PATH)
set -eu
[ $# -eq 3 ] || { echo "usage: $0 MODROOT RELEASE OUT.cpio.gz" >&2; exit 64; }
mods=$1/lib/modules/$2
out=$3
[ -d "$mods" ] || { echo "$0: no modules at $mods" >&2; exit 66; }
[ -x /bin/busybox ] || { echo "$0: /bin/busybox is missing (Debian's busybox-static)" >&2; exit 69; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/bin" "$dir/dev" "$dir/proc" "$dir/sys" "$dir/mods" "$dir/tmp"
cp /bin/busybox "$dir/bin/busybox"
n=0
# add NAME: its dependencies first, each module once; built-in ones (no
# .ko) need nothing
add() {
	local f d
	f=$(find "$mods/kernel" -name "$1.ko" -o -name "$(echo "$1" | tr _ -).ko" | head -n 1)
	[ -n "$f" ] || return 0
	ls "$dir/mods" | grep -q -- "-$1\.ko\$" && return 0
	for d in $(/sbin/modinfo -F depends "$f" | tr , ' '); do
		add "$d"
	done
	cp "$f" "$dir/mods/$(printf %03d $n)-$1.ko"
	n=$((n + 1))
}
for m in virtio_pci 9pnet_virtio 9p overlay; do
	add "$m"
done
cat > "$dir/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in /mods/*.ko; do
	insmod "$m" || echo "foliobench-lava: insmod ${m##*/} failed"
done
echo "foliobench-lava: ramdisk ready"
exec setsid cttyhack sh -l
INIT
chmod 755 "$dir/init"
(cd "$dir" && find . | cpio -o -H newc --quiet | gzip -9) > "$out"
