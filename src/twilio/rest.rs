//! The slice of Twilio's REST API (2010-04-01) that places calls: create a
//! call, list a number's live calls, end a call, and fetch its recording.
//!
//! Requests are form-encoded and authenticated with HTTP Basic
//! `AccountSid:AuthToken`; answers are JSON. The form fields are pure
//! functions of the request values ([`CreateCall::form`],
//! [`end_call_form`]), so they are tested without a socket, and
//! `tests/twilio_contract.rs` checks every request against Twilio's own
//! OpenAPI document.
//!
//! ```no_run
//! use std::time::Duration;
//! use agentcall::twilio::rest::{CreateCall, EndResult, TwilioRest};
//! use agentcall::twilio::signature::AuthToken;
//!
//! # async fn demo() -> Result<(), agentcall::twilio::rest::TwilioError> {
//! let twilio = TwilioRest::new("AC0123456789abcdef0123456789abcdef", AuthToken::new("token"));
//! let call = CreateCall::new(
//!     "+14155550125",
//!     "+14155550100",
//!     "<Response><Hangup/></Response>",
//!     "https://agent.example.com/twilio/status",
//! )
//! .time_limit(Duration::from_secs(600))
//! .ring_timeout(Duration::from_secs(30));
//! let sid = twilio.create_call(&call).await?;
//! assert_eq!(twilio.end_call(&sid, false).await?, EndResult::Ended);
//! # Ok(())
//! # }
//! ```

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use bytes::Bytes;
use serde::Deserialize;
use url::Url;

use super::signature::AuthToken;

/// Where Twilio's REST API lives.
pub const DEFAULT_API_BASE: &str = "https://api.twilio.com";

/// The call progress events we ask Twilio to report to the status callback.
pub const STATUS_CALLBACK_EVENTS: [&str; 4] = ["initiated", "ringing", "answered", "completed"];

const API_VERSION: &str = "2010-04-01";

/// Why a Twilio REST request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TwilioError {
    /// Twilio answered with an error status. `code` and `message` come from
    /// Twilio's JSON error body when it has one (e.g. code 21211, "The 'To'
    /// number is not a valid phone number"; codes are listed at
    /// <https://www.twilio.com/docs/api/errors>).
    #[error("Twilio answered {status}{}", describe(*code, message.as_deref()))]
    Http {
        /// The HTTP status.
        status: u16,
        /// Twilio's error code.
        code: Option<u32>,
        /// Twilio's error message.
        message: Option<String>,
    },
    /// No answer, and the request never reached Twilio: connecting
    /// failed or timed out.
    #[error("could not reach Twilio: {0}")]
    Transport(String),
    /// No answer to a request that may have reached Twilio: it timed out,
    /// or the connection was lost after sending. Whether Twilio acted on
    /// it is unknown (a create may have placed a call).
    #[error("no answer from Twilio: {0}")]
    Unanswered(String),
    /// The URL is not on the configured API host, so the account's
    /// credentials are not sent to it.
    #[error("refusing to send Twilio credentials to {0}")]
    ForeignHost(String),
    /// Something that should be Twilio's (a response body, a SID) is not in
    /// Twilio's format.
    #[error("malformed Twilio data: {0}")]
    Malformed(String),
}

impl TwilioError {
    /// As a carrier's error, with this one as its source: Twilio refused
    /// (a 4xx other than 429, a foreign host, malformed data), or it is
    /// unavailable (429, a 5xx, no answer) and may accept later. (A create
    /// left [`Unanswered`](Self::Unanswered) is the carrier's to sort out
    /// first: see [`TwilioCarrier`](super::TwilioCarrier).)
    pub fn into_carrier_error(self) -> crate::carrier::CarrierError {
        use crate::carrier::CarrierError;
        let unavailable = match &self {
            Self::Http { status, .. } => *status == 429 || *status >= 500,
            Self::Transport(_) | Self::Unanswered(_) => true,
            Self::ForeignHost(_) | Self::Malformed(_) => false,
        };
        let reason = self.to_string();
        let error = if unavailable {
            CarrierError::unavailable(reason)
        } else {
            CarrierError::refused(reason)
        };
        error.with_source(self)
    }
}

