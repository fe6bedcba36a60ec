//! `/console` as served: the page and every file it loads, their headers (the policy that
//! keeps scripts, styles and data on this origin, images also from the tile host), the tile
//! settings handed to the page, `/metrics` moved off the API's listener, and the board's own
//! reads (the depot, the day's orders, the vans' positions).

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use dispatch_http::console::{ConsoleConfig, TileUrl};
use dispatch_http::{app_with, AppOptions};
use http_body_util::BodyExt;
use tower::ServiceExt;

use serde_json::json;

use crate::common::{delivery, post_orders, TestApp};

struct Page {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    text: String,
}

async fn fetch(router: &Router, path: &str) -> Page {
    fetch_with(router, Request::get(path).body(Body::empty()).unwrap()).await
}

async fn fetch_with(router: &Router, request: Request<Body>) -> Page {
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    Page {
        status,
        headers,
        text: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

fn header(page: &Page, name: header::HeaderName) -> &str {
    page.headers
        .get(name)
        .map(|v| v.to_str().unwrap())
        .unwrap_or_default()
}

/// The `href`/`src` attribute values of the page.
fn references(html: &str) -> Vec<String> {
    html.split(['"'])
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| w[0].ends_with("href=") || w[0].ends_with("src="))
        .map(|w| w[1].to_owned())
        .collect()
}

#[tokio::test]
async fn the_console_page_and_every_file_it_loads_are_served_from_this_origin() {
    let app = TestApp::new();
    let page = fetch(&app.router, "/console").await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(
        header(&page, header::CONTENT_TYPE),
        "text/html; charset=utf-8"
    );
    let csp = header(&page, header::CONTENT_SECURITY_POLICY);
    for part in [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self';",
        "connect-src 'self'",
        "frame-ancestors 'self'",
    ] {
        assert!(csp.contains(part), "{part} in {csp}");
    }
    assert_eq!(header(&page, header::X_FRAME_OPTIONS), "SAMEORIGIN");
    assert_eq!(header(&page, header::REFERRER_POLICY), "no-referrer");
    assert!(page.text.contains("data-tile-url=\"\""), "{}", page.text);
    let refs = references(&page.text);
    assert_eq!(refs.len(), 3, "{refs:?}");
    for reference in refs {
        assert!(
            reference.starts_with("console/assets/"),
            "relative: {reference}"
        );
        let file = fetch(&app.router, &format!("/{reference}")).await;
        assert_eq!(file.status, StatusCode::OK, "{reference}");
        let kind = header(&file, header::CONTENT_TYPE);
        assert!(
            kind.starts_with("text/css") || kind.starts_with("text/javascript"),
            "{reference}: {kind}"
        );
        assert_eq!(header(&file, header::X_CONTENT_TYPE_OPTIONS), "nosniff");
    }
    let leaflet = fetch(
        &app.router,
        "/console/assets/vendor/leaflet/leaflet-src.esm.js",
    )
    .await;
    assert!(leaflet.text.contains("Leaflet 1.9.4"));
}

#[tokio::test]
async fn unknown_console_and_docs_files_are_the_404_envelope_and_a_trailing_slash_goes_back_to_the_page(
) {
    let app = TestApp::new();
    for path in [
        "/console/assets/nothing.js",
        "/console/assets/../../v2/depots",
        "/console/assets/js/",
        "/console/assets/vendor/leaflet/leaflet.js",
        "/console/nothing",
        "/docs/nothing.js",
        "/docs/swagger-ui-bundle.js/x",
        "/docs//init.js",
    ] {
        let page = fetch(&app.router, path).await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(
            header(&page, header::CONTENT_TYPE),
            "application/json",
            "{path}"
        );
        let envelope: serde_json::Value = serde_json::from_str(&page.text).unwrap();
        assert_eq!(envelope["name"], "RESOURCE_NOT_FOUND", "{path}: {envelope}");
        assert_eq!(envelope["statusCode"], 404, "{path}");
        assert!(envelope["description"].is_string(), "{path}");
        assert!(envelope["details"].is_object(), "{path}: {envelope}");
    }
    let slash = fetch(&app.router, "/console/").await;
    assert_eq!(slash.status, StatusCode::PERMANENT_REDIRECT);
    assert_eq!(header(&slash, header::LOCATION), "../console");
}

#[tokio::test]
async fn a_tile_url_reaches_the_page_and_its_host_alone_is_allowed_for_images() {
    let app = TestApp::new();
    let options = AppOptions {
        console: ConsoleConfig {
            tile_url: Some(
                TileUrl::parse("https://{s}.tiles.example.org/{z}/{x}/{y}.png").unwrap(),
            ),
            tile_attribution: Some("© Example & co".into()),
        },
        ..AppOptions::default()
    };
    let router = app_with(app.state.clone(), &options);
    let page = fetch(&router, "/console").await;
    assert!(page
        .text
        .contains("data-tile-url=\"https://{s}.tiles.example.org/{z}/{x}/{y}.png\""));
    assert!(page
        .text
        .contains("data-tile-attribution=\"© Example &amp; co\""));
    let csp = header(&page, header::CONTENT_SECURITY_POLICY);
    assert!(
        csp.contains("img-src 'self' https://*.tiles.example.org;"),
        "{csp}"
    );
    assert!(csp.contains("connect-src 'self';"), "{csp}");
}

#[tokio::test]
async fn with_metrics_on_their_own_bind_the_api_router_does_not_serve_them() {
    let app = TestApp::new();
    assert_eq!(fetch(&app.router, "/metrics").await.status, StatusCode::OK);
    let options = AppOptions {
        metrics_elsewhere: true,
        ..AppOptions::default()
    };
    let api = app_with(app.state.clone(), &options);
    let moved = fetch(&api, "/metrics").await;
    assert_eq!(moved.status, StatusCode::NOT_FOUND);
    assert!(moved.text.contains("RESOURCE_NOT_FOUND"), "{}", moved.text);
    let metrics = dispatch_http::metrics_app(app.state.clone());
    assert_eq!(fetch(&metrics, "/metrics").await.status, StatusCode::OK);
    assert_eq!(
        fetch(&metrics, "/v2/depots").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        fetch(&metrics, "/console").await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_console_reads_where_the_callers_depot_is_with_the_access_key() {
    let app = TestApp::new();
    let north = app.get("/console/depot", &app.north()).await;
    assert_eq!(
        north.ok()["depot"],
        serde_json::json!({"id": app.depot(0, 0)["id"], "name": "North",
                           "address": "1 Depot Way", "lat": 51.5, "lng": -0.12,
                           "timezone": "UTC"})
    );
    assert_eq!(north.ok()["permission"], "all");
    assert_eq!(
        north.ok()["roads"],
        "straight",
        "without --osrm-url the map draws straight lines"
    );
    let reader = app.get("/console/depot", &app.north_read()).await;
    assert_eq!(
        reader.ok()["permission"],
        "read",
        "the board disables its actions"
    );
    let south = app.get("/console/depot", &app.south()).await;
    let south = &south.ok()["depot"];
    assert_eq!(south["name"], "South");
    assert!(south["address"].is_null() && south["lat"].is_null() && south["lng"].is_null());
    app.get("/console/depot", "not-a-key")
        .await
        .envelope(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn a_browser_with_a_current_copy_of_a_file_gets_304() {
    let app = TestApp::new();
    let path = "/console/assets/vendor/leaflet/leaflet-src.esm.js";
    let first = fetch(&app.router, path).await;
    let tag = header(&first, header::ETAG).to_owned();
    assert!(tag.starts_with('"') && tag.len() > 20, "{tag}");
    let again = |tag: &str| {
        Request::get(path)
            .header(header::IF_NONE_MATCH, tag)
            .body(Body::empty())
            .unwrap()
    };
    let cached = fetch_with(&app.router, again(&tag)).await;
    assert_eq!(cached.status, StatusCode::NOT_MODIFIED);
    assert!(cached.text.is_empty());
    assert_eq!(header(&cached, header::ETAG), tag);
    let changed = fetch_with(&app.router, again("\"0123\"")).await;
    assert_eq!(changed.status, StatusCode::OK);
    assert_eq!(changed.text, first.text);
    let other = fetch(&app.router, "/console/assets/js/main.js").await;
    assert_ne!(header(&other, header::ETAG), tag);
}

#[tokio::test]
async fn the_board_reads_a_days_orders_with_the_windows_demand_and_skills_the_optimiser_uses() {
    let app = TestApp::new();
    let day = "2026-11-24";
    let mut fridge = delivery("B-1", 51.51, -0.11);
    fridge["delivery_date"] = json!(day);
    fridge["delivery_duration"] = json!(12);
    fridge["delivery_time_windows"] =
        json!([{"from": "09:00", "to": "11:30"}, {"from": "14:00", "to": "16:00"}]);
    fridge["capacities"] = json!([{"type": "Weight", "capacity": 2.5}]);
    fridge["skills"] = json!(["Fridge"]);
    fridge["priority"] = json!("P1");
    fridge["customer"] = json!({"account": "ACME", "name": "Acme Ltd"});
    let mut items = delivery("B-2", 51.52, -0.12);
    items["delivery_date"] = json!(day);
    items["line_items"] = json!([
        {"product_code": "A", "product_name": "A", "product_quantity": 1, "capacities": [{"type": "Weight", "capacity": 1}]},
        {"product_code": "B", "product_name": "B", "product_quantity": 2, "capacities": [{"type": "Weight", "capacity": 3}]}
    ]);
    let mut later = delivery("B-3", 51.53, -0.13);
    later["delivery_date"] = json!("2026-11-25");
    let ids = post_orders(&app, vec![fridge, items, later]).await;
    // Another depot's order of the same day stays there.
    let mut south = delivery("S-1", 51.0, 0.0);
    south["delivery_date"] = json!(day);
    app.post("/v2/orders", &app.south(), json!([south]))
        .await
        .ok();

    let read = app
        .get(&format!("/console/orders?date={day}"), &app.north_read())
        .await;
    let body = read.ok();
    assert_eq!(body["date"], day);
    let orders = body["orders"].as_array().unwrap();
    let numbers: Vec<&str> = orders
        .iter()
        .map(|o| o["order_number"].as_str().unwrap())
        .collect();
    assert_eq!(
        numbers,
        ["B-1", "B-2"],
        "the day's orders of this depot: {body:#}"
    );
    let first = &orders[0];
    assert_eq!(first["id"], ids[0]);
    assert_eq!(first["status"], "OPEN");
    assert_eq!(first["type"], "delivery");
    assert_eq!(first["priority"], "P1");
    assert_eq!(first["customer"]["account"], "ACME");
    assert_eq!(first["customer"]["name"], "Acme Ltd");
    assert_eq!(
        first["time_windows"],
        json!([{"from": "09:00", "to": "11:30"}, {"from": "14:00", "to": "16:00"}])
    );
    assert_eq!(first["service_seconds"], 720);
    assert_eq!(first["demand"], json!([{"type": "Weight", "amount": 2.5}]));
    assert_eq!(first["skills"], json!(["Fridge"]));
    assert_eq!(first["lat"], 51.51);
    assert_eq!(
        orders[1]["demand"],
        json!([{"type": "Weight", "amount": 4.0}]),
        "the line items' amounts add up"
    );
    assert_eq!(orders[1]["time_windows"], json!([]), "no window: any time");

    // Listed ids join the day's orders (a plan's unserved orders due on another day).
    let with = app
        .get(
            &format!("/console/orders?date={day}&ids={}", ids[2]),
            &app.north(),
        )
        .await;
    assert_eq!(with.ok()["orders"].as_array().unwrap().len(), 3);

    for bad in [
        "/console/orders",
        "/console/orders?date=2026-02-30",
        "/console/orders?date=2026-11-24&ids=1,x",
        "/console/orders?date=2026-11-24&status=OPEN",
        "/console/positions?date=24.11.2026",
        "/console/positions?date=2026-11-24&route=1",
        "/console/roads",
        "/console/roads?plan=x",
        "/console/roads?plan=0",
        "/console/roads?plan=1&route=2",
        "/console/breaks",
        "/console/breaks?plan=-3",
        "/console/breaks?plan=1&date=2026-11-24",
    ] {
        app.get(bad, &app.north())
            .await
            .envelope(400, "INVALID_INPUT");
    }
    app.get("/console/orders?date=2026-11-24", "not-a-key")
        .await
        .envelope(401, "UNAUTHORIZED");
    app.get("/console/roads?plan=999999", &app.north())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    let none = app
        .get(&format!("/console/positions?date={day}"), &app.north())
        .await;
    assert_eq!(none.ok()["positions"], json!([]), "no route has started");
}
