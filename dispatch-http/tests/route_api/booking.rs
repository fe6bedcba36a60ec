//! POST /booking/availability, /booking/available-dates and /booking/available-slots.

use serde_json::{json, Value};

use super::*;

fn question(order: Value) -> Value {
    json!({"date": DAY, "order": order})
}

fn near() -> Value {
    json!({"type": "delivery", "delivery_lat": 51.503, "delivery_lng": -0.118, "delivery_duration": 5})
}

async fn available(app: &TestApp, body: Value) -> bool {
    let r = app
        .post("/v2/booking/availability", &app.north(), body)
        .await;
    r.ok()["booking"]["available"].as_bool().unwrap()
}

fn weight_id(app: &TestApp) -> i64 {
    app.depot(0, 0)["capacity_types"][0]["id"].as_i64().unwrap()
}

#[tokio::test]
async fn a_light_day_is_available_and_nothing_is_created() {
    let app = TestApp::new();
    vehicle(&app, "Van").await;
    orders(&app, "B", 10).await;
    let before = app.get("/v2/orders", &app.north()).await.ok()["orders"]
        .as_array()
        .unwrap()
        .len();
    assert!(available(&app, question(near())).await);
    // The same question gets the same answer.
    assert!(available(&app, question(near())).await);
    let after = app.get("/v2/orders", &app.north()).await.ok()["orders"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(before, after);
    assert_eq!(
        app.get("/v2/plans", &app.north()).await.ok()["plans"],
        json!([])
    );
    assert_eq!(
        app.get("/v2/routes", &app.north()).await.ok()["routes"],
        json!([])
    );
}

#[tokio::test]
async fn a_day_that_cannot_hold_every_order_is_unavailable() {
    let app = TestApp::new();
    vehicle(&app, "Van").await;
    // Weight defaults to 0 on vehicles without it: no van carries any weight.
    let mut heavy = near();
    heavy["capacities"] = json!([{"id": weight_id(&app), "capacity": 1}]);
    assert!(!available(&app, question(heavy)).await);
    // Foreign capacity ids are ignored.
    let mut foreign = near();
    foreign["capacities"] = json!([{"id": 999_999, "capacity": 50}]);
    assert!(available(&app, question(foreign)).await);
    // An already overbooked day answers false whatever the candidate.
    let mut booked = delivery("HEAVY", 51.5, -0.12);
    booked["capacities"] = json!([{"id": weight_id(&app), "capacity": 2}]);
    post_orders(&app, vec![booked]).await;
    assert!(!available(&app, question(near())).await);
}

#[tokio::test]
async fn listed_vehicles_are_used_and_foreign_ids_ignored() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let inactive = app
        .post(
            "/v2/vehicles",
            &app.north(),
            json!({"name": "Spare", "active": false, "availability": "full_day",
                "start_location": "depot", "end_location": "depot"}),
        )
        .await
        .ok()["vehicle"]["id"]
        .as_i64()
        .unwrap();
    let mut body = question(near());
    body["vehicles"] = json!([{"id": 999_999}, {"id": v}]);
    assert!(available(&app, body.clone()).await);
    body["vehicles"] = json!([{"id": 999_999}]);
    assert!(
        !available(&app, body.clone()).await,
        "no vehicle of the depot"
    );
    // Listed, an inactive vehicle is used; unlisted, only active ones are.
    body["vehicles"] = json!([{"id": inactive}]);
    assert!(available(&app, body).await);
    app.delete(&format!("/v2/vehicles/{v}"), &app.north())
        .await
        .ok();
    assert!(!available(&app, question(near())).await);
}

