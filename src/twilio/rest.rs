//! The slice of Twilio's REST API (2010-04-01) that places calls: create a
//! call, end it, and fetch its recording.
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
    /// No answer: connecting, sending or receiving failed or timed out.
    #[error("could not reach Twilio: {0}")]
    Transport(String),
    /// The URL is not on the configured API host, so the account's
    /// credentials are not sent to it.
    #[error("refusing to send Twilio credentials to {0}")]
    ForeignHost(String),
    /// Something that should be Twilio's (a response body, a SID) is not in
    /// Twilio's format.
    #[error("malformed Twilio data: {0}")]
    Malformed(String),
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

    /// Bounds each create or end request, from connecting to the last byte
    /// of the answer (default 15 seconds).
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

    /// Creates (places) a call; Twilio dials it right away.
    ///
    /// # Errors
    ///
    /// [`TwilioError::Http`] when Twilio refuses (an invalid number, an
    /// unverified caller id, …), [`TwilioError::Transport`] without an
    /// answer, [`TwilioError::Malformed`] when the answer has no call SID.
    pub async fn create_call(&self, call: &CreateCall) -> Result<CallSid, TwilioError> {
        let url = self.endpoint(&["Calls.json"])?;
        let response = self.post_form(url, &call.form()).await?;
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
        success_body(response).await?;
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
            .timeout(self.request_timeout)
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
    TwilioError::Transport(error.to_string())
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use axum::body::Body;
    use axum::extract::Request;
    use base64::Engine as _;

    use super::*;

    const ACCOUNT: &str = "AC0123456789abcdef0123456789abcdef";
    const TOKEN: &str = "test-auth-token";
    const SID: &str = "CAfedcba9876543210fedcba9876543210";

    /// One request as the fake Twilio received it.
    #[derive(Debug, Clone)]
    struct Seen {
        method: String,
        path: String,
        authorization: Option<String>,
        content_type: Option<String>,
        body: Vec<u8>,
    }

    impl Seen {
        fn form(&self) -> Vec<(String, String)> {
            url::form_urlencoded::parse(&self.body)
                .into_owned()
                .collect()
        }
    }

    struct Answer {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: Vec<u8>,
    }

    fn answer(status: u16, content_type: &str, body: &[u8]) -> Answer {
        Answer {
            status,
            headers: vec![("content-type", content_type.to_owned())],
            body: body.to_vec(),
        }
    }

    /// A fake Twilio on a real local socket: records every request and
    /// answers with `reply`.
    async fn fake_twilio(
        reply: impl Fn(&Seen) -> Answer + Send + Sync + 'static,
    ) -> (Url, Arc<Mutex<Vec<Seen>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let reply = Arc::new(reply);
        let log = Arc::clone(&seen);
        let app = axum::Router::new().fallback(move |request: Request| {
            let log = Arc::clone(&log);
            let reply = Arc::clone(&reply);
            async move {
                let (parts, body) = request.into_parts();
                let header = |name| {
                    parts
                        .headers
                        .get(name)
                        .map(|v: &http::HeaderValue| v.to_str().unwrap().to_owned())
                };
                let method = parts.method.to_string();
                let path = parts.uri.path().to_owned();
                let authorization = header(http::header::AUTHORIZATION);
                let content_type = header(http::header::CONTENT_TYPE);
                let body = axum::body::to_bytes(body, usize::MAX)
                    .await
                    .unwrap()
                    .to_vec();
                let seen = Seen {
                    method,
                    path,
                    authorization,
                    content_type,
                    body,
                };
                let answer = reply(&seen);
                log.lock().unwrap().push(seen);
                let mut response = http::Response::builder().status(answer.status);
                for (name, value) in answer.headers {
                    response = response.header(name, value);
                }
                response.body(Body::from(answer.body)).unwrap()
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = Url::parse(&format!("http://{}", listener.local_addr().unwrap())).unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (base, seen)
    }

    fn client(base: &Url) -> TwilioRest {
        TwilioRest::builder(ACCOUNT, AuthToken::new(TOKEN))
            .api_base(base.clone())
            .request_timeout(Duration::from_secs(5))
            .build()
    }

    fn basic_auth() -> String {
        let credentials =
            base64::engine::general_purpose::STANDARD.encode(format!("{ACCOUNT}:{TOKEN}"));
        format!("Basic {credentials}")
    }

    fn full_call() -> CreateCall {
        CreateCall::new(
            "+14155550125",
            "+14155550100",
            "<Response><Hangup/></Response>",
            "https://agent.example.com/status?call=1&x=y",
        )
        .time_limit(Duration::from_secs(600))
        .ring_timeout(Duration::from_millis(29_500))
        .machine_detection("https://agent.example.com/amd")
        .record("https://agent.example.com/recording")
    }

    fn owned(form: &[(&str, &str)]) -> Vec<(String, String)> {
        form.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn created(sid: &str) -> Answer {
        let body = serde_json::json!({
            "sid": sid,
            "status": "queued",
            "account_sid": ACCOUNT,
            "subresource_uris": {"recordings": "/x"},
            "some_future_field": [1, 2, 3],
        });
        answer(201, "application/json", body.to_string().as_bytes())
    }

    #[test]
    fn create_form_carries_every_option() {
        let form: Vec<(&str, String)> = full_call().form();
        let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        assert_eq!(
            form,
            [
                ("To", "+14155550125"),
                ("From", "+14155550100"),
                ("Twiml", "<Response><Hangup/></Response>"),
                (
                    "StatusCallback",
                    "https://agent.example.com/status?call=1&x=y"
                ),
                ("StatusCallbackEvent", "initiated"),
                ("StatusCallbackEvent", "ringing"),
                ("StatusCallbackEvent", "answered"),
                ("StatusCallbackEvent", "completed"),
                ("StatusCallbackMethod", "POST"),
                ("TimeLimit", "600"),
                ("Timeout", "30"),
                ("MachineDetection", "Enable"),
                ("AsyncAmd", "true"),
                ("AsyncAmdStatusCallback", "https://agent.example.com/amd"),
                ("AsyncAmdStatusCallbackMethod", "POST"),
                ("Record", "true"),
                (
                    "RecordingStatusCallback",
                    "https://agent.example.com/recording"
                ),
            ]
        );
    }

    #[test]
    fn waiting_for_the_beep_detects_the_message_end() {
        let call = CreateCall::new(
            "+14155550125",
            "+14155550100",
            "<Response/>",
            "https://a.example/s",
        )
        .machine_detection("https://a.example/amd")
        .wait_for_beep();
        assert!(
            call.form()
                .contains(&("MachineDetection", "DetectMessageEnd".to_owned()))
        );
    }

    #[test]
    fn create_form_without_options_omits_them() {
        let call = CreateCall::new(
            "+14155550125",
            "+14155550100",
            "<Response/>",
            "https://a.example/s",
        );
        let names: Vec<&str> = call.form().iter().map(|(k, _)| *k).collect();
        assert_eq!(
            names,
            [
                "To",
                "From",
                "Twiml",
                "StatusCallback",
                "StatusCallbackEvent",
                "StatusCallbackEvent",
                "StatusCallbackEvent",
                "StatusCallbackEvent",
                "StatusCallbackMethod",
            ]
        );
    }

    #[test]
    fn durations_round_up_to_whole_seconds() {
        assert_eq!(whole_seconds(Duration::from_secs(60)), "60");
        assert_eq!(whole_seconds(Duration::from_millis(60_001)), "61");
        assert_eq!(whole_seconds(Duration::from_millis(1)), "1");
    }

    #[test]
    fn end_form_completes_answered_and_cancels_unanswered() {
        assert_eq!(end_call_form(true), [("Status", "completed".to_owned())]);
        assert_eq!(end_call_form(false), [("Status", "canceled".to_owned())]);
    }

    #[test]
    fn call_sids_are_checked() {
        assert_eq!(SID.parse::<CallSid>().unwrap().as_str(), SID);
        for bad in [
            "",
            "CA",
            "CAfedcba9876543210fedcba987654321",
            "CAfedcba9876543210fedcba9876543210a",
            "ACfedcba9876543210fedcba9876543210",
            "CAfedcba9876543210fedcba987654321g",
            "CA/../../../Accounts/x/Calls/abcdef",
        ] {
            assert!(
                matches!(bad.parse::<CallSid>(), Err(TwilioError::Malformed(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn debug_redacts_the_token() {
        let shown = format!(
            "{:?}",
            TwilioRest::new(ACCOUNT, AuthToken::new("very-secret"))
        );
        assert!(!shown.contains("very-secret"), "{shown}");
        assert!(shown.contains(ACCOUNT), "{shown}");
    }

    #[test]
    fn http_errors_read_twilio_error_bodies() {
        let body = br#"{"code": 21211, "message": "The 'To' number 5 is not a valid phone number.", "more_info": "https://www.twilio.com/docs/errors/21211", "status": 400}"#;
        let error = http_error(400, body);
        assert_eq!(
            error,
            TwilioError::Http {
                status: 400,
                code: Some(21211),
                message: Some("The 'To' number 5 is not a valid phone number.".into()),
            }
        );
        assert_eq!(
            error.to_string(),
            "Twilio answered 400 (code 21211: The 'To' number 5 is not a valid phone number.)"
        );
        assert_eq!(
            http_error(502, b"<html>Bad Gateway</html>"),
            TwilioError::Http {
                status: 502,
                code: None,
                message: None
            }
        );
    }

    #[tokio::test]
    async fn create_call_posts_the_form_with_basic_auth() {
        let (base, seen) = fake_twilio(|_| created(SID)).await;
        let sid = client(&base).create_call(&full_call()).await.unwrap();
        assert_eq!(sid.as_str(), SID);

        let seen = seen.lock().unwrap()[0].clone();
        assert_eq!(seen.method, "POST");
        assert_eq!(
            seen.path,
            format!("/2010-04-01/Accounts/{ACCOUNT}/Calls.json")
        );
        assert_eq!(seen.authorization, Some(basic_auth()));
        assert_eq!(
            seen.content_type.as_deref(),
            Some("application/x-www-form-urlencoded")
        );
        let expected: Vec<(String, String)> = full_call()
            .form()
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        assert_eq!(seen.form(), expected);
    }

    #[tokio::test]
    async fn api_base_may_carry_a_path_prefix() {
        let (base, seen) = fake_twilio(|_| created(SID)).await;
        let prefixed = base.join("/twilio/").unwrap();
        client(&prefixed).create_call(&full_call()).await.unwrap();
        assert_eq!(
            seen.lock().unwrap()[0].path,
            format!("/twilio/2010-04-01/Accounts/{ACCOUNT}/Calls.json")
        );
    }

    #[tokio::test]
    async fn create_call_reports_twilio_errors() {
        let (base, _) = fake_twilio(|_| {
            answer(
                400,
                "application/json",
                br#"{"code": 21219, "message": "The number is unverified.", "status": 400}"#,
            )
        })
        .await;
        assert_eq!(
            client(&base).create_call(&full_call()).await,
            Err(TwilioError::Http {
                status: 400,
                code: Some(21219),
                message: Some("The number is unverified.".into()),
            })
        );
    }

    #[tokio::test]
    async fn create_call_without_a_usable_sid_is_malformed() {
        for body in [&b"{}"[..], b"not json", br#"{"sid": "CA/../x"}"#] {
            let body = body.to_vec();
            let (base, _) = fake_twilio(move |_| answer(201, "application/json", &body)).await;
            let result = client(&base).create_call(&full_call()).await;
            assert!(
                matches!(result, Err(TwilioError::Malformed(_))),
                "{result:?}"
            );
        }
    }

    #[tokio::test]
    async fn end_call_completes_or_cancels() {
        let (base, seen) =
            fake_twilio(|_| answer(200, "application/json", br#"{"sid": "x"}"#)).await;
        let sid: CallSid = SID.parse().unwrap();
        let twilio = client(&base);
        assert_eq!(twilio.end_call(&sid, true).await, Ok(EndResult::Ended));
        assert_eq!(twilio.end_call(&sid, false).await, Ok(EndResult::Ended));

        let seen = seen.lock().unwrap().clone();
        for request in &seen {
            assert_eq!(request.method, "POST");
            assert_eq!(
                request.path,
                format!("/2010-04-01/Accounts/{ACCOUNT}/Calls/{SID}.json")
            );
            assert_eq!(request.authorization, Some(basic_auth()));
        }
        assert_eq!(seen[0].form(), owned(&[("Status", "completed")]));
        assert_eq!(seen[1].form(), owned(&[("Status", "canceled")]));
    }

    #[tokio::test]
    async fn end_call_on_a_finished_call_is_already_ended() {
        let (base, _) = fake_twilio(|_| {
            answer(
                404,
                "application/json",
                br#"{"code": 20404, "message": "The requested resource was not found", "status": 404}"#,
            )
        })
        .await;
        let sid: CallSid = SID.parse().unwrap();
        assert_eq!(
            client(&base).end_call(&sid, true).await,
            Ok(EndResult::AlreadyEnded)
        );
    }

    #[tokio::test]
    async fn end_call_reports_other_errors() {
        let (base, _) = fake_twilio(|_| {
            answer(
                401,
                "application/json",
                br#"{"code": 20003, "message": "Authenticate"}"#,
            )
        })
        .await;
        let sid: CallSid = SID.parse().unwrap();
        assert_eq!(
            client(&base).end_call(&sid, false).await,
            Err(TwilioError::Http {
                status: 401,
                code: Some(20003),
                message: Some("Authenticate".into()),
            })
        );
    }

    #[tokio::test]
    async fn fetch_recording_asks_for_wav_with_credentials() {
        let (base, seen) = fake_twilio(|_| answer(200, "audio/x-wav", b"RIFF....WAVE")).await;
        let url = base
            .join(&format!("/2010-04-01/Accounts/{ACCOUNT}/Recordings/RE0123"))
            .unwrap();
        let media = client(&base).fetch_recording(url.as_str()).await.unwrap();
        assert_eq!(
            media,
            RecordingMedia {
                content_type: "audio/x-wav".into(),
                bytes: Bytes::from_static(b"RIFF....WAVE"),
            }
        );
        let seen = seen.lock().unwrap()[0].clone();
        assert_eq!(seen.method, "GET");
        assert_eq!(
            seen.path,
            format!("/2010-04-01/Accounts/{ACCOUNT}/Recordings/RE0123.wav")
        );
        assert_eq!(seen.authorization, Some(basic_auth()));
    }

    #[tokio::test]
    async fn fetch_recording_keeps_an_explicit_extension() {
        let (base, seen) = fake_twilio(|_| answer(200, "audio/mpeg", b"ID3")).await;
        let url = base
            .join("/2010-04-01/Accounts/x/Recordings/RE0123.mp3")
            .unwrap();
        let media = client(&base).fetch_recording(url.as_str()).await.unwrap();
        assert_eq!(media.content_type, "audio/mpeg");
        assert_eq!(
            seen.lock().unwrap()[0].path,
            "/2010-04-01/Accounts/x/Recordings/RE0123.mp3"
        );
    }

    #[tokio::test]
    async fn fetch_recording_not_ready_is_an_http_error() {
        let (base, _) = fake_twilio(|_| {
            answer(
                404,
                "application/json",
                br#"{"code": 20404, "message": "not found"}"#,
            )
        })
        .await;
        let url = base
            .join("/2010-04-01/Accounts/x/Recordings/RE0123")
            .unwrap();
        assert!(matches!(
            client(&base).fetch_recording(url.as_str()).await,
            Err(TwilioError::Http {
                status: 404,
                code: Some(20404),
                ..
            })
        ));
    }

    #[tokio::test]
    async fn fetch_recording_refuses_other_hosts() {
        let (base, _) = fake_twilio(|_| answer(200, "audio/x-wav", b"")).await;
        let (elsewhere, seen_elsewhere) = fake_twilio(|_| answer(200, "audio/x-wav", b"")).await;
        let twilio = client(&base);
        let other_port = elsewhere
            .join("/2010-04-01/Accounts/x/Recordings/RE1")
            .unwrap();
        let other_scheme = format!("https://{}/r", base.host_str().unwrap());
        let other_host = "http://evil.example/2010-04-01/Accounts/x/Recordings/RE1";
        for url in [other_port.as_str(), other_scheme.as_str(), other_host] {
            assert!(
                matches!(
                    twilio.fetch_recording(url).await,
                    Err(TwilioError::ForeignHost(_))
                ),
                "{url}"
            );
        }
        assert!(seen_elsewhere.lock().unwrap().is_empty());
        assert!(matches!(
            twilio.fetch_recording("not a url").await,
            Err(TwilioError::Malformed(_))
        ));
    }

    #[tokio::test]
    async fn recording_redirected_elsewhere_loses_the_credentials() {
        let (storage, seen_storage) = fake_twilio(|_| answer(200, "audio/x-wav", b"RIFF")).await;
        let target = storage.join("/media/RE1.wav").unwrap().to_string();
        let (base, seen) = fake_twilio(move |_| Answer {
            status: 302,
            headers: vec![("location", target.clone())],
            body: Vec::new(),
        })
        .await;
        let url = base.join("/2010-04-01/Accounts/x/Recordings/RE1").unwrap();
        let media = client(&base).fetch_recording(url.as_str()).await.unwrap();
        assert_eq!(media.bytes, Bytes::from_static(b"RIFF"));
        assert_eq!(seen.lock().unwrap()[0].authorization, Some(basic_auth()));
        assert_eq!(seen_storage.lock().unwrap()[0].authorization, None);
    }

    #[tokio::test]
    async fn no_answer_is_a_transport_error() {
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = Url::parse(&format!("http://{}", closed.local_addr().unwrap())).unwrap();
        drop(closed);
        assert!(matches!(
            client(&base).create_call(&full_call()).await,
            Err(TwilioError::Transport(_))
        ));
    }
}
