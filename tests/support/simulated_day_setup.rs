//! The setting of a simulated depot day (`simulated_day.rs`): its size and date, the depot's
//! seed (webhooks to the receiver, a weight capacity, the driver questionnaires), a fake
//! Nominatim geocoder on loopback that knows every address, the orders, `serve` on the
//! simulated clock with `--geocoder-url`, and the day's report with its one-page summary.

#![allow(dead_code)] // the test and the example read different parts

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::fake_geocoder::FakeGeocoder;
use crate::support::Server;

/// How big and how fast a day is.
#[derive(Debug, Clone, Copy)]
pub struct Size {
    pub orders: usize,
    /// Vans on the morning shift (08:00-17:00) and on the afternoon shift (14:00-19:00).
    pub morning_vans: usize,
    pub afternoon_vans: usize,
    /// Urgent orders added at midday with `reoptimize`.
    pub urgent: usize,
    /// The simulated clock's speed.
    pub speed: f64,
}

/// The day of the CI test: well under a minute per store.
pub const SHORT: Size = Size {
    orders: 90,
    morning_vans: 4,
    afternoon_vans: 2,
    urgent: 3,
    speed: 1500.0,
};
/// The example's day.
pub const FULL: Size = Size {
    orders: 360,
    morning_vans: 11,
    afternoon_vans: 3,
    urgent: 6,
    speed: 800.0,
};

pub const DATE: &str = "2026-12-02";
pub const NEXT_DAY: &str = "2026-12-03";
pub const CLOCK_START: &str = "2026-12-02T05:00:00Z";
pub const H: i64 = 3600;

/// What the day did and found.
#[derive(Debug, Default)]
pub struct Report {
    /// One line per step: wall seconds, the simulated time, what happened, the checker's word.
    pub steps: Vec<String>,
    pub violations: Vec<String>,
    pub breaches: Vec<String>,
    pub checks: usize,
    pub imported: usize,
    pub geocoding_failed: usize,
    /// Requests the fake geocoder answered over the day.
    pub geocoder_requests: usize,
    pub routes_dispatched: usize,
    pub urgent_added: usize,
    pub urgent_declined: usize,
    pub events: Vec<(String, usize)>,
    pub routes_completed_events: usize,
    pub wall: Duration,
    pub final_statuses: Vec<(String, usize)>,
    pub drivers: crate::simulated_drivers::DriverTally,
}

/// The depot's seed: Central at (51.50, -0.12) on UTC, webhooks to `receiver`, a weight
/// capacity and the driver questionnaires; no gazetteer, so every address goes to the geocoder.
pub fn seed_file(receiver: &str) -> Value {
    json!({"organisations": [{"name": "Simulated", "depots": [{
        "name": "Central", "address": "1 Depot Way", "lat": 51.50, "lng": -0.12,
        "settings": {"timezone": "UTC",
                     "webhook": {"url": receiver, "username": "hook", "password": "secret"}},
        "access_keys": [{"name": "simulation", "permission": "all"}],
        "capacity_types": [{"type": "Weight", "default": "0"}],
        "questionnaires": crate::driver_day_pod::questionnaires()
    }]}]})
}

/// A fake Nominatim on loopback that knows every address of the day (the imports, the urgent
/// orders and the appended one).
pub fn geocoder(size: Size) -> FakeGeocoder {
    let geocoder = FakeGeocoder::start();
    for i in 0..size.orders + size.urgent + 1 {
        let (lat, lng) = place(i);
        geocoder.add(&address(i), lat, lng);
    }
    geocoder
}

fn address(i: usize) -> String {
    format!("{} Simulation Road", i + 1)
}

/// A spread of places within about 8 km of the depot.
fn place(i: usize) -> (f64, f64) {
    let a = (i as f64) * 2.399_963; // the golden angle: an even spread
    let r = 0.015 + 0.055 * (((i * 37) % 100) as f64 / 100.0);
    (51.50 + r * a.sin() * 0.65, -0.12 + r * a.cos())
}

