//! The full day, end to end through the real `dispatch` binary and a webhook receiver
//! on loopback: optimise, dispatch, the driver starts, reports positions, completes stops in full
//! and in part, fails one, writes notes and records a call, checks the van in, signs,
//! photographs and answers a questionnaire at a stop, completes the route — and every depot read
//! (routes, plans, orders, submissions, images, notification tasks) and every event
//! (`orders.status`, `orders.on_delivery`, `routes.completed`) shows it. The scenario is shared
//! with `examples/driver_day.rs`.

use crate::{driver_day, receiver, support};
use std::collections::HashMap;
use std::time::Duration;

use driver_day::{Day, Outcome, ORDERS, PROOF_ORDER};
use receiver::{Behaviour, Receiver};
use serde_json::{json, Value};

fn stop_of(route: &Value, order: i64) -> &Value {
    route["stops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["orders"][0]["id"] == order)
        .expect("a stop per order")
}

#[test]
fn a_full_day_played_through_the_api_shows_in_every_read_and_event() {
    let hooks = Receiver::start(Behaviour::Ok);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("day.db");
    let (server, key) = driver_day::serve(&db, &hooks.url());
    let day = driver_day::play(&server, &key);
    eprintln!("{}", day.log.join("\n"));

    // Dispatch was pushed to the driver.
    assert_eq!(day.pushed["kind"], "dispatched");
    assert_eq!(day.pushed["route_id"], day.route_id);
    assert!(!day.position_reports[0]["etas"]
        .as_array()
        .unwrap()
        .is_empty());

    // Statuses derived from the line items.
    let want = [
        "DELIVERED",
        "PARTIALLY_DELIVERED",
        "UNDELIVERED",
        "DELIVERED",
    ];
    for (read, status) in day.order_reads.iter().zip(want) {
        assert_eq!(read["status"], status, "{read:#}");
        assert!(
            read["stops"][0]["actual_completed_ts"].is_string(),
            "{read:#}"
        );
    }

    // The route, as the depot reads it, and the same route inside the plan.
    let route = &day.route;
    assert!(support::is_timestamp(&route["started_ts"]));
    assert_eq!(route["completed_ts"], day.completed["completed_ts"]);
    assert!(route["actual_distance"].as_i64().unwrap() > 0);
    let plan_route = day.plan["routes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == day.route_id)
        .unwrap();
    assert_eq!(plan_route["stops"], route["stops"]);
    for (i, (number, _, outcome)) in ORDERS.iter().enumerate() {
        let stop = stop_of(route, day.orders[i]);
        assert!(
            stop["actual_arrival_time"].is_string(),
            "{number}: {stop:#}"
        );
        assert!(stop["actual_duration"].is_number(), "{number}: {stop:#}");
        match outcome {
            Outcome::Full => assert!(stop["failed_reason"].is_null()),
            Outcome::Partial => {
                // partial_orders: only what was delivered on the stop is listed.
                let items = stop["orders"][0]["line_items"].as_array().unwrap();
                assert_eq!(items.len(), 1, "{number}: {stop:#}");
                assert_eq!(items[0]["product_code"], "TILES");
                assert_eq!(items[0]["quantity"], 7);
                assert_eq!(items[0]["failed_reason"], "3 broken");
            }
            Outcome::Fail => {
                assert_eq!(stop["failed_reason"], json!({"reason": "nobody home"}));
                assert_eq!(stop["driver_notes"], "left a card");
                assert_eq!(stop["driver_phone_calls"].as_array().unwrap().len(), 1);
            }
        }
    }

    proof_of_delivery_reads_back_everywhere(&day);

    // The depot's on-delivery notification went out once per stop.
    let tasks = server.get("/v2/notification-tasks", &key).json();
    assert_eq!(
        tasks["notification_tasks"].as_array().unwrap().len(),
        ORDERS.len()
    );

    // Every event reached the receiver: plans.created, 4 x ROUTED, plans.dispatched,
    // 4 x orders.on_delivery, the 4 outcomes and routes.completed.
    let hits = hooks.wait_for(15, Duration::from_secs(30));
    let mut by_type: HashMap<String, Vec<Value>> = HashMap::new();
    for hit in &hits {
        by_type
            .entry(hit.body["type"].as_str().unwrap().to_owned())
            .or_default()
            .push(hit.body["data"].clone());
    }
    assert_eq!(
        by_type["routes.completed"],
        vec![json!({"id": day.route_id})]
    );
    let on_delivery = &by_type["orders.on_delivery"];
    assert_eq!(on_delivery.len(), ORDERS.len(), "{on_delivery:#?}");
    for data in on_delivery {
        assert_eq!(data["route_id"], day.route_id);
        assert!(data["eta"].as_str().unwrap().len() == 5, "{data}");
        assert!(data["time_to_arrival"].as_i64().unwrap() >= 0);
    }
    for (i, status) in want.iter().enumerate() {
        let statuses: Vec<&Value> = by_type["orders.status"]
            .iter()
            .filter(|d| d["order_id"] == day.orders[i])
            .map(|d| &d["status"])
            .collect();
        assert_eq!(
            statuses,
            vec![&json!("ROUTED"), &json!(status)],
            "{}",
            ORDERS[i].0
        );
    }
    server.terminate();
}

fn ids(list: &Value) -> Vec<i64> {
    list.as_array()
        .unwrap_or_else(|| panic!("a list: {list}"))
        .iter()
        .map(|x| x["id"].as_i64().unwrap())
        .collect()
}

/// The signature, photos and submissions of the day: as uploaded, as the submission and image
/// reads give them back, and on the stop, order, route and plan reads.
fn proof_of_delivery_reads_back_everywhere(day: &Day) {
    let proof = &day.proof;
    assert_eq!(proof.signature["signed_by"], "Ann Lee");
    assert_eq!(proof.signature["signature_lat"], 51.5021);
    assert_eq!(proof.signature["is_compressed"], false);
    assert!(proof.photo_bytes > 3_000_000, "a phone-sized photo");
    assert!(
        proof.answer_photo_bytes > 1_000_000,
        "over the JSON text bound"
    );

    // The submission as read back: an answer of every type, images of the image answers.
    let visit = &day.proof_reads.visit;
    assert_eq!(visit["id"], proof.submission["id"]);
    assert_eq!(visit["route_id"], day.route_id);
    assert_eq!(visit["visit_id"], proof.stop_id);
    assert_eq!(visit["driver_questionnaire"]["type"], "VISIT");
    let answers: Vec<(&str, &str, usize)> = visit["driver_questionnaire_answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["type"].as_str().unwrap(),
                a["data"].as_str().unwrap(),
                a["images"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(
        answers,
        [
            ("CHECKBOX", "true", 0),
            ("TEXT", "Behind the blue gate", 0),
            ("SELECT", "Neighbour", 0),
            ("MULTI_SELECT", "[\"Dry\",\"Sealed\"]", 0),
            ("SIGNATURE", "Ann Lee", 1),
            ("PHOTO", "porch", 2),
        ]
    );
    let checkin = &day.proof_reads.checkin;
    assert_eq!(
        checkin["driver_questionnaire"]["type"],
        "ROUTE_VEHICLE_CHECKIN"
    );
    assert_eq!(checkin["visit_id"], Value::Null);
    assert_eq!(checkin["route_id"], day.route_id);

    // Every image: 202 with Retry-After while compressing, then WebP raw and as base64.
    let images = &day.proof_reads.images;
    assert_eq!(
        images.len(),
        6,
        "a signature, two photos, three answer images"
    );
    for image in images {
        for (retry_after, body) in &image.pending {
            assert_eq!(retry_after.as_deref(), Some("2"), "{}", image.url);
            assert_eq!(body["is_compressed"], false, "{}", image.url);
            assert!(body["id"].is_i64(), "{body}");
        }
        assert_eq!(image.raw.header("content-type"), Some("image/webp"));
        assert_eq!(image.raw.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(&image.raw.raw[..4], b"RIFF", "{}", image.url);
        assert_eq!(&image.raw.raw[8..12], b"WEBP", "{}", image.url);
        assert_eq!(image.base64["is_compressed"], true);
        assert_eq!(image.base64["content_type"], "image/webp");
        assert_eq!(image.base64["size"], image.raw.raw.len());
        assert_eq!(image.decoded, image.raw.raw, "{}", image.url);
    }

    // The stop's proof on the route, plan and order reads.
    let number = ORDERS.iter().position(|o| o.0 == PROOF_ORDER).unwrap();
    let order = day.orders[number];
    let stop = stop_of(&day.route, order);
    assert_eq!(stop["id"], proof.stop_id);
    assert_eq!(stop["signed_by"], "Ann Lee");
    assert_eq!(stop["signature_lat"], 51.5021);
    assert_eq!(stop["signature"]["id"], proof.signature["id"]);
    assert_eq!(stop["signature"]["url"], proof.signature["url"]);
    assert_eq!(stop["signature"]["is_compressed"], true);
    assert_eq!(ids(&stop["photos"]), ids(&proof.photos));
    assert!(stop["photos"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["is_compressed"] == true));
    assert_eq!(
        stop["driver_questionnaire_submissions"],
        json!([{"id": proof.submission["id"],
                "driver_questionnaire": {"type": "VISIT", "title": "Delivery checks"}}])
    );
    let both = vec![
        day.checkin["id"].as_i64().unwrap(),
        proof.submission["id"].as_i64().unwrap(),
    ];
    assert_eq!(ids(&day.route["driver_questionnaire_submissions"]), both);
    assert_eq!(ids(&day.plan["driver_questionnaire_submissions"]), both);
    let on_order = &day.order_reads[number]["stops"][0];
    for field in [
        "signed_by",
        "signature",
        "photos",
        "driver_questionnaire_submissions",
    ] {
        assert_eq!(on_order[field], stop[field], "{field} on the order read");
    }
    // The other stops have no proof.
    for (i, _) in ORDERS.iter().enumerate().filter(|(i, _)| *i != number) {
        let other = stop_of(&day.route, day.orders[i]);
        assert_eq!(other["signature"], Value::Null);
        assert_eq!(other["photos"], Value::Null);
    }
}
