//! API-level checks of the number classifier: known libphonenumber corner
//! cases, property tests on arbitrary input, and loading the compiled tables.

use std::sync::{Arc, LazyLock};

use agentcall::guardrails::{NumberClassifier, NumberError, NumberType, is_strict_e164};
use proptest::prelude::*;

static CLASSIFIER: LazyLock<NumberClassifier> = LazyLock::new(NumberClassifier::new);

/// Reference for the strict syntax, written differently from the library's.
fn reference_strict(input: &str) -> bool {
    let Some(digits) = input.strip_prefix('+') else {
        return false;
    };
    (2..=15).contains(&digits.len())
        && !digits.starts_with('0')
        && digits.chars().all(|c| c.is_ascii_digit())
}

#[test]
fn known_corner_cases() {
    let c = &*CLASSIFIER;
    let ok = c.classify("+12015550123").expect("US number");
    assert_eq!(ok.calling_code, 1);
    assert_eq!(ok.region, Some("US"));
    assert_eq!(ok.national_number, "2015550123");
    assert_eq!(ok.number_type, NumberType::FixedLineOrMobile);
    assert_eq!(c.classify("+18762345678").map(|n| n.region), Ok(Some("JM")));
    assert_eq!(
        c.classify("+447400123456").map(|n| n.number_type),
        Ok(NumberType::Mobile)
    );
    assert_eq!(c.classify("+80012345678").map(|n| n.region), Ok(None));
    // The phonenumber crate's prefix matching accepts these; libphonenumber does not.
    assert_eq!(c.classify("+97233142764978"), Err(NumberError::Invalid));
    assert_eq!(c.classify("+6113999999"), Err(NumberError::Invalid));
    assert_eq!(c.classify("+3758104239533"), Err(NumberError::Invalid));
    // Trunk prefixes after the calling code.
    assert_eq!(c.classify("+4407400123456"), Err(NumberError::NotCanonical));
    assert_eq!(c.classify("+112015550123"), Err(NumberError::NotCanonical));
    assert_eq!(
        c.classify("+999123456"),
        Err(NumberError::UnknownCallingCode)
    );
    for bad in [
        "",
        "+",
        "12015550123",
        " +12015550123",
        "+12015550123 ",
        "+1201555012345678",
        "+0123",
    ] {
        assert_eq!(c.classify(bad), Err(NumberError::Syntax), "{bad:?}");
    }
}

#[test]
fn shareable_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<NumberClassifier>();
    let shared = Arc::new(NumberClassifier::new());
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let c = Arc::clone(&shared);
            std::thread::spawn(move || c.classify("+61412345678").map(|n| n.region))
        })
        .collect();
    for handle in handles {
        assert_eq!(handle.join().expect("thread"), Ok(Some("AU")));
    }
    let summary = format!("{shared:?}");
    assert!(summary.starts_with("NumberClassifier {"), "{summary}");
}

/// The tables the build script compiled load without error (start-up time is
/// measured in the validation bench, not asserted here).
#[test]
fn compiled_tables_load() {
    let lazy = NumberClassifier::new();
    assert_eq!(
        lazy.memory_usage(),
        0,
        "nothing loads before the first number"
    );
    assert_eq!(
        lazy.classify("+447400123456").map(|n| n.region),
        Ok(Some("GB"))
    );
    assert!(lazy.memory_usage() > 0, "{lazy:?}");
    let classifier = NumberClassifier::try_new().expect("the build script's tables load");
    // Every calling code's DFA is there: roughly 2 MB for the pinned metadata.
    assert!(classifier.memory_usage() > 1_000_000, "{classifier:?}");
    assert_eq!(
        classifier.classify("+12015550123").map(|n| n.region),
        Ok(Some("US"))
    );
}

fn check(input: &str) {
    let result = CLASSIFIER.classify(input);
    assert_eq!(is_strict_e164(input), reference_strict(input), "{input:?}");
    if let Ok(number) = &result {
        assert!(is_strict_e164(input), "accepted non-E.164 {input:?}");
        assert_eq!(
            format!("+{}{}", number.calling_code, number.national_number),
            input
        );
        assert_ne!(number.number_type, NumberType::Unknown);
    } else if !is_strict_e164(input) {
        assert_eq!(result, Err(NumberError::Syntax));
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn never_panics_on_arbitrary_strings(input in any::<String>()) {
        check(&input);
    }

    #[test]
    fn never_panics_on_near_e164(input in "[+ \u{a0}\u{200b}\u{feff}+＋٣0-9-]{0,20}") {
        check(&input);
    }

    #[test]
    fn never_panics_on_strict_e164(input in "\\+[1-9][0-9]{1,14}") {
        check(&input);
    }
}
