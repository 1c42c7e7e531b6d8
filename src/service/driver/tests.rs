//! Unit tests of the repair of carrier end reports.

use super::*;
use crate::domain::CallRecord;
use crate::state;
use CallStatus::*;
use chrono::{DateTime, Utc};
use proptest::prelude::*;

fn t0() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
        .unwrap()
        .to_utc()
}

/// A record in `status`, reached by legal moves.
fn record_in(status: CallStatus) -> CallRecord {
    let mut record = CallRecord::queued(CallId::generate(), "+14155550123", "test");
    let path: &[Transition] = match status {
        Queued => &[],
        Dialing => &[Transition::Dial],
        InProgress => &[Transition::Dial, Transition::Answer],
        _ => unreachable!("only running calls are followed"),
    };
    for transition in path {
        record = state::apply(&record, transition.clone(), t0())
            .unwrap()
            .record;
    }
    record
}

fn end(missed: Vec<Transition>, status: CallStatus) -> PlausibleEnd {
    PlausibleEnd { missed, status }
}

#[test]
fn a_lost_answer_report_is_made_up_before_completed() {
    use Transition::{Answer, Dial};
    assert_eq!(
        plausible_end(Some(Queued), Completed),
        end(vec![Dial, Answer], Completed)
    );
    assert_eq!(
        plausible_end(Some(Dialing), Completed),
        end(vec![Answer], Completed)
    );
    assert_eq!(
        plausible_end(Some(InProgress), Completed),
        end(vec![], Completed)
    );
}

#[test]
fn voicemail_without_an_answer_report_is_moved_through_in_progress() {
    use Transition::{Answer, Dial};
    assert_eq!(
        plausible_end(Some(Queued), Voicemail),
        end(vec![Dial, Answer], Voicemail)
    );
    assert_eq!(
        plausible_end(Some(Dialing), Voicemail),
        end(vec![Answer], Voicemail)
    );
}

#[test]
fn unanswered_ends_after_an_answer_mean_completed() {
    for reported in [NoAnswer, Declined] {
        assert_eq!(
            plausible_end(Some(InProgress), reported),
            end(vec![], Completed)
        );
        for before in [Queued, Dialing] {
            assert_eq!(plausible_end(Some(before), reported), end(vec![], reported));
        }
    }
    assert_eq!(
        plausible_end(Some(InProgress), Voicemail),
        end(vec![], Voicemail)
    );
}

#[test]
fn a_non_terminal_end_is_a_carrier_failure() {
    for current in [None, Some(Queued), Some(Dialing), Some(InProgress)] {
        for reported in [Queued, Dialing, InProgress] {
            assert_eq!(plausible_end(current, reported), end(vec![], Failed));
        }
    }
}

#[test]
fn an_unreadable_status_takes_a_terminal_report_as_it_is() {
    for reported in CallStatus::ALL.into_iter().filter(|s| s.is_terminal()) {
        assert_eq!(plausible_end(None, reported), end(vec![], reported));
    }
}

proptest! {
    /// Whatever a running call's carrier reports as its end, the repair
    /// is a sequence of legal moves that ends the call, so no report
    /// leaves a call unfinished.
    #[test]
    fn the_repaired_end_is_always_legal_and_terminal(
        current in prop::sample::select(vec![Queued, Dialing, InProgress]),
        reported in prop::sample::select(CallStatus::ALL.to_vec()),
    ) {
        let repair = plausible_end(Some(current), reported);
        prop_assert!(repair.status.is_terminal());
        let mut record = record_in(current);
        for transition in repair.missed {
            let step = state::apply(&record, transition, t0());
            prop_assert!(step.is_ok(), "{:?}", step);
            record = step.unwrap().record;
        }
        let ended = state::apply(&record, Transition::End(Ending::new(repair.status)), t0());
        prop_assert!(ended.is_ok(), "{:?}", ended);
        let ended = ended.unwrap().record;
        prop_assert_eq!(ended.status, repair.status);
        // A completed or voicemail call was answered, by the carrier or by the repair.
        if matches!(repair.status, Completed | Voicemail) {
            prop_assert!(ended.started_at.is_some());
        }
    }
}
