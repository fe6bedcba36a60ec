//! The worker's upkeep through the real binary: a change made through the API wakes the
//! delivery worker at once (no waiting for the outbox scan), and finished delivery records are
//! purged after their retention while ERROR records are kept longer.

use std::time::{Duration, Instant, SystemTime};

use dispatch_core::ports::store::{DeliveryOutcome, DeliveryState, Store};
use dispatch_core::time::Timestamp;

use super::receiver::{Behaviour, Receiver};
use super::support::Server;
use super::{append, deliver_one_item, key, order, scope, seeded_for, status_event};

const DAY_MS: i64 = 86_400_000;

#[test]
fn an_api_change_is_delivered_at_once_without_waiting_for_the_outbox_scan() {
    let hook = Receiver::start(Behaviour::Ok);
    let (_dir, db, seeded) = seeded_for(&hook.url());
    // The scan for other processes' commits runs once at start, then every 60 s.
    let server = Server::start_with(&db, &["--webhook-poll", "60"]);
    let k = key(&seeded, 0);
    let id = order(&server, &k, "W-1");
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    deliver_one_item(&server, &k, id);
    let hits = hook.wait_for(1, Duration::from_secs(20));
    assert_eq!(hits.len(), 1, "delivered");
    assert_eq!(hits[0].body["data"]["order_id"], id);
    let took = hits[0].at.duration_since(sent);
    assert!(
        took < Duration::from_secs(10),
        "the commit woke the worker: {took:?} (the scan would take 60 s)"
    );
}

fn outcome(id: i64, state: DeliveryState, at_ms: i64) -> DeliveryOutcome {
    DeliveryOutcome {
        id,
        state,
        attempts: u32::from(state != DeliveryState::Skipped),
        error: (state == DeliveryState::Error).then(|| "receiver answered HTTP 500".into()),
        at: Timestamp::from_millis(at_ms),
    }
}

#[test]
fn finished_records_past_their_retention_are_purged_and_error_records_kept_longer() {
    let hook = Receiver::start(Behaviour::Ok);
    let (_dir, db, seeded) = seeded_for(&hook.url());
    append(
        &db,
        scope(&seeded, 0),
        &(0..6).map(|i| status_event(i, "OPEN")).collect::<Vec<_>>(),
    );
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let store = super::support::test_db::open_store(&db);
    let store: &dyn Store = &*store;
    let ids: Vec<i64> = store
        .read(|tx| tx.pending_events(0, 10))
        .unwrap()
        .iter()
        .map(|e| e.id)
        .collect();
    let resend = store
        .transaction(|tx| {
            tx.mark_deliveries(&[
                outcome(ids[0], DeliveryState::Delivered, now - 8 * DAY_MS),
                outcome(ids[1], DeliveryState::Delivered, now - DAY_MS),
                outcome(ids[2], DeliveryState::Error, now - 8 * DAY_MS),
                outcome(ids[3], DeliveryState::Error, now - 31 * DAY_MS),
                outcome(ids[4], DeliveryState::Error, now - 40 * DAY_MS),
                outcome(ids[5], DeliveryState::Skipped, now - 8 * DAY_MS),
            ])?;
            tx.resend_event(ids[4], Timestamp::from_millis(now))
        })
        .unwrap()
        .expect("resent");
    let _server = Server::start(&db);
    assert_eq!(
        hook.wait_for(1, Duration::from_secs(10)).len(),
        1,
        "the re-send goes out"
    );
    let kept = |id: i64| {
        store
            .read(|tx| tx.get_delivery(id))
            .unwrap()
            .map(|d| d.state)
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while kept(ids[0]).is_some() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        kept(ids[0]),
        None,
        "delivered 8 days ago: past the 7-day retention"
    );
    assert_eq!(kept(ids[5]), None, "skipped 8 days ago");
    assert_eq!(
        kept(ids[1]),
        Some(DeliveryState::Delivered),
        "delivered yesterday"
    );
    assert_eq!(
        kept(ids[2]),
        Some(DeliveryState::Error),
        "ERROR kept 30 days"
    );
    assert_eq!(kept(ids[3]), None, "ERROR 31 days ago");
    assert_eq!(
        kept(ids[4]),
        Some(DeliveryState::Error),
        "an ERROR record a re-send names stays with it"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while kept(resend) == Some(DeliveryState::Pending) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(kept(resend), Some(DeliveryState::Delivered));
}
