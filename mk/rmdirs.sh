#!/bin/sh
# rmdirs.sh DESTDIR DIR...: remove each DESTDIR/DIR that is empty, then its
# parents while they are empty, never DESTDIR itself or anything above it
# (and never / or an unset DESTDIR's top: with no DESTDIR only DIR itself).
dest=$1
shift
for d; do
	p=$dest$d
	while [ -n "$p" ] && [ "$p" != "$dest" ] && [ "$p" != / ] &&
	      [ "$p" != "${dest%/}" ] && [ -d "$p" ]; do
		rmdir "$p" 2>/dev/null || break
		[ -n "$dest" ] || break
		p=$(dirname "$p")
	done
done
exit 0
