#!/usr/bin/env bats
# bench nightly: once per boot and label, one retry of a run that did not
# complete, the plan's next boot; bench plan: the history of boots, the
# next kernel, the boots needed.  Boots are injected with
# FOLIOBENCH_BOOT_ID (real runs) or written by the fixture (histories).

load test_helper
load fixtures/fixture

bats_require_minimum_version 1.5.0

GRUB_ENTRY="Advanced options for Debian GNU/Linux>Debian GNU/Linux, with Linux 6.18.0-base"
# A Debian GRUB menu that has GRUB_ENTRY; grub-reboot and systemctl that
# only say they were asked (no test chooses or starts a boot of this
# machine)
export FOLIOBENCH_GRUB_CFG=$BATS_TEST_DIRNAME/fixtures/grub/grub.cfg
PATH=$BATS_TEST_DIRNAME/fixtures/grub/bin:$PATH

# A config of one small case and a plan of BOOTS boots: base boots by GRUB,
# patch by kexec.
plan_config() {
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]' 0 2 "
  \"plan\": {
    \"base\": { \"label\": \"base\", \"boot\": { \"grub\": \"$GRUB_ENTRY\" } },
    \"patch\": { \"label\": \"patch\", \"boot\": {
      \"kernel\": \"/boot/vmlinuz-6.18.0-patch\",
      \"initrd\": \"/boot/initrd.img-6.18.0-patch\",
      \"cmdline\": \"root=/dev/vda1 ro console=ttyS0\" } },
    \"boots\": ${1:-4}, \"effect\": \"5%\" }"
}

# plan_boot SIDE KEY VALUE...: set keys of plan.SIDE.boot in the config.
plan_boot() {
	python3 - "$T/config.json" "$@" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for k, v in zip(sys.argv[3::2], sys.argv[4::2]):
    c["plan"][sys.argv[2]]["boot"][k] = v
json.dump(c, open(sys.argv[1], "w"))
PY
}

KEXEC="kexec -l /boot/vmlinuz-6.18.0-patch --initrd=/boot/initrd.img-6.18.0-patch --command-line='root=/dev/vda1 ro console=ttyS0' && systemctl kexec"
GRUB="grub-reboot '$GRUB_ENTRY' && systemctl reboot"

@test "nightly twice in one boot runs once" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]'
	export FOLIOBENCH_BOOT_ID=nightly-once-$$
	run "$BENCH" nightly --config "$T/config.json" --label k1 --quiet
	assert_success
	assert_line --regexp "^nightly: label k1, boot nightly-once-$$, run [0-9a-f]{8} complete, cases [01] valid [01] invalid, kernel warnings [0-9]+, upload not configured, next boot: no plan\$"
	run "$BENCH" nightly --config "$T/config.json" --label k1 --quiet
	assert_success
	assert_line "nightly: k1 already has a complete run in boot nightly-once-$$; not running it again"
	assert_line --regexp "^nightly: label k1, boot nightly-once-$$, already ran in this boot; run [0-9a-f]{8} complete, "
	run q "select count(*), boot_id from runs"
	assert_output "1|nightly-once-$$"
	# another boot runs again
	FOLIOBENCH_BOOT_ID=nightly-other-$$ "$BENCH" nightly --config "$T/config.json" --label k1 --quiet
	run q "select count(*) from runs where status = 'complete'"
	assert_output 2
}

@test "a run left aborted in this boot is retried once; after two the boot is given up" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]'
	fx_begin "$DB"
	fx_run k1 boot-retry aborted
	fx_run k1 boot-gaveup aborted
	fx_run k1 boot-gaveup failed
	fx_end
	FOLIOBENCH_BOOT_ID=boot-retry run "$BENCH" nightly --config "$T/config.json" --label k1 --quiet
	assert_success
	assert_line "nightly: the run of k1 in boot boot-retry did not complete; running it once more"
	run q "select status from runs where boot_id = 'boot-retry' order by id"
	assert_output "aborted
