//! The examples that implement the traits from scratch run to the end:
//! each passes the conformance checks that apply to it, then carries a call.

mod common;

use std::process::Command;

fn runs(example: &str) -> String {
    let output = Command::new(common::process::example_binary(example))
        .output()
        .expect("the example runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{example}: {output:?}");
    stdout
}

#[test]
fn the_custom_carrier_passes_its_checks_and_completes_a_call() {
    let stdout = runs("custom_carrier");
    assert!(
        stdout.contains("passes the carrier conformance checks"),
        "{stdout}"
    );
    assert!(stdout.contains("\"status\": \"completed\""), "{stdout}");
    assert!(
        stdout.contains("Recipient: Yes, that works for me."),
        "{stdout}"
    );
}

#[test]
fn the_custom_store_passes_the_conformance_suite_and_keeps_a_call() {
    let stdout = runs("custom_store");
    assert!(stdout.contains("\"status\": \"completed\""), "{stdout}");
}