/// The order of index `i`: by address only; one in three with a two-hour window and one in
/// nine with an evening one (17:00-19:00, which only the afternoon vans reach, so the day
/// always has afternoon routes to plan and re-plan), one in ten needing the fridge, 5 to 25 kg.
pub fn order(i: usize, number: String, weight_type: i64) -> Value {
    let mut o = json!({
        "order_number": number, "type": "delivery", "delivery_date": DATE,
        "delivery_address": address(i), "delivery_contact_number": "07000 000000",
        "delivery_duration": 4,
        "capacities": [{"id": weight_type, "capacity": 5 + (i * 7) % 21}],
    });
    if i.is_multiple_of(3) {
        let from = 9 + 2 * (i / 3 % 4);
        o["delivery_time_windows"] =
            json!([{"from": format!("{from:02}:00"), "to": format!("{:02}:00", from + 2)}]);
    } else if i % 9 == 4 {
        o["delivery_time_windows"] = json!([{"from": "17:00", "to": "19:00"}]);
    }
    if i % 10 == 7 {
        o["skills"] = json!(["fridge"]);
    }
    o
}

/// Seeds `db`, starts `serve` on the simulated clock, geocoding through `geocoder` (at a rate
/// a self-hosted Nominatim allows, so an import of hundreds takes seconds): the server, the
/// depot's key and weight capacity type.
pub fn serve(
    db: &Path,
    receiver: &str,
    geocoder: &FakeGeocoder,
    size: Size,
) -> (Server, String, i64) {
    let seeded = crate::support::seed(db, &seed_file(receiver));
    let depot = &seeded["organisations"][0]["depots"][0];
    let key = depot["access_keys"][0]["key"].as_str().unwrap().to_owned();
    let weight = depot["capacity_types"][0]["id"].as_i64().unwrap();
    let speed = size.speed.to_string();
    let flags = [
        "--rate-limits",
        "off",
        "--simulate",
        "--clock-start",
        CLOCK_START,
        "--clock-speed",
        &speed,
        "--solve-time",
        "2",
        "--solve-time-min",
        "1",
        "--geocoder-url",
        geocoder.url(),
        "--geocoder-rate",
        "200",
    ];
    (Server::start_with(db, &flags), key, weight)
}

/// The day on one page.
pub fn summary(report: &Report, store: &str) -> String {
    let d = &report.drivers;
    let mut out = vec![
        format!("A simulated depot day on {DATE} ({store}), {:.1} s of wall time", report.wall.as_secs_f64()),
        format!(
            "orders: {} imported by address ({} not geocoded, {} geocoder requests), {} urgent added with reoptimize ({} declined), 1 appended without, 1 cancelled, 1 re-dated",
            report.imported, report.geocoding_failed, report.geocoder_requests, report.urgent_added, report.urgent_declined
        ),
        format!("routes dispatched: {}; completed by their drivers: {}", report.routes_dispatched, d.routes_completed),
        format!(
            "drivers: {} starts, {} positions, {} arrivals, {} completions, {} failed, {} stops with proofs",
            d.starts, d.positions, d.arrivals, d.completions, d.failures, d.proofs
        ),
        format!("events received: {}", report.events.iter().map(|(t, n)| format!("{t} {n}")).collect::<Vec<_>>().join(", ")),
        format!("final statuses: {}", report.final_statuses.iter().map(|(s, n)| format!("{s} {n}")).collect::<Vec<_>>().join(", ")),
        format!("invariant checks: {}, violations: {}, window breaches reported: {}", report.checks, report.violations.len(), report.breaches.len()),
        "steps:".into(),
    ];
    out.extend(report.steps.iter().map(|s| format!("  {s}")));
    out.extend(
        report
            .violations
            .iter()
            .take(20)
            .map(|v| format!("  VIOLATION {v}")),
    );
    out.extend(
        report
            .breaches
            .iter()
            .map(|b| format!("  breach (reported) {b}")),
    );
    out.join("\n")
}

/// The simulated day's date.
pub fn first_day() -> dispatch_core::time::Date {
    dispatch_core::time::Date::parse(DATE).unwrap()
}
