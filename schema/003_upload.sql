-- foliobench results, version 3: the upload outbox at work.  A row of
-- `uploads` is made in the transaction that marks its run complete; an
-- uploader claims it (claim_*) before it sends, so that two uploaders never
-- send one run twice, and a claim whose lease ran out or whose process died
-- is taken over.  sent_at and reply say when and what the dashboard
-- answered.
ALTER TABLE uploads ADD COLUMN created_at TEXT;
ALTER TABLE uploads ADD COLUMN claim_host TEXT;
ALTER TABLE uploads ADD COLUMN claim_pid INTEGER;
ALTER TABLE uploads ADD COLUMN claim_until INTEGER;	-- unix seconds
ALTER TABLE uploads ADD COLUMN sent_at TEXT;
ALTER TABLE uploads ADD COLUMN reply TEXT;		-- HTTP status and its text
CREATE INDEX uploads_state ON uploads(state, target);