fn describe(code: Option<u32>, message: Option<&str>) -> String {
    match (code, message) {
        (Some(code), Some(message)) => format!(" (code {code}: {message})"),
        (Some(code), None) => format!(" (code {code})"),
        (None, Some(message)) => format!(" ({message})"),
        (None, None) => String::new(),
    }
}

/// A Twilio call SID: `CA` and 32 hex digits.
///
/// Checked on parsing, so a SID is always safe in a URL path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallSid(String);

impl CallSid {
    /// The SID as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for CallSid {
    type Err = TwilioError;

    /// # Errors
    ///
    /// [`TwilioError::Malformed`] unless the text is `CA` and 32 hex digits.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let well_formed = text.len() == 34
            && text.starts_with("CA")
            && text[2..].bytes().all(|b| b.is_ascii_hexdigit());
        if well_formed {
            Ok(Self(text.to_owned()))
        } else {
            Err(TwilioError::Malformed(format!(
                "{text:?} is not a call SID"
            )))
        }
    }
}

impl fmt::Display for CallSid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One outbound call to create: who to call, from which number, the TwiML
/// to run when answered, and where Twilio reports progress.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CreateCall {
    /// The callee, in E.164.
    pub to: String,
    /// Our caller id: a Twilio number or verified caller id of the account.
    pub from: String,
    /// The TwiML Twilio runs when the call is answered (at most 4000
    /// characters).
    pub twiml: String,
    /// Receives every event of [`STATUS_CALLBACK_EVENTS`] by POST.
    pub status_callback: String,
    /// The longest the call may last once answered; Twilio's default is
    /// four hours.
    pub time_limit: Option<Duration>,
    /// How long to let the phone ring; Twilio's default is 60 seconds, its
    /// maximum 600.
    pub ring_timeout: Option<Duration>,
    /// When set, answering machine detection runs in the background and its
    /// verdict (`AnsweredBy`) is POSTed to this URL.
    pub machine_detection_callback: Option<String>,
    /// With machine detection: report a machine only once its greeting has
    /// ended (`DetectMessageEnd`), so a message left then follows the beep.
    pub wait_for_beep: bool,
    /// When set, the call is recorded and this URL is told (by POST) when
    /// the recording is ready.
    pub recording_callback: Option<String>,
}

impl CreateCall {
    /// A call to `to` from `from` running `twiml`, reporting to
    /// `status_callback`; no time limit or ring timeout of our own, no
    /// machine detection, no recording.
    pub fn new(
        to: impl Into<String>,
        from: impl Into<String>,
        twiml: impl Into<String>,
        status_callback: impl Into<String>,
    ) -> Self {
        Self {
            to: to.into(),
            from: from.into(),
            twiml: twiml.into(),
            status_callback: status_callback.into(),
            time_limit: None,
            ring_timeout: None,
            machine_detection_callback: None,
            wait_for_beep: false,
            recording_callback: None,
        }
    }

    /// Ends the call after `limit` (sent in whole seconds, rounded up).
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// Gives up when unanswered after `timeout` (whole seconds, rounded up).
    pub fn ring_timeout(mut self, timeout: Duration) -> Self {
        self.ring_timeout = Some(timeout);
        self
    }

    /// Detects answering machines in the background, reporting to
    /// `callback`.
    pub fn machine_detection(mut self, callback: impl Into<String>) -> Self {
        self.machine_detection_callback = Some(callback.into());
        self
    }

    /// With machine detection, waits for the end of a machine's greeting
    /// (the beep) before reporting it (`DetectMessageEnd`).
    pub fn wait_for_beep(mut self) -> Self {
        self.wait_for_beep = true;
        self
    }

    /// Records the call, telling `callback` when the recording is ready.
    pub fn record(mut self, callback: impl Into<String>) -> Self {
        self.recording_callback = Some(callback.into());
        self
    }

