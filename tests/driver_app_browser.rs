//! The driver's app (`/driver-app/`) in headless Chromium on a phone-sized touch screen,
//! against the real `dispatch` binary with its rate limits on and a webhook receiver on
//! loopback: `dispatch-http/tests/browser/js/driver_day.mjs` (playwright-core driving Debian's
//! Chromium, elements found by their accessible names) plays a driver's whole day — the van
//! check-in, the start, a signature, a photo whose answer is lost and sent again, the stop
//! questionnaire with every answer type, a partial delivery, a failed one and a photo while
//! the phone is offline and the dispatcher reverses the route, the reconnection, the end of
//! the route, a revoked credential — and saves a screenshot of each screen under
//! `target/tmp/driver-app-screens/`. This test then checks the depot's side: the v2 reads
//! show exactly one outcome per stop, with the proof and the answers, and the webhooks one
//! status change per order and one `routes.completed`.
//!
//! In CI (`CI` set; `.ci/run` installs Chromium, Node.js and the script's packages) a missing
//! part fails the test; elsewhere it says loudly that it did not run.

#[allow(dead_code)]
#[path = "../dispatch-http/tests/browser/mod.rs"]
mod browser;
#[path = "support/browser_day.rs"]
mod browser_day;
#[path = "../dispatch-http/tests/browser/node.rs"]
mod node;
#[path = "e2e/webhooks/receiver.rs"]
mod receiver;
mod support;
// The driver's day of the API tests: its depot questionnaires are this day's too.
#[path = "support/driver_day.rs"]
mod driver_day;
#[path = "support/driver_day_pod.rs"]
mod driver_day_pod;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use browser_day::BrowserDay;
use receiver::{Behaviour, Receiver};
use serde_json::{json, Value};

fn seed_file(receiver: &str, timezone: &str) -> Value {
    json!({"organisations": [{"name": "Acme", "depots": [{
        "name": "North", "address": "1 Depot Way", "lat": 51.50, "lng": -0.12,
        "settings": {
            "timezone": timezone,
            "partial_orders": true,
            "webhook": {"url": receiver, "username": "hook", "password": "secret"}
        },
        "access_keys": [{"name": "integration", "permission": "all"}],
        "questionnaires": driver_day_pod::questionnaires()
    }]}]})
}

