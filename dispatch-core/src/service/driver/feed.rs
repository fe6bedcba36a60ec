//! The feed of route changes pushed to drivers ("the route is pushed to the driver" on
//! dispatch, and again on every edit). Each change of a vehicle's dispatched route appends one
//! message in the change's own transaction ([`route_changed`]); a subscriber resumes after the
//! last message id it saw, so nothing committed while it was away is missed.

use crate::model::driver::Driver;
use crate::model::driver_visit::{FeedEntry, FeedKind};
use crate::model::organisation::DepotScope;
use crate::model::route::Route;
use crate::ports::store::{Store, StoreError, StoreTx};
use crate::service::ServiceError;
use crate::time::Timestamp;

/// Most messages handed out at once.
pub const MAX_BATCH: usize = 100;
/// How long feed messages are kept: a driver's app cares about the changes of its day, and a
/// subscriber away longer than this resumes with the changes still kept (the route reads show
/// the present anyway).
pub const FEED_RETENTION_MS: i64 = 3 * 86_400_000;

/// Tells the route's vehicle that its dispatched route was dispatched, edited or deleted.
/// **Call it in the transaction of the change.** Routes that are not dispatched or have no
/// vehicle have no driver to tell. The depot's messages older than [`FEED_RETENTION_MS`] are
/// pruned on the way, so the feed holds a few days of changes whatever its age.
pub fn route_changed(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route: &Route,
    kind: FeedKind,
    now: Timestamp,
) -> Result<(), StoreError> {
    if let (true, Some(vehicle_id)) = (route.dispatched, route.vehicle_id) {
        tx.prune_driver_feed(scope, now.add_millis(-FEED_RETENTION_MS))?;
        tx.append_driver_feed(scope, vehicle_id, route.id, kind, now)?;
    }
    Ok(())
}

/// The vehicle's messages after `after`, oldest first (at most [`MAX_BATCH`]).
pub fn after(
    store: &dyn Store,
    driver: &Driver,
    after: i64,
) -> Result<Vec<FeedEntry>, ServiceError> {
    Ok(store.read(|tx| tx.driver_feed_after(driver.scope, driver.vehicle_id, after, MAX_BATCH))?)
}

/// The id of the vehicle's latest message (0 when none): where a new subscriber starts.
pub fn latest(store: &dyn Store, driver: &Driver) -> Result<i64, ServiceError> {
    Ok(store.read(|tx| tx.latest_driver_feed(driver.scope, driver.vehicle_id))?)
}