#[tokio::test]
async fn addresses_without_coordinates_are_geocoded_and_failures_are_400() {
    let app = TestApp::new();
    vehicle(&app, "Van").await;
    let order = json!({"type": "delivery", "delivery_address": "1 High St", "delivery_postcode": "AB1 2CD"});
    assert!(available(&app, question(order)).await);
    let order = json!({"type": "delivery", "delivery_address": "Nowhere Lane"});
    app.post("/v2/booking/availability", &app.north(), question(order))
        .await
        .envelope(400, "GEOCODING_FAILED");
    // A pickup is located by its pickup fields only.
    let pickup = json!({"type": "pickup", "pickup_lat": 51.5, "pickup_lng": -0.12});
    assert!(available(&app, question(pickup)).await);
    let pickup = json!({"type": "pickup", "delivery_lat": 51.5, "delivery_lng": -0.12});
    app.post("/v2/booking/availability", &app.north(), question(pickup))
        .await
        .envelope(400, "GEOCODING_FAILED");
}

/// A depot without coordinates is a set-up to fix, not a busy service: no retry would help.
#[tokio::test]
async fn a_depot_without_coordinates_is_400_not_a_retry_later() {
    let app = TestApp::new();
    app.post(
        "/v2/vehicles",
        &app.south(),
        json!({"name": "Van S", "availability": "always",
               "start_location": "depot", "end_location": "depot"}),
    )
    .await
    .ok();
    let r = app
        .post("/v2/booking/availability", &app.south(), question(near()))
        .await;
    assert_eq!(r.status.as_u16(), 400, "{:#}", r.body);
    assert_eq!(r.body["name"], "INVALID_INPUT");
    assert!(r.headers.get("retry-after").is_none());
    let text = r.body.to_string();
    assert!(
        text.contains("depot") && text.contains("coordinates"),
        "{text}"
    );
}

