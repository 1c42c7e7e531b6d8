-- The calls whose minutes the usage ledger has settled, so a settlement
-- repeated after a crash (or by a second instance) changes nothing.
CREATE TABLE settlements (
    call_id     TEXT   NOT NULL PRIMARY KEY,
    account_id  TEXT   NOT NULL,
    period_ns   BIGINT NOT NULL
);
