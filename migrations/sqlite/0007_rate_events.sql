-- Per-key placement limits shared by every process on the file: one row per
-- admitted placement still inside (or just past) its sliding minute.
CREATE TABLE rate_events (
    id      INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    key_id  TEXT    NOT NULL,
    at_ns   INTEGER NOT NULL
) STRICT;

CREATE INDEX rate_events_by_key ON rate_events (key_id, at_ns);
