//! The guardrail engine: everything checked before a call is placed (spec 7
//! and 8.2), pure except for the two stateful limits behind traits.
//!
//! [`Guardrails::validate`] (typed request) and [`Guardrails::validate_json`]
//! (a request body) apply the checks in one fixed order and stop at the first
//! failure:
//!
//! 0. `unknown_field` (JSON bodies: a key, top level or inside a field
//!    definition, that the API does not know; a misspelt key must never be
//!    silently ignored),
//! 1. `to_required`, `objective_required` (and `objective_too_long`),
//! 2. `invalid_number` (strict E.164, validity by libphonenumber's metadata,
//!    canonical form),
//! 3. `invalid_context` (and `context_too_long`), `invalid_fields`,
//!    `invalid_caller_id`, `invalid_webhook_url`, `invalid_metadata`,
//!    `invalid_scheduled_at` (not RFC 3339 with an offset),
//!    `invalid_calling_window`, `invalid_retry`,
//! 4. `destination_blocked` (country allowlist, premium rate, US/CA 976,
//!    non-geographic codes, IRSF prefixes, extra blocked types), then
//!    `caller_id_not_owned`.
//!
//! The service then judges the time: `invalid_scheduled_at` for a
//! `scheduledAt` more than 30 days ahead, `outside_calling_window` for a
//! window (the placement's, the account's or the default) that never leaves
//! room to ring within 30 days; then it charges the [`RateLimiter`] (`rate_limited`) and reserves
//! minutes in the [`UsageLedger`] (`over_minute_cap`), refunding the rate
//! permit if the reservation fails, so a rejected request costs nothing.
//! When either limit cannot reach its backend ([`LimitError::Unavailable`],
//! [`ReserveError::Unavailable`]) the placement fails with a store error
//! (`503 store_error`), never with a `429`.
//! [`Guardrails::check_destination`] runs the destination checks alone, for
//! checking a list of numbers before dialing.

mod body;
mod minute_cap;
mod number;
mod prefix;
mod rate_limit;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::{Map, Value};

use crate::schedule::{CallingWindow, RetryPolicy};

use body::{check_known_keys, object_as, parse_fields, parse_metadata, parse_scheduled_at};

use crate::domain::{
    Account, ErrorToken, FieldDefinition, MAX_CONTEXT_CHARS, MAX_FIELD_DESCRIPTION_CHARS,
    MAX_FIELD_NAME_CHARS, MAX_FIELDS, MAX_METADATA_KEY_CHARS, MAX_METADATA_KEYS,
    MAX_METADATA_VALUE_CHARS, MAX_OBJECTIVE_CHARS, MAX_WEBHOOK_URL_LEN, PlacementRequest,
};

pub use minute_cap::{
    BillingPeriod, MemoryUsageLedger, ReserveError, Usage, UsageLedger, billed_minutes,
};
use number::Classification;
pub use number::{
    BuildError as NumberBuildError, ClassifiedNumber, NationalNumber, NumberClassifier,
    NumberError, NumberType, is_strict_e164,
};
pub use prefix::{InvalidPrefix, PrefixSet};
pub use rate_limit::{
    LimitError, MemoryRateLimiter, RATE_WINDOW, RateLimited, RateLimiter, RatePermit,
};

/// Regions allowed by default (spec 8.2).
pub const DEFAULT_ALLOWED_REGIONS: [&str; 6] = ["US", "CA", "GB", "AU", "NZ", "IL"];

/// Why a destination is blocked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BlockReason {
    /// The number's region is not on the allowlist.
    RegionNotAllowed(&'static str),
    /// A non-geographic code (satellite, international network, freephone…).
    NonGeographic(u16),
    /// A premium-rate number.
    PremiumRate,
    /// A US or Canadian number with exchange 976.
    Exchange976,
    /// An IRSF-listed prefix.
    IrsfListed(String),
    /// A number type the deployment blocks.
    BlockedType(NumberType),
}

impl fmt::Display for BlockReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::RegionNotAllowed(region) => write!(f, "region {region} is not allowed"),
            Self::NonGeographic(code) => write!(f, "non-geographic code +{code}"),
            Self::PremiumRate => f.write_str("premium-rate number"),
            Self::Exchange976 => f.write_str("NANP exchange 976 (premium by convention)"),
            Self::IrsfListed(prefix) => write!(f, "IRSF-listed prefix +{prefix}"),
            Self::BlockedType(kind) => write!(f, "blocked number type {kind:?}"),
        }
    }
}

