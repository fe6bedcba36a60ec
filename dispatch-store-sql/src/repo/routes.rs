//! Routes and their stops (with the orders each stop serves).

use std::collections::HashSet;

use crate::sql::{params, Connection, OptionalExtension, Row, Statement};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::route::{NewRoute, Route, RouteBreak, RouteTiming};
use dispatch_core::model::stop::{Stop, StopVisit};
use dispatch_core::paging::{Cursor, Page, PageRequest};
use dispatch_core::ports::store::{RouteRepo, RouteSummary, StoreError};
use dispatch_core::time::{Date, Timestamp};

use super::batch_sql::{in_list, integer_list};
use super::order_rows::{corrupt, keyset};
use super::{ts, Db, Sql};

const ROUTE_COLUMNS: &str = "r.id, r.depot_id, r.plan_id, r.solution_id, r.name, r.dispatched, \
     r.is_locked, r.date, r.vehicle_id, r.start_time, r.end_time, r.total_time, r.travel_time, \
     r.operation_time, r.planned_distance, r.actual_distance, r.started_ts, r.completed_ts, \
     r.created, r.updated, r.breaks";

pub(super) fn date(text: &str) -> Result<Date, StoreError> {
    Date::parse(text).ok_or_else(|| corrupt("date"))
}

/// Breaks as stored: `[[start, end], ...]` in seconds.
fn breaks_text(breaks: &[RouteBreak]) -> String {
    let pairs: Vec<[i64; 2]> = breaks.iter().map(|b| [b.start_s, b.end_s]).collect();
    serde_json::to_string(&pairs).expect("integers encode")
}

fn breaks_of(text: &str) -> Result<Vec<RouteBreak>, StoreError> {
    let pairs: Vec<[i64; 2]> = serde_json::from_str(text).map_err(|_| corrupt("route breaks"))?;
    Ok(pairs
        .into_iter()
        .map(|[start_s, end_s]| RouteBreak { start_s, end_s })
        .collect())
}

/// A route row and what is decoded after it: its date and breaks, as stored.
type RouteRow = (Route, String, String);

fn route_row(r: &Row<'_>) -> crate::sql::Result<RouteRow> {
    let route = Route {
        id: r.get(0)?,
        depot_id: r.get(1)?,
        plan_id: r.get(2)?,
        solution_id: r.get(3)?,
        name: r.get(4)?,
        dispatched: r.get(5)?,
        is_locked: r.get(6)?,
        date: Date::from_ymd(1970, 1, 1).expect("a real date"),
        vehicle_id: r.get(8)?,
        timing: RouteTiming {
            start_time_s: r.get(9)?,
            end_time_s: r.get(10)?,
            total_time_s: r.get(11)?,
            travel_time_s: r.get(12)?,
            operation_time_s: r.get(13)?,
            distance_m: r.get(14)?,
            breaks: Vec::new(),
        },
        actual_distance_m: r.get(15)?,
        started_ts: r.get::<_, Option<i64>>(16)?.map(ts),
        completed_ts: r.get::<_, Option<i64>>(17)?.map(ts),
        created: ts(r.get(18)?),
        updated: ts(r.get(19)?),
    };
    Ok((route, r.get(7)?, r.get(20)?))
}

fn dated((mut route, day, breaks): RouteRow) -> Result<Route, StoreError> {
    route.date = date(&day)?;
    route.timing.breaks = breaks_of(&breaks)?;
    Ok(route)
}

