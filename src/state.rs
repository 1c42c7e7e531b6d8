//! The call state machine (spec 3), pure: a record and a transition in, the
//! next record and the event it emits out. No I/O and no clock reads; the
//! caller passes the time.
//!
//! Moves:
//!
//! | from | transition | to |
//! |---|---|---|
//! | queued | [`Transition::Dial`] | dialing |
//! | dialing | [`Transition::Answer`] | in_progress (sets `startedAt`) |
//! | queued, dialing | [`Transition::End`] | no_answer, declined, failed |
//! | in_progress | [`Transition::End`] | completed, voicemail, failed |
//! | queued, dialing | [`Transition::Cancel`] | failed, error `canceled` |
//! | queued, dialing | [`Transition::Retry`] | queued (the attempt ended as no_answer, declined or failed) |
//! | in_progress | [`Transition::Retry`] | queued (the attempt ended as voicemail) |
//! | queued, after a retry | [`Transition::NextAttempt`] | queued, `attempt` raised |
//!
//! A retry ends one attempt without ending the call: the attempt's outcome
//! moves to `attempts`, the record's own fields are cleared for the next
//! one, and no event fires. Whether an attempt is retried is the service's
//! decision (its retry policy); the state machine only keeps the record
//! straight.
//!
//! Cancelling an answered call is not a move of its own: the service hangs
//! up through the carrier, which then reports the end (`completed`, with what
//! was said so far).
//!
//! Voicemail is a connected call (the carrier answered, the message was
//! left), so it is reached only from `in_progress`, with a `startedAt`, a
//! `durationSec` and the `call.in_progress` event before its terminal one.
//!
//! An end never precedes the answer: an end at a time before `startedAt`
//! (reports out of order) moves `startedAt` back to the end, so
//! `startedAt <= endedAt` always holds. The talk time is the carrier's
//! ([`Ending::duration_sec`]) when it gave one, answer to end otherwise.
//!
//! Terminal statuses are final. Every move into a terminal status emits
//! exactly one event, and the first answer of a call emits
//! `call.in_progress` (a later attempt's answer, after a voicemail that was
//! retried, emits nothing), so a call emits at most two: one
//! `call.in_progress` only if answered, and exactly one terminal event.
//! An illegal move is an [`IllegalTransition`] and the record is untouched.

use chrono::{DateTime, Utc};

use crate::domain::{AttemptOutcome, CallError, CallRecord, CallStatus, EventKind};

/// How a call ended, as the carrier and the service report it.
#[derive(Debug, Clone, PartialEq)]
pub struct Ending {
    /// The terminal status.
    pub status: CallStatus,
    /// Error token (kept only on `failed`; [`CallError::CarrierError`] when absent).
    pub error: Option<CallError>,
    /// The conversation, if any was had.
    pub transcript: Option<crate::transcript::Transcript>,
    /// Summary (kept only on `completed`).
    pub summary: Option<String>,
    /// Extracted fields (kept only on `completed`).
    pub extracted: Option<serde_json::Map<String, serde_json::Value>>,
    /// Where the recording can be fetched.
    pub recording_url: Option<String>,
    /// The talk time the carrier measured, in whole seconds; when given it
    /// is the call's `durationSec` (and what is billed) instead of the time
    /// from answer to end. Ignored for a call that was never answered.
    pub duration_sec: Option<u64>,
}

impl Ending {
    /// An ending with only a status.
    pub fn new(status: CallStatus) -> Self {
        Self {
            status,
            error: None,
            transcript: None,
            summary: None,
            extracted: None,
            recording_url: None,
            duration_sec: None,
        }
    }

    /// A `failed` ending with an error token.
    pub fn failed(error: CallError) -> Self {
        Self {
            error: Some(error),
            ..Self::new(CallStatus::Failed)
        }
    }
}

