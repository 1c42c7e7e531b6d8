//! What Twilio sends us: status, machine-detection, recording and
//! `<Connect action>` callbacks (a tower [`Service`](tower_service::Service)
//! over `http` types, like [`Api`](crate::Api)), and the ConversationRelay
//! socket ([`TwilioCallbacks::relay`], over any stream and sink of text
//! frames). Every request is checked with `X-Twilio-Signature` first: a bad
//! or missing signature gets 403 and changes nothing.
//!
//! Any instance may receive any of them: reports and notes go through the
//! carrier's [`CarrierLink`], read from and written to the store.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Sink, Stream};
use http::{HeaderMap, Method, Request, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, Full, Limited};

use super::carrier::{TwilioCarrier, paths};
use super::signature::{SIGNATURE_HEADER, TwilioSignature};
use crate::carrier::CarrierLink;
use crate::carrier::{CarrierOutcome, CarrierReport};
use crate::domain::{CallAttempt, CallError, CallId, CallStatus};
use crate::relay::{RelayError, SessionEnd, SessionPlan, Setup, run_session};
use crate::service::ServiceError;
use crate::store::Recording;
use crate::transcript::Transcript;

/// Largest callback body read (Twilio's forms are a few KB).
const MAX_CALLBACK_BYTES: usize = 64 * 1024;
/// How long a `completed` callback waits for the relay session to hand in
/// its transcript (the socket closes as the call ends; the two race).
const SESSION_CLOSE_WAIT: Duration = Duration::from_secs(5);

/// Twilio's callbacks and relay sessions for one service; cheap to clone.
#[derive(Debug, Clone)]
pub struct TwilioCallbacks {
    carrier: TwilioCarrier,
    signature: TwilioSignature,
}

impl TwilioCallbacks {
    /// Callbacks for the calls `carrier` places for the service it is
    /// attached to ([`Carrier::attach`](crate::carrier::Carrier::attach),
    /// done by the service's builder): until then every callback answers
    /// 503 and every session is refused.
    pub fn new(carrier: TwilioCarrier) -> Self {
        let signature = TwilioSignature::new(&carrier.config().auth_token);
        Self { carrier, signature }
    }

    /// The service's link, once the carrier is attached.
    fn link(&self) -> Result<CarrierLink, ServiceError> {
        self.carrier.link().ok_or(ServiceError::ShuttingDown)
    }

    /// The URL Twilio requested: the public URL's origin with the request's
    /// path and query (a proxy in front must not rewrite paths).
    fn requested_url(&self, uri: &http::Uri) -> String {
        let public = &self.carrier.config().public_url;
        let origin = public.origin().ascii_serialization();
        let path = uri.path_and_query().map_or("/", |p| p.as_str());
        format!("{origin}{path}")
    }

    /// Checks the WebSocket handshake of a relay session (a GET, signed
    /// over its URL); hosts call it before accepting the upgrade and answer
    /// 403 when it fails.
    ///
    /// The signature is checked over the call's relay URL as the TwiML gave
    /// it (`wss://…`, [`TwilioConfig::relay_url`](super::TwilioConfig::relay_url)) and, in case a proxy's view is what was signed, over
    /// the public URL's `https://` form.
    pub fn verify_relay_handshake(&self, uri: &http::Uri, headers: &HeaderMap) -> bool {
        let Some(call_id) = Self::relay_call_id(uri) else {
            return false;
        };
        let no_params: &[(&str, &str)] = &[];
        [
            self.carrier.config().relay_url(&call_id),
            self.requested_url(uri),
        ]
        .iter()
        .any(|url| {
            self.signature
                .verify_form(url, no_params, signature_of(headers))
                .is_ok()
        })
    }

    /// The call a relay session is for: the last segment of the path the
    /// socket was opened at (`/twilio/relay/{callId}`, signed with the rest
    /// of the URL, so one handshake cannot be replayed for another call).
    pub fn relay_call_id(uri: &http::Uri) -> Option<CallId> {
        uri.path().rsplit('/').next()?.parse().ok()
    }

