-- A call retried after an unanswered attempt reserves and settles minutes
-- once per attempt: settlements are keyed by call and attempt. Every call
-- settled before this migration was a first attempt.
CREATE TABLE settlements_by_attempt (
    call_id     TEXT    NOT NULL,
    attempt     INTEGER NOT NULL,
    account_id  TEXT    NOT NULL,
    period_ns   INTEGER NOT NULL,
    PRIMARY KEY (call_id, attempt)
);
INSERT INTO settlements_by_attempt (call_id, attempt, account_id, period_ns)
    SELECT call_id, 1, account_id, period_ns FROM settlements;
DROP TABLE settlements;
ALTER TABLE settlements_by_attempt RENAME TO settlements;