    /// The form fields of the create request, in the order sent
    /// (`StatusCallbackEvent` repeats, once per event).
    pub fn form(&self) -> Vec<(&'static str, String)> {
        let mut form = vec![
            ("To", self.to.clone()),
            ("From", self.from.clone()),
            ("Twiml", self.twiml.clone()),
            ("StatusCallback", self.status_callback.clone()),
        ];
        form.extend(
            STATUS_CALLBACK_EVENTS
                .iter()
                .map(|event| ("StatusCallbackEvent", (*event).to_owned())),
        );
        form.push(("StatusCallbackMethod", "POST".to_owned()));
        if let Some(limit) = self.time_limit {
            form.push(("TimeLimit", whole_seconds(limit)));
        }
        if let Some(timeout) = self.ring_timeout {
            form.push(("Timeout", whole_seconds(timeout)));
        }
        if let Some(callback) = &self.machine_detection_callback {
            let mode = if self.wait_for_beep {
                "DetectMessageEnd"
            } else {
                "Enable"
            };
            form.push(("MachineDetection", mode.to_owned()));
            form.push(("AsyncAmd", "true".to_owned()));
            form.push(("AsyncAmdStatusCallback", callback.clone()));
            form.push(("AsyncAmdStatusCallbackMethod", "POST".to_owned()));
        }
        if let Some(callback) = &self.recording_callback {
            form.push(("Record", "true".to_owned()));
            form.push(("RecordingStatusCallback", callback.clone()));
        }
        form
    }
}

/// Seconds, rounded up so a sub-second remainder never shortens a limit.
fn whole_seconds(duration: Duration) -> String {
    let rounded_up = duration.as_secs() + u64::from(duration.subsec_nanos() > 0);
    rounded_up.to_string()
}

/// The form fields that end a call.
///
/// `completed` hangs up an answered call; `canceled` cancels one that is
/// still queued or ringing and, unlike `completed`, never cuts off a callee
/// who has just picked up.
pub fn end_call_form(answered: bool) -> Vec<(&'static str, String)> {
    let status = if answered { "completed" } else { "canceled" };
    vec![("Status", status.to_owned())]
}

/// What ending a call did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndResult {
    /// Twilio accepted the hang-up or cancellation.
    Ended,
    /// The call had already ended: Twilio answers 404 (code 20404) when
    /// asked to update a finished call.
    AlreadyEnded,
    /// A cancellation reached a call that had just been answered: Twilio
    /// says it is `in-progress` still (`canceled` never ends an answered
    /// call), so it needs hanging up with `completed`.
    StillInProgress,
}

/// A recording's audio as Twilio served it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordingMedia {
    /// The `Content-Type` Twilio sent, e.g. `audio/x-wav`.
    pub content_type: String,
    /// The audio file.
    pub bytes: Bytes,
}

/// Configures a [`TwilioRest`]; see [`TwilioRest::builder`].
#[derive(Debug, Clone)]
pub struct TwilioRestBuilder {
    account_sid: String,
    auth_token: AuthToken,
    api_base: Url,
    request_timeout: Duration,
    connect_timeout: Duration,
    recording_timeout: Duration,
}

impl TwilioRestBuilder {
    /// Sends requests to `api_base` instead of [`DEFAULT_API_BASE`] (a mock
    /// in tests, a regional edge in production). Recordings are only fetched
    /// from this host.
    pub fn api_base(mut self, api_base: Url) -> Self {
        self.api_base = api_base;
        self
    }

    /// Bounds each end, redirect or list request, and a create without its
    /// own bound ([`TwilioRest::create_call`]), from connecting to the last
    /// byte of the answer (default 15 seconds). The Twilio carrier bounds
    /// its creates by the service's dial timeout instead
    /// ([`TwilioRest::create_call_within`]).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Bounds connecting, TLS included (default 5 seconds).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Bounds each recording download (default 120 seconds: a long call's
    /// WAV runs to tens of megabytes).
    pub fn recording_timeout(mut self, timeout: Duration) -> Self {
        self.recording_timeout = timeout;
        self
    }

