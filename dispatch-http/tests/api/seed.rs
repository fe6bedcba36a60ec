use dispatch_core::service::seed;
use dispatch_core::time::Timestamp;
use dispatch_http::keys::DerivedKeys;
use serde_json::json;

use crate::common::{fixture_seed, TestApp, START};

#[tokio::test]
async fn seed_output_is_the_input_tree_with_ids_and_keys() {
    let app = TestApp::new();
    let org = &app.seed_output["organisations"][0];
    assert_eq!(org["name"], "Acme");
    assert!(org["id"].is_i64());
    assert_eq!(org["third_parties"][0]["name"], "Courier X");
    let north = app.depot(0, 0);
    assert_eq!(north["name"], "North");
    assert_eq!(north["access_keys"][0]["name"], "integration");
    assert_eq!(north["access_keys"][0]["permission"], "all");
    assert_eq!(north["access_keys"][1]["permission"], "read");
    assert_eq!(north["access_keys"][0]["key"].as_str().unwrap().len(), 64);
    assert_eq!(north["capacity_types"][0]["type"], "Weight");
    assert_eq!(north["custom_fields"][0]["name"], "Gate code");
    assert_eq!(north["zone_groups"][0]["zones"][1]["name"], "Z2");
    assert_eq!(
        north["notification_templates"][0],
        json!({"id": north["notification_templates"][0]["id"], "type": "SMS", "name": "On the way"})
    );
}

#[tokio::test]
async fn seeding_the_same_file_again_creates_nothing_and_prints_the_same_ids_and_keys() {
    let app = TestApp::new();
    let seed = seed::parse(&fixture_seed().to_string()).unwrap();
    let again = app
        .with_store(|store| {
            seed::apply(
                store,
                &DerivedKeys,
                &seed,
                Timestamp::from_millis(START + 60_000),
            )
        })
        .unwrap();
    assert_eq!(again, app.seed_output);
    // Nothing new is listed.
    let caps = app.get("/v2/capacities", &app.north()).await;
    assert_eq!(caps.ok()["capacities"].as_array().unwrap().len(), 2);
    // And unchanged rows keep their update time.
    assert_eq!(
        caps.body["capacities"][0]["updated"],
        "2026-11-22T08:00:00.000Z"
    );
}

#[tokio::test]
async fn every_seeded_key_authenticates_to_its_own_depot() {
    let app = TestApp::new();
    for (org, depot, name) in [(0, 0, "North"), (0, 1, "South"), (1, 0, "Far")] {
        let r = app.get("/v2/depots", &app.key_of(org, depot, 0)).await;
        assert_eq!(r.ok()["depots"][0]["name"], name);
    }
}

#[tokio::test]
async fn reseeding_adds_new_rows_and_updates_changed_ones_by_name() {
    let app = TestApp::new();
    let mut file = fixture_seed();
    let north = &mut file["organisations"][0]["depots"][0];
    north["capacity_types"][0]["default"] = json!("5");
    north["capacity_types"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "Crates"}));
    north["access_keys"][1]["permission"] = json!("all");
    let out = app
        .with_store(|store| {
            seed::apply(
                store,
                &DerivedKeys,
                &seed::parse(&file.to_string()).unwrap(),
                Timestamp::from_millis(START + 1000),
            )
        })
        .unwrap();
    let caps = app.get("/v2/capacities", &app.north()).await;
    let caps = caps.ok()["capacities"].as_array().unwrap().clone();
    assert_eq!(caps.len(), 3);
    assert_eq!(caps[0]["default"], "5");
    assert_eq!(caps[0]["id"], app.depot(0, 0)["capacity_types"][0]["id"]);
    assert_eq!(caps[0]["updated"], "2026-11-22T08:00:01.000Z");
    // The former read key now writes, with the same key text.
    let key = out["organisations"][0]["depots"][0]["access_keys"][1]["key"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(key, app.north_read());
    app.post("/v2/vehicles", &key, crate::common::van("V"))
        .await
        .ok();
}

#[tokio::test]
async fn invalid_seed_files_are_refused_without_writing() {
    let app = TestApp::new();
    for bad in [
        json!({"organisations": [{"name": ""}]}),
        json!({"organisations": [{"name": "X", "depots": [{"name": "D", "access_keys": [{"name": "k", "permission": "admin"}]}]}]}),
        json!({"organisations": [{"name": "X", "depots": [{"name": "D", "zone_groups": [{"name": "G", "zones": [{"name": "Z", "polygon": [[0, 0], [1, 1]]}]}]}]}]}),
        json!({"organisations": [{"name": "X", "depots": [{"name": "D", "notification_templates": [{"type": "FAX", "name": "T"}]}]}]}),
    ] {
        let parsed = seed::parse(&bad.to_string()).unwrap();
        assert!(
            app.with_store(|store| seed::apply(
                store,
                &DerivedKeys,
                &parsed,
                Timestamp::from_millis(START)
            ))
            .is_err(),
            "{bad}"
        );
    }
    assert!(
        seed::parse("{\"organisations\": [{}]}").is_err(),
        "names are required"
    );
    assert!(seed::parse("not json").is_err());
    for array in ["[]", " [[{\"name\": \"A\"}]]"] {
        let err = seed::parse(array).unwrap_err().to_string();
        assert!(err.contains("expected an object"), "{array}: {err}");
    }
}

