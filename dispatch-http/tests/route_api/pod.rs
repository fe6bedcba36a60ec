//! Proof-of-delivery reads and customer tracking over the real router and SQLite file:
//! questionnaire seeds, signature / photo / answer image reads (202 until compressed, then
//! WebP or base64), the proof on stop, route, plan and order reads, and the tracking page.
//! Proof is made through the core use cases with the real codec (the upload endpoints are
//! tested with the driver API).

use std::io::Cursor;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use dispatch_core::model::driver::Driver;
use dispatch_core::model::questionnaire::{AnswerInput, AnswerValue};
use dispatch_core::service::pod::{self, SignatureInput, SubmissionInput};
use dispatch_http::runtime::images::Codec;
use dispatch_http::setup;
use http_body_util::BodyExt;
use serde_json::json;
use tower::ServiceExt;

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
    let parsed = setup::parse(&seed.to_string()).unwrap();
    setup::apply(&*app.store, &parsed, now(app)).unwrap()
}

/// A dispatched one-vehicle day: the vehicle, its orders and the laid-out plan.
pub async fn dispatched_day(app: &TestApp, n: usize) -> (i64, Vec<i64>, Laid) {
    let v = vehicle(app, "Van").await;
    let o = orders(app, "P", n).await;
    let laid = lay_out(app, &[(Some(v), o.clone())]);
    app.post(
        &format!("/v2/plans/{}/dispatch", laid.plan),
        &app.north(),
        json!(null),
    )
    .await
    .ok();
    (v, o, laid)
}