impl<C: Connection> Db<C> {
    /// The depot's routes matching `clause` (over `routes r`), decoded.
    pub(super) fn routes_where(
        &self,
        clause: &str,
        values: &[&dyn crate::sql::ToSql],
    ) -> Result<Vec<Route>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(&format!(
                "SELECT {ROUTE_COLUMNS} FROM routes r WHERE {clause}"
            ))
            .st()?;
        let rows = stmt
            .query_map(values, route_row)
            .st()?
            .collect::<Result<Vec<_>, _>>()
            .st()?;
        rows.into_iter().map(dated).collect()
    }

    /// Brings `active_route_orders` in step with route `route_id`: a row per order with a stop
    /// on it while it is dispatched and not completed, none otherwise. An order active on
    /// another route breaks the table's primary key: [`StoreError::Conflict`], and the caller's
    /// transaction rolls back.
    fn sync_active_orders(&self, route_id: i64) -> Result<(), StoreError> {
        let active = C::DIALECT.pick(
            "r.dispatched = 1 AND r.completed_ts IS NULL",
            "r.dispatched AND r.completed_ts IS NULL",
        );
        self.0
            .prepare_cached(&format!(
                "DELETE FROM active_route_orders WHERE route_id = ?1 AND ( \
                 NOT EXISTS (SELECT 1 FROM routes r WHERE r.id = ?1 AND {active}) \
                 OR order_id NOT IN (SELECT so.order_id FROM stop_orders so \
                 JOIN stops s ON s.id = so.stop_id WHERE s.route_id = ?1))"
            ))
            .st()?
            .execute([route_id])
            .st()?;
        self.0
            .prepare_cached(&format!(
                "INSERT INTO active_route_orders (order_id, route_id, depot_id) \
                 SELECT DISTINCT so.order_id, r.id, r.depot_id FROM stop_orders so \
                 JOIN stops s ON s.id = so.stop_id JOIN routes r ON r.id = s.route_id \
                 WHERE r.id = ?1 AND {active} AND NOT EXISTS (SELECT 1 FROM active_route_orders a \
                 WHERE a.order_id = so.order_id AND a.route_id = ?1)"
            ))
            .st()?
            .execute([route_id])
            .st()
            .map_err(|e| match e {
                StoreError::Conflict(_) => StoreError::Conflict(format!(
                    "an order of route {route_id} is already on another dispatched route"
                )),
                other => other,
            })?;
        Ok(())
    }
}

impl<C: Connection> RouteRepo for Db<C> {
    fn insert_route(
        &mut self,
        scope: DepotScope,
        route: &NewRoute,
        now: Timestamp,
    ) -> Result<Route, StoreError> {
        let t = &route.timing;
        let id: i64 = self.0
            .prepare_cached(
                "INSERT INTO routes (depot_id, plan_id, solution_id, name, date, vehicle_id, start_time, \
                 end_time, total_time, travel_time, operation_time, planned_distance, created, updated, \
                 breaks) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13, ?14) \
                 RETURNING id",
            )
            .st()?
            .query_row(params![
                scope.depot_id,
                route.plan_id,
                route.solution_id,
                route.name,
                route.date.to_string(),
                route.vehicle_id,
                t.start_time_s,
                t.end_time_s,
                t.total_time_s,
                t.travel_time_s,
                t.operation_time_s,
                t.distance_m,
                now.millis(),
                breaks_text(&t.breaks)
            ], |r| r.get(0))
            .st()?;
        Ok(route.stored(id, scope.depot_id, now))
    }

    fn get_route(&mut self, scope: DepotScope, id: i64) -> Result<Option<Route>, StoreError> {
        Ok(self
            .routes_where("r.depot_id = ?1 AND r.id = ?2", &[&scope.depot_id, &id])?
            .pop())
    }

    fn update_route(&mut self, scope: DepotScope, route: &Route) -> Result<bool, StoreError> {
        let t = &route.timing;
        // Only a change of the flags moves the route's orders in or out of the active set: a
        // driver's progress on a route does not rewrite its rows.
        let was_active: Option<bool> = self
            .0
            .prepare_cached(
                "SELECT dispatched, completed_ts IS NULL FROM routes WHERE depot_id = ?1 AND id = ?2",
            )
            .st()?
            .query_row(params![scope.depot_id, route.id], |r| {
                Ok(r.get::<_, bool>(0)? && r.get::<_, bool>(1)?)
            })
            .optional()
            .st()?;
        let Some(was_active) = was_active else {
            return Ok(false);
        };
        let n = self
            .0
            .prepare_cached(
                "UPDATE routes SET name = ?3, dispatched = ?4, is_locked = ?5, vehicle_id = ?6, \
                 start_time = ?7, end_time = ?8, total_time = ?9, travel_time = ?10, operation_time = ?11, \
                 planned_distance = ?12, actual_distance = ?13, started_ts = ?14, completed_ts = ?15, \
                 updated = ?16, breaks = ?17 WHERE depot_id = ?1 AND id = ?2",
            )
            .st()?
            .execute(params![
                scope.depot_id,
                route.id,
                route.name,
                route.dispatched,
                route.is_locked,
                route.vehicle_id,
                t.start_time_s,
                t.end_time_s,
                t.total_time_s,
                t.travel_time_s,
                t.operation_time_s,
                t.distance_m,
                route.actual_distance_m,
                route.started_ts.map(|x| x.millis()),
                route.completed_ts.map(|x| x.millis()),
                route.updated.millis(),
                breaks_text(&t.breaks)
            ])
            .st()?;
        if was_active != (route.dispatched && route.completed_ts.is_none()) {
            self.sync_active_orders(route.id)?;
        }
        Ok(n == 1)
    }