/// A move requested of the state machine.
#[derive(Debug, Clone, PartialEq)]
pub enum Transition {
    /// The carrier started dialing.
    Dial,
    /// The recipient answered.
    Answer,
    /// The call ended.
    End(Ending),
    /// The caller cancelled the call before it was answered.
    Cancel,
    /// The attempt ended with this (not terminal for the call): another
    /// attempt follows.
    Retry(Ending),
    /// A retry's dial starts: the next attempt.
    NextAttempt,
}

impl Transition {
    fn name(&self) -> &'static str {
        match self {
            Self::Dial => "dial",
            Self::Answer => "answer",
            Self::Cancel => "cancel",
            Self::Retry(_) => "retry",
            Self::NextAttempt => "start the next attempt of",
            Self::End(ending) => match ending.status {
                CallStatus::Completed => "end as completed",
                CallStatus::NoAnswer => "end as no_answer",
                CallStatus::Voicemail => "end as voicemail",
                CallStatus::Declined => "end as declined",
                CallStatus::Failed => "end as failed",
                _ => "end with a non-terminal status",
            },
        }
    }
}

/// A move the state machine does not allow from the record's status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot {transition} a call that is {from}")]
pub struct IllegalTransition {
    /// The status the record was in.
    pub from: CallStatus,
    /// The move that was asked for.
    pub transition: &'static str,
}

/// The outcome of a legal move.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The record after the move.
    pub record: CallRecord,
    /// The event the move emits, if any.
    pub event: Option<EventKind>,
}

/// Applies `transition` to `record` at time `now`.
pub fn apply(
    record: &CallRecord,
    transition: Transition,
    now: DateTime<Utc>,
) -> Result<Step, IllegalTransition> {
    use CallStatus::*;
    let illegal = |t: &Transition| IllegalTransition {
        from: record.status,
        transition: t.name(),
    };
    let mut next = record.clone();
    // An attempt that ended and was retried: only the next attempt, a
    // cancel or the service's own failure (the retry cannot be made) may
    // follow; a late report about the ended attempt changes nothing.
    let waits_for_retry =
        record.status == Queued && record.attempts.len() == record.attempt as usize;
    let stale = waits_for_retry
        && match &transition {
            Transition::Dial | Transition::Answer | Transition::Retry(_) => true,
            Transition::End(ending) => ending.status != Failed,
            Transition::Cancel | Transition::NextAttempt => false,
        };
    if stale {
        return Err(illegal(&transition));
    }
    match (&transition, record.status) {
        (Transition::Dial, Queued) => next.status = Dialing,
        (Transition::Answer, Dialing) => {
            next.status = InProgress;
            next.started_at = Some(now);
            if record.attempts.iter().any(|a| a.started_at.is_some()) {
                // Answered before, in an attempt that was retried: the call
                // has had its `call.in_progress`.
                return Ok(Step {
                    record: next,
                    event: None,
                });
            }
        }
        (Transition::Retry(ending), from) if retryable(from, ending.status) => {
            let mut ended = record.clone();
            end(&mut ended, ending.clone(), now);
            next.attempts.push(AttemptOutcome {
                attempt: record.attempt,
                status: ended.status,
                error: ended.error,
                started_at: ended.started_at,
                ended_at: now,
                duration_sec: ended.duration_sec.unwrap_or(0),
            });
            next.status = Queued;
            next.started_at = None;
            next.ended_at = None;
            next.duration_sec = None;
            next.transcript = None;
            next.summary = None;
            next.extracted = None;
            next.recording_url = None;
            next.error = None;
        }
        (Transition::NextAttempt, Queued) if record.attempts.len() == record.attempt as usize => {
            next.attempt += 1;
        }
        (Transition::End(ending), from) if may_end(from, ending.status) => {
            end(&mut next, ending.clone(), now);
        }
        (Transition::Cancel, Queued | Dialing) => {
            end(&mut next, Ending::failed(CallError::Canceled), now)
        }
        _ => return Err(illegal(&transition)),
    }
    let event = EventKind::for_status(next.status);
    Ok(Step {
        record: next,
        event,
    })
}