/// Why a placement was rejected; [`Rejection::token`] is its API error token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Rejection {
    /// The body has a key the API does not know, at this path
    /// (`voice`, `fields[1].descripton`).
    #[error("unknown field {0}")]
    UnknownField(String),
    /// `to` is missing.
    #[error("to is missing")]
    ToRequired,
    /// `objective` is missing, not a string, or blank.
    #[error("objective is missing or blank")]
    ObjectiveRequired,
    /// `objective` is longer than [`MAX_OBJECTIVE_CHARS`].
    #[error("objective is longer than {MAX_OBJECTIVE_CHARS} characters")]
    ObjectiveTooLong,
    /// `to` is not a valid E.164 number.
    #[error("to is not a valid E.164 number: {0}")]
    InvalidNumber(NumberError),
    /// `context` is not a string.
    #[error("context is not a string")]
    InvalidContext,
    /// `context` is longer than [`MAX_CONTEXT_CHARS`].
    #[error("context is longer than {MAX_CONTEXT_CHARS} characters")]
    ContextTooLong,
    /// `fields` is malformed.
    #[error("fields is malformed: {0}")]
    InvalidFields(String),
    /// `callerId` is not an E.164 string.
    #[error("callerId is not a string in E.164 format")]
    InvalidCallerId,
    /// `webhookUrl` is not an acceptable HTTPS URL.
    #[error("webhookUrl is not a valid HTTPS URL: {0}")]
    InvalidWebhookUrl(&'static str),
    /// `metadata` is not an object of at most 50 short string entries.
    #[error("metadata is malformed: {0}")]
    InvalidMetadata(String),
    /// `scheduledAt` is not RFC 3339 with an offset, or too far ahead.
    #[error("scheduledAt {0}")]
    InvalidScheduledAt(String),
    /// `callingWindow` is malformed.
    #[error("callingWindow is malformed: {0}")]
    InvalidCallingWindow(String),
    /// `retry` is malformed.
    #[error("retry is malformed: {0}")]
    InvalidRetry(String),
    /// The calling window never opens for the number.
    #[error("the calling window never opens for this number")]
    OutsideCallingWindow,
    /// The destination is blocked.
    #[error("destination blocked: {0}")]
    DestinationBlocked(BlockReason),
    /// The caller ID (given or default) is not one of the account's numbers.
    #[error("caller ID is not a number on the account")]
    CallerIdNotOwned,
    /// The key's per-minute budget is spent.
    #[error("too many calls per minute; retry after {0:?}")]
    RateLimited(Duration),
    /// The account's minute cap is reached.
    #[error("outbound minute cap reached")]
    OverMinuteCap,
}

impl Rejection {
    /// The API error token (spec 7).
    pub fn token(&self) -> &'static str {
        self.error_token().as_str()
    }

    /// The entry of the error table this rejection answers with.
    pub fn error_token(&self) -> ErrorToken {
        match self {
            Self::UnknownField(_) => ErrorToken::UnknownField,
            Self::ToRequired => ErrorToken::ToRequired,
            Self::ObjectiveRequired => ErrorToken::ObjectiveRequired,
            Self::ObjectiveTooLong => ErrorToken::ObjectiveTooLong,
            Self::InvalidNumber(_) => ErrorToken::InvalidNumber,
            Self::InvalidContext => ErrorToken::InvalidContext,
            Self::ContextTooLong => ErrorToken::ContextTooLong,
            Self::InvalidFields(_) => ErrorToken::InvalidFields,
            Self::InvalidCallerId => ErrorToken::InvalidCallerId,
            Self::InvalidWebhookUrl(_) => ErrorToken::InvalidWebhookUrl,
            Self::InvalidMetadata(_) => ErrorToken::InvalidMetadata,
            Self::InvalidScheduledAt(_) => ErrorToken::InvalidScheduledAt,
            Self::InvalidCallingWindow(_) => ErrorToken::InvalidCallingWindow,
            Self::InvalidRetry(_) => ErrorToken::InvalidRetry,
            Self::OutsideCallingWindow => ErrorToken::OutsideCallingWindow,
            Self::DestinationBlocked(_) => ErrorToken::DestinationBlocked,
            Self::CallerIdNotOwned => ErrorToken::CallerIdNotOwned,
            Self::RateLimited(_) => ErrorToken::RateLimited,
            Self::OverMinuteCap => ErrorToken::OverMinuteCap,
        }
    }
}

