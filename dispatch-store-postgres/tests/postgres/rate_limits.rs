//! Rate-limit windows shared by every node on one database (`SharedRateLimits`): the sliding
//! window log of the in-process limiter, counted in the database, with one winner per free
//! slot among nodes asking at once.

use std::sync::{Arc, Barrier};

use dispatch_core::ports::rate_limit::{RateCaller, RateWindow, SharedRateLimits};
use dispatch_core::ports::store::Store;
use dispatch_core::time::Timestamp;
use dispatch_store_postgres::throwaway::Cluster;
use dispatch_store_postgres::PostgresStore;

/// The spec's strict tier: 5 a minute, 2 in any 15 seconds.
const STRICT: [RateWindow; 2] = [
    RateWindow {
        limit: 5,
        period_ms: 60_000,
    },
    RateWindow {
        limit: 2,
        period_ms: 15_000,
    },
];

const KEY: RateCaller = RateCaller::AccessKey(7);

fn counters(url: &str) -> Arc<dyn SharedRateLimits> {
    PostgresStore::open(url)
        .unwrap()
        .shared_rate_limits()
        .expect("PostgreSQL shares its counters")
}

fn admit(on: &dyn SharedRateLimits, caller: RateCaller, tier: &str, at_ms: i64) -> i64 {
    on.admit(caller, tier, &STRICT, Timestamp::from_millis(at_ms))
        .unwrap()
}

#[test]
fn two_nodes_count_in_the_same_windows_with_exact_waits() {
    let url = Cluster::shared().unwrap().create_database().unwrap();
    let (a, b) = (counters(&url), counters(&url));
    let t0 = 1_800_000_000_000;
    assert_eq!(admit(&*a, KEY, "strict", t0), 0);
    assert_eq!(admit(&*b, KEY, "strict", t0 + 1_000), 0);
    // The burst window is full: the first request must leave it (at t0 + 15 s).
    assert_eq!(admit(&*a, KEY, "strict", t0 + 2_000), 13_000);
    assert_eq!(
        admit(&*b, KEY, "strict", t0 + 2_000),
        13_000,
        "a refusal counts nothing"
    );
    // Other tiers and other callers have windows of their own.
    assert_eq!(admit(&*b, KEY, "bulk", t0 + 2_000), 0);
    assert_eq!(
        admit(&*b, RateCaller::DriverCredential(7), "strict", t0 + 2_000),
        0
    );
    assert_eq!(
        admit(&*b, RateCaller::AccessKey(8), "strict", t0 + 2_000),
        0
    );
    // Five in the minute, then the minute window waits for the first to leave it.
    assert_eq!(admit(&*b, KEY, "strict", t0 + 15_001), 0);
    assert_eq!(admit(&*a, KEY, "strict", t0 + 30_002), 0);
    assert_eq!(admit(&*b, KEY, "strict", t0 + 45_003), 0);
    assert_eq!(admit(&*a, KEY, "strict", t0 + 59_000), 1_000);
    assert_eq!(
        admit(&*a, KEY, "strict", t0 + 60_000),
        0,
        "the first one left"
    );
    assert_eq!(
        admit(&*b, KEY, "strict", t0 + 60_500),
        500,
        "the second one leaves next"
    );
}

#[test]
fn a_node_whose_clock_is_behind_counts_at_the_latest_time_seen() {
    let url = Cluster::shared().unwrap().create_database().unwrap();
    let (a, b) = (counters(&url), counters(&url));
    let t0 = 1_800_000_000_000;
    assert_eq!(admit(&*a, KEY, "strict", t0 + 10_000), 0);
    assert_eq!(admit(&*a, KEY, "strict", t0 + 11_000), 0);
    // Node b is 10 s behind: its request is counted at a's latest time, not before it.
    assert_eq!(admit(&*b, KEY, "strict", t0 + 1_000), 14_000);
}

#[test]
fn nodes_asking_at_once_get_exactly_the_free_slots() {
    let url = Cluster::shared().unwrap().create_database().unwrap();
    let nodes: Vec<_> = (0..3).map(|_| counters(&url)).collect();
    let minute = [RateWindow {
        limit: 5,
        period_ms: 60_000,
    }];
    let barrier = Arc::new(Barrier::new(12));
    let asks: Vec<_> = (0..12)
        .map(|i| {
            let (node, barrier) = (nodes[i % 3].clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                node.admit(
                    KEY,
                    "standard",
                    &minute,
                    Timestamp::from_millis(1_800_000_000_000),
                )
                .unwrap()
            })
        })
        .collect();
    let waits: Vec<i64> = asks.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(waits.iter().filter(|w| **w == 0).count(), 5, "{waits:?}");
    assert!(waits.iter().all(|w| *w == 0 || *w == 60_000), "{waits:?}");
}

#[test]
fn counters_idle_beyond_every_window_are_dropped() {
    let url = Cluster::shared().unwrap().create_database().unwrap();
    let a = counters(&url);
    let t0 = 1_800_000_000_000;
    for id in 0..3 {
        assert_eq!(admit(&*a, RateCaller::AccessKey(id), "strict", t0), 0);
    }
    let rows = |url: &str| -> i64 {
        let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
        client
            .query_one("SELECT count(*) FROM rate_limit_windows", &[])
            .unwrap()
            .get(0)
    };
    assert_eq!(rows(&url), 3);
    // Within the hour nothing is dropped; a caller entering a new minute after it drops the
    // idle rows.
    assert_eq!(admit(&*a, KEY, "strict", t0 + 1_800_000), 0);
    assert_eq!(admit(&*a, KEY, "strict", t0 + 1_860_000), 0);
    assert_eq!(rows(&url), 4);
    assert_eq!(admit(&*a, KEY, "strict", t0 + 3_700_000), 0);
    assert_eq!(rows(&url), 1, "only the active caller's row is left");
}
