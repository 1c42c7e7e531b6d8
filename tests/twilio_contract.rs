//! Every request `TwilioRest` sends, checked against Twilio's own OpenAPI
//! document (`tests/data/twilio/twilio_api_v2010.json`, MIT) by Prism
//! running as a validating mock: an invalid request gets 422 with the
//! violations, a valid one Twilio's example answer.
//!
//! Prism is found through `AGENTCALL_PRISM` (the `prism` binary; `.ci/prism.sh`
//! installs it). Without it the tests print a notice and pass, unless
//! `AGENTCALL_REQUIRE_PRISM=1`.
#![cfg(feature = "twilio")]

use std::io::Write as _;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use agentcall::twilio::rest::{CallSid, CreateCall, EndResult, TwilioError, TwilioRest};
use agentcall::twilio::signature::AuthToken;
use url::Url;

const ACCOUNT: &str = "AC0123456789abcdef0123456789abcdef";
const CALL: &str = "CAfedcba9876543210fedcba9876543210";
const DOCUMENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/twilio/twilio_api_v2010.json"
);
const CREATE_PATH: &str = "/2010-04-01/Accounts/{AccountSid}/Calls.json";

/// One Prism for the whole test binary, started on first use.
///
/// Prism runs under a shell that kills it when the shell's stdin closes; the
/// pipe's other end lives in this process, so Prism ends with the test
/// binary however that exits (statics are never dropped).
struct Prism {
    base: Url,
    _watchdog: (Child, ChildStdin),
}

fn prism() -> Option<&'static Prism> {
    static PRISM: OnceLock<Option<Prism>> = OnceLock::new();
    PRISM.get_or_init(start_prism).as_ref()
}