/// The stops of a route as GET /v2/routes/{id} renders them.
pub async fn route_stops(app: &TestApp, route: i64) -> Vec<Value> {
    let r = app.get(&format!("/v2/routes/{route}"), &app.north()).await;
    r.ok()["route"]["stops"].as_array().unwrap().clone()
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
    let response = app
        .router
        .clone()
        .oneshot(b.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes().to_vec();
    (parts.status, parts.headers, bytes)
}

fn compress_all(app: &TestApp) -> usize {
    pod::compress_pending(&*app.store, &Codec, &*app.clock, 100).unwrap()
}

#[tokio::test]
async fn dispatch_gives_each_stop_a_tracking_link_that_the_notification_carries() {
    let app = TestApp::new();
    seed_questionnaires(&app);
    let (_, o, laid) = dispatched_day(&app, 2).await;
    let stops = route_stops(&app, laid.routes[0]).await;
    let links: Vec<&str> = stops
        .iter()
        .map(|s| s["tracking_link"].as_str().unwrap())
        .collect();
    for link in &links {
        let token = link.strip_prefix("http://127.0.0.1:8080/track/").unwrap();
        assert_eq!(token.len(), 32);
        assert!(token.bytes().all(|c| c.is_ascii_hexdigit()));
        // Not derived from ids: no id appears in it.
        assert!(!o.iter().any(|id| token == id.to_string()));
    }
    assert_ne!(links[0], links[1]);
    // The same link on the order read and in the planned-start SMS.
    let order = app.get(&format!("/v2/orders/{}", o[0]), &app.north()).await;
    assert_eq!(order.ok()["order"]["stops"][0]["tracking_link"], links[0]);
    let tasks = app.get("/v2/notification-tasks", &app.north()).await;
    let messages: Vec<String> = tasks.ok()["notification_tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["message"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m == &format!("Track P-0: {}", links[0])),
        "{messages:?}"
    );
    // An undispatched route has no links yet.
    let v2 = vehicle(&app, "Van 2").await;
    let more = orders(&app, "Q", 1).await;
    let other = lay_out(&app, &[(Some(v2), more)]);
    let stops = route_stops(&app, other.routes[0]).await;
    assert_eq!(stops[0]["tracking_link"], Value::Null);
}

#[tokio::test]
async fn the_tracking_page_shows_only_its_orders_status_and_eta_window() {
    let app = TestApp::new();
    let (_, _, laid) = dispatched_day(&app, 2).await;
    let stops = route_stops(&app, laid.routes[0]).await;
    let path = stops[1]["tracking_link"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://127.0.0.1:8080")
        .to_owned();
    let (status, headers, body) = raw_get(&app, &path, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["referrer-policy"], "no-referrer");
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(csp.starts_with("default-src 'none'"), "{csp}");
    let html = String::from_utf8(body).unwrap();
    assert!(html.contains("P-1"), "{html}");
    assert!(html.contains("Scheduled for delivery"));
    // Stop 2 is planned at 09:10: a window of an hour around it, on quarter hours.
    assert!(
        html.contains("between <time>08:30</time> and <time>09:45</time>"),
        "{html}"
    );
    // Nothing of the other stop, the address or the route.
    for secret in ["P-0", "High St", "Route 1", "51.5", "Van"] {
        assert!(!html.contains(secret), "{secret} leaked: {html}");
    }
    let (status, headers, body) =
        raw_get(&app, "/track/0123456789abcdef0123456789abcdef", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    assert!(String::from_utf8(body).unwrap().contains("not valid"));
}

#[tokio::test]
async fn a_delivered_order_shows_its_proof_of_delivery_time_and_no_eta() {
    let app = TestApp::new();
    let (v, o, laid) = dispatched_day(&app, 1).await;
    let stop = route_stops(&app, laid.routes[0]).await[0].clone();
    let driver = Driver {
        credential_id: 0,
        scope: north_scope(&app),
        vehicle_id: v,
    };
    let input = SignatureInput {
        signed_by: "Ann <b>Lee</b>".into(),
        lat: None,
        lng: None,
        image: png(40, 20),
    };
    let at = now(&app);
    pod::add_signature(
        &*app.store,
        &Codec,
        &driver,
        stop["id"].as_i64().unwrap(),
        &input,
        at,
    )
    .unwrap();
    set_status(&app, o[0], "DELIVERED");
    let path = stop["tracking_link"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://127.0.0.1:8080")
        .to_owned();
    let (_, _, body) = raw_get(&app, &path, None).await;
    let html = String::from_utf8(body).unwrap();
    assert!(html.contains("Delivered on"), "{html}");
    assert!(html.contains(&at.to_string()[..10]));
    assert!(!html.contains("Expected on"));
    assert!(!html.contains("Ann"), "the signer is not shown: {html}");
}

#[tokio::test]
async fn a_signature_reads_202_until_compressed_then_as_webp_or_base64() {
    let app = TestApp::new();
    let (v, o, laid) = dispatched_day(&app, 1).await;
    let stop_id = route_stops(&app, laid.routes[0]).await[0]["id"]
        .as_i64()
        .unwrap();
    let driver = Driver {
        credential_id: 0,
        scope: north_scope(&app),
        vehicle_id: v,
    };
    let input = SignatureInput {
        signed_by: "Ann Lee".into(),
        lat: Some(51.501),
        lng: Some(-0.121),
        image: png(120, 60),
    };
    let (sig, meta) =
        pod::add_signature(&*app.store, &Codec, &driver, stop_id, &input, now(&app)).unwrap();
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
    let driver = Driver {
        credential_id: 0,
        scope: north_scope(&app),
        vehicle_id: v,
    };
    let photos = [png(64, 48), png(30, 30)];
    let metas = pod::add_photos(&*app.store, &Codec, &driver, stop_id, &photos, now(&app)).unwrap();
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

#[tokio::test]
async fn submissions_read_back_with_answers_of_every_type_and_absolute_image_urls() {
    let app = TestApp::new();
    let seeded = seed_questionnaires(&app);
    let questionnaires = &seeded["organisations"][0]["depots"][0]["questionnaires"];
    let (visit_q, checkin_q) = (
        questionnaires[0]["id"].as_i64().unwrap(),
        questionnaires[1]["id"].as_i64().unwrap(),
    );
    let (v, _, laid) = dispatched_day(&app, 1).await;
    let stop_id = route_stops(&app, laid.routes[0]).await[0]["id"]
        .as_i64()
        .unwrap();
    let driver = Driver {
        credential_id: 0,
        scope: north_scope(&app),
        vehicle_id: v,
    };
    let answer = |id: u32, value: AnswerValue, images: Vec<Vec<u8>>| AnswerInput {
        question_id: id,
        value,
        images,
    };
    let visit = SubmissionInput {
        questionnaire_id: visit_q,
        route_id: None,
        stop_id: Some(stop_id),
        answers: vec![
            answer(1, AnswerValue::Bool(true), vec![]),
            answer(2, AnswerValue::Text("Behind the <gate>".into()), vec![]),
            answer(3, AnswerValue::Text("Porch".into()), vec![]),
            answer(
                4,
                AnswerValue::List(vec!["Dry".into(), "Sealed".into()]),
                vec![],
            ),
            answer(5, AnswerValue::Text("Ann".into()), vec![png(50, 20)]),
            answer(6, AnswerValue::Absent, vec![png(20, 20), png(10, 30)]),
        ],
    };
    let s = pod::submit(&*app.store, &Codec, &driver, &visit, now(&app)).unwrap();
    let checkin = SubmissionInput {
        questionnaire_id: checkin_q,
        route_id: Some(laid.routes[0]),
        stop_id: None,
        answers: vec![answer(1, AnswerValue::Bool(false), vec![])],
    };
    let c = pod::submit(&*app.store, &Codec, &driver, &checkin, now(&app)).unwrap();

    let r = app
        .get(
            &format!("/v2/driver-questionnaire-submission/{}", s.head.id),
            &app.north(),
        )
        .await;
    let read = &r.ok()["driver_questionnaire_submission"];
    assert_eq!(read["id"], s.head.id);
    assert_eq!(read["route_id"], laid.routes[0]);
    assert_eq!(read["visit_id"], stop_id);
    assert_eq!(read["driver_questionnaire"]["type"], "VISIT");
    assert_eq!(read["driver_questionnaire"]["title"], "Delivery checks");
    let answers = read["driver_questionnaire_answers"].as_array().unwrap();
    let shape: Vec<(&str, &str, &str)> = answers
        .iter()
        .map(|a| {
            assert_eq!(a["type"], a["driver_questionnaire_question"]["type"]);
            (
                a["type"].as_str().unwrap(),
                a["data"].as_str().unwrap(),
                a["driver_questionnaire_question"]["question"]
                    .as_str()
                    .unwrap(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            ("CHECKBOX", "true", "Left in a safe place?"),
            ("TEXT", "Behind the <gate>", "Notes"),
            ("SELECT", "Porch", "Where?"),
            ("MULTI_SELECT", "[\"Dry\",\"Sealed\"]", "Condition"),
            ("SIGNATURE", "Ann", "Signature"),
            ("PHOTO", "", "Photos"),
        ]
    );
    let images = answers[5]["images"].as_array().unwrap();
    assert_eq!(images.len(), 2);
    let url = images[0].as_str().unwrap();
    let path = url.strip_prefix("http://127.0.0.1:8080").unwrap();
    assert!(path.starts_with("/v2/driver-questionnaire-images/"));
    assert_eq!(
        app.get(path, &app.north()).await.status,
        StatusCode::ACCEPTED
    );
    compress_all(&app);
    let b64 = app
        .get(&format!("{path}?encoding=base64"), &app.north())
        .await;
    assert_eq!(b64.ok()["content_type"], "image/webp");

    // Lists: the stop has the VISIT submission, the route and plan both.
    let route = app
        .get(&format!("/v2/routes/{}", laid.routes[0]), &app.north())
        .await;
    let route = &route.ok()["route"];
    assert_eq!(
        route["stops"][0]["driver_questionnaire_submissions"],
        json!([{"id": s.head.id, "driver_questionnaire": {"type": "VISIT", "title": "Delivery checks"}}])
    );
    let ids = |v: &Value| -> Vec<i64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(
        ids(&route["driver_questionnaire_submissions"]),
        [s.head.id, c.head.id]
    );
    let plan = app
        .get(&format!("/v2/plans/{}", laid.plan), &app.north())
        .await;
    assert_eq!(
        ids(&plan.ok()["plan"]["driver_questionnaire_submissions"]),
        [s.head.id, c.head.id]
    );
    let checkin_read = app
        .get(
            &format!("/v2/driver-questionnaire-submission/{}", c.head.id),
            &app.north(),
        )
        .await;
    assert_eq!(
        checkin_read.ok()["driver_questionnaire_submission"]["visit_id"],
        Value::Null
    );

    // Unknown, other depot's, malformed ids.
    for key in [app.south(), app.far()] {
        app.get(
            &format!("/v2/driver-questionnaire-submission/{}", s.head.id),
            &key,
        )
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
        app.get(path, &key)
            .await
            .envelope(404, "RESOURCE_NOT_FOUND");
    }
    app.get("/v2/driver-questionnaire-submission/12345", &app.north())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    app.get("/v2/driver-questionnaire-submission/x1", &app.north())
        .await
        .envelope(400, "INVALID_INPUT");
    app.get("/v2/driver-questionnaire-images/99999", &app.north())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
}

#[tokio::test]
async fn questionnaires_seed_idempotently_and_bad_definitions_are_refused() {
    let app = TestApp::new();
    let first = seed_questionnaires(&app);
    let again = seed_questionnaires(&app);
    let q = |v: &Value| v["organisations"][0]["depots"][0]["questionnaires"].clone();
    assert_eq!(q(&first), q(&again));
    assert_eq!(
        q(&first)[0]["questions"][4],
        json!({"id": 5, "question": "Signature"})
    );
    let bad = json!({"organisations": [{"name": "Acme", "depots": [{"name": "North",
    "questionnaires": [
        {"type": "VISITS", "title": "x", "questions": [{"question": "q", "type": "CHECKBOX"}]},
        {"type": "VISIT", "title": "y", "questions": [{"question": "q", "type": "SELECT"}]},
        {"type": "VISIT", "title": "y", "questions": []}
    ]}]}]});
    let err = setup::parse(&bad.to_string())
        .and_then(|seed| setup::apply(&*app.store, &seed, now(&app)))
        .unwrap_err()
        .to_string();
    assert!(err.contains("questionnaires[0].type"), "{err}");
    assert!(
        err.contains("questionnaires[1].questions[0].options"),
        "{err}"
    );
    assert!(err.contains("questionnaires[2].title"), "{err}");
    assert!(err.contains("questionnaires[2].questions"), "{err}");
}
