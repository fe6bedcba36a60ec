//! The driver's proof-of-delivery uploads (`/driver/...`) over the real router: multipart
//! signatures and photos, what the depot reads back, every kind of bad input (the envelope,
//! nothing stored), and the multipart fields held to the document. Questionnaire submissions
//! are in `pod_questionnaires`.

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use dispatch_adapters::images::Codec;
use dispatch_core::service::pod;
use serde_json::json;

use super::driver::{credential, driven_route};
use super::pod::{png, route_stops};
use super::*;

/// One multipart part: a text field or a file.
pub(super) enum Part<'a> {
    Text(&'a str, &'a str),
    File(&'a str, &'a str, &'a [u8]),
}

const BOUNDARY: &str = "----dispatch-test-boundary";

fn multipart(parts: &[Part<'_>]) -> Vec<u8> {
    let mut body = Vec::new();
    for part in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        match part {
            Part::Text(name, value) => {
                body.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                        .as_bytes(),
                );
            }
            Part::File(name, file, bytes) => {
                body.extend_from_slice(
                    format!(
                        "Content-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                    )
                    .as_bytes(),
                );
                body.extend_from_slice(bytes);
                body.extend_from_slice(b"\r\n");
            }
        }
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

pub(super) async fn upload(
    app: &TestApp,
    path: &str,
    key: &str,
    parts: &[Part<'_>],
) -> common::Resp {
    let request = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header("x-access-key", key)
        .header(
            "content-type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .body(Body::from(multipart(parts)))
        .unwrap();
    app.send(request).await
}

fn compress_all(app: &TestApp) -> usize {
    app.with_store(|store| pod::compress_pending(store, &Codec, &*app.clock, 100))
        .unwrap()
}

pub fn stored_images(app: &TestApp) -> usize {
    app.read(|tx| tx.pending_images(1000)).unwrap().len()
}

#[tokio::test]
async fn a_driver_signs_and_photographs_a_stop_and_the_depot_reads_both_back() {
    let app = TestApp::new();
    let (_, key, route, o) = driven_route(&app, "U", 2).await;
    let stop = route_stops(&app, route).await[1]["id"].as_i64().unwrap();
    let sig = png(200, 80);
    let r = upload(
        &app,
        &format!("/driver/stops/{stop}/signature"),
        &key,
        &[
            Part::Text("signed_by", "Ann Lee"),
            Part::Text("lat", "51.5012"),
            Part::Text("lng", "-0.1201"),
            Part::File("signature", "sig.png", &sig),
        ],
    )
    .await;
    let signature = r.ok()["signature"].clone();
    assert_eq!(signature["signed_by"], "Ann Lee");
    assert_eq!(signature["stop_id"], stop);
    assert_eq!(signature["is_compressed"], false);
    let (a, b) = (png(64, 48), png(48, 64));
    let r = upload(
        &app,
        &format!("/driver/stops/{stop}/photos"),
        &key,
        &[
            Part::File("photo", "a.jpg", &a),
            Part::File("photo", "b.png", &b),
        ],
    )
    .await;
    let photos = r.ok()["photos"].as_array().unwrap().clone();
    assert_eq!(photos.len(), 2);

    let read = route_stops(&app, route).await[1].clone();
    assert_eq!(read["signed_by"], "Ann Lee");
    assert_eq!(read["signature_lat"], 51.5012);
    assert_eq!(read["signature_lng"], -0.1201);
    assert_eq!(read["photos"].as_array().unwrap().len(), 2);
    assert_eq!(compress_all(&app), 3);
    let order = app.get(&format!("/v2/orders/{}", o[1]), &app.north()).await;
    let photo = &order.ok()["order"]["stops"][0]["photos"][0];
    assert_eq!(photo["is_compressed"], true);
    let url = photo["url"].as_str().unwrap();
    let b64 = app
        .get(
            &format!(
                "{}?encoding=base64",
                url.trim_start_matches("http://127.0.0.1:8080")
            ),
            &app.north(),
        )
        .await;
    assert_eq!(b64.ok()["content_type"], "image/webp");
    // A second signature replaces the first on the stop.
    upload(
        &app,
        &format!("/driver/stops/{stop}/signature"),
        &key,
        &[
            Part::Text("signed_by", "Bo"),
            Part::File("signature", "s.png", &sig),
        ],
    )
    .await
    .ok();
    let read = route_stops(&app, route).await[1].clone();
    assert_eq!(read["signed_by"], "Bo");
    assert_eq!(read["signature_lat"], Value::Null);
}

#[tokio::test]
async fn bad_uploads_get_the_envelope_and_store_nothing() {
    let app = TestApp::new();
    let (_, key, route, _) = driven_route(&app, "B", 1).await;
    let stop = route_stops(&app, route).await[0]["id"].as_i64().unwrap();
    let sig_path = format!("/driver/stops/{stop}/signature");
    let photo_path = format!("/driver/stops/{stop}/photos");
    let good = png(20, 20);
    let svg = b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>".to_vec();
    let mut truncated = png(60, 60);
    truncated.truncate(truncated.len() / 2);

    // Text fields sent with a good signature file, and the one path the refusal names.
    let signature_cases: [(&[(&str, &str)], &str); 6] = [
        (&[], "signed_by"),
        (&[("signed_by", "A\0B")], "signed_by"),
        // The missing one of the pair.
        (&[("signed_by", "A"), ("lat", "51.5")], "lng"),
        (&[("signed_by", "A"), ("lat", "north")], "lat"),
        // A repeated text field is refused like a repeated file: which one counts would be a
        // guess (the last one silently won).
        (&[("signed_by", "A"), ("signed_by", "B")], "signed_by"),
        (
            &[
                ("signed_by", "A"),
                ("lat", "51.5"),
                ("lng", "-0.1"),
                ("lng", "-0.2"),
            ],
            "lng",
        ),
    ];
    let mut cases: Vec<(&str, Vec<Part<'_>>, &str)> = signature_cases
        .into_iter()
        .map(|(fields, at)| {
            let mut parts: Vec<Part<'_>> = fields.iter().map(|&(n, v)| Part::Text(n, v)).collect();
            parts.push(Part::File("signature", "s.png", &good));
            (sig_path.as_str(), parts, at)
        })
        .collect();
    cases.extend([
        (
            sig_path.as_str(),
            vec![Part::Text("signed_by", "A")],
            "signature",
        ),
        (
            sig_path.as_str(),
            vec![
                Part::Text("signed_by", "A"),
                Part::File("signature", "s.svg", &svg),
            ],
            "signature",
        ),
        (
            sig_path.as_str(),
            vec![Part::Text("signed_by", "A"), Part::Text("colour", "red")],
            "colour",
        ),
        (
            photo_path.as_str(),
            vec![
                Part::File("photo", "x.png", &good),
                Part::File("photo", "evil.png", &svg),
            ],
            "photo.1",
        ),
        (
            photo_path.as_str(),
            vec![Part::File("photo", "cut.png", &truncated)],
            "photo.0",
        ),
        (
            photo_path.as_str(),
            vec![Part::File("picture", "x.png", &good)],
            // An unknown field is named, as on the signature upload.
            "picture",
        ),
        (photo_path.as_str(), vec![], "photo"),
    ]);
    for (path, parts, at) in cases {
        let r = upload(&app, path, &key, &parts).await;
        assert_eq!(r.invalid_paths(), [at], "{path}");
    }
    let six: Vec<Part<'_>> = (0..6)
        .map(|_| Part::File("photo", "x.png", &good))
        .collect();
    assert_eq!(
        upload(&app, &photo_path, &key, &six).await.invalid_paths(),
        ["photo"]
    );
    let json_body = app.post(&photo_path, &key, json!({"photo": "x"})).await;
    json_body.envelope(400, "INVALID_INPUT");
    let big = vec![0u8; 11 * 1024 * 1024];
    let r = upload(
        &app,
        &sig_path,
        &key,
        &[
            Part::Text("signed_by", "A"),
            Part::File("signature", "big.png", &big),
        ],
    )
    .await;
    r.envelope(400, "INVALID_INPUT");
    assert_eq!(stored_images(&app), 0, "nothing was stored");

    // Another vehicle's driver, a depot key, no key: refused, nothing stored.
    let v2 = vehicle(&app, "Other van").await;
    let other = credential(&app, v2).await;
    let one_photo = [Part::File("photo", "x.png", &good)];
    for (path, key, status, name) in [
        (photo_path.as_str(), other, 404, "RESOURCE_NOT_FOUND"),
        (photo_path.as_str(), app.north(), 403, "PERMISSION"),
        (
            "/driver/stops/999999/photos",
            key.clone(),
            404,
            "RESOURCE_NOT_FOUND",
        ),
        (
            "/driver/stops/abc/photos",
            key.clone(),
            400,
            "INVALID_INPUT",
        ),
    ] {
        upload(&app, path, &key, &one_photo)
            .await
            .envelope(status, name);
    }
    assert_eq!(stored_images(&app), 0);
    let stop_read = route_stops(&app, route).await[0].clone();
    assert_eq!(stop_read["photos"], Value::Null);
    assert_eq!(stop_read["signed_by"], Value::Null);
}

/// The multipart fields the document gives the two uploads are the ones they take: with every
/// documented field the upload is stored, each documented field left out is refused exactly
/// when the schema requires it (or pairs it with another, `dependentRequired`), and a field
/// the schema does not name is refused at its name.
#[tokio::test]
async fn the_uploads_take_exactly_their_documented_multipart_fields() {
    let app = TestApp::new();
    let (_, key, route, _) = driven_route(&app, "M", 1).await;
    let stop = route_stops(&app, route).await[0]["id"].as_i64().unwrap();
    let image = png(40, 30);
    let doc = dispatch_http::openapi::document();
    for (path, form) in [
        (format!("/driver/stops/{stop}/signature"), "SignatureForm"),
        (format!("/driver/stops/{stop}/photos"), "PhotosForm"),
    ] {
        let schema = &doc["components"]["schemas"][form];
        let content = &doc["paths"][path.replace(&stop.to_string(), "{id}")]["post"]["requestBody"]
            ["content"];
        assert_eq!(
            content["multipart/form-data"]["schema"]["$ref"],
            format!("#/components/schemas/{form}")
        );
        assert_eq!(schema["additionalProperties"], false, "{form} is closed");
        // Required, or named by another field sent (`dependentRequired`: lat and lng).
        let mut required: Vec<&str> = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        for names in schema["dependentRequired"]
            .as_object()
            .into_iter()
            .flatten()
        {
            required.extend(names.1.as_array().unwrap().iter().filter_map(Value::as_str));
        }
        let fields: Vec<(&str, bool)> = schema["properties"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(name, property)| (name.as_str(), property.to_string().contains("binary")))
            .collect();
        let value = |name: &str| if name == "lng" { "-0.12" } else { "51.5" };
        let parts = |except: Option<&str>| -> Vec<Part<'_>> {
            fields
                .iter()
                .filter(|(name, _)| Some(*name) != except)
                .map(|&(name, binary)| match binary {
                    true => Part::File(name, "image.png", &image),
                    false if name == "signed_by" => Part::Text(name, "Ann Lee"),
                    false => Part::Text(name, value(name)),
                })
                .collect()
        };
        upload(&app, &path, &key, &parts(None)).await.ok();
        for &(name, _) in &fields {
            let r = upload(&app, &path, &key, &parts(Some(name))).await;
            let refused_at = r.body["details"]["validationErrors"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|issue| issue["path"][0] == name);
            assert_eq!(
                refused_at,
                required.contains(&name),
                "{form}: leaving out {name} -> {} {:#}",
                r.status,
                r.body
            );
        }
        let mut extra = parts(None);
        extra.push(Part::Text("undocumented_field", "x"));
        let r = upload(&app, &path, &key, &extra).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{form}: {:#}", r.body);
        assert_eq!(
            r.body["details"]["validationErrors"][0]["path"][0], "undocumented_field",
            "{form}: {:#}",
            r.body
        );
    }
}

#[tokio::test]
async fn refused_uploads_say_what_was_received() {
    let app = TestApp::new();
    let (_, key, route, _) = driven_route(&app, "R", 1).await;
    let stop = route_stops(&app, route).await[0]["id"].as_i64().unwrap();
    let sig_path = format!("/driver/stops/{stop}/signature");
    let good = png(20, 20);
    let received = |r: &common::Resp| r.body["details"]["validationErrors"][0]["received"].clone();
    let cases: [(Vec<Part<'_>>, &str); 4] = [
        (vec![Part::Text("signed_by", "  ")], "0 characters"),
        (
            vec![Part::Text("signed_by", "A"), Part::Text("lat", "51.5")],
            "undefined",
        ),
        (
            vec![
                Part::Text("signed_by", "A"),
                Part::Text("lat", "91"),
                Part::Text("lng", "0"),
            ],
            "91",
        ),
        (vec![Part::Text("signed_by", "A")], "0 bytes"),
    ];
    for (mut parts, expected) in cases {
        if expected != "0 bytes" {
            parts.push(Part::File("signature", "s.png", &good));
        } else {
            parts.push(Part::File("signature", "s.png", &[]));
        }
        let r = upload(&app, &sig_path, &key, &parts).await;
        r.envelope(400, "INVALID_INPUT");
        assert_eq!(received(&r), expected, "{:#}", r.body);
    }
    // A left-out file is `undefined`, as the driver API documents.
    let r = upload(&app, &sig_path, &key, &[Part::Text("signed_by", "A")]).await;
    assert_eq!(received(&r), "undefined", "{:#}", r.body);
    // An image over 10 MB is `too_big`, inside a body the upload takes (photos) and past the
    // body's own bound (a signature).
    let code = |r: &common::Resp| r.body["details"]["validationErrors"][0]["code"].clone();
    let photo_path = format!("/driver/stops/{stop}/photos");
    let big = vec![0u8; 10 * 1024 * 1024 + 1];
    let r = upload(
        &app,
        &photo_path,
        &key,
        &[Part::File("photo", "big.jpg", &big)],
    )
    .await;
    r.envelope(400, "INVALID_INPUT");
    assert_eq!(code(&r), "too_big", "{:#}", r.body);
    assert_eq!(r.invalid_paths(), ["photo"]);
    let huge = vec![0u8; 11 * 1024 * 1024];
    let parts = [
        Part::Text("signed_by", "A"),
        Part::File("signature", "big.png", &huge),
    ];
    let r = upload(&app, &sig_path, &key, &parts).await;
    assert_eq!(code(&r), "too_big", "{:#}", r.body);
}
