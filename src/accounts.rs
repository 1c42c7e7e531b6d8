//! Resolving API keys to accounts.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Arc;

use async_trait::async_trait;

use crate::domain::{Account, AccountId, ApiKey, KeyId};

/// Who is calling: the key's identity, its account and its rate limit.
#[derive(Debug, Clone)]
pub struct Principal {
    /// The key's identity; calls are scoped to it.
    pub key_id: KeyId,
    /// The key's account.
    pub account: Arc<Account>,
    /// Placements per minute allowed for this key (a per-key override or the
    /// account's `calls_per_minute`).
    pub calls_per_minute: u32,
}

/// The directory could not answer; the API answers `503 store_error`.
#[derive(Debug, thiserror::Error)]
#[error("account directory unavailable: {0}")]
pub struct DirectoryError(#[source] pub Box<dyn std::error::Error + Send + Sync>);

/// Resolves API keys and account ids.
///
/// # Contract
///
/// - `authenticate` returns the principal of a known key and `None` for an
///   unknown one. Implementations look keys up by digest
///   ([`ApiKey::id`]) rather than comparing key text, so that lookups do not
///   leak timing about stored keys.
/// - `account` returns an account by id (used to sign events after the
///   request that placed the call is long gone).
#[async_trait]
pub trait AccountDirectory: Send + Sync + Debug {
    /// The principal of a key, if the key is known.
    async fn authenticate(&self, key: &ApiKey) -> Result<Option<Principal>, DirectoryError>;

    /// An account by id.
    async fn account(&self, id: &AccountId) -> Result<Option<Arc<Account>>, DirectoryError>;
}

/// A fixed set of accounts and keys held in memory, keys stored only as digests.
#[derive(Debug, Default, Clone)]
pub struct StaticDirectory {
    keys: HashMap<KeyId, (AccountId, Option<u32>)>,
    accounts: HashMap<AccountId, Arc<Account>>,
}

impl StaticDirectory {
    /// An empty directory.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an account with its keys.
    pub fn with_account(
        mut self,
        account: Account,
        keys: impl IntoIterator<Item = ApiKey>,
    ) -> Self {
        for key in keys {
            self.keys.insert(key.id(), (account.id.clone(), None));
        }
        self.accounts.insert(account.id.clone(), Arc::new(account));
        self
    }

    /// Adds a key to a known account with its own per-minute limit.
    pub fn with_key_limit(
        mut self,
        account: &AccountId,
        key: ApiKey,
        calls_per_minute: u32,
    ) -> Self {
        self.keys
            .insert(key.id(), (account.clone(), Some(calls_per_minute)));
        self
    }
}

#[async_trait]
impl AccountDirectory for StaticDirectory {
    async fn authenticate(&self, key: &ApiKey) -> Result<Option<Principal>, DirectoryError> {
        let key_id = key.id();
        let Some((account_id, limit)) = self.keys.get(&key_id) else {
            return Ok(None);
        };
        let Some(account) = self.accounts.get(account_id) else {
            return Ok(None);
        };
        Ok(Some(Principal {
            calls_per_minute: limit.unwrap_or(account.calls_per_minute),
            account: Arc::clone(account),
            key_id,
        }))
    }

    async fn account(&self, id: &AccountId) -> Result<Option<Arc<Account>>, DirectoryError> {
        Ok(self.accounts.get(id).cloned())
    }
}