/// Width and height of a WebP image (lossy, lossless or extended).
fn webp_size(b: &[u8]) -> (u32, u32) {
    assert!(b.len() > 30 && &b[..4] == b"RIFF" && &b[8..12] == b"WEBP");
    let u24 = |i: usize| u32::from(b[i]) | u32::from(b[i + 1]) << 8 | u32::from(b[i + 2]) << 16;
    match &b[12..16] {
        b"VP8 " => (
            u32::from(u16::from_le_bytes([b[26], b[27]]) & 0x3fff),
            u32::from(u16::from_le_bytes([b[28], b[29]]) & 0x3fff),
        ),
        b"VP8L" => {
            let bits = u32::from_le_bytes([b[21], b[22], b[23], b[24]]);
            ((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1)
        }
        b"VP8X" => (u24(24) + 1, u24(27) + 1),
        other => panic!("not a WebP image: {other:?}"),
    }
}

#[test]
fn a_drivers_day_in_the_app_offline_and_through_a_reversal_shows_once_at_the_depot() {
    let test = "a_drivers_day_in_the_app_offline_and_through_a_reversal_shows_once_at_the_depot";
    let hooks = Receiver::start(Behaviour::Ok);
    // Rate limits stay on: the app keeps to the tiers and waits out Retry-After.
    let flags = ["--solve-time", "1", "--solve-time-min", "1"];
    let zone = support::midday_zone();
    let seed = seed_file(&hooks.url(), &zone.name);
    let Some(phone) = BrowserDay::start(test, &seed, &flags) else {
        return;
    };
    let (server, key) = (&phone.server, phone.key(0));
    let (day, took) = phone.run(
        "driver_day.mjs",
        "driver-app-screens",
        &[
            ("KEY", &key),
            ("TODAY", &zone.today),
            ("TOMORROW", &zone.tomorrow),
        ],
        Duration::from_secs(150),
    );
    let shots_taken = day["screenshots"].as_array().unwrap();
    assert!(shots_taken.len() >= 10, "{shots_taken:?}");

    // The depot's read of the route: one outcome per stop, with what the driver reported.
    let route = server
        .get(&format!("/v2/routes/{}", day["route_id"]), &key)
        .json()["route"]
        .clone();
    assert!(route["completed_ts"].is_string(), "{route:#}");
    assert!(
        route["actual_distance"].as_i64().unwrap_or(0) > 0,
        "{route:#}"
    );
    let order = |number: &str| day["orders"][number].as_i64().unwrap();
    let stop = |number: &str| {
        route["stops"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["orders"][0]["id"] == order(number))
            .unwrap_or_else(|| panic!("a stop for {number}"))
            .clone()
    };
    let first = stop("APP-1");
    assert!(first["actual_completed_ts"].is_string() && first["failed_reason"].is_null());
    assert_eq!(first["signed_by"], "Ann Lee");
    assert!(first["signature"].is_object());
    assert_eq!(
        first["photos"].as_array().map(Vec::len),
        Some(1),
        "the photo whose answer was lost is stored once: {first:#}"
    );
    assert_eq!(
        first["driver_phone_calls"].as_array().map(Vec::len),
        Some(1)
    );
    let partial = stop("APP-2");
    let delivered: HashMap<String, (i64, Value)> = partial["orders"][0]["line_items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["product_code"].as_str().unwrap().to_owned(),
                (
                    i["delivered_quantity"].as_i64().unwrap(),
                    i["failed_reason"].clone(),
                ),
            )
        })
        .collect();
    assert_eq!(
        delivered["TILES"],
        (7, json!("three broken")),
        "{partial:#}"
    );
    // With partial_orders a finished stop lists only what was delivered on it.
    assert!(
        delivered.get("GLUE").is_none_or(|glue| glue.0 == 0),
        "{partial:#}"
    );
    let failed = stop("APP-3");
    assert_eq!(failed["failed_reason"]["reason"], "Nobody home");
    assert!(failed["actual_completed_ts"].is_null() || failed["failed_reason"].is_object());
    assert_eq!(
        failed["photos"].as_array().map(Vec::len),
        Some(1),
        "{failed:#}"
    );
    assert!(stop("APP-4")["actual_completed_ts"].is_string());
    for number in ["APP-1", "APP-2", "APP-3", "APP-4"] {
        assert!(stop(number)["actual_arrival_time"].is_string(), "{number}");
    }

    // The photo was downscaled on the phone (1600 px on the longer side; the service keeps
    // up to 2048).
    let photo = first["photos"][0]["id"].as_i64().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let image = loop {
        let reply = server.get(&format!("/v2/proof-of-delivery-photos/{photo}"), &key);
        if reply.status == 200 {
            break reply.raw;
        }
        assert!(Instant::now() < deadline, "the photo was never compressed");
        std::thread::sleep(Duration::from_millis(500));
    };
    assert_eq!(webp_size(&image), (1600, 1200));

    // The check-in and the stop questionnaire, every answer type.
    let submissions = route["driver_questionnaire_submissions"]
        .as_array()
        .unwrap();
    assert_eq!(submissions.len(), 2, "{submissions:#?}");
    let visit = submissions
        .iter()
        .find(|s| s["driver_questionnaire"]["type"] == "VISIT")
        .expect("the stop questionnaire");
    let read = server
        .get(
            &format!("/v2/driver-questionnaire-submission/{}", visit["id"]),
            &key,
        )
        .json()["driver_questionnaire_submission"]
        .clone();
    // Made at the stop's id of then (the reversal gave it a new one); the stop shows it now.
    assert!(read["visit_id"].is_i64(), "{read:#}");
    assert_eq!(
        first["driver_questionnaire_submissions"][0]["id"], visit["id"],
        "{first:#}"
    );
    let answers: Vec<(Value, Value, usize)> = read["driver_questionnaire_answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["type"].clone(),
                a["data"].clone(),
                a["images"].as_array().map_or(0, Vec::len),
            )
        })
        .collect();
    assert_eq!(
        answers,
        vec![
            (json!("CHECKBOX"), json!("true"), 0),
            (json!("TEXT"), json!("Behind the blue gate"), 0),
            (json!("SELECT"), json!("Neighbour"), 0),
            (json!("MULTI_SELECT"), json!("[\"Dry\",\"Sealed\"]"), 0),
            (json!("SIGNATURE"), json!("Ann Lee"), 1),
            (json!("PHOTO"), json!("Parcel at the gate"), 1),
        ]
    );

    // Webhooks: each order changed status once after ROUTED; the route completed once.
    let deadline = Instant::now() + Duration::from_secs(30);
    let by_type = loop {
        let mut by_type: HashMap<String, Vec<Value>> = HashMap::new();
        for hit in hooks.hits() {
            by_type
                .entry(hit.body["type"].as_str().unwrap().to_owned())
                .or_default()
                .push(hit.body["data"].clone());
        }
        if by_type.contains_key("routes.completed") || Instant::now() > deadline {
            break by_type;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    assert_eq!(
        by_type["routes.completed"],
        vec![json!({"id": day["route_id"]})]
    );
    for (number, status) in [
        ("APP-1", "DELIVERED"),
        ("APP-2", "PARTIALLY_DELIVERED"),
        ("APP-3", "UNDELIVERED"),
        ("APP-4", "DELIVERED"),
    ] {
        let statuses: Vec<&Value> = by_type["orders.status"]
            .iter()
            .filter(|d| d["order_id"] == order(number))
            .map(|d| &d["status"])
            .collect();
        assert_eq!(statuses, vec![&json!("ROUTED"), &json!(status)], "{number}");
    }
    eprintln!("the driver's day in the app took {took:?}");
}
