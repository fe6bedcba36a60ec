//! The in-memory lease repository. A transaction here runs alone, so "locking" a row is
//! reading it.

use std::collections::HashMap;

use super::State;
use crate::model::optimisation::{JobState, Optimisation};
use crate::ports::store::{JobCheckpoint, Lease, LeaseRepo, OptimisationRepo, StoreError};
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
