//! Leases on background work (SQLite migrations 0012 and 0013, PostgreSQL 0004 and 0005).
//!
//! On PostgreSQL these run in claim transactions (`PostgresStore::run_claim`: READ COMMITTED
//! without the write lock), so the rows a claim decides on are locked: `FOR UPDATE SKIP LOCKED`
//! where any row will do (the next queued job, expired jobs, sendable notification tasks:
//! concurrent claimers take different rows and never wait), `FOR UPDATE` where one row is meant
//! (heartbeats, results). On SQLite a write transaction runs alone (`BEGIN IMMEDIATE`), so the
//! same methods only read: no other claimer can be between their read and the transaction's
//! end. Named leases change in one conditional upsert on both.

use dispatch_core::model::notification::TaskStatus;
use dispatch_core::model::optimisation::Optimisation;
use dispatch_core::ports::store::{
    DueTask, JobCheckpoint, Lease, LeaseRepo, OptimisationRepo, SendLease, StoreError,
};
use dispatch_core::time::Timestamp;

use super::notifications::{task, COLUMNS};
use super::{ts, Db, Sql};
use crate::sql::{params, Connection, Dialect, OptionalExtension, Statement};

impl<C: Connection> Db<C> {
    fn job_by_id(&mut self, id: &str) -> Result<Option<Optimisation>, StoreError> {
        match self.optimisation_scope(id)? {
            Some(scope) => self.get_optimisation(scope, id),
            None => Ok(None),
        }
    }
}

/// The send lease in columns `first..first + 3` (holder, attempts, lease_until).
fn send_lease(r: &crate::sql::Row<'_>, first: usize) -> crate::sql::Result<SendLease> {
    Ok(SendLease {
        holder: r.get(first)?,
        attempts: u32::try_from(r.get::<_, i64>(first + 1)?).unwrap_or(u32::MAX),
        until: r.get::<_, Option<i64>>(first + 2)?.map(ts),
    })
}

impl<C: Connection> LeaseRepo for Db<C> {
    fn lock_next_queued_optimisation(&mut self) -> Result<Option<Optimisation>, StoreError> {
        let id: Option<String> = self
            .0
            .prepare_cached(C::DIALECT.pick(
                "SELECT id FROM optimisations WHERE state = 'queued' ORDER BY seq LIMIT 1",
                "SELECT id FROM optimisations WHERE state = 'queued' ORDER BY seq LIMIT 1 \
                 FOR UPDATE SKIP LOCKED",
            ))
            .st()?
            .query_row(params![], |r| r.get(0))
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
        if C::DIALECT == Dialect::Sqlite {
            // Nothing to lock: the jobs in one read.
            return self.expired_optimisations(now);
        }
        let ids: Vec<String> = self
            .0
            .prepare_cached(
                "SELECT id FROM optimisations WHERE state = 'running' \
                 AND (lease_until IS NULL OR lease_until < ?1) ORDER BY seq FOR UPDATE SKIP LOCKED",
            )
            .st()?
            .query_map(params![now.millis()], |r| r.get(0))
            .st()?
            .collect::<Result<_, _>>()
            .st()?;
        let mut jobs = Vec::with_capacity(ids.len());
        for id in ids {
            jobs.extend(self.job_by_id(&id)?);
        }
        Ok(jobs)
    }

    fn lock_optimisation(&mut self, id: &str) -> Result<Option<Optimisation>, StoreError> {
        if C::DIALECT == Dialect::Sqlite {
            return self.job_by_id(id);
        }
        let found: Option<String> = self
            .0
            .prepare_cached("SELECT id FROM optimisations WHERE id = ?1 FOR UPDATE")
            .st()?
            .query_row(params![id], |r| r.get(0))
            .optional()
            .st()?;
        match found {
            Some(id) => self.job_by_id(&id),
            None => Ok(None),
        }
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
            .query_row(params![id], |r| r.columns())
            .optional()
            .st()?;
        Ok(row.and_then(|(routes, spent)| {
            Some(JobCheckpoint {
                routes: routes?,
                spent_ms: u64::try_from(spent).unwrap_or(0),
            })
        }))
    }

    fn lock_sendable_notification_tasks(
        &mut self,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<(DueTask, SendLease)>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS}, t.holder, t.attempts, t.lease_until \
             FROM notification_tasks t JOIN depots d ON d.id = t.depot_id \
             WHERE t.status = 'Scheduled' AND t.scheduled <= ?1 \
             AND (t.lease_until IS NULL OR t.lease_until < ?1) \
             ORDER BY t.scheduled, t.id LIMIT ?2{}",
            C::DIALECT.pick("", " FOR UPDATE OF t SKIP LOCKED")
        );
        self.0
            .prepare_cached(&sql)
            .st()?
            .query_map(params![now.millis(), limit as i64], |r| {
                let (scope, task) = task(r)?;
                Ok((DueTask { scope, task }, send_lease(r, 17)?))
            })
            .st()?
            .collect::<Result<_, _>>()
            .st()
    }

    fn lock_notification_task(
        &mut self,
        id: i64,
    ) -> Result<Option<(TaskStatus, SendLease)>, StoreError> {
        let row: Option<(String, SendLease)> = self
            .0
            .prepare_cached(C::DIALECT.pick(
                "SELECT status, holder, attempts, lease_until FROM notification_tasks \
                 WHERE id = ?1",
                "SELECT status, holder, attempts, lease_until FROM notification_tasks \
                 WHERE id = ?1 FOR UPDATE",
            ))
            .st()?
            .query_row(params![id], |r| Ok((r.get(0)?, send_lease(r, 1)?)))
            .optional()
            .st()?;
        row.map(|(status, lease)| {
            TaskStatus::parse(&status)
                .map(|s| (s, lease))
                .ok_or_else(|| StoreError::Backend(format!("corrupt stored task status {status}")))
        })
        .transpose()
    }

    fn set_notification_lease(
        &mut self,
        id: i64,
        lease: &SendLease,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        // A holder claims the task from its first claim on (claimed tasks are never cancelled
        // by a dispatch); a hand-back makes it an unclaimed task again.
        self.0
            .prepare_cached(
                "UPDATE notification_tasks SET holder = ?2, attempts = ?3, lease_until = ?4, \
                 claimed = CASE WHEN CAST(?2 AS TEXT) IS NULL THEN NULL ELSE COALESCE(claimed, ?5) END \
                 WHERE id = ?1",
            )
            .st()?
            .execute(params![
                id,
                lease.holder.as_deref(),
                i64::from(lease.attempts),
                lease.until.map(|u| u.millis()),
                now.millis()
            ])
            .st()?;
        Ok(())
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