complete"
	FOLIOBENCH_BOOT_ID=boot-retry run "$BENCH" nightly --config "$T/config.json" --label k1 --quiet
	assert_line --partial "already has a complete run"
	FOLIOBENCH_BOOT_ID=boot-gaveup run "$BENCH" nightly --config "$T/config.json" --label k1 --quiet
	assert_success
	assert_line "nightly: 2 runs of k1 in boot boot-gaveup did not complete; not trying again in this boot"
	assert_line --regexp "^nightly: label k1, boot boot-gaveup, gave up after 2 runs that did not complete; run [0-9a-f]{8} failed, "
	run q "select count(*) from runs where boot_id = 'boot-gaveup'"
	assert_output 2
}

@test "a run interrupted in nightly stays in this boot for its retry" {
	fb_config '[ { "workload": "shmem-remove", "size": "256M" } ]' 0 200
	plan_config 4
	sed -i 's/"runs": 2/"runs": 200/; s/"size": "64M"/"size": "256M"/' "$T/config.json"
	FOLIOBENCH_BOOT_ID=boot-int "$BENCH" nightly --config "$T/config.json" --label base > "$T/out" 2>&1 &
	pid=$!
	for i in $(seq 100); do
		grep -q '^run ' "$T/out" 2>/dev/null && break
		sleep 0.1
	done
	sleep 0.3
	kill -TERM $pid
	wait $pid || st=$?
	[ "$st" = 143 ]
	run grep '^nightly:' "$T/out"
	assert_output --regexp "^nightly: label base, boot boot-int, run [0-9a-f]{8} aborted, cases 0 valid 0 invalid, kernel warnings [0-9]+ \(exit 143\), upload not configured, next boot: none yet \(a run that did not complete is retried once in this boot\)\$"
	run q "select status from runs"
	assert_output aborted
}

