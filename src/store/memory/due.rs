//! The in-memory outbox's pending events, indexed so a claim costs
//! O(accounts + limit) rather than a walk over every pending event.

use std::collections::{BTreeSet, HashMap};
use std::ops::Bound;

use chrono::{DateTime, Utc};

use crate::domain::AccountId;

/// One pending event's place: when it is next due, and its emission order.
type Slot = (DateTime<Utc>, u64);

/// Pending events by due time, overall and per account; per account split
/// into unclaimed events and claimed ones (due again when their lease ends).
#[derive(Debug, Default)]
pub(super) struct DueIndex {
    all: BTreeSet<Slot>,
    accounts: HashMap<AccountId, AccountDue>,
}

#[derive(Debug, Default)]
struct AccountDue {
    unclaimed: BTreeSet<Slot>,
    claimed: BTreeSet<Slot>,
}

/// One account's share of a claim at some instant.
#[derive(Debug)]
pub(super) struct AccountView {
    /// Its claims still leased at that instant, counted up to the limit.
    pub(super) live: usize,
    /// Its events due by then (unclaimed, or claimed with a lapsed lease),
    /// oldest first.
    pub(super) due: Vec<Slot>,
}

impl DueIndex {
    /// Adds an event due at `at`; `claimed` when `at` is its lease's end.
    pub(super) fn insert(
        &mut self,
        account: &AccountId,
        at: DateTime<Utc>,
        seq: u64,
        claimed: bool,
    ) {
        self.all.insert((at, seq));
        let sets = self.accounts.entry(account.clone()).or_default();
        if claimed {
            sets.claimed.insert((at, seq));
        } else {
            sets.unclaimed.insert((at, seq));
        }
    }

    /// Removes an event wherever it is.
    pub(super) fn remove(&mut self, account: &AccountId, at: DateTime<Utc>, seq: u64) {
        self.all.remove(&(at, seq));
        if let Some(sets) = self.accounts.get_mut(account) {
            sets.unclaimed.remove(&(at, seq));
            sets.claimed.remove(&(at, seq));
            if sets.unclaimed.is_empty() && sets.claimed.is_empty() {
                self.accounts.remove(account);
            }
        }
    }

    /// When the earliest pending event is due.
    pub(super) fn first(&self) -> Option<DateTime<Utc>> {
        self.all.first().map(|(at, _)| *at)
    }

    /// Every account with pending events, as a claim of `limit` at `now`
    /// sees it: at most `limit` due events each that pass `claimable`.
    pub(super) fn accounts_at(
        &self,
        now: DateTime<Utc>,
        limit: usize,
        mut claimable: impl FnMut(u64) -> bool,
    ) -> Vec<AccountView> {
        let due_by = (Bound::Unbounded, Bound::Included((now, u64::MAX)));
        let after = (Bound::Excluded((now, u64::MAX)), Bound::Unbounded);
        self.accounts
            .values()
            .map(|sets| {
                let live = sets.claimed.range(after).take(limit).count();
                let mut due: Vec<Slot> = Vec::new();
                for set in [&sets.unclaimed, &sets.claimed] {
                    // The first `limit` of each set hold the first `limit` of both.
                    due.extend(
                        set.range(due_by)
                            .filter(|(_, seq)| claimable(*seq))
                            .take(limit),
                    );
                }
                due.sort_unstable();
                due.truncate(limit);
                AccountView { live, due }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::<Utc>::from_timestamp(1_700_000_000 + secs, 0).expect("in range")
    }

    proptest! {
        /// The index answers as a walk over every pending event would,
        /// after any mix of inserts and removals.
        #[test]
        fn accounts_at_agrees_with_a_full_walk(
            events in proptest::collection::vec((0u8..3, 0i64..20, any::<bool>(), any::<bool>()), 0..60),
            now in 0i64..20,
            limit in 1usize..6,
            blocked in proptest::collection::hash_set(0u64..60, 0..10),
        ) {
            let accounts: Vec<AccountId> =
                ["acct_a", "acct_b", "acct_c"].iter().map(|a| a.parse().unwrap()).collect();
            let mut index = DueIndex::default();
            let mut kept = Vec::new();
            for (seq, (account, secs, claimed, removed)) in events.into_iter().enumerate() {
                let (account, seq) = (&accounts[account as usize], seq as u64);
                index.insert(account, at(secs), seq, claimed);
                if removed {
                    index.remove(account, at(secs), seq);
                } else {
                    kept.push((account.clone(), at(secs), seq, claimed));
                }
            }
            let mut got: Vec<(usize, Vec<Slot>)> = index
                .accounts_at(at(now), limit, |seq| !blocked.contains(&seq))
                .into_iter()
                .map(|view| (view.live, view.due))
                .collect();
            got.sort();
            let mut want = Vec::new();
            for account in &accounts {
                let mine: Vec<_> = kept.iter().filter(|(a, ..)| a == account).collect();
                if mine.is_empty() {
                    continue;
                }
                let live = mine.iter().filter(|(_, t, _, c)| *c && *t > at(now)).count().min(limit);
                let mut due: Vec<Slot> = mine
                    .iter()
                    .filter(|(_, t, s, _)| *t <= at(now) && !blocked.contains(s))
                    .map(|(_, t, s, _)| (*t, *s))
                    .collect();
                due.sort();
                due.truncate(limit);
                want.push((live, due));
            }
            want.sort();
            prop_assert_eq!(got, want);
            let first = kept.iter().map(|(_, t, ..)| *t).min();
            prop_assert_eq!(index.first(), first);
        }
    }
}
