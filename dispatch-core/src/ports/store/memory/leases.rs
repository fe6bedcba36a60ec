//! The in-memory lease repository. A transaction here runs alone, so "locking" a row is
//! reading it.

use std::collections::HashMap;

use super::State;
use crate::model::notification::TaskStatus;
use crate::model::optimisation::{JobState, Optimisation};
use crate::ports::store::{
    DueTask, JobCheckpoint, Lease, LeaseRepo, OptimisationRepo, SendLease, StoreError,
};
use crate::time::Timestamp;

/// Job holders, checkpoints and named leases.
#[derive(Debug, Clone, Default)]
pub(super) struct Leases {
    holders: HashMap<String, String>,
    checkpoints: HashMap<String, JobCheckpoint>,
    named: HashMap<String, Lease>,
}

impl LeaseRepo for State {
    fn lock_next_queued_optimisation(&mut self) -> Result<Option<Optimisation>, StoreError> {
        Ok(self
            .planning
            .jobs
            .iter()
            .find(|j| j.state == JobState::Queued)
            .cloned())
    }

    fn lock_expired_optimisations(
        &mut self,
        now: Timestamp,
    ) -> Result<Vec<Optimisation>, StoreError> {
        self.expired_optimisations(now)
    }

    fn lock_optimisation(&mut self, id: &str) -> Result<Option<Optimisation>, StoreError> {
        Ok(self.planning.jobs.iter().find(|j| j.id == id).cloned())
    }

    fn set_optimisation_holder(
        &mut self,
        id: &str,
        holder: Option<&str>,
    ) -> Result<(), StoreError> {
        match holder {
            Some(h) => self.leases.holders.insert(id.to_owned(), h.to_owned()),
            None => self.leases.holders.remove(id),
        };
        Ok(())
    }

    fn optimisation_holder(&mut self, id: &str) -> Result<Option<String>, StoreError> {
        Ok(self.leases.holders.get(id).cloned())
    }

    fn set_optimisation_checkpoint(
        &mut self,
        id: &str,
        checkpoint: Option<&JobCheckpoint>,
    ) -> Result<(), StoreError> {
        match checkpoint {
            Some(c) => self.leases.checkpoints.insert(id.to_owned(), c.clone()),
            None => self.leases.checkpoints.remove(id),
        };
        Ok(())
    }

    fn optimisation_checkpoint(&mut self, id: &str) -> Result<Option<JobCheckpoint>, StoreError> {
        Ok(self.leases.checkpoints.get(id).cloned())
    }

    fn lock_sendable_notification_tasks(
        &mut self,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<(DueTask, SendLease)>, StoreError> {
        Ok(self.notifications.sendable(now, limit))
    }

    fn lock_notification_task(
        &mut self,
        id: i64,
    ) -> Result<Option<(TaskStatus, SendLease)>, StoreError> {
        Ok(self.notifications.lease_of(id))
    }

    fn set_notification_lease(
        &mut self,
        id: i64,
        lease: &SendLease,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.notifications.set_lease(id, lease, now);
        Ok(())
    }

    fn acquire_lease(
        &mut self,
        name: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<Option<Lease>, StoreError> {
        let lease = match self.leases.named.get(name) {
            None => Lease {
                name: name.to_owned(),
                holder: holder.to_owned(),
                token: 1,
                until,
            },
            Some(l) if l.holder == holder => Lease { until, ..l.clone() },
            Some(l) if l.until < now => Lease {
                holder: holder.to_owned(),
                token: l.token + 1,
                until,
                ..l.clone()
            },
            Some(_) => return Ok(None),
        };
        self.leases.named.insert(name.to_owned(), lease.clone());
        Ok(Some(lease))
    }

    fn renew_lease(
        &mut self,
        name: &str,
        holder: &str,
        until: Timestamp,
    ) -> Result<bool, StoreError> {
        match self.leases.named.get_mut(name) {
            Some(l) if l.holder == holder => {
                l.until = until;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn release_lease(&mut self, name: &str, holder: &str) -> Result<(), StoreError> {
        // Kept as expired rather than deleted, so the next holder's token still grows.
        if let Some(l) = self.leases.named.get_mut(name) {
            if l.holder == holder {
                l.until = Timestamp::from_millis(0);
            }
        }
        Ok(())
    }

    fn get_lease(&mut self, name: &str) -> Result<Option<Lease>, StoreError> {
        Ok(self.leases.named.get(name).cloned())
    }
}
