//! The driver side (migration 0007): credentials, the driver's lookups, what drivers report
//! (route start and end, visits, phone calls, the track) and the feed pushed to drivers.

use crate::sql::{params, Connection, OptionalExtension, Row, Statement};
use dispatch_core::model::driver::DriverCredential;
use dispatch_core::model::driver_visit::{
    DriverRoute, DriverVisit, FeedEntry, FeedKind, ItemOutcome, LatLng, PhoneCall, TrackPoint,
    VisitOutcome,
};
use dispatch_core::model::organisation::{key_lookup, DepotScope};
use dispatch_core::model::route::Route;
use dispatch_core::ports::store::{DriverRepo, StoreError};
use dispatch_core::time::{Date, Timestamp};

use super::order_rows::corrupt;
use super::{limit, ts, Db, Sql};

const CREDENTIAL_COLUMNS: &str = "c.id, c.depot_id, d.organisation_id, c.vehicle_id, c.name, \
     c.key_hash, c.created, c.revoked";

fn credential(r: &Row<'_>) -> crate::sql::Result<DriverCredential> {
    let hash: Vec<u8> = r.get(5)?;
    Ok(DriverCredential {
        id: r.get(0)?,
        depot_id: r.get(1)?,
        organisation_id: r.get(2)?,
        vehicle_id: r.get(3)?,
        name: r.get(4)?,
        // The column is CHECKed to 32 bytes; a zero digest matches no presented credential.
        key_hash: hash.try_into().unwrap_or([0; 32]),
        created: ts(r.get(6)?),
        revoked: r.get::<_, Option<i64>>(7)?.map(ts),
    })
}

impl<C: Connection> Db<C> {
    fn credentials_where(
        &self,
        clause: &str,
        values: &[&dyn crate::sql::ToSql],
    ) -> Result<Vec<DriverCredential>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(&format!(
                "SELECT {CREDENTIAL_COLUMNS} FROM driver_credentials c \
                 JOIN depots d ON d.id = c.depot_id WHERE {clause} ORDER BY c.id"
            ))
            .st()?;
        let rows = stmt.query_map(values, credential).st()?;
        rows.collect::<Result<_, _>>().st()
    }
}

impl<C: Connection> DriverRepo for Db<C> {
    fn insert_driver_credential(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        name: &str,
        key_hash: [u8; 32],
        now: Timestamp,
    ) -> Result<DriverCredential, StoreError> {
        let id: i64 = self.0
            .prepare_cached(
                "INSERT INTO driver_credentials (depot_id, vehicle_id, name, key_lookup, key_hash, created) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
            )
            .st()?
            .query_row(params![
                scope.depot_id,
                vehicle_id,
                name,
                key_lookup(&key_hash),
                &key_hash[..],
                now.millis()
            ], |r| r.get(0))
            .st()?;
        Ok(DriverCredential::issued(
            id, scope, vehicle_id, name, key_hash, now,
        ))
    }

    fn driver_credentials_by_lookup(
        &mut self,
        lookup: i64,
    ) -> Result<Vec<DriverCredential>, StoreError> {
        self.credentials_where("c.key_lookup = ?1", &[&lookup])
    }

    fn list_driver_credentials(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
    ) -> Result<Vec<DriverCredential>, StoreError> {
        self.credentials_where(
            "c.depot_id = ?1 AND d.organisation_id = ?2 AND c.vehicle_id = ?3",
            &[&scope.depot_id, &scope.organisation_id, &vehicle_id],
        )
    }

    fn revoke_driver_credential(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        id: i64,
        now: Timestamp,
    ) -> Result<Option<DriverCredential>, StoreError> {
        self.0
            .prepare_cached(
                "UPDATE driver_credentials SET revoked = coalesce(revoked, ?4) \
                 WHERE depot_id = ?1 AND vehicle_id = ?2 AND id = ?3",
            )
            .st()?
            .execute(params![scope.depot_id, vehicle_id, id, now.millis()])
            .st()?;
        Ok(self
            .credentials_where(
                "c.depot_id = ?1 AND d.organisation_id = ?2 AND c.vehicle_id = ?3 AND c.id = ?4",
                &[&scope.depot_id, &scope.organisation_id, &vehicle_id, &id],
            )?
            .pop())
    }

