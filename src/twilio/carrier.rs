//! [`TwilioCarrier`]: the [`Carrier`] that places real calls through Twilio's
//! REST API and connects each answered call to a ConversationRelay session.
//!
//! Twilio's callbacks and the relay socket may reach any instance behind a
//! load balancer, so what the carrier learns is kept on the call in the
//! store ([`CarrierNotes`](crate::store::CarrierNotes), through the
//! service's [`CarrierLink`]) rather than in this process: the call's
//! `CallSid` (so any instance can hang it up), the transcript, the
//! machine-detection verdict.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use url::Url;

use super::rest::{CallSid, CreateCall, EndResult, TwilioError, TwilioRest};
use super::signature::AuthToken;
use super::twiml::RelayTwiml;
use crate::agent::{Agent, VoicemailPolicy};
use crate::carrier::{
    Carrier, CarrierError, CarrierLink, CarrierReport, DialRequest, ProgressHandle,
};
use crate::domain::{CallAttempt, CallId};

/// The connection overrides every callback URL carries (Twilio's
/// "webhook connection overrides", a URL fragment): up to 3 retries
/// (`rc`) when the connection fails (`ct`), the answer is late (`rt`), or
/// we answer 5xx (`5xx`). Twilio's default retries only failed connections.
pub const CALLBACK_RETRIES: &str = "rc=3&rp=ct,rt,5xx";

/// Where Twilio reaches this service, relative to [`TwilioConfig::public_url`].
pub mod paths {
    /// Status callbacks (form POST).
    pub const STATUS: &str = "/twilio/status";
    /// Answering-machine detection verdicts (form POST).
    pub const MACHINE: &str = "/twilio/machine";
    /// Recording ready (form POST).
    pub const RECORDING: &str = "/twilio/recording";
    /// The `<Connect action>`: the relay session ended (form POST).
    pub const CONNECT_ACTION: &str = "/twilio/connect-action";
    /// The ConversationRelay WebSocket, one per call: `/twilio/relay/{callId}`.
    pub const RELAY: &str = "/twilio/relay";
}

/// How to reach Twilio and how calls are set up there.
#[derive(Clone)]
#[non_exhaustive]
pub struct TwilioConfig {
    /// The account's SID (`AC…`).
    pub account_sid: String,
    /// The account's auth token: signs Twilio's requests and authenticates ours.
    pub auth_token: AuthToken,
    /// Twilio's API (default `https://api.twilio.com`).
    pub api_base: Url,
    /// The origin Twilio uses to reach this service (`https://host[:port]`,
    /// no path: the routes are at the root, and signatures are checked over
    /// the URL Twilio requested); the callback URLs and the relay's
    /// `wss://` URL derive from it.
    pub public_url: Url,
    /// Answering-machine detection, in the background (default on).
    pub machine_detection: bool,
    /// Record calls (default on).
    pub record: bool,
    /// How long a call may ring (default 30 s).
    pub ring_timeout: Duration,
}

impl std::fmt::Debug for TwilioConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TwilioConfig")
            .field("account_sid", &self.account_sid)
            .field("auth_token", &self.auth_token)
            .field("api_base", &self.api_base.as_str())
            .field("public_url", &self.public_url.as_str())
            .field("machine_detection", &self.machine_detection)
            .field("record", &self.record)
            .field("ring_timeout", &self.ring_timeout)
            .finish()
    }
}

impl TwilioConfig {
    /// The account's credentials and the public URL, with the defaults.
    pub fn new(account_sid: impl Into<String>, auth_token: AuthToken, public_url: Url) -> Self {
        Self {
            account_sid: account_sid.into(),
            auth_token,
            api_base: Url::parse(super::rest::DEFAULT_API_BASE).expect("a valid URL"),
            public_url,
            machine_detection: true,
            record: true,
            ring_timeout: Duration::from_secs(30),
        }
    }

