-- Call leases: the instance that follows a call (`holder`) and when its
-- lease lapses (`lease_until_ns`, nanoseconds since the epoch). Both are
-- NULL once a call needs no one (ended and settled). A lapsed lease is
-- taken over by another instance; renewals rewrite no document.
ALTER TABLE calls ADD COLUMN holder TEXT;
ALTER TABLE calls ADD COLUMN lease_until_ns BIGINT;

-- Rows from before leases: calls still running, and ended calls whose
-- settlement is still owed, get a lease that lapsed long ago, so the first
-- instance that looks takes them over (as `recover()` did before).
UPDATE calls SET lease_until_ns = 0
WHERE status IN ('queued', 'dialing', 'in_progress')
   OR (doc::jsonb ->> 'settled') = 'false';

-- Takeover picks the oldest lapsed lease; renewal finds a holder's calls.
CREATE INDEX calls_by_lease ON calls (lease_until_ns) WHERE lease_until_ns IS NOT NULL;
CREATE INDEX calls_by_holder ON calls (holder) WHERE lease_until_ns IS NOT NULL;
-- Replaced by the two above.
DROP INDEX calls_unfinished;
