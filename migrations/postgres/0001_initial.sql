-- agentcall: calls, recordings, the webhook outbox, idempotency keys, and the
-- limits several instances share (rate events, minute usage). Times are
-- BIGINT nanoseconds since the Unix epoch (UTC).

CREATE TABLE calls (
    id          TEXT   NOT NULL PRIMARY KEY,
    key_id      TEXT   NOT NULL,
    account_id  TEXT   NOT NULL,
    created_ns  BIGINT NOT NULL,
    status      TEXT   NOT NULL,
    version     BIGINT NOT NULL,
    -- The whole call (less its version) as JSON.
    doc         TEXT   NOT NULL
);

-- Listing one key's calls, newest first, with a (created_ns, id) cursor.
CREATE INDEX calls_by_key ON calls (key_id, created_ns, id);

-- Recovery after a restart; the predicate matches the store's query.
CREATE INDEX calls_unfinished ON calls (created_ns, id)
    WHERE status IN ('queued', 'dialing', 'in_progress');

CREATE TABLE recordings (
    call_id       TEXT  NOT NULL PRIMARY KEY REFERENCES calls (id),
    content_type  TEXT  NOT NULL,
    bytes         BYTEA NOT NULL
);

CREATE TABLE outbox (
    event_id              TEXT   NOT NULL PRIMARY KEY,
    -- Emission order.
    seq                   BIGINT NOT NULL GENERATED ALWAYS AS IDENTITY UNIQUE,
    call_id               TEXT   NOT NULL REFERENCES calls (id),
    account_id            TEXT   NOT NULL,
    kind                  TEXT   NOT NULL,
    url                   TEXT   NOT NULL,
    body                  BYTEA  NOT NULL,
    created_ns            BIGINT NOT NULL,
    first_attempt_ns      BIGINT NOT NULL,
    -- NULL once delivered or given up.
    next_attempt_ns       BIGINT,
    status                TEXT   NOT NULL DEFAULT 'pending',
    attempts              BIGINT NOT NULL DEFAULT 0,
    last_response_status  BIGINT,
    last_error            TEXT,
    delivered_ns          BIGINT
);

CREATE INDEX outbox_due ON outbox (next_attempt_ns, seq) WHERE next_attempt_ns IS NOT NULL;
CREATE INDEX outbox_by_call ON outbox (call_id, seq);

CREATE TABLE idempotency (
    key_id           TEXT   NOT NULL,
    idempotency_key  TEXT   NOT NULL,
    fingerprint      BYTEA  NOT NULL,
    created_ns       BIGINT NOT NULL,
    -- NULL while the request is in progress.
    response_status  BIGINT,
    response_body    BYTEA,
    PRIMARY KEY (key_id, idempotency_key)
);

CREATE INDEX idempotency_by_age ON idempotency (created_ns);

-- One row per admitted placement still inside (or just past) its window.
CREATE TABLE rate_events (
    id      BIGINT NOT NULL GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key_id  TEXT   NOT NULL,
    at_ns   BIGINT NOT NULL
);

CREATE INDEX rate_events_by_key ON rate_events (key_id, at_ns);

CREATE TABLE usage (
    account_id  TEXT   NOT NULL,
    period_ns   BIGINT NOT NULL,
    billed      BIGINT NOT NULL DEFAULT 0 CHECK (billed >= 0),
    reserved    BIGINT NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    PRIMARY KEY (account_id, period_ns)
);
