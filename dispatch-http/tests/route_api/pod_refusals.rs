//! What the driver's signature and photo uploads say they received when they refuse a form
//! (docs/driver-api.md: validationErrors carry `received`): the field sent instead, a value
//! that is no number, a missing image, a sixth photo, a body that is not a form.

use axum::body::Body;
use axum::http::{Method, Request};

use super::driver::driven_route;
use super::pod::{png, route_stops};
use super::pod_uploads::{upload, Part};
use super::*;

#[tokio::test]
async fn refused_forms_say_what_was_received() {
    let app = TestApp::new();
    let (_, key, route, _) = driven_route(&app, "F", 1).await;
    let stop = route_stops(&app, route).await[0]["id"].as_i64().unwrap();
    let signature = format!("/driver/stops/{stop}/signature");
    let photos = format!("/driver/stops/{stop}/photos");
    let image = png(20, 20);
    let received = |r: &common::Resp| r.body["details"]["validationErrors"][0]["received"].clone();
    let six: Vec<Part<'_>> = (0..6)
        .map(|_| Part::File("photo", "p.png", &image))
        .collect();
    let cases: Vec<(&str, Vec<Part<'_>>, &str)> = vec![
        (&signature, vec![Part::Text("signed_by", "A")], "undefined"),
        (
            &signature,
            vec![Part::Text("signed_by", "A"), Part::Text("colour", "red")],
            "a field `colour` (unknown, or sent again)",
        ),
        (
            &signature,
            vec![
                Part::File("signature", "s.png", &image),
                Part::Text("lat", "north"),
                Part::Text("lng", "0"),
            ],
            "north",
        ),
        (
            &photos,
            vec![Part::File("picture", "p.png", &image)],
            "a field `picture`",
        ),
        (&photos, six, "a sixth photo"),
    ];
    for (path, parts, expected) in cases {
        let r = upload(&app, path, &key, &parts).await;
        r.envelope(400, "INVALID_INPUT");
        assert_eq!(received(&r), expected, "{path}: {:#}", r.body);
    }
    let json = Request::builder()
        .method(Method::POST)
        .uri(&signature)
        .header("x-access-key", &key)
        .header("content-type", "application/json")
        .body(Body::from("{}"))
        .unwrap();
    let r = app.send(json).await;
    r.envelope(400, "INVALID_INPUT");
    assert_eq!(received(&r), "a body that is not multipart/form-data");
}
