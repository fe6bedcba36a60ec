//! A depot's whole day on the simulated clock, through the real binary (a short day: a little
//! over a hundred orders, six vans), on SQLite or, with `DISPATCH_TEST_DB=postgres`, on
//! PostgreSQL: after every step the independent checker finds no broken invariant, the drivers
//! complete every route and the receiver gets one `routes.completed` per route. The full day is
//! `cargo run --example simulated_day`.

use crate::{receiver, simulated_day, simulated_day_setup};
use receiver::{Behaviour, Receiver};

#[test]
fn a_simulated_day_keeps_every_invariant_from_import_to_evening_close() {
    let hooks = Receiver::start(Behaviour::Ok);
    let dir = tempfile::tempdir().unwrap();
    let size = simulated_day_setup::SHORT;
    let geocoder = simulated_day_setup::geocoder(size);
    let (server, key, weight) =
        simulated_day_setup::serve(&dir.path().join("day.db"), &hooks.url(), &geocoder, size);
    let mut report = simulated_day::play(&server, &key, weight, &hooks, size);
    report.geocoder_requests = geocoder.count();
    let store = std::env::var("DISPATCH_TEST_DB").unwrap_or_else(|_| "sqlite".into());
    println!("{}", simulated_day_setup::summary(&report, &store));

    assert!(report.violations.is_empty(), "{:#?}", report.violations);
    assert_eq!(report.imported, size.orders);
    assert_eq!(
        report.geocoding_failed, 0,
        "the geocoder knows every address"
    );
    // Every address asked once: the import, the urgent orders and the appended one; the
    // re-dated order keeps its position.
    assert_eq!(report.geocoder_requests, size.orders + size.urgent + 1);
    assert_eq!(report.drivers.routes_completed, report.routes_dispatched);
    assert_eq!(report.routes_completed_events, report.routes_dispatched);
    assert_eq!(report.drivers.failures, 1);
    assert_eq!(report.drivers.proofs, 1);
    assert!(report.urgent_added >= 1, "{report:#?}");
    let undelivered = report
        .final_statuses
        .iter()
        .find(|(s, _)| s == "UNDELIVERED");
    assert_eq!(
        undelivered.map(|(_, n)| *n),
        Some(1),
        "{:?}",
        report.final_statuses
    );
    assert!(
        report
            .final_statuses
            .iter()
            .all(|(s, _)| ["DELIVERED", "UNDELIVERED", "OPEN"].contains(&s.as_str())),
        "{:?}",
        report.final_statuses
    );
}