    /// The client.
    ///
    /// # Panics
    ///
    /// If the TLS backend cannot be initialised (it is compiled in, so this
    /// does not happen in practice).
    pub fn build(self) -> TwilioRest {
        let client = reqwest::Client::builder()
            .user_agent(concat!("agentcall/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(self.connect_timeout)
            // Recording media may redirect to storage; reqwest drops the
            // Authorization header on any redirect to another host or port.
            .redirect(reqwest::redirect::Policy::limited(5))
            .build()
            .expect("a rustls client always builds");
        TwilioRest {
            client,
            account_sid: self.account_sid,
            auth_token: self.auth_token,
            api_base: self.api_base,
            request_timeout: self.request_timeout,
            recording_timeout: self.recording_timeout,
        }
    }
}

/// A client for one Twilio account's calls. Cheap to clone (the connection
/// pool is shared); `Debug` never prints the auth token.
#[derive(Clone)]
pub struct TwilioRest {
    client: reqwest::Client,
    account_sid: String,
    auth_token: AuthToken,
    api_base: Url,
    request_timeout: Duration,
    recording_timeout: Duration,
}

impl fmt::Debug for TwilioRest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TwilioRest")
            .field("account_sid", &self.account_sid)
            .field("auth_token", &self.auth_token)
            .field("api_base", &self.api_base.as_str())
            .field("request_timeout", &self.request_timeout)
            .field("recording_timeout", &self.recording_timeout)
            .finish_non_exhaustive()
    }
}

impl TwilioRest {
    /// A client for `account_sid` with the default settings.
    pub fn new(account_sid: impl Into<String>, auth_token: AuthToken) -> Self {
        Self::builder(account_sid, auth_token).build()
    }

    /// A builder for `account_sid`, defaulting to [`DEFAULT_API_BASE`].
    pub fn builder(account_sid: impl Into<String>, auth_token: AuthToken) -> TwilioRestBuilder {
        TwilioRestBuilder {
            account_sid: account_sid.into(),
            auth_token,
            api_base: Url::parse(DEFAULT_API_BASE).expect("the default API base is a URL"),
            request_timeout: Duration::from_secs(15),
            connect_timeout: Duration::from_secs(5),
            recording_timeout: Duration::from_secs(120),
        }
    }

    /// The account this client acts for.
    pub fn account_sid(&self) -> &str {
        &self.account_sid
    }

    /// Where requests go.
    pub fn api_base(&self) -> &Url {
        &self.api_base
    }

    /// Creates (places) a call; Twilio dials it right away. Bounded by the
    /// request timeout; see [`create_call_within`](Self::create_call_within).
    ///
    /// # Errors
    ///
    /// As [`create_call_within`](Self::create_call_within).
    pub async fn create_call(&self, call: &CreateCall) -> Result<CallSid, TwilioError> {
        self.create_call_within(call, self.request_timeout).await
    }

    /// Creates (places) a call, waiting at most `timeout` for Twilio's
    /// answer (the carrier passes the service's dial timeout: Twilio may
    /// take a while, and giving up early leaves a call ringing unknown).
    ///
    /// # Errors
    ///
    /// [`TwilioError::Http`] when Twilio refuses (an invalid number, an
    /// unverified caller id, …), [`TwilioError::Transport`] when Twilio
    /// could not be reached, [`TwilioError::Unanswered`] when the request
    /// may have reached it but no answer came (a call may exist: find it
    /// with [`list_live_calls`](Self::list_live_calls)),
    /// [`TwilioError::Malformed`] when the answer has no call SID.
    pub async fn create_call_within(
        &self,
        call: &CreateCall,
        timeout: Duration,
    ) -> Result<CallSid, TwilioError> {
        let url = self.endpoint(&["Calls.json"])?;
        let response = self.post_form_within(url, &call.form(), timeout).await?;
        let body = success_body(response).await?;
        #[derive(Deserialize)]
        struct CallResource {
            sid: Option<String>,
        }
        let call: CallResource = serde_json::from_slice(&body)
            .map_err(|e| TwilioError::Malformed(format!("call resource: {e}")))?;
        call.sid
            .ok_or_else(|| TwilioError::Malformed("call resource without a sid".into()))?
            .parse()
    }

