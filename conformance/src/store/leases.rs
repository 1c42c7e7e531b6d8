//! Call leases, and what a call keeps until it is finished and settled.

use chrono::Duration;

use super::fixtures::*;
use agentcall::domain::{CallId, CallStatus};
use agentcall::store::{CallLease, CallStore, CarrierEnd, InstanceId, LeaseClaim, StoreError};
use agentcall::transcript::Transcript;

/// Leases (run it on an empty database: its claims take any lapsed lease):
/// `renew_leases` extends the holder's named running calls only, without
/// a new version; `claim_lapsed` takes lapsed leases (and, with
/// `reclaim_own`, the claimer's own) oldest first, up to its limit, bumps
/// their versions so a former holder's write conflicts, and never takes a
/// call without a lease or one renewed in time.
pub async fn leases_renew_lapse_are_claimed_once_and_fence<S: CallStore + ?Sized>(store: &S) {
    let t = base_time();
    let secs = Duration::seconds;
    let key = fresh_key();
    let (a, b) = (InstanceId::generate(), InstanceId::generate());
    let leased = |holder: &InstanceId, until| {
        let mut call = sample_call(&key, t);
        call.lease = Some(CallLease::new(holder.clone(), until));
        call
    };
    let renewed = leased(&a, t + secs(10));
    let lapsed_b = leased(&b, t + secs(5));
    let mut ended_a = leased(&a, t + secs(10));
    ended_a.record.status = CallStatus::Voicemail;
    let unleased = sample_call(&key, t);
    for call in [&renewed, &lapsed_b, &ended_a, &unleased] {
        store.insert(call).await.expect("insert");
    }
    let read = store.get(&renewed.record.id).await.expect("get");
    assert_eq!(read.as_ref(), Some(&renewed), "leases round-trip");

    let named = [
        renewed.record.id.clone(),
        ended_a.record.id.clone(),
        lapsed_b.record.id.clone(),
    ];
    assert_eq!(
        store
            .renew_leases(&a, &named, t + secs(60))
            .await
            .expect("renew"),
        vec![renewed.record.id.clone()],
        "only the holder's running call is renewed: not its ended one, not another holder's"
    );
    let read = store
        .get(&renewed.record.id)
        .await
        .expect("get")
        .expect("call");
    assert_eq!(read.lease, Some(CallLease::new(a.clone(), t + secs(60))));
    assert_eq!(read.version, renewed.version, "a renewal is not a change");
    // A write from a copy read before the renewal keeps the renewal.
    let mut stale = renewed.clone();
    stale.context = Some("changed".into());
    store.update(&stale, Vec::new()).await.expect("update");
    let read = store
        .get(&renewed.record.id)
        .await
        .expect("get")
        .expect("call");
    assert_eq!(read.lease, Some(CallLease::new(a.clone(), t + secs(60))));
    assert_eq!(read.context.as_deref(), Some("changed"));

    // Nothing has lapsed before the earliest lease ends.
    let early = LeaseClaim::new(a.clone(), t, t + secs(90), 10);
    assert!(store.claim_lapsed(&early).await.expect("claim").is_empty());

    // At t+30 the unrenewed leases (5 s and 10 s) have lapsed; oldest first.
    let claim = LeaseClaim::new(a.clone(), t + secs(30), t + secs(90), 1);
    let first = store.claim_lapsed(&claim).await.expect("claim");
    let ids: Vec<&CallId> = first.iter().map(|c| &c.record.id).collect();
    assert_eq!(ids, [&lapsed_b.record.id], "limit and order");
    assert_eq!(
        first[0].lease,
        Some(CallLease::new(a.clone(), t + secs(90)))
    );
    assert_eq!(first[0].version, lapsed_b.version + 1);
    assert_eq!(
        store.get(&lapsed_b.record.id).await.expect("get").as_ref(),
        Some(&first[0]),
        "claimed calls are returned as stored"
    );
    // The former holder is fenced: its copy is one version behind.
    assert!(matches!(
        store.update(&lapsed_b, Vec::new()).await,
        Err(StoreError::Conflict { .. })
    ));
    let claim = LeaseClaim::new(b.clone(), t + secs(30), t + secs(90), 10);
    let rest = store.claim_lapsed(&claim).await.expect("claim");
    let ids: Vec<_> = rest.iter().map(|c| c.record.id.clone()).collect();
    assert_eq!(
        ids,
        [ended_a.record.id.clone()],
        "an ended, unsettled call lapses too"
    );
    assert!(
        store.claim_lapsed(&claim).await.expect("claim").is_empty(),
        "a claimed call is not claimed again while its lease runs"
    );

    // A reclaim also takes the claimer's own calls, lapsed or not.
    let mut own = LeaseClaim::new(a.clone(), t + secs(30), t + secs(120), 10);
    own.reclaim_own = true;
    let reclaimed = store.claim_lapsed(&own).await.expect("claim");
    let ids: std::collections::BTreeSet<_> =
        reclaimed.iter().map(|c| c.record.id.clone()).collect();
    assert_eq!(
        ids,
        [renewed.record.id.clone(), lapsed_b.record.id.clone()].into(),
        "both calls now leased to the claimer, and nothing else"
    );

    // An update stores the lease it carries: releasing it makes the call
    // nobody's, and no claim takes it.
    let mut settled = store
        .get(&ended_a.record.id)
        .await
        .expect("get")
        .expect("call");
    settled.settled = true;
    settled.lease = None;
    store.update(&settled, Vec::new()).await.expect("update");
    let late = LeaseClaim::new(a.clone(), t + secs(100_000), t + secs(100_100), 10);
    let ids: Vec<_> = store
        .claim_lapsed(&late)
        .await
        .expect("claim")
        .into_iter()
        .map(|c| c.record.id)
        .collect();
    assert!(!ids.contains(&ended_a.record.id) && !ids.contains(&unleased.record.id));
    assert_eq!(
        ids.len(),
        2,
        "the two calls still leased have lapsed by then"
    );
}

