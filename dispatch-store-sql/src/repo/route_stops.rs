//! The stops of a route, each with the orders it serves (`stop_orders`, in order).

use crate::sql::{params, Connection, OptionalExtension, Statement};
use dispatch_core::model::order::Side;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::stop::{Stop, StopVisit};
use dispatch_core::ports::store::StoreError;
use dispatch_core::time::{Date, Timestamp};

use super::order_rows::corrupt;
use super::routes::date;
use super::{ts, Db, Sql};

impl<C: Connection> Db<C> {
    /// The stops of route `route_id` in sequence, each with the orders it serves.
    pub(super) fn stops_of_route(
        &self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<Stop>, StoreError> {
        type StopRow = (Stop, String, String, String);
        let mut stmt = self
            .0
            .prepare_cached(
                "SELECT id, route_id, sequence, side, lat, lng, address, postcode, phone, arrival_date, \
                 arrival, departure_date, departure, planned_distance, completed_ts, created, wait \
                 FROM stops WHERE depot_id = ?1 AND route_id = ?2 ORDER BY sequence",
            )
            .st()?;
        let rows: Vec<StopRow> = stmt
            .query_map(params![scope.depot_id, route_id], |r| {
                let placeholder = Date::from_ymd(1970, 1, 1).expect("a real date");
                Ok((
                    Stop {
                        id: r.get(0)?,
                        route_id: r.get(1)?,
                        sequence: r.get(2)?,
                        visit: StopVisit {
                            order_ids: Vec::new(),
                            side: Side::Delivery,
                            lat: r.get(4)?,
                            lng: r.get(5)?,
                            address: r.get(6)?,
                            postcode: r.get(7)?,
                            phone: r.get(8)?,
                            arrival_date: placeholder,
                            arrival_s: r.get(10)?,
                            wait_s: r.get(16)?,
                            departure_date: placeholder,
                            departure_s: r.get(12)?,
                            planned_distance_m: r.get(13)?,
                        },
                        actual_completed_ts: r.get::<_, Option<i64>>(14)?.map(ts),
                        created: ts(r.get(15)?),
                    },
                    r.get(3)?,
                    r.get(9)?,
                    r.get(11)?,
                ))
            })
            .st()?
            .collect::<Result<Vec<_>, _>>()
            .st()?;
        rows.into_iter()
            .map(|(mut stop, side, arrival, departure)| {
                stop.visit.side = Side::parse(&side).ok_or_else(|| corrupt("stop side"))?;
                stop.visit.arrival_date = date(&arrival)?;
                stop.visit.departure_date = date(&departure)?;
                stop.visit.order_ids = self.stop_orders(stop.id)?;
                Ok(stop)
            })
            .collect()
    }

    /// Replaces the stops of route `route_id` of the depot with `visits`, in their order; the
    /// route's active orders are the caller's to bring in step.
    pub(super) fn write_stops(
        &self,
        scope: DepotScope,
        route_id: i64,
        visits: &[StopVisit],
        now: Timestamp,
    ) -> Result<Vec<Stop>, StoreError> {
        let exists: Option<i64> = self
            .0
            .prepare_cached("SELECT id FROM routes WHERE depot_id = ?1 AND id = ?2")
            .st()?
            .query_row(params![scope.depot_id, route_id], |r| r.get(0))
            .optional()
            .st()?;
        if exists.is_none() {
            return Err(StoreError::Backend(format!(
                "route {route_id} is not in the depot"
            )));
        }
        self.0
            .prepare_cached("DELETE FROM stops WHERE route_id = ?1")
            .st()?
            .execute([route_id])
            .st()?;
        let mut out = Vec::with_capacity(visits.len());
        for (sequence, v) in visits.iter().enumerate() {
            let stop_id: i64 = self.0
                .prepare_cached(
                    "INSERT INTO stops (depot_id, route_id, sequence, side, lat, lng, address, postcode, \
                     phone, arrival_date, arrival, departure_date, departure, planned_distance, created, wait) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16) RETURNING id",
                )
                .st()?
                .query_row(params![
                    scope.depot_id,
                    route_id,
                    sequence as i64,
                    v.side.as_str(),
                    v.lat,
                    v.lng,
                    v.address,
                    v.postcode,
                    v.phone,
                    v.arrival_date.to_string(),
                    v.arrival_s,
                    v.departure_date.to_string(),
                    v.departure_s,
                    v.planned_distance_m,
                    now.millis(),
                    v.wait_s
                ], |r| r.get(0))
                .st()?;
            for (position, order_id) in v.order_ids.iter().enumerate() {
                self.0
                    .prepare_cached(
                        "INSERT INTO stop_orders (stop_id, order_id, position) VALUES (?1, ?2, ?3)",
                    )
                    .st()?
                    .execute(params![stop_id, order_id, position as i64])
                    .st()?;
            }
            out.push(Stop {
                id: stop_id,
                route_id,
                sequence: sequence as u32,
                visit: v.clone(),
                actual_completed_ts: None,
                created: now,
            });
        }
        Ok(out)
    }

    fn stop_orders(&self, stop_id: i64) -> Result<Vec<i64>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached("SELECT order_id FROM stop_orders WHERE stop_id = ?1 ORDER BY position")
            .st()?;
        let ids = stmt
            .query_map([stop_id], |r| r.get(0))
            .st()?
            .collect::<Result<Vec<i64>, _>>()
            .st()?;
        Ok(ids)
    }
}