    /// The calls from `from` to `to` created at or after `since` that are
    /// still live (`queued`, `initiated`, `ringing`, `in-progress`), with
    /// whether each was answered: `GET …/Calls.json?To=…&From=…&PageSize=…`,
    /// newest first. `since` is compared with each call's `date_created`
    /// (whole seconds) here rather than sent as `StartTime>`, which only
    /// takes dates and skips calls not yet dialed (`start_time` empty).
    ///
    /// # Errors
    ///
    /// [`TwilioError::Http`] for a refusal, [`TwilioError::Transport`] or
    /// [`TwilioError::Unanswered`] without an answer,
    /// [`TwilioError::Malformed`] for a body that is not a call list.
    pub async fn list_live_calls(
        &self,
        to: &str,
        from: &str,
        since: chrono::DateTime<chrono::Utc>,
    ) -> Result<Vec<(CallSid, bool)>, TwilioError> {
        let mut url = self.endpoint(&["Calls.json"])?;
        url.query_pairs_mut()
            .extend_pairs(list_calls_query(to, from));
        let response = self
            .client
            .get(url)
            .basic_auth(&self.account_sid, Some(self.auth_token.expose_secret()))
            .header(reqwest::header::ACCEPT, "application/json")
            .timeout(self.request_timeout)
            .send()
            .await
            .map_err(transport)?;
        let body = success_body(response).await?;
        #[derive(Deserialize)]
        struct Listed {
            sid: Option<String>,
            status: Option<String>,
            date_created: Option<String>,
        }
        #[derive(Deserialize)]
        struct Page {
            calls: Vec<Listed>,
        }
        let page: Page = serde_json::from_slice(&body)
            .map_err(|e| TwilioError::Malformed(format!("call list: {e}")))?;
        // Twilio's dates have whole seconds.
        let since = since - chrono::Duration::seconds(1);
        let live = page.calls.into_iter().filter_map(|call| {
            let status = call.status?;
            let answered = match status.as_str() {
                "queued" | "initiated" | "ringing" => false,
                "in-progress" => true,
                _ => return None,
            };
            // A call without a readable date may be ours: it is live.
            let recent = call
                .date_created
                .and_then(|date| chrono::DateTime::parse_from_rfc2822(&date).ok())
                .is_none_or(|created| created >= since);
            let sid = call.sid?.parse().ok()?;
            recent.then_some((sid, answered))
        });
        Ok(live.collect())
    }

    /// Ends a call: hangs it up when `answered`, cancels it otherwise (see
    /// [`end_call_form`]).
    ///
    /// # Errors
    ///
    /// [`TwilioError::Http`] for any refusal other than 404,
    /// [`TwilioError::Transport`] without an answer.
    pub async fn end_call(&self, sid: &CallSid, answered: bool) -> Result<EndResult, TwilioError> {
        let url = self.endpoint(&["Calls", &format!("{sid}.json")])?;
        let response = self.post_form(url, &end_call_form(answered)).await?;
        if response.status() == reqwest::StatusCode::NOT_FOUND {
            return Ok(EndResult::AlreadyEnded);
        }
        let body = success_body(response).await?;
        #[derive(Deserialize)]
        struct CallResource {
            status: Option<String>,
        }
        let status = serde_json::from_slice::<CallResource>(&body)
            .ok()
            .and_then(|call| call.status);
        if !answered && status.as_deref() == Some("in-progress") {
            return Ok(EndResult::StillInProgress);
        }
        Ok(EndResult::Ended)
    }

    /// Downloads a recording's audio from its `RecordingUrl` (as Twilio
    /// reports it to the recording status callback), with the account's
    /// credentials.
    ///
    /// A URL without a file extension gets `.wav`: Twilio serves the same
    /// WAV at the bare URL, and asking for it by name keeps the format
    /// explicit. A URL with an extension (`.mp3`) is fetched as given.
    ///
    /// # Errors
    ///
    /// [`TwilioError::ForeignHost`] unless the URL has the configured API
    /// base's scheme, host and port (nothing is sent then),
    /// [`TwilioError::Http`] for an error status (404 while Twilio is still
    /// processing the recording), [`TwilioError::Transport`] without an
    /// answer.
    pub async fn fetch_recording(
        &self,
        recording_url: &str,
    ) -> Result<RecordingMedia, TwilioError> {
        let mut url = Url::parse(recording_url)
            .map_err(|e| TwilioError::Malformed(format!("recording URL: {e}")))?;
        if url.origin() != self.api_base.origin() {
            return Err(TwilioError::ForeignHost(origin_text(&url)));
        }
        let last_segment = url.path_segments().and_then(|mut s| s.next_back());
        if last_segment.is_some_and(|segment| !segment.is_empty() && !segment.contains('.')) {
            let path = format!("{}.wav", url.path());
            url.set_path(&path);
        }
        let response = self
            .client
            .get(url)
            .basic_auth(&self.account_sid, Some(self.auth_token.expose_secret()))
            .timeout(self.recording_timeout)
            .send()
            .await
            .map_err(transport)?;
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("application/octet-stream")
            .to_owned();
        let bytes = success_body(response).await?;
        Ok(RecordingMedia {
            content_type,
            bytes,
        })
    }

