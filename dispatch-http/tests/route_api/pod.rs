//! Proof-of-delivery reads over the real router and SQLite file: signature and photo reads
//! (202 until compressed, then WebP or base64) and the proof on stop, route, plan and order
//! reads. Proof is made through the core use cases with the real codec (the upload endpoints
//! are tested with the driver API); submissions are in `pod_submissions.rs`, the tracking page
//! in `tracking.rs`. The helpers here are shared by those files.

use std::io::Cursor;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use dispatch_adapters::images::Codec;
use dispatch_core::model::driver::Driver;
use dispatch_core::service::pod::{self, SignatureInput};
use dispatch_core::service::seed;
use dispatch_http::keys::DerivedKeys;
use serde_json::json;

use super::*;

/// A `width` × `height` PNG with a gradient.
pub fn png(width: u32, height: u32) -> Vec<u8> {
    let img = image::RgbaImage::from_fn(width, height, |x, y| {
        image::Rgba([(x % 251) as u8, (y % 241) as u8, 120, 255])
    });
    let mut out = Cursor::new(Vec::new());
    image::DynamicImage::ImageRgba8(img)
        .write_to(&mut out, image::ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

/// Seeds North's questionnaires (and a planned-start notification carrying the tracking link).
pub fn seed_questionnaires(app: &TestApp) -> Value {
    let seed = json!({"organisations": [{"name": "Acme", "depots": [{
        "name": "North", "address": "1 Depot Way", "lat": 51.50, "lng": -0.12,
        "notification_templates": [{"type": "SMS", "name": "Tracking", "body": "Track {order_number}: {tracking_link}"}],
        "settings": {"notifications": {"planned_start_template": "Tracking"}},
        "questionnaires": [
            {"type": "VISIT", "title": "Delivery checks", "questions": [
                {"question": "Left in a safe place?", "type": "CHECKBOX", "required": true},
                {"question": "Notes", "type": "TEXT"},
                {"question": "Where?", "type": "SELECT", "options": ["Porch", "Neighbour"]},
                {"question": "Condition", "type": "MULTI_SELECT", "options": ["Dry", "Sealed", "Dented"]},
                {"question": "Signature", "type": "SIGNATURE"},
                {"question": "Photos", "type": "PHOTO"}
            ]},
            {"type": "ROUTE_VEHICLE_CHECKIN", "title": "Van check", "questions": [
                {"question": "Tyres fine?", "type": "CHECKBOX", "required": true}
            ]}
        ]
    }]}]});
    let parsed = seed::parse(&seed.to_string()).unwrap();
    app.with_store(|store| seed::apply(store, &DerivedKeys, &parsed, now(app)))
        .unwrap()
}

/// A dispatched one-vehicle day: the vehicle, its orders and the laid-out plan.
pub async fn dispatched_day(app: &TestApp, n: usize) -> (i64, Vec<i64>, Laid) {
    let v = vehicle(app, "Van").await;
    let o = orders(app, "P", n).await;
    let laid = lay_out(app, &[(Some(v), o.clone())]);
    dispatch_plan(app, laid.plan).await.ok();
    (v, o, laid)
}

/// The stops of a route as GET /v2/routes/{id} renders them.
pub async fn route_stops(app: &TestApp, route: i64) -> Vec<Value> {
    let r = app.get(&format!("/v2/routes/{route}"), &app.north()).await;
    r.ok()["route"]["stops"].as_array().unwrap().clone()
}

/// The driver of North's `vehicle`, as the driver API's authentication makes it.
pub fn driver_of(app: &TestApp, vehicle: i64) -> Driver {
    Driver {
        credential_id: 0,
        scope: north_scope(app),
        vehicle_id: vehicle,
    }
}

/// A raw GET: status, headers and body bytes.
pub async fn raw_get(
    app: &TestApp,
    path: &str,
    key: Option<&str>,
) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    let mut b = Request::builder().uri(path);
    if let Some(k) = key {
        b = b.header("x-access-key", k);
    }
    let (status, headers, bytes) =
        crate::exchange::exchange(&app.router, b.body(Body::empty()).unwrap()).await;
    (status, headers, bytes.to_vec())
}

pub fn compress_all(app: &TestApp) -> usize {
    app.with_store(|store| pod::compress_pending(store, &Codec, &*app.clock, 100))
        .unwrap()
}

#[tokio::test]
async fn a_signature_reads_202_until_compressed_then_as_webp_or_base64() {
    let app = TestApp::new();
    let (v, o, laid) = dispatched_day(&app, 1).await;
    let stop_id = route_stops(&app, laid.routes[0]).await[0]["id"]
        .as_i64()
        .unwrap();
    let driver = driver_of(&app, v);
    let input = SignatureInput {
        signed_by: "Ann Lee".into(),
        lat: Some(51.501),
        lng: Some(-0.121),
        image: png(120, 60),
    };
    let (sig, meta) = app
        .with_store(|store| pod::add_signature(store, &Codec, &driver, stop_id, &input, now(&app)))
        .unwrap();
    assert_eq!(sig.image_id, meta.id);
    let path = format!("/v2/proof-of-delivery-signatures/{}", meta.id);
    let pending = app.get(&path, &app.north()).await;
    assert_eq!(pending.status, StatusCode::ACCEPTED);
    assert_eq!(pending.headers["retry-after"], "2");
    assert_eq!(pending.body, json!({"id": meta.id, "is_compressed": false}));
    // The stop read already lists it, with the signer and position.
    let stop = route_stops(&app, laid.routes[0]).await[0].clone();
    assert_eq!(stop["signed_by"], "Ann Lee");
    assert_eq!(stop["signature_lat"], 51.501);
    assert_eq!(stop["signature_lng"], -0.121);
    assert_eq!(stop["signature"]["is_compressed"], false);
    assert_eq!(
        stop["signature"]["url"],
        format!("http://127.0.0.1:8080{path}")
    );

    assert_eq!(compress_all(&app), 1);
    let (status, headers, bytes) = raw_get(&app, &path, Some(&app.north())).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "image/webp");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    let decoded = image::load_from_memory_with_format(&bytes, image::ImageFormat::WebP).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (120, 60));
    let b64 = app
        .get(&format!("{path}?encoding=base64"), &app.north())
        .await;
    assert_eq!(b64.ok()["content_type"], "image/webp");
    assert_eq!(b64.body["is_compressed"], true);
    use base64::Engine;
    let data = base64::engine::general_purpose::STANDARD
        .decode(b64.body["data"].as_str().unwrap())
        .unwrap();
    assert_eq!(data, bytes);
    // Bad input and other depots.
    assert_eq!(
        app.get(&format!("{path}?encoding=hex"), &app.north())
            .await
            .invalid_paths(),
        ["encoding"]
    );
    app.get(&path, &app.south())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    app.get(
        &format!("/v2/proof-of-delivery-photos/{}", meta.id),
        &app.north(),
    )
    .await
    .envelope(404, "RESOURCE_NOT_FOUND");
    app.get("/v2/proof-of-delivery-signatures/abc", &app.north())
        .await
        .envelope(400, "INVALID_INPUT");
    app.get("/v2/proof-of-delivery-signatures/999999", &app.north())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    // Order reads carry the same proof.
    let order = app.get(&format!("/v2/orders/{}", o[0]), &app.north()).await;
    assert_eq!(order.ok()["order"]["stops"][0]["signed_by"], "Ann Lee");
}

