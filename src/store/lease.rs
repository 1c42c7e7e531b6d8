//! Call leases: which service instance follows an unfinished call, and
//! until when.
//!
//! Every call that still needs work (not yet ended, or ended but not yet
//! settled) names its holder in [`StoredCall::lease`](super::StoredCall::lease).
//! The holder renews its leases while it runs ([`CallStore::renew_leases`]);
//! when an instance dies, its leases lapse and another instance takes the
//! calls over ([`CallStore::claim_lapsed`]). A takeover bumps the call's
//! version, so the compare-and-set of a late former holder fails, and the
//! service re-reads the call, sees the new holder and stops: the former
//! holder is fenced off.
//!
//! [`CallStore::renew_leases`]: super::CallStore::renew_leases
//! [`CallStore::claim_lapsed`]: super::CallStore::claim_lapsed

use std::fmt;

use chrono::{DateTime, Utc};

/// The name of one running service instance, as it appears in leases.
///
/// Each running process needs its own. A stable one (e.g. the host name of
/// a pod in a stateful set) lets a restarted instance take back the calls
/// its previous process held at once, instead of after their lease
/// ([`AgentCall::recover`](crate::AgentCall::recover)).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstanceId(String);

/// See [`InstanceId::waiting`].
const WAITING_HOLDER: &str = "agentcall:waiting";

impl InstanceId {
    /// An instance named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self(name.into())
    }

    /// The holder of the leases of calls waiting to be dialed (scheduled,
    /// or outside their calling window): `agentcall:waiting`, a name no
    /// instance may take. Such a lease runs until the call may start, so
    /// the first instance to claim it once lapsed dials the call, exactly
    /// once across instances.
    pub fn waiting() -> Self {
        Self(WAITING_HOLDER.to_owned())
    }

    /// A fresh random name, `instance_` and 32 hex digits.
    pub fn generate() -> Self {
        Self(format!("instance_{}", uuid::Uuid::new_v4().simple()))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for InstanceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for InstanceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InstanceId({})", self.0)
    }
}

/// Who follows a call, and until when.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallLease {
    /// The instance that follows the call.
    pub holder: InstanceId,
    /// When the lease lapses unless renewed.
    pub until: DateTime<Utc>,
}

impl CallLease {
    /// A lease of `holder` until `until`.
    pub fn new(holder: InstanceId, until: DateTime<Utc>) -> Self {
        Self { holder, until }
    }

    /// Whether the lease has lapsed at `now`.
    pub fn lapsed_at(&self, now: DateTime<Utc>) -> bool {
        self.until < now
    }
}

/// A takeover of lapsed leases ([`CallStore::claim_lapsed`](super::CallStore::claim_lapsed)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LeaseClaim {
    /// Who takes the calls over.
    pub holder: InstanceId,
    /// Leases that ended before this instant have lapsed.
    pub now: DateTime<Utc>,
    /// The new leases run until then.
    pub until: DateTime<Utc>,
    /// At most this many calls.
    pub limit: usize,
    /// Also take the calls whose lease names `holder` itself, lapsed or not:
    /// a restarted instance with a stable [`InstanceId`] taking back what
    /// its previous process held.
    pub reclaim_own: bool,
    /// Take only waiting calls whose time has come (leases of
    /// [`InstanceId::waiting`]), none that a running instance let lapse.
    pub waiting_only: bool,
}

impl LeaseClaim {
    /// Up to `limit` lapsed calls, leased to `holder` until `until`.
    pub fn new(holder: InstanceId, now: DateTime<Utc>, until: DateTime<Utc>, limit: usize) -> Self {
        Self {
            holder,
            now,
            until,
            limit,
            reclaim_own: false,
            waiting_only: false,
        }
    }

    /// Whether this claim takes a call leased as `lease`.
    pub fn takes(&self, lease: &CallLease) -> bool {
        if self.waiting_only && lease.holder != InstanceId::waiting() {
            return false;
        }
        lease.lapsed_at(self.now) || (self.reclaim_own && lease.holder == self.holder)
    }
}
