//! Differential checks against Python `phonenumbers==9.0.33` (libphonenumber).
//!
//! - `tests/differential/gen_and_judge.py` generates several hundred thousand
//!   strict-E.164 inputs with a fixed seed and judges each with
//!   libphonenumber; every verdict must match ours.
//! - `tests/differential/time_zones.py` gives the time zones of ~25,000
//!   numbers (completions of every prefix of the time-zone map, and random
//!   numbers under every calling code); `schedule::time_zones` must give
//!   exactly the same.
//!
//! Each skips (and passes) when `python3` or the pinned `phonenumbers`
//! package is unavailable, unless `AGENTCALL_REQUIRE_DIFFERENTIAL` is set
//! (CI sets it).

mod numbers_common;

use std::process::Command;

use agentcall::guardrails::{NumberClassifier, NumberError};
use agentcall::schedule::time_zones;

/// The script's exit status for "phonenumbers 9.0.33 not installed".
const SKIP_STATUS: i32 = 3;

#[test]
fn agrees_with_python_phonenumbers() {
    let Some(data) = judged("gen_and_judge.py", "differential.tsv") else {
        return;
    };
    let classifier = NumberClassifier::new();
    let engine = agentcall::Guardrails::default();
    let mut total = 0usize;
    let mut disagreements = 0usize;
    let mut detail_disagreements = 0usize;
    for line in data.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let [input, expected, reason, region, kind] = fields[..] else {
            panic!("malformed line: {line:?}");
        };
        total += 1;
        let got = numbers_common::verdict(&engine, input);
        // Beyond the verdict contract: same error kind, and same region and
        // type for valid numbers.
        let detail = describe(&classifier, input);
        let expected_detail = match reason {
            "ok" => format!("ok {region} {kind}"),
            other => other.to_string(),
        };
        let verdict_differs = got != expected;
        let detail_differs = detail != expected_detail;
        disagreements += usize::from(verdict_differs);
        detail_disagreements += usize::from(detail_differs);
        if (verdict_differs || detail_differs) && disagreements + detail_disagreements <= 50 {
            eprintln!("{input:?}: python {expected} ({expected_detail}), rust {got} ({detail})");
        }
    }
    println!(
        "differential: verdicts agree on {} of {total} inputs; error kind, region and type on {}",
        total - disagreements,
        total - detail_disagreements
    );
    assert!(total >= 300_000, "only {total} inputs generated");
    assert_eq!(
        disagreements, 0,
        "{disagreements} of {total} verdicts disagree"
    );
    assert_eq!(
        detail_disagreements, 0,
        "{detail_disagreements} of {total} details disagree"
    );
}

/// Our reading in the generator's vocabulary: the error kind, or `ok REGION TYPE`.
fn describe(classifier: &NumberClassifier, input: &str) -> String {
    match classifier.classify(input) {
        Ok(number) => format!(
            "ok {} {}",
            number.region.unwrap_or("001"),
            numbers_common::type_name(number.number_type)
        ),
        Err(NumberError::Syntax) => "syntax".into(),
        Err(NumberError::UnknownCallingCode) => "unknown_calling_code".into(),
        Err(NumberError::NotCanonical) => "not_canonical".into(),
        Err(_) => "invalid".into(),
    }
}

/// Skips with a notice, unless CI demands the check (`AGENTCALL_REQUIRE_DIFFERENTIAL`).
fn skip(notice: &str) {
    assert!(
        std::env::var_os("AGENTCALL_REQUIRE_DIFFERENTIAL").is_none(),
        "the differential check is required here but cannot run: {notice}"
    );
    println!("{notice}");
}

#[test]
fn time_zones_agree_with_python_phonenumbers() {
    let Some(data) = judged("time_zones.py", "time_zones.tsv") else {
        return;
    };
    let mut total = 0usize;
    let mut disagreements = Vec::new();
    for line in data.lines() {
        let (number, expected) = line.split_once('\t').expect("number TAB zones");
        total += 1;
        let ours: Vec<&str> = time_zones(number).map(|zone| zone.name()).collect();
        if ours.join("&") != expected {
            disagreements.push(format!("{number}: python {expected:?}, ours {ours:?}"));
        }
    }
    println!(
        "time zones: {} of {total} numbers agree",
        total - disagreements.len()
    );
    assert!(total >= 20_000, "only {total} numbers judged");
    assert!(
        disagreements.is_empty(),
        "{} of {total} disagree, e.g. {:#?}",
        disagreements.len(),
        &disagreements[..disagreements.len().min(20)]
    );
}

/// Runs `tests/differential/<script>`, which writes its judgements to
/// `<output>` in the test scratch directory, and returns them; `None` when
/// the pinned reference cannot run here (and CI does not demand it).
fn judged(script: &str, output: &str) -> Option<String> {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/differential")
        .join(script);
    let out_path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(output);
    let output = match Command::new("python3").arg(&script).arg(&out_path).output() {
        Ok(output) => output,
        Err(err) => {
            skip(&format!(
                "skipped: install phonenumbers==9.0.33 (pip) [python3 not runnable: {err}]"
            ));
            return None;
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    if output.status.code() == Some(SKIP_STATUS) {
        // The script explains itself: "skipped: install phonenumbers==9.0.33 (pip)".
        skip(stdout.trim());
        return None;
    }
    assert!(
        output.status.success(),
        "{} failed: {}\n{stdout}{}",
        script.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{}", stdout.trim());
    Some(std::fs::read_to_string(&out_path).expect("read the judgements"))
}