/// Values the store would keep but the service could not use are refused with their place,
/// alike on every store, and nothing of the file is written: a NUL in any text (PostgreSQL
/// cannot store it; SQLite kept it), a starting status the organisation does not have (its
/// orders would carry a status the order list refuses as a filter), a custom status spelt as a
/// default or an aggregate, a time zone that is not an IANA name (it was read as UTC), a
/// webhook receiver that is not an http(s) URL (every delivery failed), and a webhook username
/// holding ':' (HTTP Basic cannot carry it: the receiver would read the rest as the password).
#[tokio::test]
async fn seed_values_the_service_could_not_use_are_refused_at_their_place_writing_nothing() {
    let app = TestApp::new();
    let depot = |extra: serde_json::Value| {
        let mut d = json!({"name": "D", "access_keys": [{"name": "k"}]});
        d.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({"organisations": [{"name": "Fresh", "order_statuses": ["RETURNED"], "depots": [d]}]})
    };
    let cases = [
        (
            json!({"organisations": [{"name": "Fre\u{0}sh"}]}),
            "organisations[0].name",
        ),
        (
            depot(json!({"tags": ["ok", "t\u{0}"]})),
            "organisations[0].depots[0].tags[1]",
        ),
        (
            depot(json!({"notification_templates": [{"name": "T", "body": "b\u{0}"}]})),
            "organisations[0].depots[0].notification_templates[0].body",
        ),
        (
            depot(json!({"settings": {"starting_status": "bogus"}})),
            "settings.starting_status",
        ),
        (
            depot(json!({"settings": {"starting_status": "PARTIALLY_DELIVERED"}})),
            "settings.starting_status",
        ),
        (
            json!({"organisations": [{"name": "Fresh", "order_statuses": ["open"]}]}),
            "organisations[0].order_statuses[0]",
        ),
        (
            json!({"organisations": [{"name": "Fresh", "order_statuses": ["PARTIALLY_X"]}]}),
            "organisations[0].order_statuses[0]",
        ),
        (
            depot(json!({"settings": {"timezone": "Europe/Londn"}})),
            "organisations[0].depots[0].settings.timezone",
        ),
        (
            depot(json!({"settings": {"webhook": {"url": "not a url"}}})),
            "organisations[0].depots[0].settings.webhook.url",
        ),
        (
            depot(json!({"settings": {"webhook": {"url": "ftp://127.0.0.1/hook"}}})),
            "organisations[0].depots[0].settings.webhook.url",
        ),
        (
            depot(
                json!({"settings": {"webhook": {"url": "https://hooks.example.com/d",
                "username": "ops:night", "password": "p"}}}),
            ),
            "organisations[0].depots[0].settings.webhook.username",
        ),
    ];
    for (bad, place) in cases {
        let text = bad.to_string();
        let err = seed::parse(&text)
            .and_then(|parsed| {
                app.with_store(|store| {
                    seed::apply(store, &DerivedKeys, &parsed, Timestamp::from_millis(START))
                })
            })
            .unwrap_err()
            .to_string();
        assert!(err.contains(place), "{text}: {err}");
        let written = app
            .read(|tx| tx.find_organisation_by_name("Fresh"))
            .unwrap();
        assert!(written.is_none(), "{text} wrote {written:?}");
    }
    // What these rules allow: a custom starting status of the same file (exactly as listed,
    // a default in any case, stored in its own spelling), an IANA zone, an https receiver.
    let good = depot(json!({"settings": {
        "starting_status": "RETURNED",
        "timezone": "Europe/London",
        "webhook": {"url": "https://hooks.example.com/dispatch"}
    }}));
    let parsed = seed::parse(&good.to_string()).unwrap();
    app.with_store(|store| {
        seed::apply(store, &DerivedKeys, &parsed, Timestamp::from_millis(START))
    })
    .unwrap();
    let mut open = good.clone();
    open["organisations"][0]["depots"][0]["settings"]["starting_status"] = json!("open");
    let parsed = seed::parse(&open.to_string()).unwrap();
    app.with_store(|store| {
        seed::apply(store, &DerivedKeys, &parsed, Timestamp::from_millis(START))
    })
    .unwrap();
    let org = app
        .read(|tx| tx.find_organisation_by_name("Fresh"))
        .unwrap()
        .unwrap();
    let depot = app
        .read(|tx| tx.find_depot_by_name(org.id, "D"))
        .unwrap()
        .unwrap();
    assert_eq!(depot.settings.starting_status, "OPEN");
}

#[tokio::test]
async fn first_start_bootstrap_runs_only_on_an_empty_store() {
    let app = TestApp::new();
    assert_eq!(
        app.with_store(|store| seed::bootstrap_default(
            store,
            &DerivedKeys,
            Timestamp::from_millis(START)
        ))
        .unwrap(),
        None
    );
    let dir = tempfile::tempdir().unwrap();
    let store = dispatch_store_sqlite::SqliteStore::open(dir.path().join("fresh.db")).unwrap();
    let key = seed::bootstrap_default(&store, &DerivedKeys, Timestamp::from_millis(START))
        .unwrap()
        .expect("a key");
    assert_eq!(
        seed::bootstrap_default(&store, &DerivedKeys, Timestamp::from_millis(START)).unwrap(),
        None
    );
    let found = dispatch_http::keys::authenticate(&store, &key)
        .unwrap()
        .expect("key works");
    assert_eq!(found.name, "default");
}