/// A kept carrier end, carrier notes and the settlement flag read back as
/// written.
pub async fn carrier_end_and_settlement_round_trip<S: CallStore + ?Sized>(store: &S) {
    let key = fresh_key();
    let mut open = sample_call(&key, base_time());
    let mut end = CarrierEnd::new(CallStatus::Completed, base_time());
    end.transcript = Some(Transcript::from_text("Agent: hello \"settled\":false"));
    end.duration_sec = Some(42);
    open.carrier_end = Some(end);
    open.carrier_notes.carrier_call_id = Some("CA0123".into());
    open.carrier_notes.transcript = Some(Transcript::from_text("Agent: hi\nRecipient: \"yes\""));
    open.carrier_notes.answered_by = Some("human".into());
    open.carrier_notes.session_open = true;
    open.carrier_notes.last_sequence = Some(3);
    let mut settled = sample_call(&key, base_time());
    settled.record.status = CallStatus::Completed;
    settled.settled = true;
    for call in [&open, &settled] {
        store.insert(call).await.expect("insert");
        let read = store.get(&call.record.id).await.expect("get");
        assert_eq!(read.as_ref(), Some(call));
    }
}

/// A claim with `waiting_only` takes waiting calls whose time has passed
/// (leases of [`InstanceId::waiting`]) and no call that a running instance
/// let lapse, nor a waiting call not yet due.
pub async fn waiting_only_claims_take_only_due_waiting_calls<S: CallStore + ?Sized>(store: &S) {
    let t = base_time() + Duration::days(3650);
    let secs = Duration::seconds;
    let key = fresh_key();
    let leased = |holder: InstanceId, until| {
        let mut call = sample_call(&key, t);
        call.lease = Some(CallLease::new(holder, until));
        call
    };
    let due = leased(InstanceId::waiting(), t);
    let later = leased(InstanceId::waiting(), t + secs(60));
    let lapsed = leased(InstanceId::generate(), t - secs(1));
    for call in [&due, &later, &lapsed] {
        store.insert(call).await.expect("insert");
    }
    let taker = InstanceId::generate();
    let mut claim = LeaseClaim::new(taker.clone(), t + secs(1), t + secs(31), 1000);
    claim.waiting_only = true;
    let claimed = store.claim_lapsed(&claim).await.expect("claim");
    let ids: Vec<&CallId> = claimed.iter().map(|c| &c.record.id).collect();
    assert!(
        ids.contains(&&due.record.id),
        "the due waiting call is taken"
    );
    assert!(
        !ids.contains(&&later.record.id),
        "not one whose time has not come"
    );
    assert!(
        !ids.contains(&&lapsed.record.id),
        "not one a running instance let lapse"
    );
    let taken = claimed
        .iter()
        .find(|c| c.record.id == due.record.id)
        .expect("taken");
    assert_eq!(taken.lease.as_ref().map(|l| &l.holder), Some(&taker));
    // Without the restriction, the lapsed call is taken too.
    let anyone = LeaseClaim::new(taker, t + secs(1), t + secs(31), 1000);
    let claimed = store.claim_lapsed(&anyone).await.expect("claim");
    assert!(claimed.iter().any(|c| c.record.id == lapsed.record.id));
}
