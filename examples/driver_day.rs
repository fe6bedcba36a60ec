//! A driver's day through the API alone, against the real `dispatch serve` binary on a
//! temporary database, with a webhook receiver on loopback: orders and a van, optimisation,
//! dispatch, a driver credential, the driver's day, start, positions, stops completed in full
//! and in part and failed, notes, a phone call, the van's check-in, a signature, photos and a
//! questionnaire at a stop, the route completed — then what the depot reads (images and
//! submissions too) and what its receiver got. `docs/driver-api.md` explains every call.
//!
//! ```text
//! cargo build -p dispatch-server --bin dispatch
//! cargo run --example driver_day
//! ```

#[path = "../tests/support/driver_day.rs"]
mod driver_day;
#[path = "../tests/support/driver_day_pod.rs"]
mod driver_day_pod;
#[path = "../tests/e2e/webhooks/receiver.rs"]
mod receiver;
#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Duration;

use receiver::{Behaviour, Receiver};

fn main() {
    let hooks = Receiver::start(Behaviour::Ok);
    let dir = tempfile::tempdir().expect("a temp dir");
    let db = dir.path().join("driver_day.db");
    let (server, key) = driver_day::serve(&db, &hooks.url());
    let day = driver_day::play(&server, &key);
    for line in &day.log {
        println!("- {line}");
    }
    println!("\nGET /v2/routes/{}:", day.route_id);
    println!(
        "  started_ts {}  completed_ts {}  actual_distance {} m",
        day.route["started_ts"], day.route["completed_ts"], day.route["actual_distance"]
    );
    for stop in day.route["stops"].as_array().into_iter().flatten() {
        println!(
            "  stop {} order {}: arrived {} completed {} ({} s) failed_reason {} notes {}",
            stop["id"],
            stop["orders"][0]["order_number"],
            stop["actual_arrival_time"],
            stop["actual_completed_ts"],
            stop["actual_duration"],
            stop["failed_reason"],
            stop["driver_notes"]
        );
    }
    println!("\nproof of delivery at stop {}:", day.proof.stop_id);
    let visit = &day.proof_reads.visit;
    println!(
        "  GET /v2/driver-questionnaire-submission/{}: {} answers",
        visit["id"],
        visit["driver_questionnaire_answers"]
            .as_array()
            .map_or(0, Vec::len)
    );
    for a in visit["driver_questionnaire_answers"]
        .as_array()
        .into_iter()
        .flatten()
    {
        println!(
            "    {} {:?} -> {} ({} images)",
            a["type"],
            a["driver_questionnaire_question"]["question"]
                .as_str()
                .unwrap_or_default(),
            a["data"],
            a["images"].as_array().map_or(0, Vec::len)
        );
    }
    for image in &day.proof_reads.images {
        println!(
            "  GET {}: {} x 202 (Retry-After {:?}), then {} {} bytes; base64 {} bytes",
            image.url,
            image.pending.len(),
            image.pending.first().and_then(|p| p.0.clone()),
            image.raw.header("content-type").unwrap_or("?"),
            image.raw.raw.len(),
            image.base64["size"]
        );
    }
    println!("\nGET /v2/orders/{{id}}:");
    for order in &day.order_reads {
        println!("  {} {}", order["order_number"], order["status"]);
    }
    println!("\nwebhooks received:");
    for hit in hooks.wait_for(15, Duration::from_secs(30)) {
        println!("  {} {}", hit.body["type"], hit.body["data"]);
    }
    server.terminate();
}