#[tokio::test]
async fn booking_requests_are_validated() {
    let app = TestApp::new();
    let cases = [
        (json!({"order": near()}), vec!["date"]),
        (json!({"date": "24/11/2026", "order": near()}), vec!["date"]),
        (json!({"date": DAY}), vec!["order"]),
        (
            json!({"date": DAY, "order": {"type": "shipment"}}),
            vec!["order.type"],
        ),
        (
            json!({"date": DAY, "order": {"type": "delivery", "delivery_lat": "x", "capacities": [{"id": 1}]}}),
            vec!["order.capacities.0.capacity", "order.delivery_lat"],
        ),
        (
            json!({"date": DAY, "order": near(), "vehicles": [{"id": "a"}]}),
            vec!["vehicles.0.id"],
        ),
        // An entry that is not an object is refused at its own place.
        (
            json!({"date": DAY, "order": near(), "vehicles": [{"id": 1}, 7]}),
            vec!["vehicles.1"],
        ),
        (
            json!({"date": DAY, "order": {"type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.1, "capacities": [7]}}),
            vec!["order.capacities.0"],
        ),
    ];
    for (body, paths) in cases {
        let r = app
            .post("/v2/booking/availability", &app.north(), body)
            .await;
        assert_eq!(r.invalid_paths_sorted(), paths);
    }
}

#[tokio::test]
async fn values_an_order_would_refuse_are_refused_on_every_booking_endpoint() {
    let app = TestApp::new();
    vehicle(&app, "Van").await;
    let bad = json!({
        "type": "delivery", "delivery_lat": 91, "delivery_lng": -181, "delivery_duration": -3,
        "pickup_duration": 2e6, "capacities": [{"id": weight_id(&app), "capacity": -5}],
    });
    let bodies = [
        (
            "/v2/booking/availability",
            json!({"date": DAY, "order": bad}),
        ),
        (
            "/v2/booking/available-dates",
            json!({"from": DAY, "to": DAY, "order": bad}),
        ),
        (
            "/v2/booking/available-slots",
            json!({"date": DAY, "order": bad}),
        ),
    ];
    for (path, body) in bodies {
        let r = app.post(path, &app.north(), body).await;
        let mut got = r.invalid_paths();
        got.sort();
        assert_eq!(
            got,
            [
                "order.capacities.0.capacity",
                "order.delivery_duration",
                "order.delivery_lat",
                "order.delivery_lng",
                "order.pickup_duration",
            ],
            "{path}"
        );
        let capacity = &r.body["details"]["validationErrors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["path"][1] == "capacities")
            .unwrap()["message"];
        assert_eq!(capacity, "order.capacities.0.capacity must be at least 0");
    }
}

#[tokio::test]
async fn available_dates_lists_the_bookable_days_of_a_range() {
    let app = TestApp::new();
    // A heavy order due on DAY overbooks that day only.
    vehicle(&app, "Van").await;
    let mut heavy = delivery("HEAVY", 51.5, -0.12);
    heavy["capacities"] = json!([{"id": weight_id(&app), "capacity": 2}]);
    post_orders(&app, vec![heavy]).await;
    let r = app
        .post(
            "/v2/booking/available-dates",
            &app.north(),
            json!({"from": "2026-11-23", "to": "2026-11-25", "order": near()}),
        )
        .await;
    assert_eq!(
        r.ok(),
        &json!({
            "available_dates": ["2026-11-23", "2026-11-25"],
            "dates": [
                {"date": "2026-11-23", "available": true},
                {"date": DAY, "available": false},
                {"date": "2026-11-25", "available": true},
            ]
        })
    );
    let too_long = json!({"from": "2026-11-01", "to": "2026-11-30", "order": near()});
    assert_eq!(
        app.post("/v2/booking/available-dates", &app.north(), too_long)
            .await
            .invalid_paths(),
        vec!["to"]
    );
}

#[tokio::test]
async fn available_slots_follow_the_fleet_shifts() {
    let app = TestApp::new();
    app.post(
        "/v2/vehicles",
        &app.north(),
        json!({"name": "Morning", "availability": "shift", "shift_start": "08:00",
            "shift_end": "12:00", "start_location": "depot", "end_location": "depot"}),
    )
    .await
    .ok();
    let r = app
        .post(
            "/v2/booking/available-slots",
            &app.north(),
            json!({"date": DAY, "order": near(), "from": "08:00", "to": "16:00", "slot_minutes": 120}),
        )
        .await;
    assert_eq!(
        r.ok(),
        &json!({"date": DAY, "slots": [
            {"from": "08:00", "to": "10:00", "available": true},
            {"from": "10:00", "to": "12:00", "available": true},
            {"from": "12:00", "to": "14:00", "available": false},
            {"from": "14:00", "to": "16:00", "available": false},
        ]})
    );
    let bad = json!({"date": DAY, "order": near(), "slot_minutes": 5});
    assert_eq!(
        app.post("/v2/booking/available-slots", &app.north(), bad)
            .await
            .invalid_paths(),
        vec!["slot_minutes"]
    );
}

#[tokio::test]
async fn available_slots_refuses_a_window_of_more_than_24_slots_rather_than_cutting_it_short() {
    let app = TestApp::new();
    vehicle(&app, "Van").await;
    // 08:00 to 18:00 in quarter hours is 40 slots: answering the first 24 would leave the
    // afternoon out without a word.
    let r = app
        .post(
            "/v2/booking/available-slots",
            &app.north(),
            json!({"date": DAY, "order": near(), "slot_minutes": 15}),
        )
        .await;
    assert_eq!(r.invalid_paths(), vec!["to"]);
    assert_eq!(r.body["details"]["validationErrors"][0]["code"], "too_big");
    let exactly_24 = json!({"date": DAY, "order": near(), "from": "08:00", "to": "14:00",
        "slot_minutes": 15});
    let r = app
        .post("/v2/booking/available-slots", &app.north(), exactly_24)
        .await;
    assert_eq!(r.ok()["slots"].as_array().unwrap().len(), 24);
}

#[tokio::test]
async fn available_slots_names_a_slot_length_over_720_minutes_too_big() {
    let app = TestApp::new();
    let r = app
        .post(
            "/v2/booking/available-slots",
            &app.north(),
            json!({"date": DAY, "order": near(), "slot_minutes": 721}),
        )
        .await;
    assert_eq!(r.invalid_paths(), vec!["slot_minutes"]);
    assert_eq!(r.body["details"]["validationErrors"][0]["code"], "too_big");
}
