-- Claim tokens for the webhook outbox.
--
-- `claim_token` names an event's latest claim until an outcome is recorded
-- under it or the event is redelivered (then NULL): `record_attempt` applies
-- an outcome only under the current token, so a worker whose lease lapsed
-- cannot overwrite a newer claim's outcome. Rows written before this
-- migration have none; a claim made by an older version that is still
-- leased is handed out again, with a token, once its lease lapses.
ALTER TABLE outbox ADD COLUMN claim_token INTEGER;

