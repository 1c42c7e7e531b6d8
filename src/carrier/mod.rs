//! Carriers: the [`Carrier`] trait and the embedded [`SimulatedCarrier`].
//!
//! A carrier starts a call and then reports progress through the
//! [`ProgressHandle`] the service gives it. The handle is a plain value, so
//! an in-process adapter can drive it from a task, and an adapter fed by a
//! carrier's HTTP status callbacks can keep it (keyed by the carrier's call
//! id) and report from its callback handler.

mod recipient;
mod simulated;
mod wav;

use std::fmt::Debug;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::mpsc;

use crate::BoxError;
use crate::domain::{CallError, CallId, CallStatus, FieldDefinition};
pub use crate::service::{CarrierLink, LinkedCall};
use crate::store::Recording;
use crate::transcript::Transcript;

pub use simulated::{Rehearsal, SimulatedCarrier, SimulationConfig, rehearse};
pub(crate) use wav::sine_wav;

/// What the carrier needs to place one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialRequest {
    /// The service's id for the call.
    pub call_id: CallId,
    /// Which attempt this dial is: 1 for the first, more for a retry of a
    /// call that reached no one (the same call id, dialed again). A carrier
    /// whose reports arrive as callbacks hands it back with each report
    /// ([`CarrierLink::report`]),
    /// so a late report about an earlier attempt changes nothing.
    pub attempt: u32,
    /// Destination, E.164 (already checked by the guardrails).
    pub to: String,
    /// Caller ID to present, E.164, owned by the account.
    pub caller_id: String,
    /// What the AI works toward.
    pub objective: String,
    /// Background for the AI.
    pub context: Option<String>,
    /// Fields the conversation should establish.
    pub fields: Vec<FieldDefinition>,
    /// The longest the call may last once answered: the carrier must hang up
    /// when it is reached (it is the minute-cap reservation).
    pub max_duration: Duration,
}

/// How the carrier says a call ended.
#[derive(Debug, Clone, PartialEq)]
pub struct CarrierOutcome {
    /// A terminal status.
    pub status: CallStatus,
    /// Why, for `failed` ([`CallError::CarrierError`] when `None`).
    pub error: Option<CallError>,
    /// The conversation, if one was had.
    pub transcript: Option<Transcript>,
    /// The audio, if recorded.
    pub recording: Option<Recording>,
    /// The talk time the carrier measured (answer to hang-up), if it gives
    /// one: it is then the call's `durationSec` and what is billed, instead
    /// of the time between the service's receipt of the answer and of the end.
    pub duration: Option<Duration>,
}

impl CarrierOutcome {
    /// An outcome with only a status.
    pub fn new(status: CallStatus) -> Self {
        Self {
            status,
            error: None,
            transcript: None,
            recording: None,
            duration: None,
        }
    }
}

/// A progress report from the carrier.
#[derive(Debug, Clone, PartialEq)]
pub enum CarrierReport {
    /// The destination is being dialed.
    Dialing,
    /// The recipient answered.
    Answered,
    /// The call is over.
    Ended(CarrierOutcome),
}

/// The call is no longer followed by the service (it ended or the service stopped).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("call {0} is no longer followed")]
pub struct CallGone(pub CallId);

/// Where a carrier sends one call's progress. Cheap to clone.
#[derive(Debug, Clone)]
pub struct ProgressHandle {
    call_id: CallId,
    // Boxed: the channel allocates its first block of 32 slots up front,
    // which for a whole `CarrierReport` was 4 KB of every running call.
    sender: mpsc::UnboundedSender<Box<CarrierReport>>,
}

/// The receiving end of a [`ProgressHandle`]: one call's reports, in the
/// order they were sent.
#[derive(Debug)]
pub struct ProgressReports(mpsc::UnboundedReceiver<Box<CarrierReport>>);

impl ProgressReports {
    /// The next report; `None` once every handle is dropped and every
    /// report read.
    pub async fn recv(&mut self) -> Option<CarrierReport> {
        self.0.recv().await.map(|report| *report)
    }
}

impl ProgressHandle {
    /// A handle and the receiving end the service reads (also useful to test a carrier).
    pub fn channel(call_id: CallId) -> (Self, ProgressReports) {
        let (sender, receiver) = mpsc::unbounded_channel();
        (Self { call_id, sender }, ProgressReports(receiver))
    }

    /// The call this handle reports on.
    pub fn call_id(&self) -> &CallId {
        &self.call_id
    }

    /// Whether the service has stopped following the call (reports would
    /// go nowhere).
    pub fn is_closed(&self) -> bool {
        self.sender.is_closed()
    }

    /// Reports progress. Reports are applied in order; one the state machine
    /// does not allow (a duplicate, or one after the end) is logged and dropped.
    pub fn report(&self, report: CarrierReport) -> Result<(), CallGone> {
        self.sender
            .send(Box::new(report))
            .map_err(|_| CallGone(self.call_id.clone()))
    }
}

