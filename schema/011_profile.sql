-- foliobench results, version 11: a kernel profile of each case, taken
-- from its own timed calls (`bench run --profile`, config key "profile"):
-- the kernel sampled on a software clock (cpu-clock; where a PMU is there,
-- cycles) with kernel call chains, only while a timed call runs, on the
-- workers' PUs; symbols from the kallsyms of the kernel that ran (in a
-- guest, the guest's).  Stored folded: one row a distinct call chain.
-- In a counting guest the clock ticks on guest instructions, so a profile
-- there is an instruction profile.

-- The case's profile, NULL where it was not profiled: JSON
-- {"event", "period", "unit" ("ns", "instructions" or "cycles": what one
-- period is), "calls" (timed calls sampled), "samples" (their sum of
-- counts), "lost", "symbols" (where names came from), and as the runner
-- writes them "throttled" (times the kernel throttled the event),
-- "others" (samples dropped: another program's on the PU), "pmu" (whether
-- a PMU was there)}, or {"off": why} where profiling was asked for and
-- could not be had.
ALTER TABLE cases ADD COLUMN profile TEXT;

-- 1: the sample's timed call ran while profiled (its time holds the cost
-- of sampling); reports leave such samples out unless asked.
ALTER TABLE samples ADD COLUMN profiled INTEGER NOT NULL DEFAULT 0
	CHECK (profiled IN (0, 1));

-- A case's call chains: kernel functions outermost first, ';' between
-- them, no offsets (the form flamegraph.pl and difffolded.pl read), and
-- how many samples ended in that chain, over the case's profiled timed
-- calls (warm-ups left out).
CREATE TABLE profile_stacks (
	case_id		INTEGER NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
	stack		TEXT NOT NULL CHECK (length(stack) > 0),
	count		INTEGER NOT NULL CHECK (count > 0),
	PRIMARY KEY (case_id, stack)
);