    fn route_of_stop(
        &mut self,
        scope: DepotScope,
        stop_id: i64,
    ) -> Result<Option<i64>, StoreError> {
        self.0
            .prepare_cached("SELECT route_id FROM stops WHERE depot_id = ?1 AND id = ?2")
            .st()?
            .query_row(params![scope.depot_id, stop_id], |r| r.get(0))
            .optional()
            .st()
    }

    fn vehicle_routes_on(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        date: Date,
    ) -> Result<Vec<Route>, StoreError> {
        self.routes_where(
            "r.depot_id = ?1 AND r.vehicle_id = ?2 AND r.date = ?3 ORDER BY r.id",
            &[&scope.depot_id, &vehicle_id, &date.to_string()],
        )
    }

    fn driver_route(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Option<DriverRoute>, StoreError> {
        self.0
            .prepare_cached(
                "SELECT started_lat, started_lng, checkin_submission_id, completed_lat, completed_lng \
                 FROM driver_routes WHERE depot_id = ?1 AND route_id = ?2",
            )
            .st()?
            .query_row(params![scope.depot_id, route_id], |r| {
                Ok(DriverRoute {
                    route_id,
                    started_at: lat_lng(r.get(0)?, r.get(1)?),
                    checkin_submission_id: r.get(2)?,
                    completed_at: lat_lng(r.get(3)?, r.get(4)?),
                })
            })
            .optional()
            .st()
    }

    fn put_driver_route(
        &mut self,
        scope: DepotScope,
        route: &DriverRoute,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                C::DIALECT.pick(
                    "INSERT OR REPLACE INTO driver_routes (route_id, depot_id, started_lat, started_lng, \
                 checkin_submission_id, completed_lat, completed_lng) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    "INSERT INTO driver_routes (route_id, depot_id, started_lat, started_lng, \
                 checkin_submission_id, completed_lat, completed_lng) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
                 ON CONFLICT (route_id) DO UPDATE SET depot_id = excluded.depot_id, \
                 started_lat = excluded.started_lat, started_lng = excluded.started_lng, \
                 checkin_submission_id = excluded.checkin_submission_id, \
                 completed_lat = excluded.completed_lat, completed_lng = excluded.completed_lng",
                ),
            )
            .st()?
            .execute(params![
                route.route_id,
                scope.depot_id,
                route.started_at.map(|p| p.lat),
                route.started_at.map(|p| p.lng),
                route.checkin_submission_id,
                route.completed_at.map(|p| p.lat),
                route.completed_at.map(|p| p.lng),
            ])
            .st()?;
        Ok(())
    }

    fn driver_visits(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<DriverVisit>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(
                "SELECT order_id, arrived_ts, completed_ts, outcome, completed_lat, completed_lng, \
                 failed_reason, driver_notes, delivered, eta_ts, on_delivery_ts, start_eta_ts \
                 FROM driver_visits WHERE depot_id = ?1 AND route_id = ?2 ORDER BY order_id",
            )
            .st()?;
        let rows = stmt
            .query_map(params![scope.depot_id, route_id], |r| {
                let outcome: Option<String> = r.get(3)?;
                let delivered: Option<String> = r.get(8)?;
                Ok((
                    DriverVisit {
                        route_id,
                        order_id: r.get(0)?,
                        arrived: r.get::<_, Option<i64>>(1)?.map(ts),
                        completed: r.get::<_, Option<i64>>(2)?.map(ts),
                        outcome: outcome.as_deref().and_then(VisitOutcome::parse),
                        completed_at: lat_lng(r.get(4)?, r.get(5)?),
                        failed_reason: r.get(6)?,
                        notes: r.get(7)?,
                        delivered: Vec::new(),
                        eta: r.get::<_, Option<i64>>(9)?.map(ts),
                        start_eta: r.get::<_, Option<i64>>(11)?.map(ts),
                        on_delivery: r.get::<_, Option<i64>>(10)?.map(ts),
                    },
                    delivered,
                ))
            })
            .st()?
            .collect::<Result<Vec<_>, _>>()
            .st()?;
        rows.into_iter()
            .map(|(mut visit, delivered)| {
                if let Some(text) = delivered {
                    visit.delivered = decode_outcomes(&text)?;
                }
                Ok(visit)
            })
            .collect()
    }