@test "plan: the next kernel keeps the boots balanced and alternating, ABAB then BAAB" {
	local hist want i
	# history (A base, B patch) -> next
	while read -r hist want; do
		rm -f "$DB"
		fx_begin "$DB"
		for ((i = 0; i < ${#hist}; i++)); do
			if [ "${hist:$i:1}" = A ]; then
				fx_run base "base-boot-$i"
			else
				fx_run patch "patch-boot-$i"
			fi
			fx_remove_case unlink; fx_wall 100 101 99
		done
		fx_run base "aborted-boot-$i" aborted	# never counts
		fx_end
		run "$BENCH" plan --db "$DB" --boots 4 base patch
		assert_success
		if [ "$want" = - ]; then
			assert_line "next: none: both kernels have their 4 boots; the comparison is ready: bench compare base patch"
		else
			assert_line "next: $([ $want = A ] && echo "base (A, the base)" || echo "patch (B, the patch)")"
		fi
	done <<'HIST'
- A
A B
AB A
ABA B
ABAB B
ABABB A
ABABBA A
ABABBAA B
ABABBAAB -
AAA B
AAAB B
BBBB A
AAAABBB B
HIST
}

@test "plan: boots so far, their order, and the boots needed from the spread" {
	# Checked apart from the tool (Python, statistics and a t quantile by
	# numeric integration): pooled sd of the boot medians 0.8246% and
	# 0.5247% of base; (t(.975, 2n-2) + t(.8, 2n-2)) sd sqrt(2/n) <= 1%
	# first holds at n = 12 and n = 6.
	fx_known "$DB"
	run "$BENCH" plan --db "$DB" --boots 6 --effect 1% 6.18.0-base 6.18.0-patch
	assert_success
	assert_output "boots: 6.18.0-base 4, 6.18.0-patch 4 (of 6 each)
order: AAAA BBBB (A 6.18.0-base, B 6.18.0-patch; oldest first)
next: 6.18.0-base (A, the base)
boots needed to see a change (each row alone, two-sided alpha 0.05, power 0.8,
from the spread of the boot medians so far):
  shmem-remove op=unlink: 1.0%, spread 0.82%: 12 boots of each kernel (8 more of base, 8 more of patch)
  shmem-remove op=ftruncate: 1.0%, spread 0.52%: 6 boots of each kernel (2 more of base, 2 more of patch)"
	# without --effect: the published change of each workload
	run "$BENCH" plan --db "$DB" 6.18.0-base 6.18.0-patch
	assert_line "  shmem-remove op=unlink: 20.9%, spread 0.82%: 2 boots of each kernel (0 more of base, 0 more of patch)"
}

@test "plan: the boot commands for grub and kexec, printed, never run" {
	plan_config 4
	fx_begin "$DB"
	fx_run base b0; fx_remove_case unlink; fx_wall 100 101 99
	fx_end
	run "$BENCH" plan --config "$T/config.json"
	assert_success
	assert_line "next: patch (B, the patch)"
	assert_line "boot it: $KEXEC"
	fx_begin "$DB.2"
	fx_end
	run "$BENCH" plan --config "$T/config.json" --db "$DB.2"
	assert_line "next: base (A, the base)"
	assert_line "boot it: $GRUB"
	run "$BENCH" plan --config "$T/config.json" --db "$T/none.db"
	assert_line "no database at $T/none.db yet: nothing recorded"
	assert_line "boot it: $GRUB"
}

@test "nightly prints the next boot's commands without --reboot and says the comparison is ready" {
	plan_config 1
	FOLIOBENCH_BOOT_ID=boot-p1 run "$BENCH" nightly --config "$T/config.json" --label base --quiet
	assert_success
	assert_line --regexp "^nightly: label base, boot boot-p1, run [0-9a-f]{8} complete, cases [01] valid [01] invalid, kernel warnings [0-9]+, upload not configured, next boot: patch by \`$(printf '%s' "$KEXEC" | sed 's/[][\.*^$()+?{}|]/\\&/g')\` \(not run without --reboot\)\$"
	FOLIOBENCH_BOOT_ID=boot-p2 run "$BENCH" nightly --config "$T/config.json" --label patch --quiet
	assert_success
	assert_line --regexp "next boot: none, the comparison is ready \(1 boots of each kernel\)\$"
}

@test "--reboot without a plan, or with a plan that cannot boot a kernel, is refused before a run" {
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]'
	run "$BENCH" nightly --config "$T/config.json" --reboot
	assert_failure 78
	assert_output "bench: --reboot needs a \"plan\" in $T/config.json (the kernels to alternate and how to boot them)"
	[ ! -e "$DB" ]
	plan_config 4
	python3 - "$T/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); del c["plan"]["patch"]["boot"]
json.dump(c, open(sys.argv[1], "w"))
PY
	run "$BENCH" nightly --config "$T/config.json" --reboot --label base
	assert_failure 78
	assert_output "bench: $T/config.json: plan.patch.boot: --reboot needs a way to boot patch: \"grub\" (a GRUB menu entry) or \"kernel\" (an image for kexec)"
	[ ! -e "$DB" ]
}

@test "--reboot with a kexec image or initrd that is not a file is refused before a run (78)" {
	local k i want
	mkdir "$T/dir"
	touch "$T/vmlinuz" "$T/initrd"
	while IFS='|' read -r k i want; do
		plan_config 4
		plan_boot patch kernel "$k" initrd "$i"
		run "$BENCH" nightly --config "$T/config.json" --reboot --label base
		assert_failure 78
		assert_output "bench: $T/config.json: plan.patch.boot.$want; --reboot could not boot patch"
		[ ! -e "$DB" ]
	done <<BAD
$T/none|$T/initrd|kernel: "$T/none": No such file or directory
$T/dir|$T/initrd|kernel: "$T/dir": not a regular file
$T/vmlinuz|$T/none|initrd: "$T/none": No such file or directory
BAD
}

@test "--reboot with a GRUB entry its menu has not is refused before a run (78), saying what the menu has" {
	local e want
	while IFS='|' read -r e want; do
		plan_config 4
		plan_boot base grub "$e"
		run "$BENCH" nightly --config "$T/config.json" --reboot --label patch
		assert_failure 78
		assert_output "bench: $T/config.json: plan.base.boot.grub: \"$e\": $want; --reboot could not boot base"
		[ ! -e "$DB" ]
		# bench plan prints the command, and warns
		run --separate-stderr "$BENCH" plan --config "$T/config.json" --db "$DB"
		assert_success
		assert_equal "$stderr" "bench: warning: plan.base.boot.grub: \"$e\": $want"
	done <<BAD
Debian GNU/Linux, with Linux 6.18.0-base|the GRUB menu $FOLIOBENCH_GRUB_CFG has no entry 'Debian GNU/Linux, with Linux 6.18.0-base' (it has 'Debian GNU/Linux', submenu 'Advanced options for Debian GNU/Linux', 'UEFI Firmware Settings'): it is in a submenu, named 'Advanced options for Debian GNU/Linux>Debian GNU/Linux, with Linux 6.18.0-base'
Advanced options for Debian GNU/Linux|the GRUB menu $FOLIOBENCH_GRUB_CFG has no entry 'Advanced options for Debian GNU/Linux' (it has 'Debian GNU/Linux', submenu 'Advanced options for Debian GNU/Linux', 'UEFI Firmware Settings'): that is a submenu; name an entry in it, 'Advanced options for Debian GNU/Linux>ENTRY'
Advanced options for Debian GNU/Linux>Debian GNU/Linux, with Linux 6.18.0-bsae|the GRUB menu $FOLIOBENCH_GRUB_CFG has no entry 'Debian GNU/Linux, with Linux 6.18.0-bsae' in submenu 'Advanced options for Debian GNU/Linux' (it has 'Debian GNU/Linux, with Linux 6.18.0-patch', 'Debian GNU/Linux, with Linux 6.18.0-patch (recovery mode)', 'Debian GNU/Linux, with Linux 6.18.0-base', 'Debian GNU/Linux, with Linux 6.18.0-base (recovery mode)')
Debian>0|the GRUB menu $FOLIOBENCH_GRUB_CFG has no submenu 'Debian' (it has 'Debian GNU/Linux', submenu 'Advanced options for Debian GNU/Linux', 'UEFI Firmware Settings')
3|the GRUB menu $FOLIOBENCH_GRUB_CFG has no entry '3' (it has 'Debian GNU/Linux', submenu 'Advanced options for Debian GNU/Linux', 'UEFI Firmware Settings')
BAD
	# a title, an id or a number, at each level, as GRUB reads them
	for e in "Debian GNU/Linux" 0 "uefi-firmware" \
		 "gnulinux-advanced-6f0c1d2e-1111-4a4a-9b9b-0123456789ab>2" \
		 "1>gnulinux-6.18.0-base-advanced-6f0c1d2e-1111-4a4a-9b9b-0123456789ab"; do
		plan_boot base grub "$e"
		run --separate-stderr "$BENCH" plan --config "$T/config.json" --db "$DB"
		assert_success
		assert_equal "$stderr" ""
	done
	# no GRUB menu; one that never reads next_entry; no grub-reboot
	FOLIOBENCH_GRUB_CFG=$T/none.cfg run "$BENCH" nightly --config "$T/config.json" --reboot --label patch
	assert_failure 78
	assert_output "bench: $T/config.json: plan.base.boot.grub: \"1>gnulinux-6.18.0-base-advanced-6f0c1d2e-1111-4a4a-9b9b-0123456789ab\": no GRUB menu $T/none.cfg: No such file or directory; --reboot could not boot base"
	grep -v next_entry "$FOLIOBENCH_GRUB_CFG" > "$T/old.cfg"
	FOLIOBENCH_GRUB_CFG=$T/old.cfg run "$BENCH" nightly --config "$T/config.json" --reboot --label patch
	assert_failure 78
	assert_output --partial ": the GRUB menu $T/old.cfg never reads next_entry: grub-reboot would not change the next boot; --reboot could not boot base"
	mkdir "$T/bin"
	PATH=$T/bin run "$BENCH" nightly --config "$T/config.json" --reboot --label patch
	assert_failure 78
	assert_output --partial ": grub-reboot is not installed (Debian's grub2-common): nothing would choose the next boot; --reboot could not boot base"
	[ ! -e "$DB" ]
}

@test "a bad plan is a configuration error naming the key" {
	local bad want
	while IFS='|' read -r bad want; do
		fb_config '[ { "workload": "shmem-remove" } ]' - - "\"plan\": $bad"
		run "$BENCH" nightly --config "$T/config.json" --reboot
		assert_failure 78
		assert_output "bench: $T/config.json: $want"
	done <<'BAD'
{ "base": { "label": "a" } }|plan: missing key "patch" (an object with "label" and "boot")
{ "base": { "label": "a" }, "patch": { "label": "a" } }|plan: base and patch both have the label "a"
{ "base": { "label": "a", "boot": { "grub": "x", "kernel": "/k" } }, "patch": { "label": "b" } }|plan.base.boot: give either "grub" (a GRUB menu entry) or "kernel" (an image for kexec), not both
{ "base": { "label": "a", "boot": { "kernel": "vmlinuz" } }, "patch": { "label": "b" } }|plan.base.boot.kernel: "vmlinuz" is not an absolute path
{ "base": { "label": "a", "boot": { "grub": "x", "initrd": "/i" } }, "patch": { "label": "b" } }|plan.base.boot: "initrd" goes with "kernel" (kexec), not with "grub"
{ "base": { "label": "a" }, "patch": { "label": "b" }, "effect": "lots" }|plan.effect: "lots" is not a change in percent above 0 and below 1000, such as "5%"
{ "base": { "label": "a" }, "patch": { "label": "b" }, "boots": 0 }|plan.boots: 0 is not a whole number from 1 to 10000
{ "base": { "label": "a" }, "patch": { "label": "b" }, "bots": 4 }|plan.bots: unknown key in plan; did you mean "boots"?
{ "base": { "lable": "a" }, "patch": { "label": "b" } }|plan.base.lable: unknown key in plan.base; did you mean "label"?
{ "base": { "label": "a" }, "patch": { "label": "../etc" } }|plan.patch.label: "../etc": a label holds only letters, digits and . _ + ~ : @ - ("/" at offset 2)
BAD
}

@test "nightly with a plan refuses a label that is neither of its kernels" {
	plan_config 4
	run "$BENCH" nightly --config "$T/config.json" --label other
	assert_failure 78
	assert_output "bench: $T/config.json: label other is neither the plan's base (base) nor its patch (patch)"
	run "$BENCH" nightly --config "$T/config.json"
	assert_failure 78
	assert_output "bench: $T/config.json: the running kernel $(uname -r) is neither the plan's base (base) nor its patch (patch); name it with --label or \"label\""
	[ ! -e "$DB" ]
}

@test "the example config's plan, once named plan, is valid and boots by grub and kexec" {
	sed 's/"#plan example":/"plan":/' "$BATS_TEST_DIRNAME/../config.example.json" > "$T/config.json"
	run "$BENCH" plan --config "$T/config.json" --db "$T/none.db"
	assert_success
	assert_line "boots: 6.18.0-base 0, 6.18.0-patch 0 (of 4 each)"
	assert_line "boot it: grub-reboot 'Advanced options for Debian GNU/Linux>Debian GNU/Linux, with Linux 6.18.0-base' && systemctl reboot"
}

@test "a --label that is not a label is a usage error (64), before anything runs" {
	plan_config
	run "$BENCH" nightly --config "$T/config.json" --label "a b"
	assert_failure 64
	assert_output 'bench: --label "a b": a label holds only letters, digits and . _ + ~ : @ - (" " at offset 1)'
	fb_config '[ { "workload": "shmem-remove", "size": "64M" } ]'
	for bad in '../x' 'a"b' '$(id)' '-x' '' $'a\nb' $'\e[31mred'; do
		run "$BENCH" nightly --config "$T/config.json" --label "$bad" --quiet
		assert_failure 64
		assert_output --regexp '^bench: --label ".*": a label '
	done
	[ ! -e "$DB" ]
}