/// Whether an attempt of a call in `from` that ended as `to` may be retried:
/// one that reached no one, or a machine.
pub(crate) fn retryable(from: CallStatus, to: CallStatus) -> bool {
    use CallStatus::*;
    match from {
        Queued | Dialing => matches!(to, NoAnswer | Declined | Failed),
        InProgress => to == Voicemail,
        _ => false,
    }
}

/// Whether a call in `from` may end as `to`.
fn may_end(from: CallStatus, to: CallStatus) -> bool {
    use CallStatus::*;
    match from {
        Queued | Dialing => matches!(to, NoAnswer | Declined | Failed),
        InProgress => matches!(to, Completed | Voicemail | Failed),
        _ => false,
    }
}

fn end(record: &mut CallRecord, ending: Ending, now: DateTime<Utc>) {
    let completed = ending.status == CallStatus::Completed;
    let failed = ending.status == CallStatus::Failed;
    record.status = ending.status;
    // Reports out of order: the answer cannot come after the end.
    record.started_at = record.started_at.map(|started| started.min(now));
    record.ended_at = Some(now);
    record.duration_sec = Some(match (record.started_at, ending.duration_sec) {
        (Some(_), Some(carrier)) => carrier,
        (started_at, _) => talk_seconds(started_at, now),
    });
    record.transcript = ending.transcript;
    // A recording the carrier delivered on its own (already attached) stays.
    record.recording_url = ending.recording_url.or(record.recording_url.take());
    record.summary = ending.summary.filter(|_| completed);
    record.extracted = ending.extracted.filter(|_| completed);
    record.error = failed.then(|| ending.error.unwrap_or(CallError::CarrierError));
}