    /// Runs one relay session over an accepted (and verified) WebSocket's
    /// text frames, for the call [`relay_call_id`](Self::relay_call_id)
    /// names, whichever instance placed it; its conversation runs here. The
    /// session's `setup` must name the same call and, once Twilio's
    /// `CallSid` is known, the same `CallSid`; a second session for a call
    /// is refused. The transcript is kept on the call after every turn and
    /// as the session ends.
    pub async fn relay<I, O, E>(
        &self,
        call_id: CallId,
        incoming: I,
        outgoing: O,
    ) -> Result<SessionEnd, RelayError>
    where
        I: Stream<Item = Result<String, E>> + Unpin + Send,
        O: Sink<String> + Unpin + Send,
        O::Error: std::fmt::Display,
        E: std::fmt::Display,
    {
        let opened = std::sync::atomic::AtomicBool::new(false);
        let opened_ref = &opened;
        let call = &call_id;
        let plan = move |setup: Setup| async move {
            let refused = || RelayError::UnknownCall(setup.carrier_call_id.clone());
            let named = setup
                .parameters
                .get(super::twiml::CALL_ID_PARAMETER)
                .and_then(|id| id.parse::<CallId>().ok());
            if named.as_ref() != Some(call) {
                return Err(refused());
            }
            let link = self.link().map_err(|_| refused())?;
            let request = link.dial_request(call).await.map_err(|_| refused())?;
            let agent = link.agent().map_err(|_| refused())?;
            let sid = setup.carrier_call_id.clone();
            let claimed = std::sync::atomic::AtomicBool::new(false);
            link.note(call, |notes| {
                let same_call = notes
                    .carrier_call_id
                    .as_ref()
                    .is_none_or(|noted| *noted == sid);
                // The last run of this (compare-and-set retries) decides.
                let take = !notes.session_open && same_call;
                claimed.store(take, std::sync::atomic::Ordering::SeqCst);
                if take {
                    notes.session_open = true;
                }
                take
            })
            .await
            .map_err(|_| refused())?;
            if !claimed.load(std::sync::atomic::Ordering::SeqCst) {
                tracing::warn!(call_id = %call, "relay session refused: another session, or another CallSid");
                return Err(refused());
            }
            opened_ref.store(true, std::sync::atomic::Ordering::SeqCst);
            Ok(SessionPlan {
                conversation: agent.converse(&request),
                limits: agent.limits(),
                max_duration: request.max_duration,
                carrier_speaks_greeting: true,
                on_turn: Some(keep_on_call(link, call.clone())),
            })
        };
        let link = self
            .link()
            .map_err(|_| RelayError::UnknownCall(call_id.to_string()))?;
        let ended = run_session(incoming, outgoing, plan).await;
        if opened.load(std::sync::atomic::Ordering::SeqCst) {
            let transcript = ended.as_ref().ok().map(|end| end.transcript.clone());
            let noted = link
                .note(&call_id, |notes| {
                    notes.session_open = false;
                    // At a machine the message left replaced the session;
                    // its transcript is the one kept.
                    let machine = notes.answered_by.as_deref().is_some_and(is_machine);
                    if transcript.is_some() && !machine {
                        notes.transcript = transcript.clone();
                    }
                    true
                })
                .await;
            if let Err(error) = noted {
                tracing::warn!(call_id = %call_id, %error, "relay transcript not kept");
            }
        }
        ended
    }

    async fn handle(
        &self,
        method: Method,
        uri: http::Uri,
        headers: HeaderMap,
        body: Bytes,
    ) -> Response<Full<Bytes>> {
        if method != Method::POST {
            return reply(StatusCode::METHOD_NOT_ALLOWED, "");
        }
        let params: Vec<(String, String)> =
            url::form_urlencoded::parse(&body).into_owned().collect();
        let url = self.requested_url(&uri);
        // The fragment is never sent; whether Twilio signs the URL with the
        // connection overrides it was given or without, both are ours.
        let with_overrides = format!("{url}#{}", super::carrier::CALLBACK_RETRIES);
        let verified = self
            .signature
            .verify_form(&url, &params, signature_of(&headers))
            .or_else(|_| {
                self.signature
                    .verify_form(&with_overrides, &params, signature_of(&headers))
            });
        if let Err(error) = verified {
            tracing::warn!(path = uri.path(), %error, "Twilio callback refused: bad signature");
            return reply(StatusCode::FORBIDDEN, "");
        }
        let call_id = url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
            .find(|(key, _)| key == "callId")
            .and_then(|(_, id)| id.parse::<CallId>().ok());
        // A retry's attempt is named; the first is not (URLs as before).
        let attempt = match url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
            .find(|(key, _)| key == "attempt")
        {
            None => Some(1),
            Some((_, n)) => n.parse::<u32>().ok().filter(|&n| n >= 1),
        };
        let (Some(call_id), Some(attempt)) = (call_id, attempt) else {
            return reply(StatusCode::BAD_REQUEST, "");
        };
        let attempt = CallAttempt::new(call_id.clone(), attempt);
        let form = Form(params);
        let handled = match uri.path() {
            paths::STATUS => self.status(&attempt, &form).await,
            paths::MACHINE => self.machine(&attempt, &form).await,
            paths::RECORDING => self.recording(&attempt, &form).await,
            paths::CONNECT_ACTION => {
                // The relay session ended; nothing more runs on the line.
                return reply(
                    StatusCode::OK,
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Hangup/></Response>",
                );
            }
            _ => return reply(StatusCode::NOT_FOUND, ""),
        };
        match handled {
            Ok(()) => reply(StatusCode::NO_CONTENT, ""),
            Err(ServiceError::NotFound) => reply(StatusCode::NOT_FOUND, ""),
            Err(error) => {
                tracing::warn!(call_id = %call_id, %error, "Twilio callback not applied; Twilio retries");
                reply(StatusCode::SERVICE_UNAVAILABLE, "")
            }
        }
    }

