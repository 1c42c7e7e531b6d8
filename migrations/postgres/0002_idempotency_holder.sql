-- Holder tokens and renewable leases for idempotency keys: `complete`,
-- `abandon` and `renew` act only for the holder named here, and a held key
-- is stale once `renewed_ns` (its lease start) is a lease old. Rows written
-- before this migration have neither: they count as leased from creation
-- and no holder can act on them, so they go stale or expire as before.
ALTER TABLE idempotency ADD COLUMN holder BYTEA;
ALTER TABLE idempotency ADD COLUMN renewed_ns BIGINT;