    /// `{api_base}/2010-04-01/Accounts/{AccountSid}/{tail…}`, each segment
    /// percent-encoded.
    /// Replaces what a live call runs with `twiml` (`POST
    /// …/Calls/{Sid}.json` with `Twiml`): a machine answered, so the
    /// message is spoken and the call hung up instead of the relay. A 404
    /// means the call already ended.
    pub async fn redirect_call(
        &self,
        sid: &CallSid,
        twiml: &str,
    ) -> Result<EndResult, TwilioError> {
        let url = self.endpoint(&["Calls", &format!("{sid}.json")])?;
        let response = self.post_form(url, &[("Twiml", twiml.to_owned())]).await?;
        if response.status() == reqwest::StatusCode::NOT_FOUND {
            return Ok(EndResult::AlreadyEnded);
        }
        success_body(response).await?;
        Ok(EndResult::Ended)
    }

    fn endpoint(&self, tail: &[&str]) -> Result<Url, TwilioError> {
        let mut url = self.api_base.clone();
        {
            let mut segments = url.path_segments_mut().map_err(|()| {
                TwilioError::Malformed(format!("API base {} cannot carry a path", self.api_base))
            })?;
            segments
                .pop_if_empty()
                .extend([API_VERSION, "Accounts", &self.account_sid])
                .extend(tail);
        }
        Ok(url)
    }

    async fn post_form(
        &self,
        url: Url,
        form: &[(&'static str, String)],
    ) -> Result<reqwest::Response, TwilioError> {
        self.post_form_within(url, form, self.request_timeout).await
    }

    async fn post_form_within(
        &self,
        url: Url,
        form: &[(&'static str, String)],
        timeout: Duration,
    ) -> Result<reqwest::Response, TwilioError> {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        self.client
            .post(url)
            .basic_auth(&self.account_sid, Some(self.auth_token.expose_secret()))
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(reqwest::header::ACCEPT, "application/json")
            .body(body)
            .timeout(timeout)
            .send()
            .await
            .map_err(transport)
    }
}

fn origin_text(url: &Url) -> String {
    match url.host_str() {
        Some(host) => match url.port() {
            Some(port) => format!("{}://{host}:{port}", url.scheme()),
            None => format!("{}://{host}", url.scheme()),
        },
        None => url.scheme().to_owned(),
    }
}

/// The body of a 2xx answer, or the error Twilio's body describes.
async fn success_body(response: reqwest::Response) -> Result<Bytes, TwilioError> {
    let status = response.status();
    let body = response.bytes().await.map_err(transport)?;
    if status.is_success() {
        Ok(body)
    } else {
        Err(http_error(status.as_u16(), &body))
    }
}

/// Reads Twilio's error body (`{"code": 21211, "message": "…", …}`) when the
/// answer has one; any other body leaves code and message empty.
fn http_error(status: u16, body: &[u8]) -> TwilioError {
    #[derive(Deserialize)]
    struct TwilioErrorBody {
        code: Option<u32>,
        message: Option<String>,
    }
    let parsed: Option<TwilioErrorBody> = serde_json::from_slice(body).ok();
    let (code, message) = parsed.map_or((None, None), |body| (body.code, body.message));
    TwilioError::Http {
        status,
        code,
        message,
    }
}

fn transport(error: reqwest::Error) -> TwilioError {
    // reqwest's message names the URL but never its credentials, which
    // travel in a header.
    if error.is_connect() || error.is_builder() {
        // Nothing was sent.
        TwilioError::Transport(error.to_string())
    } else {
        TwilioError::Unanswered(error.to_string())
    }
}

/// The query that lists an account's calls from `from` to `to`, newest
/// first (one page: a dial's own call is among the newest).
pub fn list_calls_query(to: &str, from: &str) -> Vec<(&'static str, String)> {
    vec![
        ("To", to.to_owned()),
        ("From", from.to_owned()),
        ("PageSize", "20".to_owned()),
    ]
}

#[cfg(test)]
mod tests;
