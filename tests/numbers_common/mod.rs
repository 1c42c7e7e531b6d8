//! Shared test helper: verdicts of the guardrail engine, and libphonenumber's type names.

use agentcall::Guardrails;
use agentcall::guardrails::NumberType;

/// The guardrail engine's verdict for `input`, as the API would answer:
/// `accepted`, or the rejection's token (`invalid_number`, `destination_blocked`).
pub fn verdict(engine: &Guardrails, input: &str) -> &'static str {
    match engine.check_destination(input) {
        Ok(_) => "accepted",
        Err(rejection) => rejection.token(),
    }
}

/// libphonenumber's name for a number type (`FIXED_LINE_OR_MOBILE`, ...).
#[allow(dead_code)] // not every test binary uses it
pub fn type_name(kind: NumberType) -> &'static str {
    match kind {
        NumberType::FixedLine => "FIXED_LINE",
        NumberType::Mobile => "MOBILE",
        NumberType::FixedLineOrMobile => "FIXED_LINE_OR_MOBILE",
        NumberType::TollFree => "TOLL_FREE",
        NumberType::PremiumRate => "PREMIUM_RATE",
        NumberType::SharedCost => "SHARED_COST",
        NumberType::Voip => "VOIP",
        NumberType::PersonalNumber => "PERSONAL_NUMBER",
        NumberType::Pager => "PAGER",
        NumberType::Uan => "UAN",
        NumberType::Voicemail => "VOICEMAIL",
        _ => "UNKNOWN",
    }
}
