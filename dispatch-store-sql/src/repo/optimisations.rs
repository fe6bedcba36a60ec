//! The optimisation queue: jobs, their attempts and leases.

use crate::sql::{params, Connection, OptionalExtension, Row, Statement};
use dispatch_core::model::optimisation::{JobState, Optimisation, Queue};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::travel::TravelSource;
use dispatch_core::ports::store::{OptimisationRepo, StoreError, KEPT_PROBLEMS};
use dispatch_core::time::{Date, Timestamp};

use super::order_rows::corrupt;
use super::{ts, Db, Sql};

const JOB_COLUMNS: &str = "id, depot_id, organisation_id, plan_id, date, state, queue, spec, \
     attempts, solution_id, error, lease_until, created, updated, travel";

struct JobRow {
    job: Optimisation,
    date: String,
    state: String,
    queue: String,
    spec: String,
    travel: Option<String>,
}

fn job_row(r: &Row<'_>) -> crate::sql::Result<JobRow> {
    Ok(JobRow {
        job: Optimisation {
            id: r.get(0)?,
            depot_id: r.get(1)?,
            organisation_id: r.get(2)?,
            plan_id: r.get(3)?,
            date: Date::from_ymd(1970, 1, 1).expect("a real date"),
            state: JobState::Queued,
            queue: Queue::Standard,
            spec: dispatch_core::model::optimisation::JobSpec {
                selection: dispatch_core::model::optimisation::OrderSelection::DueOnDate,
                vehicle_ids: None,
                zone_group_id: None,
                settings: Default::default(),
            },
            attempts: r.get(8)?,
            solution_id: r.get(9)?,
            error: r.get(10)?,
            travel: None,
            lease_until: r.get::<_, Option<i64>>(11)?.map(ts),
            created: ts(r.get(12)?),
            updated: ts(r.get(13)?),
        },
        date: r.get(4)?,
        state: r.get(5)?,
        queue: r.get(6)?,
        spec: r.get(7)?,
        travel: r.get(14)?,
    })
}

fn decode_job(row: JobRow) -> Result<Optimisation, StoreError> {
    Ok(Optimisation {
        date: Date::parse(&row.date).ok_or_else(|| corrupt("optimisation date"))?,
        state: JobState::parse(&row.state).ok_or_else(|| corrupt("optimisation state"))?,
        queue: Queue::parse(&row.queue).ok_or_else(|| corrupt("optimisation queue"))?,
        spec: serde_json::from_str(&row.spec).map_err(|_| corrupt("optimisation spec"))?,
        travel: match row.travel.as_deref() {
            None => None,
            Some(t) => Some(TravelSource::parse(t).ok_or_else(|| corrupt("optimisation travel"))?),
        },
        ..row.job
    })
}

impl<C: Connection> Db<C> {
    fn jobs_where(
        &self,
        clause: &str,
        values: &[&dyn crate::sql::ToSql],
    ) -> Result<Vec<Optimisation>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(&format!(
                "SELECT {JOB_COLUMNS} FROM optimisations WHERE {clause}"
            ))
            .st()?;
        let rows = stmt
            .query_map(values, job_row)
            .st()?
            .collect::<Result<Vec<_>, _>>()
            .st()?;
        rows.into_iter().map(decode_job).collect()
    }
}

impl<C: Connection> OptimisationRepo for Db<C> {
    fn insert_optimisation(&mut self, job: &Optimisation) -> Result<(), StoreError> {
        let spec =
            serde_json::to_string(&job.spec).map_err(|e| StoreError::Backend(e.to_string()))?;
        self.0
            .prepare_cached(
                "INSERT INTO optimisations (id, depot_id, organisation_id, plan_id, date, state, queue, \
                 spec, attempts, solution_id, error, lease_until, seq, created, updated, travel) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, \
                 (SELECT coalesce(max(seq), 0) + 1 FROM optimisations), ?13, ?14, ?15)",
            )
            .st()?
            .execute(params![
                job.id,
                job.depot_id,
                job.organisation_id,
                job.plan_id,
                job.date.to_string(),
                job.state.as_str(),
                job.queue.as_str(),
                spec,
                job.attempts,
                job.solution_id,
                job.error,
                job.lease_until.map(|t| t.millis()),
                job.created.millis(),
                job.updated.millis(),
                job.travel.map(TravelSource::as_str)
            ])
            .st()?;
        Ok(())
    }

    fn get_optimisation(
        &mut self,
        scope: DepotScope,
        id: &str,
    ) -> Result<Option<Optimisation>, StoreError> {
        Ok(self
            .jobs_where("depot_id = ?1 AND id = ?2", &[&scope.depot_id, &id])?
            .pop())
    }

    fn optimisation_scope(&mut self, id: &str) -> Result<Option<DepotScope>, StoreError> {
        Ok(self.jobs_where("id = ?1", &[&id])?.pop().map(|j| j.scope()))
    }

    fn latest_optimisation_of_plan(
        &mut self,
        scope: DepotScope,
        plan_id: i64,
    ) -> Result<Option<Optimisation>, StoreError> {
        Ok(self
            .jobs_where(
                "depot_id = ?1 AND plan_id = ?2 ORDER BY seq DESC LIMIT 1",
                &[&scope.depot_id, &plan_id],
            )?
            .pop())
    }