    /// The public URL of `path` for an attempt of a call (`?callId=…`,
    /// and `&attempt=N` for a retry's attempt `N`, so a late callback about
    /// an earlier attempt is told apart).
    ///
    /// ```
    /// use agentcall::twilio::{TwilioConfig, signature::AuthToken};
    ///
    /// let public = url::Url::parse("https://calls.example.com")?;
    /// let config = TwilioConfig::new("AC123", AuthToken::new("token"), public);
    /// let call = "call_0123456789abcdef0123456789abcdef".parse()?;
    /// assert_eq!(
    ///     config.callback_url("/twilio/status", &call, 1),
    ///     "https://calls.example.com/twilio/status?callId=call_0123456789abcdef0123456789abcdef#rc=3&rp=ct,rt,5xx"
    /// );
    /// assert!(config.callback_url("/twilio/status", &call, 2).contains("&attempt=2#"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Every callback URL carries Twilio's connection overrides
    /// [`CALLBACK_RETRIES`] as its fragment (never sent in the request).
    pub fn callback_url(&self, path: &str, call_id: &CallId, attempt: u32) -> String {
        let mut url = self.public_url.clone();
        url.set_path(&join_path(self.public_url.path(), path));
        let mut query = url.query_pairs_mut();
        query.append_pair("callId", call_id.as_str());
        if attempt > 1 {
            query.append_pair("attempt", &attempt.to_string());
        }
        drop(query);
        // Twilio retries a callback only when it cannot connect, unless the
        // URL's connection overrides ask for more: a 503 (our store had a
        // hiccup) or a slow answer is retried too, so the end of a call is
        // not lost to one failed write.
        url.set_fragment(Some(CALLBACK_RETRIES));
        url.to_string()
    }

    /// A call's relay WebSocket URL (`wss://` for `https://`, `ws://` for
    /// `http://`): the call id is in the path, so the handshake's signature
    /// is the call's own.
    pub fn relay_url(&self, call_id: &CallId) -> String {
        let mut url = self.public_url.clone();
        let path = format!("{}/{}", paths::RELAY, call_id.as_str());
        url.set_path(&join_path(self.public_url.path(), &path));
        let scheme = if url.scheme() == "https" { "wss" } else { "ws" };
        // Both schemes are special with an authority: the change cannot fail.
        let _ = url.set_scheme(scheme);
        url.to_string()
    }
}

fn join_path(base: &str, path: &str) -> String {
    format!("{}{}", base.trim_end_matches('/'), path)
}

/// How far Twilio's clock may be behind ours when a create's call is
/// looked for by its `date_created`.
const CLOCK_SKEW: chrono::Duration = chrono::Duration::seconds(5);

/// The Twilio [`Carrier`]; cheap to clone.
#[derive(Debug, Clone)]
pub struct TwilioCarrier {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: TwilioConfig,
    rest: TwilioRest,
    /// The service's link, once attached.
    link: Mutex<Option<CarrierLink>>,
    /// The progress handles of the calls this process placed: held so the
    /// service's follower keeps listening until the call ends (the reports
    /// themselves reach the service through the store, from any instance).
    /// Keyed by call, with the attempt the handle reports on.
    placed: Mutex<HashMap<CallId, (u32, ProgressHandle)>>,
    /// The dials whose create Twilio has not answered (yet).
    pending: Mutex<HashMap<CallId, PendingDial>>,
}

/// A create request sent and not answered: what finds its call.
#[derive(Debug)]
struct PendingDial {
    to: String,
    from: String,
    since: chrono::DateTime<chrono::Utc>,
}

