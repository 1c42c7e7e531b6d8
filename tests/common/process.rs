//! Running the example server as a child process.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

pub fn server_binary() -> PathBuf {
    example_binary("server")
}

/// The binary of example `name`, built if `cargo test` has not built it.
pub fn example_binary(name: &str) -> PathBuf {
    let mut path = std::env::current_exe().unwrap();
    path.pop(); // the test binary
    if path.ends_with("deps") {
        path.pop();
    }
    let binary = path
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if !binary.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--example", name])
            .status()
            .expect("cargo runs");
        assert!(status.success());
    }
    binary
}

pub struct Server {
    pub child: Child,
    pub base: String,
}

impl Server {
    /// Places a call with API key `key` over HTTP, then reads it every
    /// `every`, at most `reads` times, until it has ended; its last record.
    pub async fn place_and_wait(
        &self,
        key: &str,
        body: &Value,
        every: std::time::Duration,
        reads: u32,
    ) -> Value {
        let client = reqwest::Client::new();
        let placed: Value = client
            .post(format!("{}/v1/agent/calls", self.base))
            .bearer_auth(key)
            .json(body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let id = placed["callId"].as_str().expect("placed").to_owned();
        let mut record = Value::Null;
        for _ in 0..reads {
            record = client
                .get(format!("{}/v1/agent/calls/{id}", self.base))
                .bearer_auth(key)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            if !matches!(
                record["status"].as_str(),
                Some("queued" | "dialing" | "in_progress")
            ) {
                break;
            }
            tokio::time::sleep(every).await;
        }
        record
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn config_file(config: &Value) -> TempPath {
    TempPath::with_contents(config.to_string())
}

/// A temporary file removed on drop (the tests need nothing more).
pub struct TempPath(pub PathBuf);

impl TempPath {
    pub fn with_contents(text: String) -> Self {
        let path = Self::unique("json");
        std::fs::write(&path.0, text).unwrap();
        path
    }

    /// A fresh path in the temporary directory, not yet created.
    pub fn unique(extension: &str) -> Self {
        Self(std::env::temp_dir().join(format!(
            "agentcall-test-{}.{extension}",
            agentcall::CallId::generate()
        )))
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

pub fn start(config: &Value) -> (Server, TempPath) {
    let file = config_file(config);
    let mut child = Command::new(server_binary())
        .arg("--config")
        .arg(&file.0)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?} (the example is built by a plain `cargo test`, with the same features as the tests)"))
        .to_owned();
    assert!(
        base.starts_with("http://127.0.0.1:") && !base.ends_with(":0"),
        "{base}"
    );
    (Server { child, base }, file)
}
