#!/usr/bin/env bats
# make install / uninstall, the man page and the systemd units.

load test_helper

REPO=$BATS_TEST_DIRNAME/..

# make in the source tree, for this build flavour (build or build/san)
mk() {
	local san=
	[ "${FB_BUILD##*/}" = san ] && san=SAN=1
	make -C "$REPO" --no-print-directory -s $san "$@"
}

@test "install into a DESTDIR and uninstall leave the tree as it was" {
	mkdir "$T/dest"
	touch "$T/dest/keep"
	before=$(cd "$T/dest" && find . | sort)
	run mk install DESTDIR="$T/dest" PREFIX=/usr/local
	assert_success
	run bash -c "cd '$T/dest' && find . -type f | sort"
	assert_output "./keep
./usr/local/bin/bench
./usr/local/lib/systemd/system/foliobench-nightly.service
./usr/local/lib/systemd/system/foliobench-nightly.timer
./usr/local/share/foliobench/bench/control/null.json
./usr/local/share/foliobench/bench/control/seed000.json
./usr/local/share/foliobench/bench/control/seed002.json
./usr/local/share/foliobench/config.example.json
./usr/local/share/foliobench/kernel/guest.config
./usr/local/share/foliobench/kernel/patches/seed000-shmem-batch-remove.patch
./usr/local/share/foliobench/kernel/patches/seed002-shadow-truncate.patch
./usr/local/share/man/man1/bench.1"
	[ -x "$T/dest/usr/local/bin/bench" ]
	run grep '^ExecStart=\|^ConditionPathExists=' "$T/dest/usr/local/lib/systemd/system/foliobench-nightly.service"
	assert_output "ConditionPathExists=/etc/foliobench/config.json
ExecStart=/usr/local/bin/bench nightly"
	run mk uninstall DESTDIR="$T/dest" PREFIX=/usr/local
	assert_success
	[ "$(cd "$T/dest" && find . | sort)" = "$before" ]
}

@test "the man page lints clean" {
	run mandoc -T lint "$REPO/packaging/bench.1"
	assert_success
	assert_output ""
	# every command of bench --help has its entry
	for c in $("$BENCH" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
		grep -q "^\.B $c\$" "$REPO/packaging/bench.1" || { echo "no entry for $c"; return 1; }
	done
	# every format compare and export take, as their refusal lists them
	for c in compare export; do
		run "$BENCH" $c --format none A B
		assert_failure 64
		for f in $(printf '%s' "$output" | sed -n "s/.*(\(.*\))\$/\1/p" | tr -d ,); do
			sed -n "/^\.B $c\$/,/^\.TP/p" "$REPO/packaging/bench.1" | grep -qw -- "$f" ||
				{ echo "bench.1's $c names no format $f"; return 1; }
		done
	done
}

@test "the installed systemd units pass systemd-analyze verify" {
	run mk install PREFIX="$T/usr" SYSCONFDIR="$T/etc"
	assert_success
	MANPATH="$T/usr/share/man" run systemd-analyze verify \
		"$T/usr/lib/systemd/system/foliobench-nightly.service" \
		"$T/usr/lib/systemd/system/foliobench-nightly.timer"
	mk uninstall PREFIX="$T/usr" SYSCONFDIR="$T/etc"
	assert_success
	assert_output ""
	# and verify does catch a broken unit
	sed 's/^Type=oneshot/Type=oneshoot/' "$REPO/packaging/systemd/foliobench-nightly.service" > "$T/broken.service"
	run systemd-analyze verify "$T/broken.service"
	assert_output --partial "Failed to parse service type"
}

@test "the installed binary takes its config from SYSCONFDIR, then the example, never beside itself" {
	run mk install PREFIX="$T/usr" SYSCONFDIR="$T/etc"
	assert_success
	# a decoy where walking up from the binary would find it
	fb_config -o "$T/config.example.json" -d decoy.db '[ { "workload": "shmem-remove" } ]' - -
	fb_config -d cwd.db '[ { "workload": "shmem-remove" } ]' - -
	run "$T/usr/bin/bench" plan a b
	assert_success
	assert_line "no database at results.db yet: nothing recorded"
	mkdir -p "$T/etc/foliobench"
	fb_config -o "$T/etc/foliobench/config.json" -d "$T/etc.db" '[ { "workload": "shmem-remove" } ]' - -
	run "$T/usr/bin/bench" plan a b
	assert_line "no database at $T/etc.db yet: nothing recorded"
	rm -r "$T/etc/foliobench"
	mk uninstall PREFIX="$T/usr" SYSCONFDIR="$T/etc"
	[ ! -e "$T/usr/bin/bench" ]
}
