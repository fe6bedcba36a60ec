//! Leases on background work, for several nodes on one database: every optimisation job is
//! run by one node at a time, and a node's results count only while the run is still its own.
//!
//! - **Claim**: a node takes the oldest queued job ([`claim_job`]): it becomes running, its
//!   attempts grow by one, it is leased to the node until a deadline, and the node is recorded
//!   as its holder. Claimers on other nodes skip a job being claimed and take the next.
//! - **Heartbeat**: the holder extends the lease while the job runs ([`renew_job`]); a renewal
//!   fails once the run is no longer the holder's (cancelled, or taken over after the lease
//!   ran out), which tells the node to stop.
//! - **Fencing**: a result is written only in a transaction that first locked the job and found
//!   it still the holder's run ([`holds`]: same holder, same attempt, still running); a run
//!   that lost its lease writes nothing, so a job is never completed twice.
//! - **Expiry**: a job whose lease ran out (its node died) goes back to the queue, or fails
//!   after [`MAX_ATTEMPTS`] starts ([`expire_jobs`]), and another node runs it.
//! - **Hand-back**: a node that stops gracefully returns its running jobs to the queue with
//!   their best solution so far ([`release_job`]); the attempt is not counted and the next run
//!   starts from that checkpoint.
//!
//! Named leases ([`hold_named`]) give one node at a time a whole stream of work, such as one
//! depot's webhook deliveries (which must stay in order).

use super::ServiceError;
use crate::model::optimisation::{JobState, Optimisation, MAX_ATTEMPTS};
use crate::ports::store::{JobCheckpoint, Lease, Store, StoreError, StoreTx};
use crate::time::Timestamp;

/// A job as a node claimed it: the fencing identity of the run is (job id, holder, attempt).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobClaim {
    /// The job as claimed (running, its attempt counted).
    pub job: Optimisation,
    /// The node running it.
    pub holder: String,
    /// What an earlier run handed back, to start from.
    pub checkpoint: Option<JobCheckpoint>,
}

/// Claims the oldest queued job of any depot for `holder`, leased until `until`.
pub fn claim_job(
    store: &dyn Store,
    holder: &str,
    now: Timestamp,
    until: Timestamp,
) -> Result<Option<JobClaim>, StoreError> {
    store.claim(|tx| {
        let Some(mut job) = tx.lock_next_queued_optimisation()? else {
            return Ok(None);
        };
        job.start_attempt(now, until);
        tx.update_optimisation(&job)?;
        tx.set_optimisation_holder(&job.id, Some(holder))?;
        let checkpoint = tx.optimisation_checkpoint(&job.id)?;
        Ok(Some(JobClaim {
            job,
            holder: holder.to_owned(),
            checkpoint,
        }))
    })
}

/// Locks the job for the rest of `tx` and returns it when it is still `claim`'s run. Every
/// write of a run's result starts with this.
pub fn holds(tx: &mut dyn StoreTx, claim: &JobClaim) -> Result<Option<Optimisation>, StoreError> {
    let Some(job) = tx.lock_optimisation(&claim.job.id)? else {
        return Ok(None);
    };
    let ours = job.state == JobState::Running
        && job.attempts == claim.job.attempts
        && tx.optimisation_holder(&job.id)?.as_deref() == Some(claim.holder.as_str());
    Ok(ours.then_some(job))
}

/// The heartbeat: extends the run's lease to `until`; false when the run is no longer the
/// holder's (it must stop and write nothing).
pub fn renew_job(
    store: &dyn Store,
    claim: &JobClaim,
    until: Timestamp,
) -> Result<bool, StoreError> {
    store.claim(|tx| {
        let Some(mut job) = holds(tx, claim)? else {
            return Ok(false);
        };
        job.lease_until = Some(until);
        tx.update_optimisation(&job)?;
        Ok(true)
    })
}

/// Hands back the jobs whose lease ended before `now` (their node died): queued again, or
/// failed once they were started [`MAX_ATTEMPTS`] times. Returns them with their new state.
pub fn expire_jobs(store: &dyn Store, now: Timestamp) -> Result<Vec<Optimisation>, ServiceError> {
    Ok(store.claim(|tx| {
        let mut out = Vec::new();
        for mut job in tx.lock_expired_optimisations(now)? {
            if job.attempts >= MAX_ATTEMPTS {
                job.state = JobState::Failed;
                job.error = Some(format!(
                    "the worker running it stopped {} times",
                    job.attempts
                ));
            } else {
                job.state = JobState::Queued;
            }
            job.lease_until = None;
            job.updated = now;
            tx.update_optimisation(&job)?;
            tx.set_optimisation_holder(&job.id, None)?;
            out.push(job);
        }
        Ok::<_, StoreError>(out)
    })?)
}

/// A graceful stop: gives the run back to the queue with `checkpoint` to start from next time;
/// the attempt is not counted. False when the run was no longer the holder's.
pub fn release_job(
    store: &dyn Store,
    claim: &JobClaim,
    checkpoint: Option<&JobCheckpoint>,
    now: Timestamp,
) -> Result<bool, StoreError> {
    store.claim(|tx| {
        let Some(mut job) = holds(tx, claim)? else {
            return Ok(false);
        };
        job.state = JobState::Queued;
        job.attempts = job.attempts.saturating_sub(1);
        job.lease_until = None;
        job.updated = now;
        tx.update_optimisation(&job)?;
        tx.set_optimisation_holder(&job.id, None)?;
        if checkpoint.is_some() {
            tx.set_optimisation_checkpoint(&job.id, checkpoint)?;
        }
        Ok(true)
    })
}

/// Takes or extends the named lease for `holder` until `until` (see
/// [`LeaseRepo::acquire_lease`](crate::ports::store::LeaseRepo::acquire_lease)).
pub fn hold_named(
    store: &dyn Store,
    name: &str,
    holder: &str,
    now: Timestamp,
    until: Timestamp,
) -> Result<Option<Lease>, StoreError> {
    store.claim(|tx| tx.acquire_lease(name, holder, now, until))
}

/// Extends every named lease of `names` `holder` still holds; returns those it lost.
pub fn renew_named(
    store: &dyn Store,
    names: &[String],
    holder: &str,
    until: Timestamp,
) -> Result<Vec<String>, StoreError> {
    store.claim(|tx| {
        let mut lost = Vec::new();
        for name in names {
            if !tx.renew_lease(name, holder, until)? {
                lost.push(name.clone());
            }
        }
        Ok(lost)
    })
}

/// Gives up the named leases of `names` `holder` holds.
pub fn release_named(store: &dyn Store, names: &[String], holder: &str) -> Result<(), StoreError> {
    store.claim(|tx| {
        for name in names {
            tx.release_lease(name, holder)?;
        }
        Ok(())
    })
}
