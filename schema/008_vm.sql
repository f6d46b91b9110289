-- foliobench results, version 8: runs made in a guest by `bench vm` (and
-- `bench lab`).  The run itself is the guest's, measured inside it (its
-- boot id, kernel, topology); this row says how the guest was made, so that
-- it can be made again and so that compare can refuse what must not be
-- compared: the accelerator (kvm, or tcg: an emulator whose timings are
-- functional checks, never kernel measurements) and the shape asked of
-- QEMU.  Merged with its run (its foreign key), like every run's row.
CREATE TABLE run_vm (
	run_id		INTEGER NOT NULL UNIQUE REFERENCES runs(id) ON DELETE CASCADE,
	accel		TEXT NOT NULL CHECK (accel IN ('kvm', 'tcg')),
	accel_why	TEXT NOT NULL,	-- why this accelerator was used
	shape		TEXT NOT NULL,	-- "smp=32 sockets=2 threads=1 numa=off mem=16G cgroup=v2"
	kernel		TEXT NOT NULL,	-- KERNEL as given: release, tree or .deb
	kernel_image	TEXT NOT NULL,	-- the image booted
	qemu_version	TEXT NOT NULL,	-- first line of qemu --version
	qemu_args	TEXT NOT NULL,	-- JSON array: the whole command line
	guest_cmdline	TEXT NOT NULL,	-- the guest kernel's command line
	command		TEXT NOT NULL,	-- what ran in the guest (cmd.sh)
	boot_s		REAL,		-- QEMU start to the guest command's start
	first_sample_s	REAL,		-- QEMU start to the first sample stored
	wall_s		REAL NOT NULL,	-- QEMU start to its exit
	console		TEXT NOT NULL,	-- the serial console, whole
	kmsg		TEXT NOT NULL	-- the guest's kernel log at the end
);
