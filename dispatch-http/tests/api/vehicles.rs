use axum::http::Method;
use dispatch_core::model::vehicle::{apply_patch, VehiclePatch, MAX_VEHICLES_PER_ORGANISATION};
use dispatch_core::patch::Patch;
use dispatch_core::time::Timestamp;
use serde_json::{json, Value};

use crate::common::{van, TestApp};

fn with(mut base: Value, extra: Value) -> Value {
    for (k, v) in extra.as_object().unwrap() {
        base[k] = v.clone();
    }
    base
}

async fn create(app: &TestApp, body: Value) -> Value {
    app.post("/v2/vehicles", &app.north(), body).await.ok()["vehicle"].clone()
}

#[tokio::test]
async fn create_returns_the_vehicle_with_defaults_and_its_shift() {
    let app = TestApp::new();
    let v = create(&app, van("Van 1")).await;
    assert!(v["id"].is_i64());
    assert_eq!(v["name"], "Van 1");
    assert_eq!(v["active"], true);
    assert_eq!(v["break"], false);
    assert_eq!(v["availability"], "full_day");
    assert_eq!(v["skills"], json!([]));
    assert_eq!(v["capacities"], json!([]));
    assert_eq!(v["created"], "2026-11-22T08:00:00.000Z");
    assert_eq!(v["updated"], "2026-11-22T08:00:00.000Z");
    let shift = &v["shift"][0];
    assert_eq!(shift["availability"], "full_day");
    assert_eq!(shift["enabled"], true);
    assert_eq!(shift["force_shift_start"], false);
    assert_eq!(shift["vehicle_breaks"][0]["enabled"], false);
    for key in [
        "shift_start",
        "shift_end",
        "max_route_duration",
        "day_of_week",
    ] {
        assert!(shift.get(key).is_some(), "{key}");
    }
}

