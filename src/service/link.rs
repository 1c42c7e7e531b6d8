//! [`CarrierLink`]: what a carrier adapter may ask of the service, given to
//! it when the service is built ([`Carrier::attach`]). The caller's facade,
//! [`AgentCall`], has none of these.
//!
//! [`Carrier::attach`]: crate::carrier::Carrier::attach

use std::sync::{Arc, Weak};

use super::{AgentCall, Inner, ServiceError};
use crate::agent::{Agent, Conversation};
use crate::carrier::{CarrierReport, DialRequest};
use crate::domain::{CallAttempt, CallId, CallStatus};
use crate::store::{CarrierNotes, Recording};

/// A carrier's handle on the service that uses it. Cheap to clone.
///
/// It does not keep the service alive: once every [`AgentCall`] clone is
/// dropped, each method fails with [`ServiceError::ShuttingDown`].
///
/// Reports, notes and recordings go through the store, so a carrier whose
/// callbacks and sockets reach any instance behind a load balancer can
/// hand them to whichever instance received them.
#[derive(Debug, Clone)]
pub struct CarrierLink {
    service: Weak<Inner>,
}

/// A call as its carrier sees it ([`CarrierLink::call`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LinkedCall {
    /// The call's status.
    pub status: CallStatus,
    /// The attempt in flight (or the last one).
    pub attempt: u32,
    /// Whether the attempt was answered.
    pub answered: bool,
    /// What the carrier noted about it.
    pub notes: CarrierNotes,
}

impl CarrierLink {
    pub(super) fn new(inner: &Arc<Inner>) -> Self {
        Self {
            service: Arc::downgrade(inner),
        }
    }

    fn service(&self) -> Result<AgentCall, ServiceError> {
        self.service
            .upgrade()
            .map(|inner| AgentCall { inner })
            .ok_or(ServiceError::ShuttingDown)
    }

    /// How the service's calls are conducted (the mind, limits, greeting
    /// and voicemail policy set on the builder, [`AgentCallBuilder::agent`]).
    ///
    /// [`AgentCallBuilder::agent`]: super::AgentCallBuilder::agent
    pub fn agent(&self) -> Result<Agent, ServiceError> {
        Ok(self.service()?.inner.agent.clone())
    }

    /// How long [`Carrier::dial`](crate::carrier::Carrier::dial) may take
    /// to accept a call ([`AgentCallBuilder::dial_timeout`]): a carrier
    /// bounds its own request by it, so the service's bound and the
    /// carrier's are one setting. The service waits
    /// [`AgentCallBuilder::hang_up_timeout`] longer, for the carrier to end
    /// a dial whose outcome it could not learn.
    ///
    /// [`AgentCallBuilder::dial_timeout`]: super::AgentCallBuilder::dial_timeout
    /// [`AgentCallBuilder::hang_up_timeout`]: super::AgentCallBuilder::hang_up_timeout
    pub fn dial_timeout(&self) -> Result<std::time::Duration, ServiceError> {
        Ok(self.service()?.inner.timing.dial_timeout)
    }

    /// A fresh conversation for a call the carrier runs (not yet opened).
    pub fn converse(&self, request: &DialRequest) -> Result<Conversation, ServiceError> {
        Ok(self.service()?.inner.agent.converse(request))
    }

    /// Applies a report about an attempt of a call, on whichever instance
    /// receives it; see [`Carrier`](crate::carrier::Carrier) for the order
    /// reports come in. A report about a call that already ended, that
    /// another instance is finishing, or about an earlier attempt of a
    /// call that was retried, changes nothing.
    ///
    /// Returns once the report is stored; for an end, once the carrier's
    /// outcome is kept on the call (extraction and the terminal move then
    /// run in the background on this instance).
    pub async fn report(
        &self,
        attempt: &CallAttempt,
        report: CarrierReport,
    ) -> Result<(), ServiceError> {
        self.service()?.carrier_report(attempt, report).await
    }

    /// Changes a call's [`CarrierNotes`] with compare-and-set (retried when
    /// another instance wrote the call meanwhile) and returns them as
    /// stored. `change` may run more than once; it returns whether to
    /// write (`false` leaves the call untouched). The notes never move the
    /// call: [`report`](Self::report) does that.
    pub async fn note(
        &self,
        call_id: &CallId,
        change: impl Fn(&mut CarrierNotes) -> bool + Send,
    ) -> Result<CarrierNotes, ServiceError> {
        self.service()?.note_carrier(call_id, change).await
    }

    /// The call as its carrier sees it; `NotFound` for an unknown call.
    pub async fn call(&self, call_id: &CallId) -> Result<LinkedCall, ServiceError> {
        let call = self
            .service()?
            .inner
            .store
            .get(call_id)
            .await?
            .ok_or(ServiceError::NotFound)?;
        Ok(LinkedCall {
            status: call.record.status,
            attempt: call.record.attempt,
            answered: call.record.started_at.is_some(),
            notes: call.carrier_notes,
        })
    }

    /// What the carrier runs for a call's attempt in flight, as it was given
    /// to [`Carrier::dial`](crate::carrier::Carrier::dial): for a
    /// conversation session that starts on another instance than the one
    /// that placed the call. `NotFound` for an unknown or ended call, and
    /// for one waiting for its next attempt (check the request's `attempt`
    /// against a report's).
    pub async fn dial_request(&self, call_id: &CallId) -> Result<DialRequest, ServiceError> {
        self.service()?.dial_request(call_id).await
    }

    /// Whether `attempt` is the call's latest and was not retried: it is
    /// running, or it ended the call. A carrier drops what it learns late
    /// about an earlier attempt (a machine verdict, a recording).
    pub async fn is_latest_attempt(&self, attempt: &CallAttempt) -> Result<bool, ServiceError> {
        self.service()?.is_latest_attempt(attempt).await
    }

    /// Stores a recording that the carrier delivers on its own schedule
    /// (often after the call has ended) and points the call's
    /// `recordingUrl` at it. `NotFound` for an unknown call.
    pub async fn attach_recording(
        &self,
        call_id: &CallId,
        recording: Recording,
    ) -> Result<(), ServiceError> {
        self.service()?.attach_recording(call_id, recording).await
    }
}