/// Deployment settings of the guardrails.
#[derive(Debug, Clone)]
pub struct GuardrailConfig {
    /// Regions (ISO 3166 ids) calls may go to; a deployment may narrow the
    /// default list. Non-geographic codes are blocked whatever it says.
    pub allowed_regions: BTreeSet<String>,
    /// IRSF ranges; the shipped list by default, extend it with your own.
    pub irsf_prefixes: PrefixSet,
    /// Number types blocked on top of premium rate (e.g. shared cost).
    pub blocked_types: Vec<NumberType>,
    /// Accept `http://` webhook URLs whose host is loopback (127.0.0.1, ::1,
    /// localhost). For local development only; off by default.
    pub allow_insecure_loopback_webhooks: bool,
    /// The longest a call may last; also the most minutes one call reserves.
    pub max_call_duration: Duration,
}

impl Default for GuardrailConfig {
    fn default() -> Self {
        Self {
            allowed_regions: DEFAULT_ALLOWED_REGIONS
                .iter()
                .map(|r| (*r).to_owned())
                .collect(),
            irsf_prefixes: PrefixSet::shipped_irsf(),
            blocked_types: Vec::new(),
            allow_insecure_loopback_webhooks: false,
            max_call_duration: Duration::from_secs(600),
        }
    }
}

/// A placement that passed every stateless check.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovedPlacement {
    /// The request, as typed values.
    pub request: PlacementRequest,
    /// The destination, classified.
    pub destination: ClassifiedNumber,
    /// The caller ID to present (given, or the account default).
    pub caller_id: String,
}

/// A typed request that passed every stateless check ([`Guardrails::check`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Approval<'a> {
    /// The destination, classified.
    pub destination: ClassifiedNumber,
    /// The caller ID to present (given, or the account default).
    pub caller_id: &'a str,
}

/// The stateless guardrail engine. Cheap to clone and to build (the number
/// automata are compiled at build time and loaded once per process).
#[derive(Debug, Clone)]
pub struct Guardrails {
    numbers: Arc<NumberClassifier>,
    config: Arc<GuardrailConfig>,
    /// `config.allowed_regions` as a bit per two-letter id, so the policy
    /// step neither compares strings nor allocates.
    allowed: Arc<RegionSet>,
}

/// A set of two-letter region ids (`A`–`Z` twice), one bit each. Region ids
/// of classified numbers are always two ASCII capitals; a configured entry of
/// any other shape can match no number, so it is left out.
#[derive(Debug)]
struct RegionSet([u64; 11]);

impl RegionSet {
    fn index(region: &str) -> Option<usize> {
        match region.as_bytes() {
            [a @ b'A'..=b'Z', b @ b'A'..=b'Z'] => {
                Some(usize::from(a - b'A') * 26 + usize::from(b - b'A'))
            }
            _ => None,
        }
    }

    fn new<'a>(regions: impl IntoIterator<Item = &'a String>) -> Self {
        let mut bits = [0u64; 11];
        for index in regions.into_iter().filter_map(|r| Self::index(r)) {
            bits[index / 64] |= 1 << (index % 64);
        }
        Self(bits)
    }

    fn contains(&self, region: &str) -> bool {
        Self::index(region).is_some_and(|i| self.0[i / 64] & (1 << (i % 64)) != 0)
    }
}

impl Default for Guardrails {
    fn default() -> Self {
        Self::new(GuardrailConfig::default())
    }
}

impl Guardrails {
    /// Builds the engine. The number automata were compiled at build time
    /// and load per calling code on its first number; they are immutable, so
    /// every engine of the process shares one copy.
    pub fn new(config: GuardrailConfig) -> Self {
        static SHARED: OnceLock<Arc<NumberClassifier>> = OnceLock::new();
        let numbers = SHARED.get_or_init(|| Arc::new(NumberClassifier::new()));
        Self {
            numbers: Arc::clone(numbers),
            allowed: Arc::new(RegionSet::new(&config.allowed_regions)),
            config: Arc::new(config),
        }
    }

    /// The settings in force.
    pub fn config(&self) -> &GuardrailConfig {
        &self.config
    }