#[tokio::test]
async fn post_with_a_trailing_slash_creates_too() {
    let app = TestApp::new();
    let r = app.post("/v2/vehicles/", &app.north(), van("Slash")).await;
    assert_eq!(r.ok()["vehicle"]["name"], "Slash");
    assert_eq!(
        app.get("/v2/vehicles/", &app.north()).await.ok()["vehicles"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn create_requires_name_availability_and_locations() {
    let app = TestApp::new();
    let r = app.post("/v2/vehicles", &app.north(), json!({})).await;
    assert_eq!(
        r.invalid_paths(),
        ["name", "availability", "start_location", "end_location"]
    );
    let r = app
        .post(
            "/v2/vehicles",
            &app.north(),
            json!({"name": "V", "availability": "full_day", "start_location": "depot"}),
        )
        .await;
    assert_eq!(r.invalid_paths(), ["end_location"]);
}

#[tokio::test]
async fn name_is_at_most_30_characters() {
    let app = TestApp::new();
    create(&app, van(&"n".repeat(30))).await;
    let r = app
        .post("/v2/vehicles", &app.north(), van(&"n".repeat(31)))
        .await;
    assert_eq!(r.invalid_paths(), ["name"]);
    assert_eq!(r.body["details"]["validationErrors"][0]["code"], "too_big");
}

#[tokio::test]
async fn enums_are_checked() {
    let app = TestApp::new();
    for (field, bad) in [
        ("availability", "weekends"),
        ("start_location", "none"),
        ("end_location", "app-location"),
    ] {
        let r = app
            .post(
                "/v2/vehicles",
                &app.north(),
                with(van("V"), json!({field: bad})),
            )
            .await;
        assert_eq!(r.invalid_paths(), [field]);
        assert_eq!(
            r.body["details"]["validationErrors"][0]["code"],
            "invalid_enum_value"
        );
    }
    for (availability, start, end) in [
        ("shift", "app-location", "none"),
        ("always", "depot", "depot"),
    ] {
        let mut body = json!({"name": "V", "availability": availability, "start_location": start, "end_location": end});
        if availability == "shift" {
            body = with(body, json!({"shift_start": "06:00", "shift_end": "14:00"}));
        }
        create(&app, body).await;
    }
}

#[tokio::test]
async fn shift_start_must_be_before_shift_end() {
    let app = TestApp::new();
    let shift = |a: &str, b: &str| {
        with(
            van("V"),
            json!({"availability": "shift", "shift_start": a, "shift_end": b}),
        )
    };
    let v = create(&app, shift("08:00", "16:30")).await;
    assert_eq!(
        (v["shift_start"].as_str(), v["shift_end"].as_str()),
        (Some("08:00"), Some("16:30"))
    );
    assert_eq!(v["shift"][0]["shift_start"], "08:00");
    assert_eq!(
        app.post("/v2/vehicles", &app.north(), shift("16:00", "08:00"))
            .await
            .invalid_paths(),
        ["shift_end"]
    );
    assert_eq!(
        app.post("/v2/vehicles", &app.north(), shift("08:00", "08:00"))
            .await
            .invalid_paths(),
        ["shift_end"]
    );
    assert_eq!(
        app.post("/v2/vehicles", &app.north(), shift("25:00", "26:00"))
            .await
            .invalid_paths(),
        ["shift_start", "shift_end"]
    );
    let r = app
        .post(
            "/v2/vehicles",
            &app.north(),
            with(van("V"), json!({"availability": "shift"})),
        )
        .await;
    assert_eq!(r.invalid_paths(), ["shift_start", "shift_end"]);
}

#[tokio::test]
async fn other_locations_need_lat_and_lng_and_keep_the_address_as_given() {
    let app = TestApp::new();
    let r = app
        .post(
            "/v2/vehicles",
            &app.north(),
            with(
                van("V"),
                json!({"start_location": "other", "start_address": "1 High St"}),
            ),
        )
        .await;
    assert_eq!(r.invalid_paths(), ["start_lat", "start_lng"]);
    let r = app
        .post(
            "/v2/vehicles",
            &app.north(),
            with(van("V"), json!({"end_location": "other", "end_lat": 51.0})),
        )
        .await;
    assert_eq!(r.invalid_paths(), ["end_lng"]);
    let v = create(
        &app,
        with(van("V"), json!({"start_location": "other", "start_address": "Somewhere not in the gazetteer", "start_lat": 51.1, "start_lng": -0.5, "end_location": "other", "end_lat": 51.2, "end_lng": -0.6})),
    )
    .await;
    assert_eq!(v["start_address"], "Somewhere not in the gazetteer");
    assert_eq!(
        (v["start_lat"].as_f64(), v["start_lng"].as_f64()),
        (Some(51.1), Some(-0.5))
    );
    assert_eq!(v["end_address"], Value::Null);
    let r = app
        .post(
            "/v2/vehicles",
            &app.north(),
            with(van("V"), json!({"start_lat": 100.0})),
        )
        .await;
    assert_eq!(r.invalid_paths(), ["start_lat"]);
}

#[tokio::test]
async fn break_needs_start_end_and_a_duration_shorter_than_the_window() {
    let app = TestApp::new();
    let brk = |extra: Value| with(with(van("V"), json!({"break": true})), extra);
    let r = app.post("/v2/vehicles", &app.north(), brk(json!({}))).await;
    assert_eq!(
        r.invalid_paths(),
        ["break_start", "break_end", "break_duration"]
    );
    let r = app
        .post(
            "/v2/vehicles",
            &app.north(),
            brk(json!({"break_start": "12:00", "break_end": "12:30", "break_duration": 30})),
        )
        .await;
    assert_eq!(r.invalid_paths(), ["break_duration"]);
    let r = app
        .post(
            "/v2/vehicles",
            &app.north(),
            brk(json!({"break_start": "13:00", "break_end": "12:00", "break_duration": 10})),
        )
        .await;
    assert_eq!(r.invalid_paths(), ["break_end"]);
    let v = create(
        &app,
        brk(json!({"break_start": "12:00", "break_end": "13:00", "break_duration": 45})),
    )
    .await;
    assert_eq!(v["break"], true);
    assert_eq!(v["break_duration"], 45);
    assert_eq!(
        v["shift"][0]["vehicle_breaks"][0],
        json!({"enabled": true, "break_start": "12:00", "break_end": "13:00", "break_duration": 45})
    );
    // Without a break, break fields are optional.
    create(
        &app,
        with(van("V"), json!({"break": false, "break_duration": null})),
    )
    .await;
}

#[tokio::test]
async fn wrong_json_types_are_reported_at_their_path() {
    let app = TestApp::new();
    let body = with(
        van("V"),
        json!({"active": "yes", "skills": ["ok", 3], "capacities": [{"id": "1", "capacity": 2}, 7], "start_lat": "51"}),
    );
    let r = app.post("/v2/vehicles", &app.north(), body).await;
    let mut paths = r.invalid_paths();
    paths.sort();
    assert_eq!(
        paths,
        [
            "active",
            "capacities.0.id",
            "capacities.1",
            "skills.1",
            "start_lat"
        ]
    );
}

#[tokio::test]
async fn skills_are_created_by_name_and_matched_case_sensitively() {
    let app = TestApp::new();
    let a = create(
        &app,
        with(van("A"), json!({"skills": ["Fridge", "fridge", "Fridge"]})),
    )
    .await;
    assert_eq!(a["skills"], json!(["Fridge", "fridge"]));
    let b = create(
        &app,
        with(van("B"), json!({"skills": ["FRIDGE", "Fridge"]})),
    )
    .await;
    assert_eq!(b["skills"], json!(["FRIDGE", "Fridge"]));
    let scope = dispatch_core::model::organisation::DepotScope {
        organisation_id: app.seed_output["organisations"][0]["id"].as_i64().unwrap(),
        depot_id: app.depot(0, 0)["id"].as_i64().unwrap(),
    };
    let skills: Vec<String> = app
        .read(|tx| tx.list_skills(scope))
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(skills, ["Fridge", "fridge", "FRIDGE"]);
}

#[tokio::test]
async fn capacities_are_matched_by_id_and_unknown_ids_dropped() {
    let app = TestApp::new();
    let weight = app.depot(0, 0)["capacity_types"][0]["id"].as_i64().unwrap();
    let pallets = app.depot(0, 1)["capacity_types"][0]["id"].as_i64().unwrap();
    let v = create(
        &app,
        with(van("V"), json!({"capacities": [{"id": weight, "capacity": 500}, {"id": 999999, "capacity": 1}, {"id": pallets, "capacity": 3}, {"capacity": 4}]})),
    )
    .await;
    assert_eq!(
        v["capacities"],
        json!([{"id": weight, "type": "Weight", "capacity": 500}])
    );
    let r = app
        .post(
            "/v2/vehicles",
            &app.north(),
            with(van("V"), json!({"capacities": [{"id": weight}]})),
        )
        .await;
    assert_eq!(r.invalid_paths(), ["capacities.0.capacity"]);
}

#[tokio::test]
async fn list_includes_inactive_vehicles_with_their_shift() {
    let app = TestApp::new();
    create(&app, van("On")).await;
    create(&app, with(van("Off"), json!({"active": false}))).await;
    let r = app.get("/v2/vehicles", &app.north()).await;
    let list = r.ok()["vehicles"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[1]["active"], false);
    assert_eq!(list[1]["shift"][0]["enabled"], false);
    for v in list {
        for key in ["shift_start", "start_address", "break_start", "shift"] {
            assert!(v.get(key).is_some(), "list view carries {key}");
        }
    }
}

#[tokio::test]
async fn single_read_shows_fields_only_where_they_apply() {
    let app = TestApp::new();
    let plain = create(
        &app,
        with(
            van("Plain"),
            json!({"shift_start": "08:00", "shift_end": "09:00", "start_address": "ignored"}),
        ),
    )
    .await;
    let r = app
        .get(&format!("/v2/vehicles/{}", plain["id"]), &app.north())
        .await;
    let v = &r.ok()["vehicle"];
    for absent in [
        "shift_start",
        "shift_end",
        "start_address",
        "start_lat",
        "start_lng",
        "end_address",
        "end_lat",
        "end_lng",
        "break_start",
        "break_end",
        "break_duration",
    ] {
        assert!(v.get(absent).is_none(), "{absent} should be absent: {v}");
    }
    assert!(
        v.get("shift").is_some(),
        "the description puts shift on single reads"
    );

    let rich = create(
        &app,
        json!({"name": "Rich", "availability": "shift", "shift_start": "07:00", "shift_end": "15:00",
               "start_location": "other", "start_address": "Yard", "start_lat": 51.0, "start_lng": 0.1,
               "end_location": "depot", "break": true, "break_start": "11:00", "break_end": "12:00", "break_duration": 20}),
    )
    .await;
    let r = app
        .get(&format!("/v2/vehicles/{}", rich["id"]), &app.north())
        .await;
    let v = &r.ok()["vehicle"];
    assert_eq!(v["shift_start"], "07:00");
    assert_eq!(v["start_address"], "Yard");
    assert_eq!(v["start_lat"], 51.0);
    assert!(v.get("end_address").is_none());
    assert_eq!(v["break_start"], "11:00");
    assert_eq!(v["break_duration"], 20);
}

#[tokio::test]
async fn update_is_partial_by_put_and_patch_and_replaces_sets() {
    let app = TestApp::new();
    let weight = app.depot(0, 0)["capacity_types"][0]["id"].as_i64().unwrap();
    let volume = app.depot(0, 0)["capacity_types"][1]["id"].as_i64().unwrap();
    let v = create(
        &app,
        with(
            van("V"),
            json!({"skills": ["A", "B"], "capacities": [{"id": weight, "capacity": 1}]}),
        ),
    )
    .await;
    let path = format!("/v2/vehicles/{}", v["id"]);
    app.clock.advance_millis(5_000);
    let r = app
        .put(&path, &app.north(), json!({"name": "Renamed"}))
        .await;
    let u = &r.ok()["vehicle"];
    assert_eq!(u["name"], "Renamed");
    assert_eq!(u["skills"], json!(["A", "B"]));
    assert_eq!(u["capacities"][0]["capacity"], 1);
    assert_eq!(u["created"], "2026-11-22T08:00:00.000Z");
    assert_eq!(u["updated"], "2026-11-22T08:00:05.000Z");
    assert!(u.get("shift").is_some());
    let r = app
        .call(
            Method::PATCH,
            &path,
            Some(&app.north()),
            Some(json!({"skills": ["C"], "capacities": [{"id": volume, "capacity": 9}]})),
        )
        .await;
    assert_eq!(r.ok()["vehicle"]["skills"], json!(["C"]));
    assert_eq!(
        r.body["vehicle"]["capacities"],
        json!([{"id": volume, "type": "Volume", "capacity": 9}])
    );
    let r = app
        .put(&path, &app.north(), json!({"skills": [], "capacities": []}))
        .await;
    assert_eq!(r.ok()["vehicle"]["skills"], json!([]));
    assert_eq!(r.body["vehicle"]["capacities"], json!([]));
    // The change is stored.
    let read = app.get(&path, &app.north()).await;
    assert_eq!(read.ok()["vehicle"]["name"], "Renamed");
}

#[tokio::test]
async fn update_applies_the_rules_to_the_merged_vehicle() {
    let app = TestApp::new();
    let v = create(
        &app,
        with(
            van("V"),
            json!({"availability": "shift", "shift_start": "08:00", "shift_end": "12:00"}),
        ),
    )
    .await;
    let path = format!("/v2/vehicles/{}", v["id"]);
    assert_eq!(
        app.put(&path, &app.north(), json!({"shift_start": "13:00"}))
            .await
            .invalid_paths(),
        ["shift_end"]
    );
    assert_eq!(
        app.put(&path, &app.north(), json!({"end_location": "other"}))
            .await
            .invalid_paths(),
        ["end_lat", "end_lng"]
    );
    assert_eq!(
        app.put(&path, &app.north(), json!({"break": true}))
            .await
            .invalid_paths(),
        ["break_start", "break_end", "break_duration"]
    );
    assert_eq!(
        app.put(&path, &app.north(), json!({"name": "x".repeat(31)}))
            .await
            .invalid_paths(),
        ["name"]
    );
    assert_eq!(
        app.put(&path, &app.north(), json!({"name": null}))
            .await
            .invalid_paths(),
        ["name"]
    );
    // None of the refused updates changed anything.
    let read = app.get(&path, &app.north()).await;
    assert_eq!(read.ok()["vehicle"]["shift_start"], "08:00");
    assert_eq!(read.body["vehicle"]["updated"], v["updated"]);
    let r = app
        .put(&path, &app.north(), json!({"availability": "always"}))
        .await;
    assert_eq!(r.ok()["vehicle"]["shift"][0]["availability"], "always");
}

#[tokio::test]
async fn unknown_ids_are_400_invalid_input_for_read_update_and_delete() {
    let app = TestApp::new();
    for (method, body) in [
        (Method::GET, None),
        (Method::PUT, Some(json!({"name": "X"}))),
        (Method::PATCH, Some(json!({}))),
        (Method::DELETE, None),
    ] {
        let r = app
            .call(
                method.clone(),
                "/v2/vehicles/424242",
                Some(&app.north()),
                body,
            )
            .await;
        assert_eq!(r.invalid_paths(), ["id"], "{method}");
    }
}

#[tokio::test]
async fn delete_removes_the_vehicle() {
    let app = TestApp::new();
    let v = create(&app, with(van("Gone"), json!({"skills": ["S"]}))).await;
    let keep = create(&app, van("Kept")).await;
    let path = format!("/v2/vehicles/{}", v["id"]);
    let r = app.delete(&path, &app.north()).await;
    assert_eq!(r.ok(), &json!({"deleted": {"vehicles_count": 1}}));
    assert_eq!(app.get(&path, &app.north()).await.invalid_paths(), ["id"]);
    assert_eq!(
        app.delete(&path, &app.north()).await.invalid_paths(),
        ["id"]
    );
    assert_eq!(
        app.put(&path, &app.north(), json!({"name": "Back"}))
            .await
            .invalid_paths(),
        ["id"]
    );
    let list = app.get("/v2/vehicles", &app.north()).await;
    assert_eq!(
        list.ok()["vehicles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["id"].clone())
            .collect::<Vec<_>>(),
        [keep["id"].clone()]
    );
}

#[tokio::test]
async fn the_organisation_vehicle_limit_gives_400_invalid_input() {
    let app = TestApp::new();
    let south = dispatch_core::model::organisation::DepotScope {
        organisation_id: app.seed_output["organisations"][0]["id"].as_i64().unwrap(),
        depot_id: app.depot(0, 1)["id"].as_i64().unwrap(),
    };
    let fields = apply_patch(
        &VehiclePatch {
            name: Patch::Value("Bulk".into()),
            availability: Patch::Value("always".into()),
            start_location: Patch::Value("depot".into()),
            end_location: Patch::Value("none".into()),
            ..Default::default()
        },
        None,
    )
    .unwrap();
    app.write(|tx| {
        for _ in 1..MAX_VEHICLES_PER_ORGANISATION {
            tx.insert_vehicle(south, &fields, Timestamp::from_millis(0))?;
        }
        Ok::<_, dispatch_core::ports::store::StoreError>(())
    })
    .unwrap();
    // The limit counts the whole organisation: North may add exactly one more.
    create(&app, van("Last")).await;
    let r = app
        .post("/v2/vehicles", &app.north(), van("One too many"))
        .await;
    r.envelope(400, "INVALID_INPUT");
    // Another organisation is unaffected.
    app.post("/v2/vehicles", &app.far(), van("Far van"))
        .await
        .ok();
}

#[tokio::test]
async fn delete_removes_the_vehicles_assignment_to_orders() {
    let app = TestApp::new();
    let v = create(&app, van("Assigned")).await;
    let order = json!([{"order_number": "A-1", "type": "delivery", "delivery_address": "1 High St",
                        "vehicle_assignment": {"vehicle_id": v["id"]}}]);
    let r = app.post("/v2/orders", &app.north(), order).await;
    // Order ids in the creation result are strings.
    let order_id = r.ok()["orders"][0]["id"]
        .as_str()
        .expect("string id")
        .to_owned();
    let path = format!("/v2/orders/{order_id}");
    let before = app.get(&path, &app.north()).await;
    let before = before.ok();
    let read = before.get("order").unwrap_or(before);
    assert_eq!(read["vehicle_assignment"], json!({"vehicle_id": v["id"]}));
    app.delete(&format!("/v2/vehicles/{}", v["id"]), &app.north())
        .await
        .ok();
    let after = app.get(&path, &app.north()).await;
    let after = after.ok();
    let read = after.get("order").unwrap_or(after);
    assert_eq!(read["vehicle_assignment"], Value::Null);
}