    fn list_routes(
        &mut self,
        scope: DepotScope,
        page: &PageRequest,
    ) -> Result<Page<RouteSummary>, StoreError> {
        let mut conditions = vec!["depot_id = ?"];
        let mut values: Vec<Box<dyn crate::sql::ToSql>> = vec![Box::new(scope.depot_id)];
        keyset(page, "", &mut conditions, &mut values);
        let sql = format!(
            "SELECT {ROUTE_COLUMNS}, (SELECT count(*) FROM stops s WHERE s.route_id = r.id) \
             FROM (SELECT * FROM routes WHERE {} ORDER BY updated DESC, id DESC LIMIT {}) r \
             ORDER BY r.updated DESC, r.id DESC",
            conditions.join(" AND "),
            page.limit + 1
        );
        let mut stmt = self.0.prepare_cached(&sql).st()?;
        let rows = stmt
            .query_map(crate::sql::params_from_iter(values.iter()), |r| {
                Ok((route_row(r)?, r.get::<_, u32>(21)?))
            })
            .st()?
            .collect::<Result<Vec<_>, _>>()
            .st()?;
        let mut items = rows
            .into_iter()
            .map(|(row, stops)| {
                Ok(RouteSummary {
                    route: dated(row)?,
                    stops,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let more = items.len() > page.limit;
        items.truncate(page.limit);
        let next = more.then(|| {
            let last = &items.last().expect("a full page").route;
            Cursor {
                updated: last.updated,
                id: last.id,
            }
        });
        Ok(Page { items, next })
    }

    fn routes_of_plan(
        &mut self,
        scope: DepotScope,
        plan_id: i64,
    ) -> Result<Vec<Route>, StoreError> {
        self.routes_where(
            "r.depot_id = ?1 AND r.plan_id = ?2 ORDER BY r.id",
            &[&scope.depot_id, &plan_id],
        )
    }

    fn routes_on_date(&mut self, scope: DepotScope, date: Date) -> Result<Vec<Route>, StoreError> {
        self.routes_where(
            "r.depot_id = ?1 AND r.date = ?2 ORDER BY r.id",
            &[&scope.depot_id, &date.to_string()],
        )
    }

    fn routes_of_order(
        &mut self,
        scope: DepotScope,
        order_id: i64,
    ) -> Result<Vec<Route>, StoreError> {
        self.routes_where(
            "r.depot_id = ?1 AND r.id IN (SELECT s.route_id FROM stop_orders so \
             JOIN stops s ON s.id = so.stop_id WHERE so.order_id = ?2) ORDER BY r.id",
            &[&scope.depot_id, &order_id],
        )
    }

    fn orders_with_stops(
        &mut self,
        scope: DepotScope,
        order_ids: &[i64],
    ) -> Result<HashSet<i64>, StoreError> {
        // The ids travel as one parameter, so a list of any length is the same statement,
        // prepared and planned once per connection, spelt so that the index on
        // `stop_orders.order_id` answers it.
        let mut q = self
            .0
            .prepare_cached(&format!(
                "SELECT DISTINCT so.order_id FROM stop_orders so JOIN stops s ON s.id = so.stop_id \
                 JOIN routes r ON r.id = s.route_id WHERE r.depot_id = ?1 AND so.order_id {}",
                in_list(C::DIALECT, 2, true)
            ))
            .st()?;
        let listed = integer_list(C::DIALECT, order_ids);
        let mut served = HashSet::new();
        for id in q
            .query_map(params![scope.depot_id, listed], |r| r.get(0))
            .st()?
        {
            served.insert(id.st()?);
        }
        Ok(served)
    }

    fn list_stops(&mut self, scope: DepotScope, route_id: i64) -> Result<Vec<Stop>, StoreError> {
        self.stops_of_route(scope, route_id)
    }

    /// The stops written, then the route's active orders brought in step with them: an order
    /// a dispatched route's new stops serve that is active on another route fails the write.
    fn replace_stops(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        visits: &[StopVisit],
        now: Timestamp,
    ) -> Result<Vec<Stop>, StoreError> {
        let stops = self.write_stops(scope, route_id, visits, now)?;
        self.sync_active_orders(route_id)?;
        Ok(stops)
    }
}
