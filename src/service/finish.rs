//! Finishing a call the carrier ended: its recording, extraction and
//! summary, then its end.

/// What became of keeping a carrier's end on its call.
enum Kept {
    /// Kept, with this instance holding the call until it is finished.
    Here,
    /// Another instance keeps this call's end already (or it ended).
    Elsewhere,
    /// The store failed: the call is finished without the protection.
    Failed,
}

use super::AgentCall;
use super::journal::{Actor, Notes};
use crate::carrier::CarrierOutcome;
use crate::domain::{CallId, CallStatus};
use crate::extract::{Extraction, ExtractionInput, Grounded, ground_with, summarize};
use crate::state::Ending;
use crate::store::{CarrierEnd, StoreError, StoredCall};
use crate::transcript::Transcript;

impl AgentCall {
    /// Turns a carrier's end report into the end this instance finishes:
    /// repairs the report (see [`plausible_end`](super::driver::plausible_end)),
    /// stores the recording, and, for a completed call, keeps the carrier's
    /// end on the still-running call and takes its lease, before the
    /// extraction that may take tens of seconds. `status` is the stored
    /// status when the report arrived.
    ///
    /// Returns the end to [`finish`](Self::finish) and on whose behalf, or
    /// `None` when another instance already holds this call's end (the
    /// carrier reported it twice, or to two instances).
    ///
    /// Keeping the end ([`StoredCall::carrier_end`]: transcript, recording,
    /// end time, duration, outcome) means a crash during extraction loses
    /// nothing: whoever takes the call over re-runs the extraction and ends
    /// the call with its real outcome. The terminal event fires once, after
    /// extraction.
    pub(super) async fn take_carrier_end(
        &self,
        call_id: &CallId,
        outcome: CarrierOutcome,
        status: Option<CallStatus>,
    ) -> Option<(CarrierEnd, Actor)> {
        // The end happened now, whatever extraction takes afterwards.
        let ended_at = self.now();
        let status = self
            .repair_end(call_id, status, outcome.status, ended_at)
            .await;
        let mut recording_url = None;
        if let Some(recording) = outcome.recording {
            match self.inner.store.put_recording(call_id, recording).await {
                // Stored as written now; reads derive it from the current base.
                Ok(()) => recording_url = Some(super::recording_url(&self.inner.base_url, call_id)),
                Err(error) => tracing::warn!(call_id = %call_id, %error, "recording not stored"),
            }
        }
        let mut end = CarrierEnd::new(status, ended_at);
        end.error = outcome.error;
        end.transcript = outcome.transcript;
        end.recording_url = recording_url;
        end.duration_sec = outcome
            .duration
            .map(|d| d.as_millis().div_ceil(1000) as u64);
        if status != CallStatus::Completed {
            // Nothing slow before the end: the terminal compare-and-set
            // alone decides which report ends the call.
            return Some((end, Actor::Anyone));
        }
        match self.keep_carrier_end(call_id, &end).await {
            Kept::Here => Some((end, Actor::Holder)),
            Kept::Failed => Some((end, Actor::Anyone)),
            Kept::Elsewhere => None,
        }
    }

    /// Ends a call the carrier ended: extraction and summary for a
    /// completed call, then the terminal move at the carrier's end time,
    /// written on behalf of `actor`.
    pub(super) async fn finish(&self, call_id: &CallId, end: CarrierEnd, actor: Actor) {
        let mut ending = Ending {
            status: end.status,
            error: end.error,
            transcript: end.transcript,
            summary: None,
            extracted: None,
            recording_url: end.recording_url,
            duration_sec: end.duration_sec,
        };
        let mut notes = None;
        if end.status == CallStatus::Completed
            && let Ok(Some(call)) = self.inner.store.get(call_id).await
        {
            let empty = Transcript::new();
            let transcript = ending.transcript.as_ref().unwrap_or(&empty);
            let (grounded, summary) = self.extract(&call, transcript).await;
            // A completed call always has `extracted`: `{}` when it asked for no fields.
            ending.extracted = Some(grounded.values);
            ending.summary = Some(summary);
            notes = Some(Notes {
                reasons: grounded.reasons,
                evidence: grounded.evidence,
            });
        }
        self.record_end(call_id, ending, notes, Some(end.ended_at), actor)
            .await;
    }

    /// Stores the carrier's end on the running call (no event, no status
    /// change) with this instance as its holder. Best effort: if the store
    /// fails, the call is finished all the same, only without the
    /// protection against a crash meanwhile.
    async fn keep_carrier_end(&self, call_id: &CallId, end: &CarrierEnd) -> Kept {
        for _ in 0..10 {
            let current = match self.inner.store.get(call_id).await {
                Ok(Some(current)) if current.carrier_end.is_some() => return Kept::Elsewhere,
                Ok(Some(current)) if !current.record.status.is_terminal() => current,
                Ok(_) => return Kept::Elsewhere,
                Err(error) => {
                    tracing::warn!(call_id = %call_id, %error, "carrier end not kept before extraction");
                    return Kept::Failed;
                }
            };
            let next = StoredCall {
                carrier_end: Some(end.clone()),
                lease: Some(self.fresh_lease(self.now())),
                ..current
            };
            match self.inner.store.update(&next, Vec::new()).await {
                Ok(_) => return Kept::Here,
                Err(StoreError::Conflict { .. }) => continue,
                Err(error) => {
                    tracing::warn!(call_id = %call_id, %error, "carrier end not kept before extraction");
                    return Kept::Failed;
                }
            }
        }
        Kept::Failed
    }

    /// The call's fields conformed to their declared types and checked
    /// against their evidence ([`ground`]), and a summary. A failing
    /// extractor leaves every field null with its error as the reason, and a
    /// missing or blank summary is written from the checked fields, so a
    /// completed call always has one.
    async fn extract(&self, call: &StoredCall, transcript: &Transcript) -> (Grounded, String) {
        let input = ExtractionInput {
            objective: &call.record.objective,
            fields: &call.fields,
            transcript,
            outcome: CallStatus::Completed,
        };
        let limit = self.inner.timing.extraction_timeout;
        let extracted = match tokio::time::timeout(limit, self.inner.extractor.extract(input)).await
        {
            Ok(result) => result,
            Err(_) => Err(crate::extract::ExtractError::transient(format!(
                "extraction took longer than {limit:?}"
            ))),
        };
        let (extraction, failure) = match extracted {
            Ok(extraction) => (extraction, None),
            Err(error) => {
                tracing::warn!(call_id = %call.record.id, %error, "extractor failed; fields are null");
                (Extraction::default(), Some(error.to_string()))
            }
        };
        let mut grounded = ground_with(
            self.inner.value_check.as_ref(),
            &call.fields,
            &extraction,
            transcript,
        );
        if let Some(failure) = failure {
            for field in &call.fields {
                grounded.reasons.insert(field.name.clone(), failure.clone());
            }
        }
        let summary = extraction
            .summary
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| {
                summarize(
                    &call.record.objective,
                    "completed",
                    &call.fields,
                    &grounded.values,
                )
            });
        (grounded, summary)
    }
}
