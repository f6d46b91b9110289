-- foliobench results, version 6: a case is keyed by the params that
-- actually ran (cases.params), and what the config asked for is kept
-- beside them when preflight adapted the case (a size shrunk to fit this
-- machine): canonical params JSON as asked, NULL when the case ran as asked.
-- Reports match rows on cases.params only, so a shrunk case is never
-- pooled with, or compared against, one of another size.
ALTER TABLE cases ADD COLUMN asked TEXT;
