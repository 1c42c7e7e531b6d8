//! The REST client against a local axum server standing in for Twilio.
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
    let (base, seen) = fake_twilio(|_| answer(200, "application/json", br#"{"sid": "x"}"#)).await;
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

/// Twilio answers an update with the call as it is now: a cancellation
/// that met a call already answered says so.
#[tokio::test]
async fn a_cancel_that_meets_an_answered_call_says_it_is_still_in_progress() {
    let (base, _) = fake_twilio(|_| {
        answer(
            200,
            "application/json",
            br#"{"sid": "x", "status": "in-progress"}"#,
        )
    })
    .await;
    let sid: CallSid = SID.parse().unwrap();
    let twilio = client(&base);
    assert_eq!(
        twilio.end_call(&sid, false).await,
        Ok(EndResult::StillInProgress)
    );
    // Hanging up an answered call is what was asked: done.
    assert_eq!(twilio.end_call(&sid, true).await, Ok(EndResult::Ended));
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
