//! The in-memory driver repository.

use super::State;
use crate::model::driver::DriverCredential;
use crate::model::driver_visit::{
    DriverRoute, DriverVisit, FeedEntry, FeedKind, PhoneCall, TrackPoint,
};
use crate::model::organisation::{key_lookup, DepotScope};
use crate::model::route::Route;
use crate::ports::store::{DriverRepo, StoreError};
use crate::time::{Date, Timestamp};

/// Every depot's driver-side rows.
#[derive(Debug, Clone, Default)]
pub(super) struct DriverSide {
    credentials: Vec<DriverCredential>,
    /// (depot, route)
    routes: Vec<(i64, DriverRoute)>,
    /// (depot, visit)
    visits: Vec<(i64, DriverVisit)>,
    /// (depot, call)
    calls: Vec<(i64, PhoneCall)>,
    /// (depot, route, point, received), in report order.
    track: Vec<(i64, i64, TrackPoint, Timestamp)>,
    /// (depot, vehicle, message)
    feed: Vec<(i64, i64, FeedEntry)>,
}

impl DriverRepo for State {
    fn insert_driver_credential(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        name: &str,
        key_hash: [u8; 32],
        now: Timestamp,
    ) -> Result<DriverCredential, StoreError> {
        let credential =
            DriverCredential::issued(self.id(), scope, vehicle_id, name, key_hash, now);
        self.driver.credentials.push(credential.clone());
        Ok(credential)
    }

    fn driver_credentials_by_lookup(
        &mut self,
        lookup: i64,
    ) -> Result<Vec<DriverCredential>, StoreError> {
        let vehicles = &self.vehicles;
        Ok(self
            .driver
            .credentials
            .iter()
            .filter(|c| key_lookup(&c.key_hash) == lookup)
            // Vehicles are deleted for real and take their credentials with them.
            .filter(|c| vehicles.iter().any(|v| v.id == c.vehicle_id))
            .cloned()
            .collect())
    }

    fn list_driver_credentials(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
    ) -> Result<Vec<DriverCredential>, StoreError> {
        Ok(self
            .driver
            .credentials
            .iter()
            .filter(|c| c.depot_id == scope.depot_id && c.vehicle_id == vehicle_id)
            .cloned()
            .collect())
    }

    fn revoke_driver_credential(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        id: i64,
        now: Timestamp,
    ) -> Result<Option<DriverCredential>, StoreError> {
        Ok(self
            .driver
            .credentials
            .iter_mut()
            .find(|c| c.depot_id == scope.depot_id && c.vehicle_id == vehicle_id && c.id == id)
            .map(|c| {
                c.revoked.get_or_insert(now);
                c.clone()
            }))
    }

    fn route_of_stop(
        &mut self,
        scope: DepotScope,
        stop_id: i64,
    ) -> Result<Option<i64>, StoreError> {
        Ok(self
            .planning
            .stops
            .iter()
            .find(|(d, s)| *d == scope.depot_id && s.id == stop_id)
            .map(|(_, s)| s.route_id))
    }

    fn vehicle_routes_on(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        date: Date,
    ) -> Result<Vec<Route>, StoreError> {
        let mut out: Vec<Route> = self
            .planning
            .routes
            .iter()
            .filter(|r| {
                r.depot_id == scope.depot_id && r.vehicle_id == Some(vehicle_id) && r.date == date
            })
            .cloned()
            .collect();
        out.sort_by_key(|r| r.id);
        Ok(out)
    }

