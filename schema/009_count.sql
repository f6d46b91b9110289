-- foliobench results, version 9: what a "time" of a guest's run is.  In
-- counting mode (`bench vm --accel icount`: one TCG thread, -icount
-- shift=N,sleep=off) the guest's clocks advance 2^N ns a guest
-- instruction, so every time its runner stored is a count of instructions
-- (with shift 0, one a nanosecond): such runs are shown in instructions and
-- never compared with timed ones.  Rows made before this version were
-- timed.  kernel_sha256 names the image booted, so that two labels of one
-- kernel can be told from two kernels.
ALTER TABLE run_vm ADD COLUMN clock TEXT NOT NULL DEFAULT 'time'
	CHECK (clock IN ('time', 'instructions'));
-- N of -icount shift=N (QEMU takes 0 to 10) where counted, NULL where timed
ALTER TABLE run_vm ADD COLUMN icount_shift INTEGER
	CHECK ((clock = 'instructions') = (icount_shift IS NOT NULL) AND
	       (icount_shift IS NULL OR icount_shift BETWEEN 0 AND 10));
ALTER TABLE run_vm ADD COLUMN kernel_sha256 TEXT;	-- NULL: not recorded
