//! Leases on background work (`service::leases` over [`LeaseRepo`](crate::ports::store::LeaseRepo)):
//! one holder per job run, fenced results, expiry and hand-back, named leases.

use super::at;
use crate::model::optimisation::{JobSpec, JobState, Optimisation, Queue, MAX_ATTEMPTS};
use crate::model::organisation::{DepotScope, DepotSettings};
use crate::model::plan::NewPlan;
use crate::ports::store::{JobCheckpoint, NewDepot, Store, StoreError};
use crate::service::leases::{
    claim_job, expire_jobs, hold_named, holds, release_job, release_named, renew_job, renew_named,
};
use crate::time::Date;

/// A depot with `jobs` queued optimisations, created in that order at instants 1, 2, ...
pub fn queued_jobs(store: &dyn Store, jobs: usize) -> DepotScope {
    store
        .transaction(|tx| {
            let org = tx.insert_organisation("Leases", at(0))?;
            let depot = NewDepot {
                name: "L".into(),
                address: None,
                location: None,
                settings: DepotSettings::default(),
            };
            let scope = tx.insert_depot(org.id, &depot, at(0))?.scope();
            for n in 0..jobs {
                let date = Date::parse("2026-12-01").unwrap();
                let plan = tx.insert_plan(scope, &NewPlan { date }, at(0))?;
                tx.insert_optimisation(&Optimisation::queued(
                    format!("job-{n:03}"),
                    scope,
                    plan.id,
                    date,
                    Queue::Standard,
                    JobSpec::due_on_date(),
                    at(n as i64 + 1),
                ))?;
            }
            Ok::<_, StoreError>(scope)
        })
        .unwrap()
}

/// Whether `claim` may still write its result (as a result transaction asks).
fn may_write(store: &dyn Store, claim: &crate::service::leases::JobClaim) -> bool {
    store
        .transaction(|tx| holds(tx, claim).map(|j| j.is_some()))
        .unwrap()
}

/// Claims go to one node each, oldest first; the heartbeat and results are the holder's only;
/// an expired run is taken over and its old holder fenced off; a hand-back keeps a checkpoint
/// and does not count the attempt; a job whose node died on every attempt fails.
pub fn job_leases(store: &dyn Store) {
    queued_jobs(store, 2);
    let a = claim_job(store, "node-a", at(10), at(100))
        .unwrap()
        .unwrap();
    let b = claim_job(store, "node-b", at(10), at(100))
        .unwrap()
        .unwrap();
    assert_eq!((a.job.id.as_str(), a.job.attempts), ("job-000", 1));
    assert_eq!(
        (b.job.id.as_str(), b.holder.as_str()),
        ("job-001", "node-b")
    );
    assert_eq!(a.job.state, JobState::Running);
    assert!(claim_job(store, "node-c", at(10), at(100))
        .unwrap()
        .is_none());
    assert!(renew_job(store, &a, at(200)).unwrap());
    assert!(may_write(store, &a));
    let mut impostor = a.clone();
    impostor.holder = "node-b".into();
    assert!(!renew_job(store, &impostor, at(300)).unwrap());
    assert!(!may_write(store, &impostor));

    // node-b dies: its lease (100) runs out; node-a's was renewed to 200.
    assert!(expire_jobs(store, at(100)).unwrap().is_empty());
    let expired = expire_jobs(store, at(101)).unwrap();
    assert_eq!(expired.len(), 1);
    assert_eq!(
        (expired[0].id.as_str(), expired[0].state),
        ("job-001", JobState::Queued)
    );
    let c = claim_job(store, "node-c", at(102), at(300))
        .unwrap()
        .unwrap();
    assert_eq!((c.job.id.as_str(), c.job.attempts), ("job-001", 2));
    assert!(
        !renew_job(store, &b, at(400)).unwrap(),
        "the dead run renews nothing"
    );
    assert!(!may_write(store, &b), "the dead run's result is refused");
    assert!(may_write(store, &c));

    // node-c stops gracefully: job-001 goes back with its checkpoint, attempt not counted.
    let checkpoint = JobCheckpoint {
        routes: "[]".into(),
        spent_ms: 1500,
    };
    assert!(release_job(store, &c, Some(&checkpoint), at(103)).unwrap());
    assert!(!may_write(store, &c));
    assert!(!release_job(store, &c, None, at(104)).unwrap());
    let d = claim_job(store, "node-d", at(105), at(300))
        .unwrap()
        .unwrap();
    assert_eq!((d.job.id.as_str(), d.job.attempts), ("job-001", 2));
    assert_eq!(d.checkpoint, Some(checkpoint));

    // Dying on every attempt fails the job with a reason.
    let mut last = d;
    for attempt in 2..=MAX_ATTEMPTS {
        let t = 1_000 * i64::from(attempt);
        assert_eq!(last.job.attempts, attempt);
        let expired = expire_jobs(store, at(t)).unwrap();
        let job = expired.iter().find(|j| j.id == "job-001").unwrap();
        if attempt == MAX_ATTEMPTS {
            assert_eq!(job.state, JobState::Failed);
            assert!(job.error.as_deref().unwrap().contains("stopped"));
        } else {
            assert_eq!(job.state, JobState::Queued);
            last = loop {
                let next = claim_job(store, "node-e", at(t + 1), at(t + 500))
                    .unwrap()
                    .unwrap();
                if next.job.id == "job-001" {
                    break next;
                }
            };
        }
    }
}