    fn count_optimisations_in_progress(&mut self) -> Result<(u64, u64), StoreError> {
        self.0
            .query_row(
                "SELECT (SELECT count(*) FROM optimisations WHERE state = 'queued'), \
                        (SELECT count(*) FROM optimisations WHERE state = 'running')",
                params![],
                |r| r.columns(),
            )
            .st()
    }

    fn count_active_optimisations(
        &mut self,
        scope: DepotScope,
        queue: Queue,
    ) -> Result<u64, StoreError> {
        self.0
            .prepare_cached(
                "SELECT count(*) FROM optimisations WHERE depot_id = ?1 AND queue = ?2 \
                 AND state IN ('queued', 'running')",
            )
            .st()?
            .query_row(params![scope.depot_id, queue.as_str()], |r| r.get(0))
            .st()
    }

    fn claim_optimisation(
        &mut self,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<Optimisation>, StoreError> {
        let Some(mut job) = self
            .jobs_where("state = 'queued' ORDER BY seq LIMIT 1", &[])?
            .pop()
        else {
            return Ok(None);
        };
        job.start_attempt(now, lease_until);
        self.update_optimisation(&job)?;
        Ok(Some(job))
    }

    fn expired_optimisations(&mut self, now: Timestamp) -> Result<Vec<Optimisation>, StoreError> {
        self.jobs_where(
            "state = 'running' AND (lease_until IS NULL OR lease_until < ?1) ORDER BY seq",
            &[&now.millis()],
        )
    }

    fn renew_optimisation_lease(
        &mut self,
        id: &str,
        lease_until: Timestamp,
    ) -> Result<bool, StoreError> {
        let n = self
            .0
            .prepare_cached(
                "UPDATE optimisations SET lease_until = ?2 WHERE id = ?1 AND state = 'running'",
            )
            .st()?
            .execute(params![id, lease_until.millis()])
            .st()?;
        Ok(n == 1)
    }

    fn update_optimisation(&mut self, job: &Optimisation) -> Result<(), StoreError> {
        let n = self
            .0
            .prepare_cached(
                "UPDATE optimisations SET state = ?2, attempts = ?3, solution_id = ?4, error = ?5, \
                 lease_until = ?6, updated = ?7, travel = ?8 WHERE id = ?1",
            )
            .st()?
            .execute(params![
                job.id,
                job.state.as_str(),
                job.attempts,
                job.solution_id,
                job.error,
                job.lease_until.map(|t| t.millis()),
                job.updated.millis(),
                job.travel.map(TravelSource::as_str)
            ])
            .st()?;
        if n != 1 {
            return Err(StoreError::Backend(format!(
                "optimisation {} is gone",
                job.id
            )));
        }
        Ok(())
    }

    fn store_problem(
        &mut self,
        job: &Optimisation,
        problem: &str,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                C::DIALECT.pick(
                    "INSERT OR REPLACE INTO optimisation_problems \
                 (optimisation_id, depot_id, plan_id, problem, created, seq) VALUES (?1, ?2, ?3, ?4, ?5, \
                 (SELECT coalesce(max(seq), 0) + 1 FROM optimisation_problems))",
                    "INSERT INTO optimisation_problems \
                 (optimisation_id, depot_id, plan_id, problem, created, seq) VALUES (?1, ?2, ?3, ?4, ?5, \
                 (SELECT coalesce(max(seq), 0) + 1 FROM optimisation_problems)) \
                 ON CONFLICT (optimisation_id) DO UPDATE SET depot_id = excluded.depot_id, \
                 plan_id = excluded.plan_id, problem = excluded.problem, created = excluded.created, \
                 seq = excluded.seq",
                ),
            )
            .st()?
            .execute(params![job.id, job.depot_id, job.plan_id, problem, now.millis()])
            .st()?;
        self.0
            .prepare_cached(
                "DELETE FROM optimisation_problems WHERE depot_id = ?1 AND seq NOT IN \
                 (SELECT seq FROM optimisation_problems WHERE depot_id = ?1 ORDER BY seq DESC LIMIT ?2)",
            )
            .st()?
            .execute(params![job.depot_id, KEPT_PROBLEMS as i64])
            .st()?;
        Ok(())
    }

    fn get_problem(
        &mut self,
        scope: DepotScope,
        optimisation_id: &str,
    ) -> Result<Option<String>, StoreError> {
        self.0
            .prepare_cached(
                "SELECT problem FROM optimisation_problems WHERE depot_id = ?1 AND optimisation_id = ?2",
            )
            .st()?
            .query_row(params![scope.depot_id, optimisation_id], |r| r.get(0))
            .optional()
            .st()
    }

    fn latest_problem_of_plan(
        &mut self,
        scope: DepotScope,
        plan_id: i64,
    ) -> Result<Option<(String, String)>, StoreError> {
        self.0
            .prepare_cached(
                "SELECT optimisation_id, problem FROM optimisation_problems \
                 WHERE depot_id = ?1 AND plan_id = ?2 ORDER BY seq DESC LIMIT 1",
            )
            .st()?
            .query_row(params![scope.depot_id, plan_id], |r| r.columns())
            .optional()
            .st()
    }
}
