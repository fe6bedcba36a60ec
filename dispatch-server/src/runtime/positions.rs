//! Driver position retention: the points of route tracks are deleted once the service received
//! them longer ago than the operator keeps positions (`--position-retention-days`). A route's
//! stored `actual_distance` and its stops' times stay; its track read shows what is left.

use std::sync::Arc;
use std::time::Duration;

use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::store::Store;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::purge;

/// How often expired positions are looked for (at start, then this often).
const EVERY: Duration = Duration::from_secs(300);

/// Starts the purge of positions older than `keep` (`None`: positions are kept forever and
/// nothing runs); it stops when `stopping` turns true.
pub fn spawn(
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    keep: Option<Duration>,
    stopping: watch::Receiver<bool>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let Some(keep) = keep else {
            return;
        };
        purge::run("driver positions", &*clock, EVERY, stopping, || {
            let store = store.clone();
            let before = purge::cut(&*clock, keep);
            purge::blocking(move || {
                store.transaction(|tx| tx.purge_track_points(before, purge::BATCH))
            })
        })
        .await;
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dispatch_core::model::driver_visit::{LatLng, TrackPoint};
    use dispatch_core::ports::clock::ManualClock;
    use dispatch_core::ports::store::conformance::two_depots;
    use dispatch_core::ports::store::InMemoryStore;
    use dispatch_core::time::Timestamp;

    const DAY: i64 = 86_400_000;

    #[tokio::test]
    async fn positions_received_longer_ago_than_the_retention_are_purged_and_newer_ones_stay() {
        let store: Arc<dyn Store> = Arc::new(InMemoryStore::new());
        let (depot, _) = two_depots(&*store);
        let clock = Arc::new(ManualClock::new(Timestamp::from_millis(0)));
        let report = |route: i64, received: i64| {
            let point = TrackPoint {
                at: LatLng {
                    lat: 51.5,
                    lng: -0.1,
                },
                time: Timestamp::from_millis(received),
            };
            store
                .transaction(|tx| {
                    tx.insert_track_points(depot, route, &[point], Timestamp::from_millis(received))
                })
                .unwrap();
        };
        report(1, 0);
        report(2, 2 * DAY);
        clock.set(Timestamp::from_millis(31 * DAY));
        let (stop, stopping) = watch::channel(false);
        let purger = spawn(
            store.clone(),
            clock,
            Some(Duration::from_secs(30 * 86_400)),
            stopping,
        );
        let track = |route: i64| store.read(|tx| tx.track(depot, route)).unwrap().len();
        for _ in 0..200 {
            if track(1) == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(track(1), 0, "a point received 31 days ago is purged");
        assert_eq!(track(2), 1, "a point received 29 days ago stays");
        stop.send(true).unwrap();
        purger.await.unwrap();
    }
}