    fn put_driver_visit(
        &mut self,
        scope: DepotScope,
        visit: &DriverVisit,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let delivered = (!visit.delivered.is_empty()).then(|| encode_outcomes(&visit.delivered));
        self.0
            .prepare_cached(C::DIALECT.pick(
                "INSERT OR REPLACE INTO driver_visits (route_id, order_id, depot_id, arrived_ts, \
                 completed_ts, outcome, completed_lat, completed_lng, failed_reason, driver_notes, \
                 delivered, eta_ts, on_delivery_ts, updated, start_eta_ts) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
                "INSERT INTO driver_visits (route_id, order_id, depot_id, arrived_ts, \
                 completed_ts, outcome, completed_lat, completed_lng, failed_reason, driver_notes, \
                 delivered, eta_ts, on_delivery_ts, updated, start_eta_ts) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) \
                 ON CONFLICT (route_id, order_id) DO UPDATE SET depot_id = excluded.depot_id, \
                 arrived_ts = excluded.arrived_ts, completed_ts = excluded.completed_ts, \
                 outcome = excluded.outcome, completed_lat = excluded.completed_lat, \
                 completed_lng = excluded.completed_lng, failed_reason = excluded.failed_reason, \
                 driver_notes = excluded.driver_notes, delivered = excluded.delivered, \
                 eta_ts = excluded.eta_ts, on_delivery_ts = excluded.on_delivery_ts, \
                 updated = excluded.updated, start_eta_ts = excluded.start_eta_ts",
            ))
            .st()?
            .execute(params![
                visit.route_id,
                visit.order_id,
                scope.depot_id,
                visit.arrived.map(|t| t.millis()),
                visit.completed.map(|t| t.millis()),
                visit.outcome.map(VisitOutcome::as_str),
                visit.completed_at.map(|p| p.lat),
                visit.completed_at.map(|p| p.lng),
                visit.failed_reason,
                visit.notes,
                delivered,
                visit.eta.map(|t| t.millis()),
                visit.on_delivery.map(|t| t.millis()),
                now.millis(),
                visit.start_eta.map(|t| t.millis()),
            ])
            .st()?;
        Ok(())
    }

    fn insert_phone_call(
        &mut self,
        scope: DepotScope,
        call: &PhoneCall,
    ) -> Result<PhoneCall, StoreError> {
        let id: i64 = self
            .0
            .prepare_cached(
                "INSERT INTO driver_phone_calls (route_id, order_id, depot_id, initiated_at, \
                 recorded_at, lat, lng) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
            )
            .st()?
            .query_row(
                params![
                    call.route_id,
                    call.order_id,
                    scope.depot_id,
                    call.initiated_at.millis(),
                    call.recorded_at.millis(),
                    call.position.map(|p| p.lat),
                    call.position.map(|p| p.lng),
                ],
                |r| r.get(0),
            )
            .st()?;
        Ok(PhoneCall { id, ..call.clone() })
    }

    fn phone_calls(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<PhoneCall>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(
                "SELECT id, order_id, initiated_at, recorded_at, lat, lng FROM driver_phone_calls \
                 WHERE depot_id = ?1 AND route_id = ?2 ORDER BY id",
            )
            .st()?;
        let rows = stmt
            .query_map(params![scope.depot_id, route_id], |r| {
                Ok(PhoneCall {
                    id: r.get(0)?,
                    route_id,
                    order_id: r.get(1)?,
                    initiated_at: ts(r.get(2)?),
                    recorded_at: ts(r.get(3)?),
                    position: lat_lng(r.get(4)?, r.get(5)?),
                })
            })
            .st()?;
        rows.collect::<Result<_, _>>().st()
    }

    fn insert_track_points(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        points: &[TrackPoint],
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(
                "INSERT INTO route_positions (route_id, depot_id, lat, lng, at, received) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .st()?;
        for p in points {
            stmt.execute(params![
                route_id,
                scope.depot_id,
                p.at.lat,
                p.at.lng,
                p.time.millis(),
                now.millis()
            ])
            .st()?;
        }
        Ok(())
    }

    fn track(&mut self, scope: DepotScope, route_id: i64) -> Result<Vec<TrackPoint>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(
                "SELECT lat, lng, at FROM route_positions WHERE depot_id = ?1 AND route_id = ?2 \
                 ORDER BY at, id",
            )
            .st()?;
        let rows = stmt
            .query_map(params![scope.depot_id, route_id], |r| {
                Ok(TrackPoint {
                    at: LatLng {
                        lat: r.get(0)?,
                        lng: r.get(1)?,
                    },
                    time: ts(r.get(2)?),
                })
            })
            .st()?;
        rows.collect::<Result<_, _>>().st()
    }

