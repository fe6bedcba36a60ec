//! Plans, their solutions and the optimisation queue. Plan and solution ids share the
//! `plan_ids` sequence.

use crate::sql::{params, Connection, OptionalExtension, Row, Statement};
use dispatch_core::model::optimisation::{JobState, Optimisation, Queue};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::plan::{NewPlan, Plan, Solution, UnservedOrder};
use dispatch_core::model::travel::TravelSource;
use dispatch_core::paging::{Cursor, Page, PageRequest};
use dispatch_core::ports::store::{OptimisationRepo, PlanRepo, StoreError, KEPT_PROBLEMS};
use dispatch_core::time::{Date, Timestamp};
use serde_json::{json, Value};

use super::order_rows::{corrupt, keyset};
use super::{ts, Db, Sql};

const PLAN_COLUMNS: &str = "id, depot_id, date, dispatched, active_solution_id, created, updated";

fn plan_row(r: &Row<'_>) -> crate::sql::Result<(Plan, String)> {
    let plan = Plan {
        id: r.get(0)?,
        depot_id: r.get(1)?,
        date: Date::from_ymd(1970, 1, 1).expect("a real date"),
        dispatched: r.get(3)?,
        active_solution_id: r.get(4)?,
        created: ts(r.get(5)?),
        updated: ts(r.get(6)?),
    };
    Ok((plan, r.get(2)?))
}

fn with_date((mut plan, date): (Plan, String)) -> Result<Plan, StoreError> {
    plan.date = Date::parse(&date).ok_or_else(|| corrupt("plan date"))?;
    Ok(plan)
}

fn unserved_json(items: &[UnservedOrder]) -> String {
    Value::Array(
        items
            .iter()
            .map(|u| json!({"order_id": u.order_id, "reason": u.reason, "description": u.description}))
            .collect(),
    )
    .to_string()
}