    /// A status callback: the attempt's progress, or its end.
    async fn status(&self, attempt: &CallAttempt, form: &Form) -> Result<(), ServiceError> {
        let call_id = &attempt.call;
        let report = match form.get("CallStatus").unwrap_or_default() {
            "queued" | "initiated" | "ringing" => CarrierReport::Dialing,
            "in-progress" | "answered" => CarrierReport::Answered,
            "busy" => CarrierReport::Ended(CarrierOutcome::new(CallStatus::Declined)),
            "no-answer" => CarrierReport::Ended(CarrierOutcome::new(CallStatus::NoAnswer)),
            "failed" => CarrierReport::Ended(failed(CallError::CarrierFailed)),
            "canceled" => CarrierReport::Ended(failed(CallError::Canceled)),
            "completed" => CarrierReport::Ended(self.completed(call_id, form).await?),
            other => {
                tracing::info!(call_id = %call_id, status = other, "unknown Twilio call status ignored");
                return Ok(());
            }
        };
        let ends = matches!(report, CarrierReport::Ended(_));
        if !ends && !self.still_wanted(attempt, form).await? {
            return Ok(());
        }
        self.link()?.report(attempt, report).await?;
        if ends {
            self.carrier.forget(attempt);
        }
        Ok(())
    }

    /// Whether a call Twilio reports as live is one we still want. A call
    /// that is over here (cancelled while Twilio created it, or whose
    /// creation we never heard back from), or an earlier attempt of a call
    /// that was retried, is ended at Twilio by the `CallSid` in the signed
    /// callback, so no phone rings on for nothing; a live one gets its
    /// `CallSid` noted if it was not yet.
    async fn still_wanted(&self, attempt: &CallAttempt, form: &Form) -> Result<bool, ServiceError> {
        let call_id = &attempt.call;
        let sid = form
            .get("CallSid")
            .and_then(|sid| sid.parse::<super::rest::CallSid>().ok());
        let link = self.link()?;
        let wanted = match link.dial_request(call_id).await {
            Ok(request) if request.attempt == attempt.attempt => Ok(()),
            Ok(_) => Err(ServiceError::NotFound),
            Err(error) => Err(error),
        };
        match wanted {
            Ok(()) => {
                if let Some(sid) = &sid {
                    link.note(call_id, |notes| {
                        let missing = notes.carrier_call_id.is_none();
                        if missing {
                            notes.carrier_call_id = Some(sid.as_str().to_owned());
                        }
                        missing
                    })
                    .await?;
                }
                Ok(true)
            }
            Err(ServiceError::NotFound) => {
                if let Some(sid) = sid {
                    let answered = form.get("CallStatus") == Some("in-progress");
                    tracing::warn!(call_id = %call_id, "Twilio reports a call that is over here; ending it");
                    if let Err(error) = self.carrier.end_by_sid(&sid, answered).await {
                        tracing::warn!(call_id = %call_id, %error, "could not end the stray call");
                    }
                }
                Ok(false)
            }
            Err(error) => Err(error),
        }
    }