/// Nodes claiming at once (threads here) take every job exactly once.
pub fn concurrent_claims_take_each_job_once(store: &dyn Store) {
    queued_jobs(store, 24);
    let claimed: Vec<String> = std::thread::scope(|s| {
        let nodes: Vec<_> = (0..4)
            .map(|n| {
                s.spawn(move || {
                    let mut mine = Vec::new();
                    while let Some(c) =
                        claim_job(store, &format!("node-{n}"), at(10), at(10_000)).unwrap()
                    {
                        assert_eq!(c.job.attempts, 1, "{} claimed twice", c.job.id);
                        mine.push(c.job.id);
                    }
                    mine
                })
            })
            .collect();
        nodes.into_iter().flat_map(|n| n.join().unwrap()).collect()
    });
    let mut sorted = claimed.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 24, "{claimed:?}");
    assert_eq!(claimed.len(), 24);
}

/// A named lease has one holder; it is renewed by that holder only, taken over once expired
/// (its token grows) and free at once when released.
pub fn named_leases(store: &dyn Store) {
    let name = "webhooks:1".to_owned();
    let a = hold_named(store, &name, "node-a", at(0), at(100))
        .unwrap()
        .unwrap();
    assert_eq!((a.holder.as_str(), a.token), ("node-a", 1));
    assert!(hold_named(store, &name, "node-b", at(50), at(150))
        .unwrap()
        .is_none());
    let again = hold_named(store, &name, "node-a", at(60), at(160))
        .unwrap()
        .unwrap();
    assert_eq!((again.token, again.until), (1, at(160)));
    assert!(
        renew_named(store, std::slice::from_ref(&name), "node-a", at(200))
            .unwrap()
            .is_empty()
    );
    let b = hold_named(store, &name, "node-b", at(201), at(300))
        .unwrap()
        .unwrap();
    assert_eq!((b.holder.as_str(), b.token), ("node-b", 2));
    assert_eq!(
        renew_named(store, std::slice::from_ref(&name), "node-a", at(400)).unwrap(),
        vec![name.clone()]
    );
    release_named(store, std::slice::from_ref(&name), "node-a").unwrap();
    assert_eq!(
        store
            .read(|tx| tx.get_lease(&name))
            .unwrap()
            .unwrap()
            .holder,
        "node-b",
        "only the holder releases"
    );
    release_named(store, std::slice::from_ref(&name), "node-b").unwrap();
    let c = hold_named(store, &name, "node-c", at(202), at(300))
        .unwrap()
        .unwrap();
    assert_eq!((c.holder.as_str(), c.token), ("node-c", 3));
}
