-- Claim tokens and fair claiming for the webhook outbox.
--
-- `claim_token` names an event's latest claim until an outcome is recorded
-- under it or the event is redelivered (then NULL): `record_attempt` applies
-- an outcome only under the current token, so a worker whose lease lapsed
-- cannot overwrite a newer claim's outcome. Rows written before this
-- migration have none; a claim made by an older version that is still
-- leased is handed out again, with a token, once its lease lapses.
ALTER TABLE outbox ADD COLUMN claim_token INTEGER;

-- Fair claiming walks accounts: one account's due events in order, and the
-- accounts with pending events by skipping from one account to the next.
CREATE INDEX outbox_account_due ON outbox (account_id, next_attempt_ns, seq)
    WHERE next_attempt_ns IS NOT NULL;

-- An account's live claims (claimed, no outcome yet, lease running).
CREATE INDEX outbox_claimed ON outbox (account_id, next_attempt_ns)
    WHERE claim_token IS NOT NULL;
