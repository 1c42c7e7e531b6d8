-- A call retried after an unanswered attempt reserves and settles minutes
-- once per attempt: settlements are keyed by call and attempt. Every call
-- settled before this migration was a first attempt.
ALTER TABLE settlements ADD COLUMN attempt BIGINT NOT NULL DEFAULT 1;
ALTER TABLE settlements DROP CONSTRAINT settlements_pkey;
ALTER TABLE settlements ADD PRIMARY KEY (call_id, attempt);