/// Why a carrier could not act. Placement answers `502 placement_failed`
/// for either of the first two; a scheduled call or a retry ends its
/// attempt `failed` / `carrier_unreachable`. [`CarrierError::DialUnconfirmed`]
/// is neither: a phone may have rung, so the call ends `failed` /
/// `dial_unconfirmed` and is never dialed again.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CarrierError {
    /// The carrier refused the call (a number it will not ring, missing
    /// permissions, bad credentials): nothing rang, and the same request
    /// will be refused again.
    #[error("the carrier refused: {reason}")]
    Refused {
        /// What the carrier said, without secrets.
        reason: String,
        /// The underlying error, if any.
        #[source]
        source: Option<BoxError>,
    },
    /// The carrier could not be reached or failed before it accepted the
    /// call (a timeout, a 5xx, a broken connection): trying again later may
    /// succeed.
    #[error("the carrier is unavailable: {reason}")]
    Unavailable {
        /// What went wrong, without secrets.
        reason: String,
        /// The underlying error, if any.
        #[source]
        source: Option<BoxError>,
    },
    /// The dial's outcome is unknown: the request may have reached the
    /// carrier, but its answer did not come in time (a timeout, a
    /// connection lost after sending). A phone may be ringing, so this is
    /// never "no phone rang": the service records the call's end and then
    /// hangs up ([`Carrier::hang_up`]), and the call is not dialed again.
    #[error("the carrier did not confirm the dial: {reason}")]
    DialUnconfirmed {
        /// What went wrong and what was ended, without secrets.
        reason: String,
        /// The underlying error, if any.
        #[source]
        source: Option<BoxError>,
    },
    /// The carrier does not know the call (for `hang_up`).
    #[error("unknown call {0}")]
    UnknownCall(CallId),
}

impl CarrierError {
    /// [`CarrierError::Refused`] with `reason` and no source.
    pub fn refused(reason: impl Into<String>) -> Self {
        Self::Refused {
            reason: reason.into(),
            source: None,
        }
    }

    /// [`CarrierError::Unavailable`] with `reason` and no source.
    pub fn unavailable(reason: impl Into<String>) -> Self {
        Self::Unavailable {
            reason: reason.into(),
            source: None,
        }
    }

    /// [`CarrierError::DialUnconfirmed`] with `reason` and no source.
    pub fn unconfirmed(reason: impl Into<String>) -> Self {
        Self::DialUnconfirmed {
            reason: reason.into(),
            source: None,
        }
    }

    /// The same error, caused by `source`.
    pub fn with_source(mut self, cause: impl Into<BoxError>) -> Self {
        if let Self::Refused { source, .. }
        | Self::Unavailable { source, .. }
        | Self::DialUnconfirmed { source, .. } = &mut self
        {
            *source = Some(cause.into());
        }
        self
    }

    /// Whether trying again later may succeed (and nothing rang): never
    /// for [`CarrierError::DialUnconfirmed`].
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::Unavailable { .. })
    }
}

/// A carrier adapter.
///
/// # Contract
///
/// - `dial` returns once the carrier has accepted the call, or fails with
///   [`CarrierError::Refused`] or [`CarrierError::Unavailable`] having
///   started nothing, or with [`CarrierError::DialUnconfirmed`] when it
///   cannot tell whether it started the call. It should give up within
///   [`CarrierLink::dial_timeout`], after which the service gives up on it
///   (also `DialUnconfirmed`). After `DialUnconfirmed` the service records
///   the call's end and calls `hang_up`, which must end whatever the dial
///   may have started. After `Ok`, the carrier
///   reports through `progress`: optionally `Dialing`, then `Answered` if the
///   call connects (the recipient, or their voicemail, picks up), then
///   exactly one `Ended`. A `completed` or `voicemail` end without an
///   `Answered` report is taken as answered at the end, with the outcome's
///   `duration` as its talk time. It must end an answered
///   call once `max_duration` has passed.
/// - `resume` is optional: carriers that keep call state (most do, keyed by
///   their own call id) can take over a call after a restart.
/// - `hang_up` asks the carrier to end a call early; the carrier then reports
///   `Ended` as usual (`completed` with what was said so far if the call was
///   answered). Hanging up an ended or unknown call is not an error worth
///   more than [`CarrierError::UnknownCall`].
#[async_trait]
pub trait Carrier: Send + Sync + Debug {
    /// Starts a call; see the contract.
    async fn dial(
        &self,
        request: DialRequest,
        progress: ProgressHandle,
    ) -> Result<(), CarrierError>;

    /// Ends a call early; see the contract.
    async fn hang_up(&self, call_id: &CallId) -> Result<(), CarrierError>;

    /// Takes over a call that a previous process of the service started and
    /// did not see end (recovery after a restart). Returns `Ok(true)` when
    /// the carrier still knows the call and will report its progress through
    /// `progress` from here on; `Ok(false)` (the default) when it cannot,
    /// and the service then ends the call as `failed` with error
    /// `interrupted`.
    async fn resume(
        &self,
        request: DialRequest,
        progress: ProgressHandle,
    ) -> Result<bool, CarrierError> {
        let _ = (request, progress);
        Ok(false)
    }

    /// Called once, by [`AgentCallBuilder::build`](crate::AgentCallBuilder::build),
    /// with the carrier's handle on the service: how calls are conducted
    /// ([`CarrierLink::converse`]) and where reports, notes and recordings
    /// that arrive out of band go (callbacks, sockets). The default keeps
    /// nothing: a carrier that reports only through each dial's
    /// [`ProgressHandle`] and runs no conversation needs no link. A carrier
    /// serves one service; attached again, it keeps the latest link.
    fn attach(&self, link: CarrierLink) {
        let _ = link;
    }

    /// Whether this carrier rings real people's phones (`true`, the
    /// default, so an adapter that does not say is treated as real). The
    /// default calling window (US and Canadian numbers 08:00–21:00 local)
    /// applies to such carriers only; the simulated carrier says `false`.
    fn rings_real_phones(&self) -> bool {
        true
    }
}
