//! Accounts and their settings.

use super::{AccountId, WebhookSecret};

/// An account as the service needs it: the numbers it owns, its default
/// caller ID, its limits and its webhook secret.
#[derive(Debug, Clone)]
pub struct Account {
    /// The account's identifier.
    pub id: AccountId,
    /// Numbers (E.164) the account may present as caller ID.
    pub numbers: Vec<String>,
    /// Caller ID used when a placement names none.
    pub default_caller_id: Option<String>,
    /// Placements allowed per API key per minute.
    pub calls_per_minute: u32,
    /// Outbound minutes allowed per billing period.
    pub minute_cap: u64,
    /// The secret that signs this account's webhook events.
    pub webhook_secret: WebhookSecret,
    /// The local hours its calls may ring, unless a placement gives its
    /// own `callingWindow`; `None` leaves the default (see
    /// [`AgentCallBuilder::default_calling_windows`](crate::AgentCallBuilder::default_calling_windows)).
    pub calling_window: Option<crate::schedule::CallingWindow>,
    /// How its calls are tried again when an attempt reaches no one,
    /// unless a placement gives its own `retry`; `None`: never.
    pub retry: Option<crate::schedule::RetryPolicy>,
}

impl Account {
    /// An account with defaults: no numbers, 60 calls per minute, 1,000 minutes.
    pub fn new(id: AccountId, webhook_secret: WebhookSecret) -> Self {
        Self {
            id,
            numbers: Vec::new(),
            default_caller_id: None,
            calls_per_minute: 60,
            minute_cap: 1_000,
            webhook_secret,
            calling_window: None,
            retry: None,
        }
    }

    /// Whether `number` is one of the account's numbers.
    pub fn owns(&self, number: &str) -> bool {
        self.numbers.iter().any(|owned| owned == number)
    }
}
