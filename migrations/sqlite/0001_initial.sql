-- agentcall: calls, recordings, the webhook outbox, idempotency keys and
-- minute usage. Times are INTEGER nanoseconds since the Unix epoch (UTC).

CREATE TABLE calls (
    id          TEXT    NOT NULL PRIMARY KEY,
    key_id      TEXT    NOT NULL,
    account_id  TEXT    NOT NULL,
    created_ns  INTEGER NOT NULL,
    status      TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    -- The whole call (less its version) as JSON.
    doc         TEXT    NOT NULL
) STRICT;

-- Listing one key's calls, newest first, with a (created_ns, id) cursor.
CREATE INDEX calls_by_key ON calls (key_id, created_ns, id);

-- Recovery after a restart; the predicate matches the store's query.
CREATE INDEX calls_unfinished ON calls (created_ns, id)
    WHERE status IN ('queued', 'dialing', 'in_progress');

CREATE TABLE recordings (
    call_id       TEXT NOT NULL PRIMARY KEY REFERENCES calls (id),
    content_type  TEXT NOT NULL,
    bytes         BLOB NOT NULL
) STRICT;

CREATE TABLE outbox (
    -- Emission order.
    seq                   INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id              TEXT    NOT NULL UNIQUE,
    call_id               TEXT    NOT NULL REFERENCES calls (id),
    account_id            TEXT    NOT NULL,
    kind                  TEXT    NOT NULL,
    url                   TEXT    NOT NULL,
    body                  BLOB    NOT NULL,
    created_ns            INTEGER NOT NULL,
    first_attempt_ns      INTEGER NOT NULL,
    -- NULL once delivered or given up.
    next_attempt_ns       INTEGER,
    status                TEXT    NOT NULL DEFAULT 'pending',
    attempts              INTEGER NOT NULL DEFAULT 0,
    last_response_status  INTEGER,
    last_error            TEXT,
    delivered_ns          INTEGER
) STRICT;

CREATE INDEX outbox_due ON outbox (next_attempt_ns, seq) WHERE next_attempt_ns IS NOT NULL;
CREATE INDEX outbox_by_call ON outbox (call_id, seq);

CREATE TABLE idempotency (
    key_id           TEXT    NOT NULL,
    idempotency_key  TEXT    NOT NULL,
    fingerprint      BLOB    NOT NULL,
    created_ns       INTEGER NOT NULL,
    -- NULL while the request is in progress.
    response_status  INTEGER,
    response_body    BLOB,
    PRIMARY KEY (key_id, idempotency_key)
) STRICT;

CREATE INDEX idempotency_by_age ON idempotency (created_ns);

CREATE TABLE usage (
    account_id  TEXT    NOT NULL,
    period_ns   INTEGER NOT NULL,
    billed      INTEGER NOT NULL DEFAULT 0,
    reserved    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, period_ns)
) STRICT;