fn start_prism() -> Option<Prism> {
    let Some(binary) = std::env::var_os("AGENTCALL_PRISM") else {
        let required = std::env::var("AGENTCALL_REQUIRE_PRISM").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "AGENTCALL_REQUIRE_PRISM=1 but AGENTCALL_PRISM is unset (source .ci/prism.sh)"
        );
        // Straight to stderr: the test harness captures `eprintln!`.
        let _ = writeln!(
            std::io::stderr(),
            "skipping the Twilio contract test: set AGENTCALL_PRISM to a prism binary \
             (source .ci/prism.sh to install @stoplight/prism-cli)"
        );
        return None;
    };
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let document = scratch.join(format!("twilio_contract.{}.json", std::process::id()));
    write_prism_document(&document);
    // Overwritten by each run; Prism logs every request it judged.
    let log_path = scratch.join("twilio_contract.prism.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let port = free_port();

    let started = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        // Background jobs read /dev/null, so the watcher reads our pipe as
        // fd 3; the shell exits with Prism, which the loop below notices.
        .arg(concat!(
            r#"exec 3<&0; "$0" "$@" & prism=$!; "#,
            r#"(read _ignored <&3; kill "$prism" 2>/dev/null) & wait "$prism""#
        ))
        .arg(&binary)
        .args(["mock", "--errors", "-h", "127.0.0.1", "-p"])
        .arg(port.to_string())
        .arg(&document)
        .stdin(Stdio::piped())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", Path::new(&binary).display()));
    let stdin = child.stdin.take().unwrap();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        let exited = child.try_wait().unwrap();
        if exited.is_some() || started.elapsed() > Duration::from_secs(90) {
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            panic!("Prism did not listen on port {port} ({exited:?}):\n{log}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // Prism has read the document by the time it listens.
    let _ = std::fs::remove_file(&document);
    let _ = writeln!(
        std::io::stderr(),
        "Prism ready in {:.1?}",
        started.elapsed()
    );
    Some(Prism {
        base: Url::parse(&format!("http://127.0.0.1:{port}")).unwrap(),
        _watchdog: (child, stdin),
    })
}

/// Twilio's document with one default made explicit: the create-call form's
/// array properties (`StatusCallbackEvent`, …) get the encoding OpenAPI
/// already implies for form bodies (`style: form, explode: true`, a repeated
/// key per value). Prism 5 reads arrays from a form body only when an
/// encoding names them, so without this it rejects every array.
fn write_prism_document(target: &Path) {
    let mut document: serde_json::Value =
        serde_json::from_slice(&std::fs::read(DOCUMENT).unwrap()).unwrap();
    let media = &mut document["paths"][CREATE_PATH]["post"]["requestBody"]["content"]["application/x-www-form-urlencoded"];
    let arrays: Vec<String> = media["schema"]["properties"]
        .as_object()
        .expect("the create-call form has properties")
        .iter()
        .filter(|(_, schema)| schema["type"] == "array")
        .map(|(name, _)| name.clone())
        .collect();
    assert!(arrays.iter().any(|name| name == "StatusCallbackEvent"));
    let encoding = media
        .as_object_mut()
        .unwrap()
        .entry("encoding")
        .or_insert_with(|| serde_json::json!({}));
    for name in arrays {
        encoding[&name] = serde_json::json!({"style": "form", "explode": true});
    }
    std::fs::write(target, serde_json::to_vec(&document).unwrap()).unwrap();
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

fn twilio(prism: &Prism) -> TwilioRest {
    TwilioRest::builder(ACCOUNT, AuthToken::new("contract-test-token"))
        .api_base(prism.base.clone())
        .request_timeout(Duration::from_secs(30))
        .build()
}

fn bare_call() -> CreateCall {
    CreateCall::new(
        "+14155550125",
        "+14155550100",
        agentcall::twilio::twiml::RelayTwiml::new(
            "wss://agent.example.com/relay",
            "https://agent.example.com/twilio/relay-ended?call=call_1",
            "Hello, this is an AI assistant calling for Acme.",
            "call_1",
        )
        .to_xml(),
        "https://agent.example.com/twilio/status?call=call_1",
    )
}

/// Prism's own words about a request, for a failure message.
async fn prism_says(prism: &Prism, path: &str, form: &[(&str, String)]) -> String {
    let response = reqwest::Client::new()
        .post(prism.base.join(path).unwrap())
        .basic_auth(ACCOUNT, Some("contract-test-token"))
        .form(form)
        .send()
        .await
        .unwrap();
    let status = response.status();
    format!("{status}: {}", response.text().await.unwrap())
}

fn create_path() -> String {
    format!("/2010-04-01/Accounts/{ACCOUNT}/Calls.json")
}

fn end_path() -> String {
    format!("/2010-04-01/Accounts/{ACCOUNT}/Calls/{CALL}.json")
}

async fn assert_create_accepted(prism: &Prism, call: &CreateCall) {
    match twilio(prism).create_call(call).await {
        Ok(sid) => assert!(sid.as_str().starts_with("CA")),
        Err(error) => panic!(
            "{error}; Prism: {}",
            prism_says(prism, &create_path(), &call.form()).await
        ),
    }
}

async fn assert_end_accepted(prism: &Prism, answered: bool) {
    let sid: CallSid = CALL.parse().unwrap();
    match twilio(prism).end_call(&sid, answered).await {
        Ok(result) => assert_eq!(result, EndResult::Ended),
        Err(error) => panic!(
            "{error}; Prism: {}",
            prism_says(
                prism,
                &end_path(),
                &agentcall::twilio::rest::end_call_form(answered)
            )
            .await
        ),
    }
}

#[tokio::test]
async fn create_call_with_every_option_matches_twilio_openapi() {
    let Some(prism) = prism() else { return };
    let call = bare_call()
        .time_limit(Duration::from_secs(600))
        .ring_timeout(Duration::from_secs(30))
        .machine_detection("https://agent.example.com/twilio/amd?call=call_1")
        .record("https://agent.example.com/twilio/recording?call=call_1");
    assert_create_accepted(prism, &call).await;
    // Waiting for the beep is the other detection mode the carrier uses.
    assert_create_accepted(prism, &call.clone().wait_for_beep()).await;
}

#[tokio::test]
async fn create_call_without_detection_or_recording_matches_twilio_openapi() {
    let Some(prism) = prism() else { return };
    assert_create_accepted(prism, &bare_call()).await;
    let limited = bare_call()
        .time_limit(Duration::from_secs(300))
        .ring_timeout(Duration::from_secs(45));
    assert_create_accepted(prism, &limited).await;
}

#[tokio::test]
async fn end_answered_call_matches_twilio_openapi() {
    let Some(prism) = prism() else { return };
    assert_end_accepted(prism, true).await;
}

#[tokio::test]
async fn end_unanswered_call_matches_twilio_openapi() {
    let Some(prism) = prism() else { return };
    assert_end_accepted(prism, false).await;
}

/// A machine answered: the live call is redirected to TwiML that leaves
/// the message and hangs up.
#[tokio::test]
async fn redirecting_a_live_call_matches_twilio_openapi() {
    let Some(prism) = prism() else { return };
    let sid: CallSid = CALL.parse().unwrap();
    let twiml = agentcall::twilio::twiml::say_and_hang_up("Hello, this is an AI assistant.");
    match twilio(prism).redirect_call(&sid, &twiml).await {
        Ok(result) => assert_eq!(result, EndResult::Ended),
        Err(error) => panic!(
            "{error}; Prism: {}",
            prism_says(prism, &end_path(), &[("Twiml", twiml.clone())]).await
        ),
    }
}

/// A dial Twilio did not answer: the number's calls are listed
/// (`GET …/Calls.json?To=…&From=…&PageSize=…`) to find and end its call.
#[tokio::test]
async fn listing_a_numbers_calls_matches_twilio_openapi() {
    let Some(prism) = prism() else { return };
    let since = chrono::Utc::now() - chrono::Duration::days(36500);
    if let Err(error) = twilio(prism)
        .list_live_calls("+14155550125", "+14155550100", since)
        .await
    {
        let mut url = prism.base.join(&create_path()).unwrap();
        url.query_pairs_mut()
            .extend_pairs(agentcall::twilio::rest::list_calls_query(
                "+14155550125",
                "+14155550100",
            ));
        let response = reqwest::Client::new()
            .get(url)
            .basic_auth(ACCOUNT, Some("contract-test-token"))
            .send()
            .await
            .unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        // Twilio's own example page carries relative `uri`s that its
        // schema calls `format: uri`: Prism then flags its own response.
        // Only violations of our request count.
        let said: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let violations = said["validation"].as_array().cloned().unwrap_or_default();
        let ours = violations
            .iter()
            .filter(|v| v["location"][0] != "response")
            .count();
        assert!(
            status == 500 && !violations.is_empty() && ours == 0,
            "{error}; Prism: {status}: {text}"
        );
    }
}

/// The check can fail: a create without `To` is refused with the violation.
#[tokio::test]
async fn prism_rejects_a_create_without_to() {
    let Some(prism) = prism() else { return };
    let form: Vec<(&str, String)> = bare_call()
        .form()
        .into_iter()
        .filter(|(name, _)| *name != "To")
        .collect();
    let said = prism_says(prism, &create_path(), &form).await;
    assert!(said.starts_with("422"), "{said}");
    assert!(said.contains("'To'"), "{said}");
}

#[tokio::test]
async fn prism_rejects_an_unknown_end_status() {
    let Some(prism) = prism() else { return };
    let said = prism_says(prism, &end_path(), &[("Status", "hangup".to_owned())]).await;
    assert!(said.starts_with("422"), "{said}");
}

#[tokio::test]
async fn prism_rejects_requests_without_credentials() {
    let Some(prism) = prism() else { return };
    let response = reqwest::Client::new()
        .post(prism.base.join(&create_path()).unwrap())
        .form(&bare_call().form())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
}

/// What our client makes of Prism's refusal: Twilio's error shape is absent,
/// so code and message stay empty but the status comes through.
#[tokio::test]
async fn refusals_surface_as_http_errors() {
    let Some(prism) = prism() else { return };
    let client = TwilioRest::builder("ACnot-an-account", AuthToken::new("token"))
        .api_base(prism.base.clone())
        .build();
    let result = client.create_call(&bare_call()).await;
    assert!(
        matches!(result, Err(TwilioError::Http { status: 422, .. })),
        "{result:?}"
    );
}