    /// Checks one destination: validity (`invalid_number`), then policy
    /// (`destination_blocked`). Places nothing.
    pub fn check_destination(&self, to: &str) -> Result<ClassifiedNumber, Rejection> {
        let number = self.classify(to)?;
        self.destination_policy(&number)?;
        number.to_owned().map_err(Rejection::InvalidNumber)
    }

    fn classify<'i>(&self, to: &'i str) -> Result<Classification<'i>, Rejection> {
        self.numbers
            .classify_borrowed(to)
            .map_err(Rejection::InvalidNumber)
    }

    /// Checks many destinations at once ("check before dial").
    pub fn check_destinations<'a>(
        &self,
        numbers: impl IntoIterator<Item = &'a str>,
    ) -> Vec<Result<ClassifiedNumber, Rejection>> {
        numbers
            .into_iter()
            .map(|to| self.check_destination(to))
            .collect()
    }

    fn destination_policy(&self, number: &Classification<'_>) -> Result<(), Rejection> {
        let blocked = |reason| Err(Rejection::DestinationBlocked(reason));
        let Some(region) = number.region else {
            return blocked(BlockReason::NonGeographic(number.calling_code));
        };
        if !self.allowed.contains(region) {
            return blocked(BlockReason::RegionNotAllowed(region));
        }
        if number.number_type == NumberType::PremiumRate {
            return blocked(BlockReason::PremiumRate);
        }
        if matches!(region, "US" | "CA") && number.national_number.get(3..6) == Some("976") {
            return blocked(BlockReason::Exchange976);
        }
        let mut code = itoa::Buffer::new();
        let code = code.format(number.calling_code);
        let digits = code.bytes().chain(number.national_number.bytes());
        if let Some(len) = self.config.irsf_prefixes.longest_match_len(digits) {
            let mut prefix = String::with_capacity(len);
            prefix.push_str(code);
            prefix.push_str(number.national_number);
            prefix.truncate(len);
            return blocked(BlockReason::IrsfListed(prefix));
        }
        if self.config.blocked_types.contains(&number.number_type) {
            return blocked(BlockReason::BlockedType(number.number_type));
        }
        Ok(())
    }

    /// Checks a typed request for `account`, in the documented order,
    /// without copying it: the approval borrows the caller ID it settled on.
    /// This is the fast path for hosts that build requests in code.
    pub fn check<'a>(
        &self,
        request: &'a PlacementRequest,
        account: &'a Account,
    ) -> Result<Approval<'a>, Rejection> {
        check_objective(&request.objective)?;
        let destination = self.classify(&request.to)?;
        if let Some(context) = &request.context {
            check_context(context)?;
        }
        check_fields(&request.fields).map_err(Rejection::InvalidFields)?;
        if let Some(caller_id) = &request.caller_id {
            check_caller_id(caller_id)?;
        }
        if let Some(url) = &request.webhook_url {
            self.check_webhook_url(url)?;
        }
        if let Some(metadata) = &request.metadata {
            check_metadata(metadata).map_err(Rejection::InvalidMetadata)?;
        }
        self.destination_policy(&destination)?;
        let caller_id = owned_caller_id(request.caller_id.as_deref(), account)?;
        Ok(Approval {
            destination: destination.to_owned().map_err(Rejection::InvalidNumber)?,
            caller_id,
        })
    }

    /// Validates a typed request for `account`, in the documented order.
    pub fn validate(
        &self,
        request: &PlacementRequest,
        account: &Account,
    ) -> Result<ApprovedPlacement, Rejection> {
        let approval = self.check(request, account)?;
        Ok(ApprovedPlacement {
            caller_id: approval.caller_id.to_owned(),
            destination: approval.destination,
            request: request.clone(),
        })
    }

    /// Validates a request body (a JSON object) for `account`, in the
    /// documented order. A key the API does not know, at the top level or in
    /// a field definition, is [`Rejection::UnknownField`]; `null` counts as
    /// absent for the optional fields. Each value's JSON type is checked where its
    /// rule stands in the order, then the same rules as [`Guardrails::check`] apply.
    pub fn validate_json(
        &self,
        body: &Map<String, Value>,
        account: &Account,
    ) -> Result<ApprovedPlacement, Rejection> {
        check_known_keys(body)?;
        let present = |key: &str| body.get(key).filter(|v| !v.is_null());
        let to = present("to").ok_or(Rejection::ToRequired)?;
        let objective = present("objective")
            .and_then(Value::as_str)
            .ok_or(Rejection::ObjectiveRequired)?;
        check_objective(objective)?;
        let to = to
            .as_str()
            .ok_or(Rejection::InvalidNumber(NumberError::Syntax))?;
        let destination = self.classify(to)?;
        let context = match present("context") {
            None => None,
            Some(Value::String(text)) => Some(check_context(text)?.to_owned()),
            Some(_) => return Err(Rejection::InvalidContext),
        };
        let fields = match present("fields") {
            None => Vec::new(),
            Some(value) => parse_fields(value).map_err(Rejection::InvalidFields)?,
        };
        let caller_id = match present("callerId") {
            None => None,
            Some(Value::String(number)) => Some(check_caller_id(number)?.to_owned()),
            Some(_) => return Err(Rejection::InvalidCallerId),
        };
        let webhook_url = match present("webhookUrl") {
            None => None,
            Some(Value::String(url)) => Some(self.check_webhook_url(url)?.to_owned()),
            Some(_) => return Err(Rejection::InvalidWebhookUrl("not a string")),
        };
        let metadata = match present("metadata") {
            None => None,
            Some(value) => Some(parse_metadata(value).map_err(Rejection::InvalidMetadata)?),
        };
        let scheduled_at = match present("scheduledAt") {
            None => None,
            Some(Value::String(text)) => Some(parse_scheduled_at(text)?),
            Some(_) => return Err(Rejection::InvalidScheduledAt("is not a string".into())),
        };
        let calling_window = match present("callingWindow") {
            None => None,
            Some(value) => {
                Some(object_as::<CallingWindow>(value).map_err(Rejection::InvalidCallingWindow)?)
            }
        };
        let retry = match present("retry") {
            None => None,
            Some(value) => Some(object_as::<RetryPolicy>(value).map_err(Rejection::InvalidRetry)?),
        };
        self.destination_policy(&destination)?;
        let caller = owned_caller_id(caller_id.as_deref(), account)?.to_owned();
        Ok(ApprovedPlacement {
            caller_id: caller,
            request: PlacementRequest {
                to: to.to_owned(),
                objective: objective.to_owned(),
                context,
                fields,
                webhook_url,
                caller_id,
                metadata,
                scheduled_at,
                calling_window,
                retry,
            },
            destination: destination.to_owned().map_err(Rejection::InvalidNumber)?,
        })
    }

    fn check_webhook_url<'t>(&self, text: &'t str) -> Result<&'t str, Rejection> {
        // A host sends most placements with the same few webhook URLs, and
        // the verdict depends only on the text and the loopback setting: the
        // last URL each thread accepted skips the parse (a third of a typed
        // placement's checks). Only accepted URLs are remembered.
        thread_local! {
            static LAST_ACCEPTED: std::cell::RefCell<(bool, String)> =
                const { std::cell::RefCell::new((false, String::new())) };
        }
        let loopback = self.config.allow_insecure_loopback_webhooks;
        // `try_with`: while a thread's locals are being destroyed there is
        // no memo, and the URL is simply judged.
        let seen = LAST_ACCEPTED
            .try_with(|last| {
                let (flag, url) = &*last.borrow();
                *flag == loopback && url == text
            })
            .unwrap_or(false);
        if seen && !text.is_empty() {
            return Ok(text);
        }
        let verdict = self.judge_webhook_url(text);
        if verdict.is_ok() {
            let _ = LAST_ACCEPTED.try_with(|last| {
                let (flag, url) = &mut *last.borrow_mut();
                *flag = loopback;
                url.clear();
                url.push_str(text);
            });
        }
        verdict
    }

    fn judge_webhook_url<'t>(&self, text: &'t str) -> Result<&'t str, Rejection> {
        let invalid = |why| Err(Rejection::InvalidWebhookUrl(why));
        if text.len() > MAX_WEBHOOK_URL_LEN {
            return invalid("longer than 2048 bytes");
        }
        let Ok(url) = url::Url::parse(text) else {
            return invalid("not a URL");
        };
        let Some(host) = url.host() else {
            return invalid("no host");
        };
        let loopback_allowed =
            self.config.allow_insecure_loopback_webhooks && is_loopback_host(&host);
        match url.scheme() {
            "https" => {}
            "http" if loopback_allowed => {}
            _ => return invalid("scheme is not https"),
        }
        // An address literal is judged here, so a URL no delivery could ever
        // reach is refused at placement instead of failing for a day of retries.
        let literal = match host {
            url::Host::Ipv4(ip) => Some(std::net::IpAddr::V4(ip)),
            url::Host::Ipv6(ip) => Some(std::net::IpAddr::V6(ip)),
            url::Host::Domain(_) => None,
        };
        if literal.is_some_and(|ip| !loopback_allowed && crate::notify::is_forbidden_target(ip)) {
            return invalid("address not reachable from the public internet");
        }
        Ok(text)
    }
}