fn read_unserved(text: &str) -> Result<Vec<UnservedOrder>, StoreError> {
    let value: Value = serde_json::from_str(text).map_err(|_| corrupt("unserved"))?;
    let items = value.as_array().ok_or_else(|| corrupt("unserved"))?;
    items
        .iter()
        .map(|u| {
            Some(UnservedOrder {
                order_id: u.get("order_id")?.as_i64()?,
                reason: u.get("reason")?.as_str()?.to_owned(),
                description: u.get("description")?.as_str()?.to_owned(),
            })
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| corrupt("unserved"))
}

impl<C: Connection> Db<C> {
    /// The next id of the plan and solution sequence.
    fn next_plan_id(&self) -> Result<i64, StoreError> {
        let sql = C::DIALECT.pick(
            "INSERT INTO plan_ids DEFAULT VALUES RETURNING id",
            "SELECT nextval('plan_ids')",
        );
        self.0.insert(sql, params![]).st()
    }
}

impl<C: Connection> PlanRepo for Db<C> {
    fn insert_plan(
        &mut self,
        scope: DepotScope,
        plan: &NewPlan,
        now: Timestamp,
    ) -> Result<Plan, StoreError> {
        let id = self.next_plan_id()?;
        self.0
            .prepare_cached(
                "INSERT INTO plans (id, depot_id, date, created, updated) VALUES (?1, ?2, ?3, ?4, ?4)",
            )
            .st()?
            .execute(params![id, scope.depot_id, plan.date.to_string(), now.millis()])
            .st()?;
        Ok(plan.stored(id, scope.depot_id, now))
    }

    fn get_plan(&mut self, scope: DepotScope, id: i64) -> Result<Option<Plan>, StoreError> {
        self.0
            .prepare_cached(&format!(
                "SELECT {PLAN_COLUMNS} FROM plans WHERE depot_id = ?1 AND id = ?2"
            ))
            .st()?
            .query_row(params![scope.depot_id, id], plan_row)
            .optional()
            .st()?
            .map(with_date)
            .transpose()
    }

    fn list_plans(
        &mut self,
        scope: DepotScope,
        page: &PageRequest,
    ) -> Result<Page<Plan>, StoreError> {
        let mut conditions = vec!["depot_id = ?"];
        let mut values: Vec<Box<dyn crate::sql::ToSql>> = vec![Box::new(scope.depot_id)];
        keyset(page, "", &mut conditions, &mut values);
        let sql = format!(
            "SELECT {PLAN_COLUMNS} FROM plans WHERE {} ORDER BY updated DESC, id DESC LIMIT {}",
            conditions.join(" AND "),
            page.limit + 1
        );
        let mut stmt = self.0.prepare_cached(&sql).st()?;
        let rows = stmt
            .query_map(crate::sql::params_from_iter(values.iter()), plan_row)
            .st()?
            .collect::<Result<Vec<_>, _>>()
            .st()?;
        let mut items = rows
            .into_iter()
            .map(with_date)
            .collect::<Result<Vec<_>, _>>()?;
        let more = items.len() > page.limit;
        items.truncate(page.limit);
        let next = more.then(|| {
            let last = items.last().expect("a full page");
            Cursor {
                updated: last.updated,
                id: last.id,
            }
        });
        Ok(Page { items, next })
    }

    fn update_plan(&mut self, scope: DepotScope, plan: &Plan) -> Result<bool, StoreError> {
        let n = self
            .0
            .prepare_cached(
                "UPDATE plans SET dispatched = ?3, active_solution_id = ?4, updated = ?5 \
                 WHERE depot_id = ?1 AND id = ?2",
            )
            .st()?
            .execute(params![
                scope.depot_id,
                plan.id,
                plan.dispatched,
                plan.active_solution_id,
                plan.updated.millis()
            ])
            .st()?;
        Ok(n == 1)
    }

    fn delete_plan(&mut self, scope: DepotScope, id: i64) -> Result<bool, StoreError> {
        // Routes, stops, solutions and jobs go with it (ON DELETE CASCADE).
        let n = self
            .0
            .prepare_cached("DELETE FROM plans WHERE depot_id = ?1 AND id = ?2")
            .st()?
            .execute(params![scope.depot_id, id])
            .st()?;
        Ok(n == 1)
    }

    fn insert_solution(
        &mut self,
        scope: DepotScope,
        plan_id: i64,
        optimisation_id: &str,
        unserved: &[UnservedOrder],
        now: Timestamp,
    ) -> Result<Solution, StoreError> {
        let id = self.next_plan_id()?;
        self.0
            .prepare_cached(
                "INSERT INTO plan_solutions (id, depot_id, plan_id, optimisation_id, unserved, created) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .st()?
            .execute(params![
                id,
                scope.depot_id,
                plan_id,
                optimisation_id,
                unserved_json(unserved),
                now.millis()
            ])
            .st()?;
        Ok(Solution {
            id,
            plan_id,
            optimisation_id: optimisation_id.into(),
            unserved: unserved.to_vec(),
            created: now,
        })
    }

    fn get_solution(&mut self, scope: DepotScope, id: i64) -> Result<Option<Solution>, StoreError> {
        let row = self
            .0
            .prepare_cached(
                "SELECT plan_id, optimisation_id, unserved, created FROM plan_solutions \
                 WHERE depot_id = ?1 AND id = ?2",
            )
            .st()?
            .query_row(params![scope.depot_id, id], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                ))
            })
            .optional()
            .st()?;
        row.map(|(plan_id, optimisation_id, unserved, created)| {
            Ok(Solution {
                id,
                plan_id,
                optimisation_id,
                unserved: read_unserved(&unserved)?,
                created: ts(created),
            })
        })
        .transpose()
    }

    fn plan_scope(&mut self, plan_id: i64) -> Result<Option<DepotScope>, StoreError> {
        self.0
            .prepare_cached(
                "SELECT d.organisation_id, d.id FROM plans p JOIN depots d ON d.id = p.depot_id \
                 WHERE p.id = ?1",
            )
            .st()?
            .query_row([plan_id], |r| {
                Ok(DepotScope {
                    organisation_id: r.get(0)?,
                    depot_id: r.get(1)?,
                })
            })
            .optional()
            .st()
    }

    fn order_ids_due(&mut self, scope: DepotScope, date: Date) -> Result<Vec<i64>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(
                C::DIALECT.pick(
                    "SELECT id FROM orders WHERE depot_id = ?1 AND delivery_date = ?2 AND deleted = 0 \
                 ORDER BY id",
                    "SELECT id FROM orders WHERE depot_id = ?1 AND delivery_date = ?2 AND deleted = FALSE \
                 ORDER BY id",
                ),
            )
            .st()?;
        let ids = stmt
            .query_map(params![scope.depot_id, date.to_string()], |r| r.get(0))
            .st()?
            .collect::<Result<Vec<i64>, _>>()
            .st()?;
        Ok(ids)
    }
}

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
