//! Leases on background work (migration 0012). A write transaction here runs alone
//! (`BEGIN IMMEDIATE`), so the `lock_*` methods only read: no other claimer can be between
//! their read and the transaction's end.

use dispatch_core::model::optimisation::Optimisation;
use dispatch_core::ports::store::{JobCheckpoint, Lease, LeaseRepo, OptimisationRepo, StoreError};
use dispatch_core::time::Timestamp;
use rusqlite::{params, OptionalExtension};

use super::{ts, Db, Sql};

impl Db<'_> {
    fn job_by_id(&mut self, id: &str) -> Result<Option<Optimisation>, StoreError> {
        match self.optimisation_scope(id)? {
            Some(scope) => self.get_optimisation(scope, id),
            None => Ok(None),
        }
    }
}

impl LeaseRepo for Db<'_> {
    fn lock_next_queued_optimisation(&mut self) -> Result<Option<Optimisation>, StoreError> {
        let id: Option<String> = self
            .0
            .prepare_cached(
                "SELECT id FROM optimisations WHERE state = 'queued' ORDER BY seq LIMIT 1",
            )
            .st()?
            .query_row([], |r| r.get(0))
            .optional()
            .st()?;
        match id {
            Some(id) => self.job_by_id(&id),
            None => Ok(None),
        }
    }

    fn lock_expired_optimisations(
        &mut self,
        now: Timestamp,
    ) -> Result<Vec<Optimisation>, StoreError> {
        self.expired_optimisations(now)
    }

    fn lock_optimisation(&mut self, id: &str) -> Result<Option<Optimisation>, StoreError> {
        self.job_by_id(id)
    }

    fn set_optimisation_holder(
        &mut self,
        id: &str,
        holder: Option<&str>,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO optimisation_leases (optimisation_id, holder) VALUES (?1, ?2) \
                 ON CONFLICT (optimisation_id) DO UPDATE SET holder = excluded.holder",
            )
            .st()?
            .execute(params![id, holder])
            .st()?;
        Ok(())
    }

    fn optimisation_holder(&mut self, id: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .0
            .prepare_cached("SELECT holder FROM optimisation_leases WHERE optimisation_id = ?1")
            .st()?
            .query_row(params![id], |r| r.get::<_, Option<String>>(0))
            .optional()
            .st()?
            .flatten())
    }

    fn set_optimisation_checkpoint(
        &mut self,
        id: &str,
        checkpoint: Option<&JobCheckpoint>,
    ) -> Result<(), StoreError> {
        let spent = checkpoint.map_or(0, |c| i64::try_from(c.spent_ms).unwrap_or(i64::MAX));
        self.0
            .prepare_cached(
                "INSERT INTO optimisation_leases (optimisation_id, checkpoint, spent_ms) \
                 VALUES (?1, ?2, ?3) ON CONFLICT (optimisation_id) DO UPDATE SET \
                 checkpoint = excluded.checkpoint, spent_ms = excluded.spent_ms",
            )
            .st()?
            .execute(params![id, checkpoint.map(|c| c.routes.as_str()), spent])
            .st()?;
        Ok(())
    }

    fn optimisation_checkpoint(&mut self, id: &str) -> Result<Option<JobCheckpoint>, StoreError> {
        let row: Option<(Option<String>, i64)> = self
            .0
            .prepare_cached(
                "SELECT checkpoint, spent_ms FROM optimisation_leases WHERE optimisation_id = ?1",
            )
            .st()?
            .query_row(params![id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()
            .st()?;
        Ok(row.and_then(|(routes, spent)| {
            Some(JobCheckpoint {
                routes: routes?,
                spent_ms: u64::try_from(spent).unwrap_or(0),
            })
        }))
    }

    fn acquire_lease(
        &mut self,
        name: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<Option<Lease>, StoreError> {
        // One statement: a free name is inserted; a held one changes only when it is this
        // holder's (extended) or expired (taken over, token + 1).
        let token: Option<i64> = self
            .0
            .prepare_cached(
                "INSERT INTO work_leases (name, holder, token, lease_until) VALUES (?1, ?2, 1, ?4) \
                 ON CONFLICT (name) DO UPDATE SET \
                 token = work_leases.token + (CASE WHEN work_leases.holder = excluded.holder THEN 0 ELSE 1 END), \
                 holder = excluded.holder, lease_until = excluded.lease_until \
                 WHERE work_leases.holder = excluded.holder OR work_leases.lease_until < ?3 \
                 RETURNING token",
            )
            .st()?
            .query_row(params![name, holder, now.millis(), until.millis()], |r| {
                r.get(0)
            })
            .optional()
            .st()?;
        Ok(token.map(|token| Lease {
            name: name.to_owned(),
            holder: holder.to_owned(),
            token,
            until,
        }))
    }

    fn renew_lease(
        &mut self,
        name: &str,
        holder: &str,
        until: Timestamp,
    ) -> Result<bool, StoreError> {
        let n = self
            .0
            .prepare_cached(
                "UPDATE work_leases SET lease_until = ?3 WHERE name = ?1 AND holder = ?2",
            )
            .st()?
            .execute(params![name, holder, until.millis()])
            .st()?;
        Ok(n == 1)
    }

    fn release_lease(&mut self, name: &str, holder: &str) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "UPDATE work_leases SET lease_until = 0 WHERE name = ?1 AND holder = ?2",
            )
            .st()?
            .execute(params![name, holder])
            .st()?;
        Ok(())
    }

    fn get_lease(&mut self, name: &str) -> Result<Option<Lease>, StoreError> {
        self.0
            .prepare_cached("SELECT holder, token, lease_until FROM work_leases WHERE name = ?1")
            .st()?
            .query_row(params![name], |r| {
                Ok(Lease {
                    name: name.to_owned(),
                    holder: r.get(0)?,
                    token: r.get(1)?,
                    until: ts(r.get(2)?),
                })
            })
            .optional()
            .st()
    }
}
