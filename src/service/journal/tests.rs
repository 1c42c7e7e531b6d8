//! Unit tests of the journal: settlement, event rows, and settling once.

use super::*;
use crate::domain::{CallRecord, CallStatus, KeyId};
use crate::guardrails::{MemoryUsageLedger, Usage, UsageLedger};
use crate::store::{CallStore, MemoryStore};
use proptest::prelude::*;
use std::sync::Arc;

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().to_utc()
}

fn call(created_at: DateTime<Utc>, reserved: u64, duration_sec: Option<u64>) -> StoredCall {
    let mut record = CallRecord::queued(CallId::generate(), "+14155550123", "test");
    record.duration_sec = duration_sec;
    StoredCall {
        record,
        account_id: "acct".parse().unwrap(),
        key_id: KeyId::from_stored("key"),
        created_at,
        caller_id: "+14155550100".into(),
        context: None,
        fields: Vec::new(),
        webhook_url: None,
        reserved_minutes: reserved,
        reserved_in: None,
        extraction_notes: Default::default(),
        extraction_evidence: Default::default(),
        carrier_end: None,
        settled: false,
        lease: None,
        calling_window: None,
        waiting_until: None,
        retry: None,
        carrier_notes: Default::default(),
        version: 0,
    }
}

#[test]
fn an_unanswered_call_releases_its_reservation_and_bills_nothing() {
    let placed = at("2026-03-10T12:00:00Z");
    for duration in [None, Some(0)] {
        let settled = settlement(&call(placed, 15, duration), &BillingPeriod::default());
        assert_eq!((settled.reserved, settled.billed), (15, 0), "{duration:?}");
    }
}

#[test]
fn talk_time_is_billed_in_started_minutes() {
    let placed = at("2026-03-10T12:00:00Z");
    for (seconds, minutes) in [(1, 1), (59, 1), (60, 1), (61, 2), (600, 10), (601, 11)] {
        let settled = settlement(&call(placed, 15, Some(seconds)), &BillingPeriod::default());
        assert_eq!(
            (settled.reserved, settled.billed),
            (15, minutes),
            "{seconds} s"
        );
    }
}

#[test]
fn a_connected_call_is_billed_at_least_a_minute() {
    let placed = at("2026-03-10T12:00:00Z");
    let mut connected = call(placed, 15, Some(0));
    connected.record.started_at = Some(placed);
    let settled = settlement(&connected, &BillingPeriod::default());
    assert_eq!((settled.reserved, settled.billed), (15, 1));
}

#[test]
fn a_call_settles_in_the_period_it_was_placed_in() {
    // Placed a minute before the month ends, ended in the next one.
    let mut late = call(at("2026-01-31T23:59:00Z"), 5, Some(180));
    late.record.ended_at = Some(at("2026-02-01T00:02:00Z"));
    let monthly = settlement(&late, &BillingPeriod::CalendarMonthUtc);
    assert_eq!(monthly.period, at("2026-01-01T00:00:00Z"));
    let weekly = BillingPeriod::Fixed {
        anchor: at("2026-01-01T00:00:00Z"),
        length: chrono::Duration::days(7),
    };
    assert_eq!(
        settlement(&late, &weekly).period,
        at("2026-01-29T00:00:00Z")
    );
}

proptest! {
    /// Billed minutes cover the talk time, by less than one minute.
    #[test]
    fn billed_minutes_cover_the_talk_time(seconds in 0u64..10_000_000, reserved in 0u64..1_000) {
        let placed = at("2026-03-10T12:00:00Z");
        let settled = settlement(&call(placed, reserved, Some(seconds)), &BillingPeriod::default());
        prop_assert_eq!(settled.reserved, reserved);
        prop_assert!(settled.billed * 60 >= seconds);
        prop_assert!(settled.billed * 60 < seconds + 60);
    }
}

#[test]
fn an_event_is_first_due_after_the_first_delay() {
    let now = at("2026-03-10T12:00:00Z");
    let call = call(now, 5, None);
    let hook = "https://example.com/hook";
    let due_after = |delay| new_event(&call, EventKind::Failed, hook, now, delay);
    let event = due_after(Duration::from_secs(2));
    assert_eq!(event.created_at, now);
    assert_eq!(event.first_attempt_at, at("2026-03-10T12:00:02Z"));
    assert_eq!((event.kind, event.url.as_str()), (EventKind::Failed, hook));
    let body: serde_json::Value = serde_json::from_slice(&event.body).unwrap();
    assert_eq!(body["eventId"], event.event_id.as_str());
    // A delay that ends past the end of time is due at the end of time.
    let never = due_after(Duration::from_secs(300_000 * 366 * 86_400));
    assert_eq!(never.first_attempt_at, DateTime::<Utc>::MAX_UTC);
}

/// The ledger sees exactly one settlement: from the move that ended the
/// call, none from moves before it or refused moves after it.
#[tokio::test]
async fn the_move_that_ends_a_call_settles_it_once() {
    let store = Arc::new(MemoryStore::new());
    let ledger = Arc::new(MemoryUsageLedger::new());
    let service = AgentCall::builder()
        .store(store.clone())
        .usage_ledger(ledger.clone())
        .build()
        .unwrap();
    let placed = at("2026-03-10T12:00:00Z");
    let call = call(placed, 5, None);
    let period = BillingPeriod::default().start_of(placed);
    let account = call.account_id.clone();
    store.insert(&call).await.unwrap();
    let first = crate::domain::CallAttempt::first(call.record.id.clone());
    assert_eq!(
        ledger.reserve(&account, &first, period, 100, 5).await.ok(),
        Some(5)
    );
    let id = &call.record.id;
    let reserved = Usage {
        billed: 0,
        reserved: 5,
    };
    for (transition, at) in [
        (Transition::Dial, placed),
        (Transition::Answer, placed + chrono::Duration::seconds(10)),
    ] {
        let moved = service
            .apply_transition(id, transition, None, Some(at), Actor::Anyone)
            .await;
        assert!(moved.unwrap().is_some());
        assert_eq!(
            ledger.usage(&account, period).await.expect("usage"),
            reserved
        );
    }
    let ending = Transition::End(Ending::new(CallStatus::Completed));
    let ended_at = placed + chrono::Duration::seconds(71);
    let ended = service
        .apply_transition(id, ending.clone(), None, Some(ended_at), Actor::Anyone)
        .await;
    assert_eq!(ended.unwrap().unwrap().record.duration_sec, Some(61));
    let settled = Usage {
        billed: 2,
        reserved: 0,
    };
    assert_eq!(
        ledger.usage(&account, period).await.expect("usage"),
        settled
    );
    for again in [ending, Transition::Cancel] {
        assert_eq!(
            service
                .apply_transition(id, again, None, None, Actor::Anyone)
                .await
                .unwrap(),
            None
        );
        assert_eq!(
            ledger.usage(&account, period).await.expect("usage"),
            settled
        );
    }
    service.shutdown(Duration::ZERO).await;
}