/// Talk time in whole seconds, rounded up; 0 when never answered.
fn talk_seconds(started_at: Option<DateTime<Utc>>, ended_at: DateTime<Utc>) -> u64 {
    let Some(started_at) = started_at else {
        return 0;
    };
    let millis = (ended_at - started_at).num_milliseconds().max(0) as u64;
    millis.div_ceil(1000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::CallId;
    use chrono::Duration;
    use proptest::prelude::*;

    fn t0() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .to_utc()
    }

    fn queued() -> CallRecord {
        CallRecord::queued(CallId::generate(), "+14155550123", "test")
    }

    #[test]
    fn happy_path_sets_times_and_emits_two_events() {
        let r = queued();
        let s1 = apply(&r, Transition::Dial, t0()).unwrap();
        assert_eq!((s1.record.status, s1.event), (CallStatus::Dialing, None));
        let s2 = apply(&s1.record, Transition::Answer, t0() + Duration::seconds(3)).unwrap();
        assert_eq!(s2.event, Some(EventKind::InProgress));
        assert_eq!(s2.record.started_at, Some(t0() + Duration::seconds(3)));
        let mut ending = Ending::new(CallStatus::Completed);
        ending.summary = Some("done".into());
        let end_at = t0() + Duration::milliseconds(65_200);
        let s3 = apply(&s2.record, Transition::End(ending), end_at).unwrap();
        assert_eq!(s3.event, Some(EventKind::Completed));
        assert_eq!(s3.record.ended_at, Some(end_at));
        assert_eq!(s3.record.duration_sec, Some(63));
        assert_eq!(s3.record.summary.as_deref(), Some("done"));
        assert_eq!(s3.record.error, None);
    }

    #[test]
    fn illegal_moves_are_errors_and_leave_the_record_alone() {
        let r = queued();
        let before = r.clone();
        let err = apply(&r, Transition::Answer, t0()).unwrap_err();
        assert_eq!(err.from, CallStatus::Queued);
        assert_eq!(r, before);
        assert!(
            apply(
                &r,
                Transition::End(Ending::new(CallStatus::Completed)),
                t0()
            )
            .is_err()
        );
        let done = apply(
            &r,
            Transition::End(Ending::failed(CallError::CarrierFailed)),
            t0(),
        )
        .unwrap()
        .record;
        for t in [
            Transition::Dial,
            Transition::Answer,
            Transition::End(Ending::failed(CallError::CarrierLost)),
        ] {
            assert!(apply(&done, t, t0()).is_err());
        }
    }

    #[test]
    fn cancel_ends_unanswered_calls_only() {
        let queued = queued();
        let dialing = apply(&queued, Transition::Dial, t0()).unwrap().record;
        for record in [&queued, &dialing] {
            let step = apply(record, Transition::Cancel, t0()).unwrap();
            assert_eq!(step.event, Some(EventKind::Failed));
            assert_eq!(step.record.error, Some(CallError::Canceled));
        }
        let answered = apply(&dialing, Transition::Answer, t0()).unwrap().record;
        assert!(
            apply(&answered, Transition::Cancel, t0()).is_err(),
            "answered calls are hung up instead"
        );
    }

    #[test]
    fn failed_without_token_gets_the_default_and_others_carry_none() {
        let r = queued();
        let failed = apply(&r, Transition::End(Ending::new(CallStatus::Failed)), t0()).unwrap();
        assert_eq!(failed.record.error, Some(CallError::CarrierError));
        assert_eq!(failed.record.duration_sec, Some(0));
        let mut ending = Ending::new(CallStatus::NoAnswer);
        ending.error = Some(CallError::CarrierFailed);
        ending.summary = Some("ignored".into());
        let no_answer = apply(&r, Transition::End(ending), t0()).unwrap().record;
        assert_eq!((no_answer.error, no_answer.summary), (None, None));
    }

    #[test]
    fn voicemail_is_connected_and_the_carrier_duration_is_billed() {
        let dialing = apply(&queued(), Transition::Dial, t0()).unwrap().record;
        let voicemail = Transition::End(Ending::new(CallStatus::Voicemail));
        assert!(
            apply(&dialing, voicemail.clone(), t0()).is_err(),
            "voicemail only after an answer"
        );
        let answered = apply(&dialing, Transition::Answer, t0()).unwrap();
        assert_eq!(answered.event, Some(EventKind::InProgress));
        let end_at = t0() + Duration::milliseconds(3_100);
        let ended = apply(&answered.record, voicemail, end_at).unwrap();
        assert_eq!(ended.event, Some(EventKind::Voicemail));
        assert_eq!(ended.record.started_at, Some(t0()));
        assert_eq!(ended.record.duration_sec, Some(4));
        let mut ending = Ending::new(CallStatus::Completed);
        ending.duration_sec = Some(95);
        let ended = apply(&answered.record, Transition::End(ending.clone()), end_at).unwrap();
        assert_eq!(
            ended.record.duration_sec,
            Some(95),
            "the carrier's duration wins"
        );
        let never_answered = apply(
            &dialing,
            Transition::End(Ending {
                duration_sec: Some(95),
                ..Ending::new(CallStatus::NoAnswer)
            }),
            end_at,
        )
        .unwrap();
        assert_eq!(never_answered.record.duration_sec, Some(0));
    }

    #[test]
    fn an_end_before_the_answer_moves_the_answer_back() {
        let dialing = apply(&queued(), Transition::Dial, t0()).unwrap().record;
        let late_answer = t0() + Duration::seconds(10);
        let answered = apply(&dialing, Transition::Answer, late_answer)
            .unwrap()
            .record;
        let ended = apply(
            &answered,
            Transition::End(Ending::new(CallStatus::Completed)),
            t0() + Duration::seconds(4),
        )
        .unwrap()
        .record;
        assert_eq!(ended.started_at, ended.ended_at);
        assert_eq!(ended.duration_sec, Some(0));
    }

    #[test]
    fn a_retried_voicemail_keeps_its_outcome_and_the_call_one_in_progress_event() {
        let dialing = apply(&queued(), Transition::Dial, t0()).unwrap().record;
        let answered = apply(&dialing, Transition::Answer, t0()).unwrap();
        assert_eq!(answered.event, Some(EventKind::InProgress));
        let end_at = t0() + Duration::seconds(20);
        let retried = apply(
            &answered.record,
            Transition::Retry(Ending::new(CallStatus::Voicemail)),
            end_at,
        )
        .unwrap();
        assert_eq!(
            (retried.record.status, retried.event),
            (CallStatus::Queued, None)
        );
        assert_eq!(
            retried.record.attempts,
            [AttemptOutcome {
                attempt: 1,
                status: CallStatus::Voicemail,
                error: None,
                started_at: Some(t0()),
                ended_at: end_at,
                duration_sec: 20,
            }]
        );
        assert_eq!(retried.record.started_at, None);
        // Late reports about the retried attempt change nothing.
        for late in [
            Transition::Dial,
            Transition::Answer,
            Transition::End(Ending::new(CallStatus::Voicemail)),
            Transition::Retry(Ending::new(CallStatus::NoAnswer)),
        ] {
            assert!(apply(&retried.record, late, end_at).is_err());
        }
        let second = apply(&retried.record, Transition::NextAttempt, end_at)
            .unwrap()
            .record;
        assert_eq!(second.attempt, 2);
        assert!(
            apply(&second, Transition::NextAttempt, end_at).is_err(),
            "one raise per retry"
        );
        let dialing = apply(&second, Transition::Dial, end_at).unwrap().record;
        let answered = apply(&dialing, Transition::Answer, end_at).unwrap();
        assert_eq!(answered.event, None, "the call was answered before");
        let done = apply(
            &answered.record,
            Transition::End(Ending::new(CallStatus::Completed)),
            end_at,
        )
        .unwrap();
        assert_eq!(done.event, Some(EventKind::Completed));
        // A completed or answered-then-failed attempt is never retried.
        assert!(
            apply(
                &answered.record,
                Transition::Retry(Ending::new(CallStatus::Completed)),
                end_at
            )
            .is_err()
        );
        assert!(
            apply(
                &answered.record,
                Transition::Retry(Ending::failed(CallError::CarrierFailed)),
                end_at
            )
            .is_err()
        );
    }

    fn any_ending() -> impl Strategy<Value = Ending> {
        (
            prop::sample::select(CallStatus::ALL.to_vec()),
            prop::option::of(0u64..10_000),
        )
            .prop_map(|(status, duration_sec)| Ending {
                duration_sec,
                ..Ending::new(status)
            })
    }

    fn any_transition() -> impl Strategy<Value = Transition> {
        prop_oneof![
            Just(Transition::Dial),
            Just(Transition::Answer),
            Just(Transition::Cancel),
            Just(Transition::NextAttempt),
            any_ending().prop_map(Transition::End),
            any_ending().prop_map(Transition::Retry),
        ]
    }

    proptest! {
        /// Random carrier reports and retries: whatever arrives, the
        /// invariants of spec 3 and 6.1 hold for the call as a whole, and
        /// each attempt's outcome is kept in order.
        #[test]
        fn random_report_sequences_keep_the_invariants(
            transitions in prop::collection::vec(any_transition(), 0..16),
            gaps in prop::collection::vec(0i64..100_000, 16),
        ) {
            let mut record = queued();
            let mut now = t0();
            let mut events = Vec::new();
            let mut answered_ever = false;
            let mut answered = false;
            for (transition, gap) in transitions.into_iter().zip(gaps) {
                now += Duration::milliseconds(gap);
                let before = record.clone();
                let cancel = transition == Transition::Cancel;
                let retry = matches!(transition, Transition::Retry(_));
                let next_attempt = transition == Transition::NextAttempt;
                match apply(&record, transition, now) {
                    Ok(step) => {
                        prop_assert!(!before.status.is_terminal(), "moved out of a terminal status");
                        if cancel {
                            prop_assert!(matches!(before.status, CallStatus::Queued | CallStatus::Dialing));
                            prop_assert_eq!(step.record.status, CallStatus::Failed);
                            prop_assert_eq!(step.record.error, Some(CallError::Canceled));
                            prop_assert_eq!(step.record.duration_sec, Some(0), "nothing to bill");
                        }
                        if retry {
                            prop_assert_eq!(step.record.status, CallStatus::Queued);
                            prop_assert_eq!(step.event, None);
                            prop_assert_eq!(step.record.attempts.len(), before.attempts.len() + 1);
                            let outcome = step.record.attempts.last().unwrap();
                            prop_assert_eq!(outcome.attempt, before.attempt);
                            prop_assert!(outcome.status.is_terminal() && outcome.status != CallStatus::Completed);
                            prop_assert!(outcome.started_at.is_none_or(|s| s <= outcome.ended_at));
                            prop_assert!(step.record.started_at.is_none() && step.record.ended_at.is_none());
                            answered = false;
                        }
                        if next_attempt {
                            prop_assert_eq!(step.record.attempt, before.attempt + 1);
                            prop_assert_eq!(step.event, None);
                        }
                        if step.record.status == CallStatus::InProgress && !answered {
                            answered = true;
                            answered_ever = true;
                        }
                        events.extend(step.event);
                        record = step.record;
                    }
                    Err(err) => {
                        prop_assert_eq!(err.from, before.status);
                        prop_assert_eq!(&record, &before);
                    }
                }
            }
            prop_assert!(events.len() <= 2);
            let in_progress = events.iter().filter(|e| **e == EventKind::InProgress).count();
            let terminal: Vec<_> = events.iter().filter(|e| e.is_terminal()).collect();
            prop_assert_eq!(in_progress, usize::from(answered_ever));
            prop_assert!(terminal.len() <= 1);
            if let Some(last) = terminal.first() {
                prop_assert_eq!(events.last(), Some(*last), "terminal event is last");
            }
            prop_assert_eq!(terminal.len(), usize::from(record.status.is_terminal()));
            // Attempts are numbered in order, each kept once.
            for (index, outcome) in record.attempts.iter().enumerate() {
                prop_assert_eq!(outcome.attempt as usize, index + 1);
            }
            prop_assert!(record.attempt as usize >= record.attempts.len());
            prop_assert!(record.attempt as usize <= record.attempts.len() + 1);
            if record.status.is_terminal() {
                prop_assert!(record.ended_at.is_some() && record.duration_sec.is_some());
                if matches!(record.status, CallStatus::Completed | CallStatus::Voicemail) {
                    prop_assert!(answered, "completed and voicemail are connected calls");
                    prop_assert_eq!(in_progress, 1);
                }
                prop_assert!(record.started_at <= record.ended_at, "startedAt after endedAt");
                prop_assert_eq!(record.error.is_some(), record.status == CallStatus::Failed);
            } else {
                prop_assert!(record.ended_at.is_none() && record.duration_sec.is_none());
            }
            prop_assert_eq!(record.started_at.is_some(), answered);
        }

        /// Reports in any order, each stamped with any time (a carrier's
        /// clock, a late delivery, a repaired move): an ended call never
        /// has `startedAt` after `endedAt`, and a connected one is billed
        /// the carrier's duration when it gave one.
        #[test]
        fn reports_in_any_order_and_time_keep_started_before_ended(
            transitions in prop::collection::vec(any_transition(), 0..12),
            offsets in prop::collection::vec(-100_000i64..100_000, 12),
        ) {
            let mut record = queued();
            for (transition, offset) in transitions.into_iter().zip(offsets) {
                let carrier = match &transition {
                    Transition::End(ending) => ending.duration_sec,
                    _ => None,
                };
                if let Ok(step) = apply(&record, transition, t0() + Duration::milliseconds(offset)) {
                    if step.record.status.is_terminal() && step.record.started_at.is_some()
                        && let Some(carrier) = carrier {
                        prop_assert_eq!(step.record.duration_sec, Some(carrier));
                    }
                    record = step.record;
                }
                if let (Some(started), Some(ended)) = (record.started_at, record.ended_at) {
                    prop_assert!(started <= ended, "startedAt {} after endedAt {}", started, ended);
                }
            }
        }
    }
}
