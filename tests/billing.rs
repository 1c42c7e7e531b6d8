//! Billing that cannot be bypassed (issue 12, item 3) and calls that
//! survive a crash during extraction (item 5), in process through `Api`.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agentcall::carrier::{
    CallGone, CarrierError, CarrierOutcome, CarrierReport, DialRequest, ProgressHandle,
};
use agentcall::guardrails::{BillingPeriod, MemoryUsageLedger, ReserveError, Usage, UsageLedger};
use agentcall::store::{CarrierEnd, InstanceId, StoreError};
use agentcall::{AccountId, Api, CallId, CallStatus, CallStore, Carrier};
use chrono::{DateTime, Utc};
use common::*;
use proptest::prelude::*;
use serde_json::json;

/// A carrier that plays back a fixed list of reports, each after a pause,
/// then goes silent.
#[derive(Debug)]
struct ScriptedCarrier(Vec<(Duration, CarrierReport)>);

#[async_trait::async_trait]
impl Carrier for ScriptedCarrier {
    /// A test carrier rings no one (the default calling window stays off).
    fn rings_real_phones(&self) -> bool {
        false
    }

    async fn dial(&self, _: DialRequest, progress: ProgressHandle) -> Result<(), CarrierError> {
        let script = self.0.clone();
        tokio::spawn(async move {
            for (pause, report) in script {
                tokio::time::sleep(pause).await;
                let _: Result<(), CallGone> = progress.report(report);
            }
            std::future::pending::<()>().await; // never closes
        });
        Ok(())
    }
    async fn hang_up(&self, _: &CallId) -> Result<(), CarrierError> {
        Ok(())
    }
}

/// A carrier that accepts calls and never reports (a process that "dies").
#[derive(Debug, Default)]
struct SilentCarrier(std::sync::Mutex<Vec<ProgressHandle>>);

#[async_trait::async_trait]
impl Carrier for SilentCarrier {
    /// A test carrier rings no one (the default calling window stays off).
    fn rings_real_phones(&self) -> bool {
        false
    }

    async fn dial(&self, _: DialRequest, progress: ProgressHandle) -> Result<(), CarrierError> {
        self.0.lock().unwrap().push(progress);
        Ok(())
    }
    async fn hang_up(&self, id: &CallId) -> Result<(), CarrierError> {
        Err(CarrierError::UnknownCall(id.clone()))
    }
}

fn account_a_id() -> AccountId {
    "acct_a".parse().unwrap()
}

fn this_period() -> DateTime<Utc> {
    BillingPeriod::default().start_of(Utc::now())
}

#[tokio::test]
async fn voicemail_calls_are_billed_and_reach_the_minute_cap() {
    let mut account = account_a();
    account.minute_cap = 1;
    let api = Api::new(
        builder()
            .directory(Arc::new(directory_with(account, account_b())))
            .build()
            .unwrap(),
    );
    let voicemail = json!({"to": "+14155550122", "objective": "Leave a message"});
    let id = place(&api, KEY_A1, voicemail.clone()).await;
    let record = wait_terminal(&api, KEY_A1, &id).await;
    assert_eq!(record.status, CallStatus::Voicemail);
    let (started, ended) = (record.started_at.unwrap(), record.ended_at.unwrap());
    assert!(started <= ended);
    assert!(record.duration_sec.unwrap() >= 1, "the message took time");
    assert!(record.transcript.is_some() && record.recording_url.is_some());
    // The voicemail used the account's only minute.
    let (status, _, bytes) = send(&api, post(Some(KEY_A1), voicemail.to_string())).await;
    assert_eq!(
        (status.as_u16(), json(&bytes)["error"].as_str()),
        (429, Some("over_minute_cap"))
    );
}

#[tokio::test]
async fn the_carriers_duration_is_what_is_billed() {
    let ledger = Arc::new(MemoryUsageLedger::default());
    let script = vec![
        (Duration::ZERO, CarrierReport::Dialing),
        (Duration::ZERO, CarrierReport::Answered),
        (
            Duration::from_millis(20),
            CarrierReport::Ended(CarrierOutcome {
                duration: Some(Duration::from_millis(125_400)),
                ..CarrierOutcome::new(CallStatus::Completed)
            }),
        ),
    ];
    let api = Api::new(
        builder()
            .carrier(Arc::new(ScriptedCarrier(script)))
            .usage_ledger(ledger.clone())
            .build()
            .unwrap(),
    );
    let id = place(
        &api,
        KEY_A1,
        json!({"to": "+14155550125", "objective": "x"}),
    )
    .await;
    let record = wait_terminal(&api, KEY_A1, &id).await;
    assert_eq!(record.duration_sec, Some(126), "the carrier's, rounded up");
    // Settled after the terminal update: wait for it.
    for _ in 0..100 {
        if ledger
            .usage(&account_a_id(), this_period())
            .await
            .unwrap()
            .reserved
            == 0
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        ledger.usage(&account_a_id(), this_period()).await.unwrap(),
        Usage::new(3, 0),
        "126 s bill 3 minutes"
    );
}

