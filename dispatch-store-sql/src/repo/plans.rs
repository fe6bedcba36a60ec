//! Plans and their solutions. Plan and solution ids share the
//! `plan_ids` sequence.

use crate::sql::{params, Connection, OptionalExtension, Row, Statement};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::plan::{NewPlan, Plan, Solution, UnservedOrder};
use dispatch_core::paging::{Cursor, Page, PageRequest};
use dispatch_core::ports::store::{PlanRepo, StoreError};
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