/// Whether a URL host is 127.0.0.0/8, ::1 or `localhost`.
pub(crate) fn is_loopback_host(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    }
}

fn check_objective(objective: &str) -> Result<&str, Rejection> {
    if objective.trim().is_empty() {
        return Err(Rejection::ObjectiveRequired);
    }
    // Bytes bound characters from above: count characters only when it matters.
    if objective.len() > MAX_OBJECTIVE_CHARS && objective.chars().count() > MAX_OBJECTIVE_CHARS {
        return Err(Rejection::ObjectiveTooLong);
    }
    Ok(objective)
}

fn check_context(context: &str) -> Result<&str, Rejection> {
    if context.len() > MAX_CONTEXT_CHARS && context.chars().count() > MAX_CONTEXT_CHARS {
        return Err(Rejection::ContextTooLong);
    }
    Ok(context)
}

fn check_caller_id(number: &str) -> Result<&str, Rejection> {
    if is_strict_e164(number) {
        Ok(number)
    } else {
        Err(Rejection::InvalidCallerId)
    }
}

/// The caller ID to present: the one given, else the account default; it
/// must be one of the account's numbers.
fn owned_caller_id<'a>(given: Option<&'a str>, account: &'a Account) -> Result<&'a str, Rejection> {
    given
        .or(account.default_caller_id.as_deref())
        .filter(|number| account.owns(number))
        .ok_or(Rejection::CallerIdNotOwned)
}