impl TwilioCarrier {
    /// A carrier for `config`. Its calls are conducted by the agent of the
    /// service it is given to ([`AgentCallBuilder::carrier`](crate::AgentCallBuilder::carrier)),
    /// which attaches it; mount [`TwilioCallbacks`](super::TwilioCallbacks)
    /// for it to hear from Twilio.
    pub fn new(config: TwilioConfig) -> Self {
        let rest = TwilioRest::builder(config.account_sid.clone(), config.auth_token.clone())
            .api_base(config.api_base.clone())
            .build();
        Self {
            inner: Arc::new(Inner {
                config,
                rest,
                link: Mutex::new(None),
                placed: Mutex::new(HashMap::new()),
                pending: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &TwilioConfig {
        &self.inner.config
    }

    /// The REST client.
    pub fn rest(&self) -> &TwilioRest {
        &self.inner.rest
    }

    /// The service's link, once the carrier is attached to one.
    pub(crate) fn link(&self) -> Option<CarrierLink> {
        self.inner
            .link
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// The agent of the service, or the default one before the carrier
    /// is attached.
    fn agent(&self) -> Agent {
        self.link()
            .and_then(|link| link.agent().ok())
            .unwrap_or_default()
    }

    /// Stops holding the progress handle of an attempt that ended (not that
    /// of a later attempt of the same call).
    pub(crate) fn forget(&self, attempt: &CallAttempt) {
        let mut placed = self.placed();
        if placed
            .get(&attempt.call)
            .is_some_and(|(held, _)| *held == attempt.attempt)
        {
            placed.remove(&attempt.call);
        }
    }

    fn placed(&self) -> std::sync::MutexGuard<'_, HashMap<CallId, (u32, ProgressHandle)>> {
        self.inner
            .placed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The create-call request for `request`.
    pub fn create_call(&self, request: &DialRequest) -> CreateCall {
        let config = &self.inner.config;
        let agent = self.agent();
        let twiml = RelayTwiml::new(
            config.relay_url(&request.call_id),
            config.callback_url(paths::CONNECT_ACTION, &request.call_id, request.attempt),
            agent.greeting(request),
            request.call_id.as_str(),
        )
        .to_xml();
        let mut create = CreateCall::new(
            request.to.clone(),
            request.caller_id.clone(),
            twiml,
            config.callback_url(paths::STATUS, &request.call_id, request.attempt),
        )
        .time_limit(request.max_duration)
        .ring_timeout(config.ring_timeout);
        if config.machine_detection {
            create = create.machine_detection(config.callback_url(
                paths::MACHINE,
                &request.call_id,
                request.attempt,
            ));
            if agent.voicemail() == VoicemailPolicy::LeaveMessage {
                create = create.wait_for_beep();
            }
        }
        if config.record {
            create = create.record(config.callback_url(
                paths::RECORDING,
                &request.call_id,
                request.attempt,
            ));
        }
        create
    }

    /// Ends a call at Twilio: `canceled` before the answer, `completed`
    /// after it, and `completed` too when a cancel met a call that had
    /// just been answered.
    pub(crate) async fn end_by_sid(
        &self,
        sid: &CallSid,
        answered: bool,
    ) -> Result<(), super::rest::TwilioError> {
        if self.inner.rest.end_call(sid, answered).await? == EndResult::StillInProgress {
            self.inner.rest.end_call(sid, true).await?;
        }
        Ok(())
    }

    /// Ends whatever a create that Twilio did not answer may have placed
    /// for `dial`: the live calls Twilio lists from the caller id to the
    /// number created since the dial began (less [`CLOCK_SKEW`], Twilio's
    /// clock not being ours).
    async fn end_listed(&self, call_id: &CallId, dial: &PendingDial) -> Result<(), CarrierError> {
        let since = dial.since - CLOCK_SKEW;
        let calls = self
            .inner
            .rest
            .list_live_calls(&dial.to, &dial.from, since)
            .await
            .map_err(TwilioError::into_carrier_error)?;
        tracing::warn!(call_id = %call_id, live = calls.len(), "ending the calls Twilio lists for an unconfirmed dial");
        let mut failed = None;
        for (sid, answered) in calls {
            if let Err(error) = self.end_by_sid(&sid, answered).await {
                failed = Some(error);
            }
        }
        match failed {
            None => Ok(()),
            Some(error) => Err(error.into_carrier_error()),
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<CallId, PendingDial>> {
        self.inner
            .pending
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The `CallSid` noted for a call.
    async fn call_sid(&self, call_id: &CallId) -> Result<Option<(CallSid, bool)>, CarrierError> {
        let link = self
            .link()
            .ok_or_else(|| CarrierError::unavailable("not attached to a service"))?;
        let call = match link.call(call_id).await {
            Ok(call) => call,
            Err(crate::service::ServiceError::NotFound) => return Ok(None),
            Err(e) => return Err(CarrierError::unavailable("reading the call").with_source(e)),
        };
        Ok(call
            .notes
            .carrier_call_id
            .and_then(|sid| sid.parse().ok())
            .map(|sid| (sid, call.answered)))
    }
}

#[async_trait]
impl Carrier for TwilioCarrier {
    async fn dial(
        &self,
        request: DialRequest,
        progress: ProgressHandle,
    ) -> Result<(), CarrierError> {
        let link = self
            .link()
            .ok_or_else(|| CarrierError::refused("not attached to a service"))?;
        // One setting: the create waits as long as the service waits for
        // the dial (Twilio may take a while; a create given up on early may
        // still ring a phone).
        let limit = link
            .dial_timeout()
            .map_err(|e| CarrierError::refused("the service is gone").with_source(e))?;
        // Kept until Twilio answers: a create left unanswered (or given up
        // on by the service) is found by number when the call is hung up.
        let dial = PendingDial {
            to: request.to.clone(),
            from: request.caller_id.clone(),
            since: chrono::Utc::now(),
        };
        self.pending().insert(request.call_id.clone(), dial);
        let created = self
            .inner
            .rest
            .create_call_within(&self.create_call(&request), limit)
            .await;
        let sid = match created {
            Ok(sid) => sid,
            Err(error @ TwilioError::Unanswered(_)) => {
                // A call may exist: the service ends it through `hang_up`
                // once the call is over here, so its callbacks are not taken
                // for the call's own end.
                return Err(CarrierError::unconfirmed(error.to_string()).with_source(error));
            }
            Err(error) => {
                self.pending().remove(&request.call_id);
                return Err(error.into_carrier_error());
            }
        };
        self.pending().remove(&request.call_id);
        // Noted before anything else can need it: a cancel on another
        // instance hangs up by this id.
        let noted = link
            .note(&request.call_id, |notes| {
                notes.carrier_call_id = Some(sid.as_str().to_owned());
                true
            })
            .await;
        if let Err(error) = noted {
            // The call rings, but no instance could hang it up: end it now.
            tracing::warn!(call_id = %request.call_id, %error, "could not note the Twilio call; ending it");
            let _ = self.inner.rest.end_call(&sid, false).await;
            return Err(CarrierError::unavailable("noting the call").with_source(error));
        }
        // Cancelled while Twilio was creating it: it must not ring on.
        let over = link
            .call(&request.call_id)
            .await
            .is_ok_and(|call| call.status.is_terminal());
        if over {
            let _ = self.end_by_sid(&sid, false).await;
            return Ok(());
        }
        let _ = progress.report(CarrierReport::Dialing);
        let mut placed = self.placed();
        // Calls that ended through another instance: no one listens any more.
        placed.retain(|_, (_, handle)| !handle.is_closed());
        placed.insert(request.call_id, (request.attempt, progress));
        Ok(())
    }

    async fn hang_up(&self, call_id: &CallId) -> Result<(), CarrierError> {
        let pending = self.pending().remove(call_id);
        // The CallSid its signed callbacks noted, even for a create Twilio
        // did not answer; without one, such a create's call is looked for.
        match (self.call_sid(call_id).await?, pending) {
            (Some((sid, answered)), _) => self
                .end_by_sid(&sid, answered)
                .await
                .map_err(TwilioError::into_carrier_error),
            (None, Some(dial)) => self.end_listed(call_id, &dial).await,
            (None, None) => Err(CarrierError::UnknownCall(call_id.clone())),
        }
    }

    fn attach(&self, link: CarrierLink) {
        *self
            .inner
            .link
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(link);
    }

    async fn resume(
        &self,
        request: DialRequest,
        progress: ProgressHandle,
    ) -> Result<bool, CarrierError> {
        // Twilio keeps the call, and its callbacks reach the store from any
        // instance: a call Twilio accepted goes on being reported.
        let known = self.call_sid(&request.call_id).await?.is_some();
        if known {
            self.placed()
                .insert(request.call_id, (request.attempt, progress));
        }
        Ok(known)
    }
}