    /// The end of a connected call: its conversation from the notes (once
    /// the relay session has handed it in), voicemail when a machine or a
    /// fax answered, and Twilio's own talk time.
    async fn completed(
        &self,
        call_id: &CallId,
        form: &Form,
    ) -> Result<CarrierOutcome, ServiceError> {
        let link = self.link()?;
        let mut notes = link.call(call_id).await?.notes;
        let deadline = tokio::time::Instant::now() + SESSION_CLOSE_WAIT;
        while notes.session_open && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
            notes = link.call(call_id).await?.notes;
        }
        let answered_by = form
            .get("AnsweredBy")
            .map(str::to_owned)
            .or(notes.answered_by);
        let machine = answered_by.as_deref().is_some_and(is_machine);
        let mut outcome = CarrierOutcome::new(if machine {
            CallStatus::Voicemail
        } else {
            CallStatus::Completed
        });
        outcome.transcript = notes.transcript;
        outcome.duration = form
            .get("CallDuration")
            .and_then(|seconds| seconds.parse().ok())
            .map(Duration::from_secs);
        Ok(outcome)
    }

    /// The answering-machine verdict: noted; at a machine the agent leaves
    /// its message (Twilio speaks it in place of the relay) or hangs up.
    async fn machine(&self, attempt: &CallAttempt, form: &Form) -> Result<(), ServiceError> {
        let call_id = &attempt.call;
        let Some(answered_by) = form.get("AnsweredBy").map(str::to_owned) else {
            return Ok(());
        };
        let link = self.link()?;
        if !link.is_latest_attempt(attempt).await? {
            return Ok(());
        }
        let machine = is_machine(&answered_by);
        let request = if machine {
            link.dial_request(call_id).await.ok()
        } else {
            None
        };
        let agent = link.agent()?;
        let left = request
            .as_ref()
            .map(|request| agent.leave_voicemail(request));
        let transcript = left.as_ref().map(|(_, transcript)| transcript.clone());
        let notes = link
            .note(call_id, |notes| {
                notes.answered_by = Some(answered_by.clone());
                if let Some(transcript) = &transcript {
                    notes.transcript = Some(transcript.clone());
                    notes.session_open = false;
                }
                true
            })
            .await?;
        let (Some((message, _)), Some(sid)) = (left, notes.carrier_call_id) else {
            return Ok(());
        };
        let Ok(sid) = sid.parse() else {
            return Ok(());
        };
        let rest = self.carrier.rest();
        let done = match message {
            Some(message) => rest
                .redirect_call(&sid, &super::twiml::say_and_hang_up(&message))
                .await
                .map(|_| ()),
            None => rest.end_call(&sid, true).await.map(|_| ()),
        };
        if let Err(error) = done {
            tracing::warn!(call_id = %call_id, %error, "voicemail handling failed; the time limit ends the call");
        }
        Ok(())
    }

    /// A recording is ready: fetched with the account's credentials and
    /// kept, so the call's own `recordingUrl` serves it.
    async fn recording(&self, attempt: &CallAttempt, form: &Form) -> Result<(), ServiceError> {
        let call_id = &attempt.call;
        // An earlier attempt's recording (a voicemail that was retried)
        // must not take the place of the call's own.
        let link = self.link()?;
        if !link.is_latest_attempt(attempt).await? {
            return Ok(());
        }
        if form
            .get("RecordingStatus")
            .is_some_and(|status| status != "completed")
        {
            return Ok(());
        }
        let Some(url) = form.get("RecordingUrl") else {
            return Ok(());
        };
        match self.carrier.rest().fetch_recording(url).await {
            Ok(media) => {
                let recording = Recording {
                    content_type: media.content_type,
                    bytes: media.bytes,
                };
                link.attach_recording(call_id, recording).await
            }
            Err(error) => {
                tracing::warn!(call_id = %call_id, %error, "recording not fetched");
                Ok(())
            }
        }
    }
}

fn failed(error: CallError) -> CarrierOutcome {
    let mut outcome = CarrierOutcome::new(CallStatus::Failed);
    outcome.error = Some(error);
    outcome
}

/// Keeps a relay session's transcript on the call, where the call's end
/// finds it whichever instance receives the `completed` callback; at a
/// machine the message left replaced the session and its transcript stays.
fn keep_on_call(link: CarrierLink, call: CallId) -> crate::relay::OnTurn {
    Box::new(move |transcript: Transcript| {
        let (link, call) = (link.clone(), call.clone());
        Box::pin(async move {
            let transcript = Some(transcript);
            let kept = link
                .note(&call, |notes| {
                    let machine = notes.answered_by.as_deref().is_some_and(is_machine);
                    if machine || notes.transcript == transcript {
                        return false;
                    }
                    notes.transcript = transcript.clone();
                    true
                })
                .await;
            if let Err(error) = kept {
                tracing::warn!(call_id = %call, %error, "relay transcript not kept yet");
            }
        })
    })
}

/// Whether Twilio's `AnsweredBy` means no person picked up.
fn is_machine(answered_by: &str) -> bool {
    answered_by.starts_with("machine") || answered_by == "fax"
}

fn signature_of(headers: &HeaderMap) -> Option<&str> {
    headers.get(SIGNATURE_HEADER).and_then(|v| v.to_str().ok())
}

fn reply(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *response.status_mut() = status;
    if body.starts_with("<?xml") {
        response.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("text/xml"),
        );
    }
    response
}

/// A callback's decoded form fields.
struct Form(Vec<(String, String)>);

impl Form {
    fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

impl<B> tower_service::Service<Request<B>> for TwilioCallbacks
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let callbacks = self.clone();
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let body = match Limited::new(body, MAX_CALLBACK_BYTES).collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(_) => return Ok(reply(StatusCode::PAYLOAD_TOO_LARGE, "")),
            };
            // Detached: a callback applied halfway because Twilio hung up
            // its request would leave the call half-reported.
            let handled = tokio::spawn(async move {
                callbacks
                    .handle(parts.method, parts.uri, parts.headers, body)
                    .await
            });
            Ok(handled
                .await
                .unwrap_or_else(|_| reply(StatusCode::INTERNAL_SERVER_ERROR, "")))
        })
    }
}
