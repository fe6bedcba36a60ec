//! A depot's whole day on the simulated clock (`serve --simulate --clock-speed 800`), through
//! the real binary on a temporary SQLite database with a webhook receiver on loopback: a
//! morning import of 360 orders by address, optimisation, dispatch, twelve simulated drivers
//! driving their routes through the driver API, midday changes (urgent orders, a cancellation,
//! a re-dated order, the undispatched rest re-optimised and dispatched) and the evening close,
//! with the invariants checked after every step; then a one-page summary. About a minute.
//!
//! ```text
//! cargo run --example simulated_day
//! ```

#[path = "../tests/support/day_checker.rs"]
mod day_checker;
#[path = "../tests/support/day_observer.rs"]
mod day_observer;
#[path = "../tests/support/driver_day.rs"]
mod driver_day;
#[path = "../tests/support/driver_day_pod.rs"]
mod driver_day_pod;
#[path = "../tests/e2e/webhooks/receiver.rs"]
mod receiver;
#[path = "../tests/support/simulated_day.rs"]
mod simulated_day;
#[path = "../tests/support/simulated_day_setup.rs"]
mod simulated_day_setup;
#[path = "../tests/support/simulated_drivers.rs"]
mod simulated_drivers;
#[path = "../tests/support/mod.rs"]
mod support;

use receiver::{Behaviour, Receiver};

fn main() {
    let hooks = Receiver::start(Behaviour::Ok);
    let dir = tempfile::tempdir().expect("a temp dir");
    let size = simulated_day_setup::FULL;
    let geocoder = simulated_day_setup::geocoder(size);
    let (server, key, weight) = simulated_day_setup::serve(
        &dir.path().join("simulated_day.db"),
        &hooks.url(),
        &geocoder,
        size,
    );
    let mut report = simulated_day::play(&server, &key, weight, &hooks, size);
    report.geocoder_requests = geocoder.count();
    println!("{}", simulated_day_setup::summary(&report, "sqlite"));
    if !report.violations.is_empty() {
        std::process::exit(1);
    }
}