    fn driver_route(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Option<DriverRoute>, StoreError> {
        Ok(self
            .driver
            .routes
            .iter()
            .find(|(d, r)| *d == scope.depot_id && r.route_id == route_id)
            .map(|(_, r)| r.clone()))
    }

    fn put_driver_route(
        &mut self,
        scope: DepotScope,
        route: &DriverRoute,
    ) -> Result<(), StoreError> {
        self.driver
            .routes
            .retain(|(d, r)| !(*d == scope.depot_id && r.route_id == route.route_id));
        self.driver.routes.push((scope.depot_id, route.clone()));
        Ok(())
    }

    fn driver_visits(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<DriverVisit>, StoreError> {
        let mut out: Vec<DriverVisit> = self
            .driver
            .visits
            .iter()
            .filter(|(d, v)| *d == scope.depot_id && v.route_id == route_id)
            .map(|(_, v)| v.clone())
            .collect();
        out.sort_by_key(|v| v.order_id);
        Ok(out)
    }

    fn put_driver_visit(
        &mut self,
        scope: DepotScope,
        visit: &DriverVisit,
        _now: Timestamp,
    ) -> Result<(), StoreError> {
        self.driver.visits.retain(|(d, v)| {
            !(*d == scope.depot_id && v.route_id == visit.route_id && v.order_id == visit.order_id)
        });
        self.driver.visits.push((scope.depot_id, visit.clone()));
        Ok(())
    }

    fn insert_phone_call(
        &mut self,
        scope: DepotScope,
        call: &PhoneCall,
    ) -> Result<PhoneCall, StoreError> {
        let call = PhoneCall {
            id: self.id(),
            ..call.clone()
        };
        self.driver.calls.push((scope.depot_id, call.clone()));
        Ok(call)
    }

    fn phone_calls(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<PhoneCall>, StoreError> {
        Ok(self
            .driver
            .calls
            .iter()
            .filter(|(d, c)| *d == scope.depot_id && c.route_id == route_id)
            .map(|(_, c)| c.clone())
            .collect())
    }

    fn insert_track_points(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        points: &[TrackPoint],
        now: Timestamp,
    ) -> Result<(), StoreError> {
        for p in points {
            self.driver.track.push((scope.depot_id, route_id, *p, now));
        }
        Ok(())
    }

    fn purge_track_points(
        &mut self,
        received_before: Timestamp,
        limit: usize,
    ) -> Result<usize, StoreError> {
        let head = limit.min(self.driver.track.len());
        let before = self.driver.track.len();
        let mut index = 0;
        self.driver.track.retain(|(.., received)| {
            index += 1;
            index > head || *received >= received_before
        });
        Ok(before - self.driver.track.len())
    }

    fn track(&mut self, scope: DepotScope, route_id: i64) -> Result<Vec<TrackPoint>, StoreError> {
        let mut out: Vec<TrackPoint> = self
            .driver
            .track
            .iter()
            .filter(|(d, r, ..)| *d == scope.depot_id && *r == route_id)
            .map(|(_, _, p, _)| *p)
            .collect();
        // Stable: ties keep report order.
        out.sort_by_key(|p| p.time);
        Ok(out)
    }

    fn append_driver_feed(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        route_id: i64,
        kind: FeedKind,
        now: Timestamp,
    ) -> Result<i64, StoreError> {
        let id = self.id();
        self.driver.feed.push((
            scope.depot_id,
            vehicle_id,
            FeedEntry {
                id,
                route_id,
                kind,
                created: now,
            },
        ));
        Ok(id)
    }

    fn driver_feed_after(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        after: i64,
        limit: usize,
    ) -> Result<Vec<FeedEntry>, StoreError> {
        Ok(self
            .driver
            .feed
            .iter()
            .filter(|(d, v, e)| *d == scope.depot_id && *v == vehicle_id && e.id > after)
            .map(|(_, _, e)| *e)
            .take(limit)
            .collect())
    }

    fn latest_driver_feed(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
    ) -> Result<i64, StoreError> {
        Ok(self
            .driver
            .feed
            .iter()
            .filter(|(d, v, _)| *d == scope.depot_id && *v == vehicle_id)
            .map(|(_, _, e)| e.id)
            .max()
            .unwrap_or(0))
    }

    fn prune_driver_feed(
        &mut self,
        scope: DepotScope,
        before: Timestamp,
    ) -> Result<u64, StoreError> {
        let len = self.driver.feed.len();
        self.driver
            .feed
            .retain(|(d, _, e)| *d != scope.depot_id || e.created >= before);
        Ok((len - self.driver.feed.len()) as u64)
    }
}
