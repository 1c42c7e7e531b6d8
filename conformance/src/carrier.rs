//! The contract checks every carrier runs on itself: each takes the carrier and a request it chooses, and
//! panics on a violation of the [`Carrier`] contract. A carrier that is not
//! attached to a service runs its calls with the default agent.
//!
//! ```
//! use agentcall::carrier::{SimulatedCarrier, SimulationConfig};
//! use agentcall_conformance::carrier as conformance;
//! use std::time::Duration;
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let carrier = SimulatedCarrier::new(SimulationConfig::new(
//!     Duration::from_millis(5),
//!     Duration::from_millis(20),
//! ));
//! conformance::run_all(&carrier, "+14155550125").await;
//! # });
//! ```

use std::time::Duration;

use agentcall::carrier::{
    Carrier, CarrierError, CarrierReport, DialRequest, ProgressHandle, ProgressReports,
};
use agentcall::domain::{CallId, CallStatus, FieldDefinition, FieldType};

/// How long a check waits for a report before it calls the carrier stuck.
const PATIENCE: Duration = Duration::from_secs(30);

/// A request to `to` (a number the carrier answers), for one field, with a
/// ten-minute limit.
pub fn request(to: &str) -> DialRequest {
    DialRequest {
        call_id: CallId::generate(),
        attempt: 1,
        to: to.into(),
        caller_id: "+14155550100".into(),
        objective: "Confirm the delivery window.".into(),
        context: None,
        fields: vec![FieldDefinition::new("window_ok", FieldType::Boolean)],
        max_duration: Duration::from_secs(600),
    }
}

async fn next(reports: &mut ProgressReports) -> Option<CarrierReport> {
    tokio::time::timeout(PATIENCE, reports.recv())
        .await
        .expect("the carrier reports within 30 s")
}

/// Dials `request` and returns its reports.
async fn dial(carrier: &dyn Carrier, request: DialRequest) -> ProgressReports {
    let (progress, reports) = ProgressHandle::channel(request.call_id.clone());
    carrier
        .dial(request, progress)
        .await
        .expect("the carrier accepts the call");
    reports
}

/// An answered call reports at most `Dialing`, then `Answered`, then exactly
/// one `Ended` (completed or voicemail, with a transcript), and nothing
/// after it.
pub async fn an_answered_call_reports_in_order(carrier: &dyn Carrier, to: &str) {
    let mut reports = dial(carrier, request(to)).await;
    let mut report = next(&mut reports).await;
    if report == Some(CarrierReport::Dialing) {
        report = next(&mut reports).await;
    }
    assert_eq!(report, Some(CarrierReport::Answered), "answered next");
    match next(&mut reports).await {
        Some(CarrierReport::Ended(outcome)) => {
            assert!(
                matches!(
                    outcome.status,
                    CallStatus::Completed | CallStatus::Voicemail
                ),
                "an answered call ends connected: {outcome:?}"
            );
            assert!(outcome.transcript.is_some(), "with what was said");
        }
        other => panic!("an end after the answer, not {other:?}"),
    }
    assert_eq!(next(&mut reports).await, None, "nothing after the end");
}

/// A hang-up of a live call ends it: the carrier reports its `Ended`.
pub async fn a_hang_up_ends_a_live_call(carrier: &dyn Carrier, to: &str) {
    let request = request(to);
    let call_id = request.call_id.clone();
    let mut reports = dial(carrier, request).await;
    carrier
        .hang_up(&call_id)
        .await
        .expect("the hang-up is taken");
    loop {
        match next(&mut reports).await {
            Some(CarrierReport::Ended(_)) => break,
            Some(_) => {}
            None => panic!("the call ended without an end report"),
        }
    }
}

/// Hanging up a call the carrier never placed is
/// [`CarrierError::UnknownCall`].
pub async fn a_hang_up_of_an_unknown_call_is_unknown(carrier: &dyn Carrier) {
    let unknown = CallId::generate();
    assert!(matches!(
        carrier.hang_up(&unknown).await,
        Err(CarrierError::UnknownCall(id)) if id == unknown
    ));
}

/// Runs every check, dialing `to` (a number the carrier answers).
pub async fn run_all(carrier: &dyn Carrier, to: &str) {
    an_answered_call_reports_in_order(carrier, to).await;
    a_hang_up_ends_a_live_call(carrier, to).await;
    a_hang_up_of_an_unknown_call_is_unknown(carrier).await;
}