#[tokio::test]
async fn photos_list_on_stop_route_plan_and_order_reads_while_compressing_and_after() {
    let app = TestApp::new();
    let (v, o, laid) = dispatched_day(&app, 2).await;
    let stop_id = route_stops(&app, laid.routes[0]).await[1]["id"]
        .as_i64()
        .unwrap();
    let driver = driver_of(&app, v);
    let photos = [png(64, 48), png(30, 30)];
    let metas = app
        .with_store(|store| pod::add_photos(store, &Codec, &driver, stop_id, &photos, now(&app)))
        .unwrap();
    let stops = route_stops(&app, laid.routes[0]).await;
    assert_eq!(stops[0]["photos"], Value::Null);
    let listed = stops[1]["photos"].as_array().unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["is_compressed"], false);
    assert_eq!(
        listed[0]["url"],
        format!(
            "http://127.0.0.1:8080/v2/proof-of-delivery-photos/{}",
            metas[0].id
        )
    );
    compress_all(&app);
    let plan = app
        .get(&format!("/v2/plans/{}", laid.plan), &app.north())
        .await;
    let photo = &plan.ok()["plan"]["routes"][0]["stops"][1]["photos"][1];
    assert_eq!(photo["is_compressed"], true);
    let order = app.get(&format!("/v2/orders/{}", o[1]), &app.north()).await;
    assert_eq!(
        order.ok()["order"]["stops"][0]["photos"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let list = app.get("/v2/orders", &app.north()).await;
    let summary = list.ok()["orders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == o[1])
        .unwrap()
        .clone();
    assert_eq!(summary["stops"][0]["photos"].as_array().unwrap().len(), 2);
    let (status, headers, _) = raw_get(
        &app,
        &format!("/v2/proof-of-delivery-photos/{}", metas[1].id),
        Some(&app.north_read()),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "image/webp");
}