    fn append_driver_feed(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        route_id: i64,
        kind: FeedKind,
        now: Timestamp,
    ) -> Result<i64, StoreError> {
        let id: i64 = self
            .0
            .prepare_cached(
                "INSERT INTO driver_feed (depot_id, vehicle_id, route_id, kind, created) \
                 VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
            )
            .st()?
            .query_row(
                params![
                    scope.depot_id,
                    vehicle_id,
                    route_id,
                    kind.as_str(),
                    now.millis()
                ],
                |r| r.get(0),
            )
            .st()?;
        Ok(id)
    }

    fn driver_feed_after(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        after: i64,
        limit: usize,
    ) -> Result<Vec<FeedEntry>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(
                "SELECT id, route_id, kind, created FROM driver_feed \
                 WHERE depot_id = ?1 AND vehicle_id = ?2 AND id > ?3 ORDER BY id LIMIT ?4",
            )
            .st()?;
        let rows = stmt
            .query_map(
                params![scope.depot_id, vehicle_id, after, limit as i64],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, i64>(3)?,
                    ))
                },
            )
            .st()?
            .collect::<Result<Vec<_>, _>>()
            .st()?;
        rows.into_iter()
            .map(|(id, route_id, kind, created)| {
                Ok(FeedEntry {
                    id,
                    route_id,
                    kind: FeedKind::parse(&kind).ok_or_else(|| corrupt("driver_feed.kind"))?,
                    created: ts(created),
                })
            })
            .collect()
    }

    fn latest_driver_feed(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
    ) -> Result<i64, StoreError> {
        self.0
            .prepare_cached(
                "SELECT coalesce(max(id), 0) FROM driver_feed WHERE depot_id = ?1 AND vehicle_id = ?2",
            )
            .st()?
            .query_row(params![scope.depot_id, vehicle_id], |r| r.get(0))
            .st()
    }

    fn purge_track_points(
        &mut self,
        received_before: Timestamp,
        limit_to: usize,
    ) -> Result<usize, StoreError> {
        // The oldest points by id (the primary key: no index on `received` to keep up on every
        // report), of which those received before the cut. Ids grow with the time of receipt,
        // so a look at the head finds the expired points in O(limit) and one that is not yet
        // old ends the purge: the head of the table is only ever cut.
        let mut stmt = self
            .0
            .prepare_cached(
                "DELETE FROM route_positions WHERE id IN (\
                 SELECT id FROM (SELECT id, received FROM route_positions ORDER BY id LIMIT ?2) head \
                 WHERE received < ?1)",
            )
            .st()?;
        stmt.execute(params![received_before.millis(), limit(limit_to)])
            .st()
    }

    fn prune_driver_feed(
        &mut self,
        scope: DepotScope,
        before: Timestamp,
    ) -> Result<u64, StoreError> {
        let n = self
            .0
            .prepare_cached("DELETE FROM driver_feed WHERE depot_id = ?1 AND created < ?2")
            .st()?
            .execute(params![scope.depot_id, before.millis()])
            .st()?;
        Ok(n as u64)
    }
}

fn lat_lng(lat: Option<f64>, lng: Option<f64>) -> Option<LatLng> {
    Some(LatLng {
        lat: lat?,
        lng: lng?,
    })
}

/// `delivered` as stored: `[[line_item_id, ordered, delivered, failed_reason|null], ...]`.
fn encode_outcomes(outcomes: &[ItemOutcome]) -> String {
    serde_json::Value::Array(
        outcomes
            .iter()
            .map(|o| serde_json::json!([o.line_item_id, o.ordered, o.delivered, o.failed_reason]))
            .collect(),
    )
    .to_string()
}

fn decode_outcomes(text: &str) -> Result<Vec<ItemOutcome>, StoreError> {
    let bad = || corrupt("driver_visits.delivered");
    let value: serde_json::Value = serde_json::from_str(text).map_err(|_| bad())?;
    value
        .as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|row| {
            let row = row.as_array().filter(|r| r.len() == 4).ok_or_else(bad)?;
            Ok(ItemOutcome {
                line_item_id: row[0].as_i64().ok_or_else(bad)?,
                ordered: row[1].as_i64().ok_or_else(bad)?,
                delivered: row[2].as_i64().ok_or_else(bad)?,
                failed_reason: row[3].as_str().map(str::to_owned),
            })
        })
        .collect()
}