fn check_metadata(metadata: &BTreeMap<String, String>) -> Result<(), String> {
    if metadata.len() > MAX_METADATA_KEYS {
        return Err(format!("more than {MAX_METADATA_KEYS} keys"));
    }
    for (key, value) in metadata {
        if key.is_empty() || key.chars().count() > MAX_METADATA_KEY_CHARS {
            return Err(format!(
                "keys must have 1 to {MAX_METADATA_KEY_CHARS} characters"
            ));
        }
        if value.chars().count() > MAX_METADATA_VALUE_CHARS {
            return Err(format!(
                "values must be strings of at most {MAX_METADATA_VALUE_CHARS} characters"
            ));
        }
    }
    Ok(())
}

/// Up to this many field definitions, duplicates are found pairwise.
const PAIRWISE_FIELDS: usize = 16;

/// The rules on a list of field definitions (count, names, descriptions).
fn check_fields(fields: &[FieldDefinition]) -> Result<(), String> {
    if fields.len() > MAX_FIELDS {
        return Err(format!("more than {MAX_FIELDS} items"));
    }
    // Few fields (the usual case) are compared pairwise, which allocates
    // nothing; a long list goes through a set.
    let mut names = BTreeSet::new();
    let mut is_duplicate = |index: usize, name: &'_ str| {
        if fields.len() <= PAIRWISE_FIELDS {
            fields
                .iter()
                .take(index)
                .any(|earlier| earlier.name == name)
        } else {
            !names.insert(name.to_owned())
        }
    };
    for (index, field) in fields.iter().enumerate() {
        let name = &field.name;
        if name.trim().is_empty() {
            return Err(format!("item {index} has no name"));
        }
        // Bytes bound characters from above: count characters only when it matters.
        let too_long =
            name.len() > MAX_FIELD_NAME_CHARS && name.chars().count() > MAX_FIELD_NAME_CHARS;
        if too_long || name.chars().any(char::is_control) {
            return Err(format!(
                "item {index}: name longer than {MAX_FIELD_NAME_CHARS} characters or has control characters"
            ));
        }
        if is_duplicate(index, name) {
            return Err(format!("item {index}: duplicate name"));
        }
        if field.description.as_ref().is_some_and(|d| {
            d.len() > MAX_FIELD_DESCRIPTION_CHARS && d.chars().count() > MAX_FIELD_DESCRIPTION_CHARS
        }) {
            return Err(format!(
                "item {index}: description longer than {MAX_FIELD_DESCRIPTION_CHARS} characters"
            ));
        }
    }
    Ok(())
}
