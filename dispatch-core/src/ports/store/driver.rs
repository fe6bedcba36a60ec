//! The driver side's storage: credentials per vehicle (looked up across depots by digest, like
//! access keys) and the lookups that tie a driver request to a route.

use super::StoreError;
use crate::model::driver::DriverCredential;
use crate::model::driver_visit::{
    DriverRoute, DriverVisit, FeedEntry, FeedKind, PhoneCall, TrackPoint,
};
use crate::model::organisation::DepotScope;
use crate::model::route::Route;
use crate::time::{Date, Timestamp};

/// Driver credentials and the driver's view of routes.
pub trait DriverRepo {
    /// Stores a credential for a vehicle of the depot.
    fn insert_driver_credential(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        name: &str,
        key_hash: [u8; 32],
        now: Timestamp,
    ) -> Result<DriverCredential, StoreError>;
    /// Credentials of any depot whose digest starts with `lookup` (see
    /// [`crate::model::organisation::key_lookup`]), revoked ones included.
    fn driver_credentials_by_lookup(
        &mut self,
        lookup: i64,
    ) -> Result<Vec<DriverCredential>, StoreError>;
    /// The vehicle's credentials, revoked ones included, by id.
    fn list_driver_credentials(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
    ) -> Result<Vec<DriverCredential>, StoreError>;
    /// Marks a credential of the vehicle revoked (a second revocation keeps the first time);
    /// the credential as it now is, `None` when the vehicle has no such credential.
    fn revoke_driver_credential(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        id: i64,
        now: Timestamp,
    ) -> Result<Option<DriverCredential>, StoreError>;
    /// The route of a stop of the depot, `None` when the depot has no such stop.
    fn route_of_stop(&mut self, scope: DepotScope, stop_id: i64)
        -> Result<Option<i64>, StoreError>;
    /// The vehicle's routes on `date` (dispatched or not), by id.
    fn vehicle_routes_on(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        date: Date,
    ) -> Result<Vec<Route>, StoreError>;
    /// The driver side of a route, once started.
    fn driver_route(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Option<DriverRoute>, StoreError>;
    /// Stores the driver side of a route (insert or replace).
    fn put_driver_route(
        &mut self,
        scope: DepotScope,
        route: &DriverRoute,
    ) -> Result<(), StoreError>;
    /// Every visit record of a route, by order id.
    fn driver_visits(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<DriverVisit>, StoreError>;
    /// Stores a visit record (insert or replace).
    fn put_driver_visit(
        &mut self,
        scope: DepotScope,
        visit: &DriverVisit,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// Records a phone call.
    fn insert_phone_call(
        &mut self,
        scope: DepotScope,
        call: &PhoneCall,
    ) -> Result<PhoneCall, StoreError>;
    /// The route's phone calls, oldest first.
    fn phone_calls(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<PhoneCall>, StoreError>;
    /// Appends reported positions to the route's track.
    fn insert_track_points(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        points: &[TrackPoint],
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// Of the `limit` track points stored first (of every depot), deletes those the service
    /// received before `received_before`; how many. Points are stored as they are received, so
    /// expired points are found at the head, a track loses its beginning first, and a purge
    /// that finds fewer than `limit` has nothing more to do.
    fn purge_track_points(
        &mut self,
        received_before: Timestamp,
        limit: usize,
    ) -> Result<usize, StoreError>;
    /// The route's track in time order (ties in report order).
    fn track(&mut self, scope: DepotScope, route_id: i64) -> Result<Vec<TrackPoint>, StoreError>;
    /// Appends a message to the vehicle's feed; its id.
    fn append_driver_feed(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        route_id: i64,
        kind: FeedKind,
        now: Timestamp,
    ) -> Result<i64, StoreError>;
    /// The vehicle's feed messages with an id above `after`, oldest first, at most `limit`.
    fn driver_feed_after(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        after: i64,
        limit: usize,
    ) -> Result<Vec<FeedEntry>, StoreError>;
    /// The id of the vehicle's latest feed message (0 when none).
    fn latest_driver_feed(&mut self, scope: DepotScope, vehicle_id: i64)
        -> Result<i64, StoreError>;
    /// Deletes the depot's feed messages created before `before`; how many. Ids are never
    /// reused, so cursors held by subscribers stay meaningful.
    fn prune_driver_feed(
        &mut self,
        scope: DepotScope,
        before: Timestamp,
    ) -> Result<u64, StoreError>;
}