/// The reports of one call in a proptest-chosen order, each after a
/// chosen pause (some orders are impossible for a real carrier: that is
/// the point).
fn shuffled_reports() -> impl Strategy<Value = Vec<(Duration, CarrierReport)>> {
    let ends = prop::sample::select(vec![
        CallStatus::Completed,
        CallStatus::Voicemail,
        CallStatus::NoAnswer,
        CallStatus::Failed,
    ]);
    (ends, prop::collection::vec(0u64..15, 3)).prop_flat_map(|(end, pauses)| {
        let reports = vec![
            CarrierReport::Dialing,
            CarrierReport::Answered,
            CarrierReport::Ended(CarrierOutcome::new(end)),
        ];
        Just(reports).prop_shuffle().prop_map(move |reports| {
            pauses
                .iter()
                .map(|ms| Duration::from_millis(*ms))
                .zip(reports)
                .collect()
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Whatever order the carrier's reports arrive in, an ended call never
    /// has `startedAt` after `endedAt`, and a connected end has both.
    #[test]
    fn started_at_never_follows_ended_at_whatever_the_report_order(script in shuffled_reports()) {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let store = Arc::new(agentcall::MemoryStore::new());
            let api = Api::new(
                builder()
                    .store(store.clone())
                    .carrier(Arc::new(ScriptedCarrier(script.clone())))
                    .build()
                    .unwrap(),
            );
            let id = place(&api, KEY_A1, json!({"to": "+14155550125", "objective": "x"})).await;
            wait_terminal(&api, KEY_A1, &id).await;
            // The stored record, to the nanosecond (the API shows milliseconds).
            let call_id: CallId = id.parse().unwrap();
            let record = agentcall::CallStore::get(&*store, &call_id).await.unwrap().unwrap().record;
            let ended = record.ended_at.unwrap();
            if let Some(started) = record.started_at {
                prop_assert!(started <= ended, "{:?}: started {} after ended {}", script, started, ended);
            }
            if matches!(record.status, CallStatus::Completed | CallStatus::Voicemail) {
                prop_assert!(record.started_at.is_some(), "{:?}", record);
            }
            Ok(())
        })?;
    }
}

#[tokio::test]
async fn recovery_finishes_a_call_the_carrier_ended_before_extraction_with_its_real_outcome() {
    let receiver = Receiver::start().await;
    let store = Arc::new(agentcall::MemoryStore::new());
    // The restarted process is the same instance (a stable instance id), so
    // it takes the call back at once rather than after its lease.
    let instance = InstanceId::generate();
    let crashed = builder()
        .store(store.clone())
        .carrier(Arc::new(SilentCarrier::default()))
        .instance_id(instance.clone())
        .build()
        .unwrap();
    let id = place(
        &Api::new(crashed),
        KEY_A1,
        json!({
            "to": "+14155550125",
            "objective": "Confirm the appointment on Thursday",
            "webhookUrl": receiver.url,
            "fields": [{"name": "confirmed", "type": "boolean", "description": "Whether the appointment is confirmed"}],
        }),
    )
    .await;
    // What the dead process had stored when the carrier ended the call and
    // extraction began: the call answered, still running, with the end kept.
    let call_id: CallId = id.parse().unwrap();
    let mut call = store.get(&call_id).await.unwrap().unwrap();
    // Whole milliseconds, as the API shows them.
    let answered_at =
        DateTime::from_timestamp_millis(Utc::now().timestamp_millis() - 40_000).unwrap();
    let ended_at = answered_at + chrono::Duration::seconds(31);
    call.record.status = CallStatus::InProgress;
    call.record.started_at = Some(answered_at);
    let mut end = CarrierEnd::new(CallStatus::Completed, ended_at);
    end.transcript = Some(
        "Agent: Is the appointment on Thursday confirmed?\nRecipient: Yes, that's right.".into(),
    );
    end.duration_sec = Some(30);
    call.carrier_end = Some(end);
    store.update(&call, Vec::new()).await.unwrap();

    let restarted = builder()
        .store(store.clone())
        .instance_id(instance)
        .build()
        .unwrap();
    let report = restarted.recover().await.unwrap();
    assert_eq!((report.finished, report.ended, report.resumed), (1, 0, 0));
    let api = Api::new(restarted.clone());
    let record = wait_terminal(&api, KEY_A1, &id).await;
    assert_eq!((record.status, record.error), (CallStatus::Completed, None));
    assert!(
        record
            .transcript
            .unwrap()
            .to_text()
            .contains("Yes, that's right.")
    );
    assert_eq!(record.extracted.unwrap()["confirmed"], json!(true));
    assert!(record.summary.is_some());
    assert_eq!(
        (record.started_at, record.ended_at, record.duration_sec),
        (Some(answered_at), Some(ended_at), Some(30))
    );
    let stored = store.get(&call_id).await.unwrap().unwrap();
    assert_eq!(stored.carrier_end, None);
    receiver
        .wait_for(|r| r.iter().any(|x| x.json()["callId"] == id.as_str()))
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let events: Vec<_> = receiver
        .for_call(&id)
        .iter()
        .map(|r| r.json()["event"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(events, ["call.completed"], "one terminal event");
    assert_eq!(restarted.recover().await.unwrap(), Default::default());
}

/// A ledger whose settlements fail while `down` is set.
#[derive(Debug, Default)]
struct FlakyLedger {
    ledger: MemoryUsageLedger,
    down: AtomicBool,
}

#[async_trait::async_trait]
impl UsageLedger for FlakyLedger {
    async fn reserve(
        &self,
        account: &AccountId,
        attempt: &agentcall::domain::CallAttempt,
        period: DateTime<Utc>,
        cap: u64,
        max_minutes: u64,
    ) -> Result<u64, ReserveError> {
        self.ledger
            .reserve(account, attempt, period, cap, max_minutes)
            .await
    }
    async fn settle(
        &self,
        account: &AccountId,
        call: &agentcall::domain::CallAttempt,
        period: DateTime<Utc>,
        reserved: u64,
        billed: u64,
    ) -> Result<(), StoreError> {
        if self.down.load(Ordering::SeqCst) {
            return Err(StoreError::Unavailable("ledger down".into()));
        }
        self.ledger
            .settle(account, call, period, reserved, billed)
            .await
    }
    async fn release(
        &self,
        account: &AccountId,
        attempt: &agentcall::domain::CallAttempt,
        period: DateTime<Utc>,
        reserved: u64,
    ) -> Result<(), StoreError> {
        self.ledger
            .release(account, attempt, period, reserved)
            .await
    }

    async fn usage(&self, account: &AccountId, period: DateTime<Utc>) -> Result<Usage, StoreError> {
        self.ledger.usage(account, period).await
    }
}

#[tokio::test]
async fn a_failed_settlement_is_kept_on_the_call_and_settled_by_recovery() {
    let store = Arc::new(agentcall::MemoryStore::new());
    let ledger = Arc::new(FlakyLedger::default());
    ledger.down.store(true, Ordering::SeqCst);
    let service = builder()
        .store(store.clone())
        .usage_ledger(ledger.clone())
        .build()
        .unwrap();
    let api = Api::new(service.clone());
    let id = place(
        &api,
        KEY_A1,
        json!({"to": "+14155550122", "objective": "x"}),
    )
    .await;
    wait_terminal(&api, KEY_A1, &id).await;
    let call_id: CallId = id.parse().unwrap();
    let mut call = store.get(&call_id).await.unwrap().unwrap();
    for _ in 0..100 {
        if call.record.status.is_terminal() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        call = store.get(&call_id).await.unwrap().unwrap();
    }
    // The call's task retries the ledger for a few seconds before it gives
    // the settlement up to recovery.
    for _ in 0..1000 {
        if service.calls_in_flight() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(service.calls_in_flight(), 0, "the call's task gave up");
    let call = store.get(&call_id).await.unwrap().unwrap();
    assert!(!call.settled, "the ledger refused");
    let reserved = call.reserved_minutes;
    assert!(reserved > 0);
    assert_eq!(
        ledger.usage(&account_a_id(), this_period()).await.unwrap(),
        Usage::new(0, reserved),
        "still reserved"
    );
    ledger.down.store(false, Ordering::SeqCst);
    let report = service.recover().await.unwrap();
    assert_eq!(report.settled, 1);
    assert!(store.get(&call_id).await.unwrap().unwrap().settled);
    assert_eq!(
        ledger.usage(&account_a_id(), this_period()).await.unwrap(),
        Usage::new(1, 0),
        "the voicemail's minute is billed, the rest released"
    );
    assert_eq!(service.recover().await.unwrap(), Default::default());
}
