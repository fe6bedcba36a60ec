//! The size bounds of the driver's image uploads against the bounded-JSON protections: a
//! questionnaire submission carries a phone-sized photo as base64, while every other JSON body
//! keeps its bound on text per item and every body the service's body limit.

use axum::http::StatusCode;
use serde_json::json;

use super::driver::driven_route;
use super::pod::{route_stops, seed_questionnaires};
use super::pod_questionnaires::b64;
use super::*;

/// A `side` × `side` PNG of noise: it does not compress, as a camera photo does not.
fn noisy_png(side: u32) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let img = image::RgbImage::from_fn(side, side, |_, _| {
        // xorshift64: no pattern for the PNG filters to find.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        image::Rgb([state as u8, (state >> 8) as u8, (state >> 16) as u8])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut out, image::ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

fn too_big(r: &common::Resp) -> bool {
    r.status == StatusCode::BAD_REQUEST
        && r.body["details"]["validationErrors"][0]["code"] == "too_big"
}

#[tokio::test]
async fn a_submission_carries_a_phone_sized_photo_while_other_bodies_keep_their_text_bound() {
    let app = TestApp::new();
    let seeded = seed_questionnaires(&app);
    let visit = seeded["organisations"][0]["depots"][0]["questionnaires"][0]["id"].clone();
    let (_, key, route, _) = driven_route(&app, "L", 1).await;
    let stop = route_stops(&app, route).await[0]["id"].as_i64().unwrap();
    let photo = noisy_png(1100);
    assert!(photo.len() > 3_000_000, "{} bytes", photo.len());
    let body = json!({"questionnaire_id": visit, "stop_id": stop, "answers": [
        {"question_id": 1, "value": true},
        {"question_id": 6, "value": "the parcel", "images": [b64(&photo)]}
    ]});
    let r = app
        .post("/driver/questionnaire-submissions", &key, body)
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:#}", r.body);
    let answers = &r.body["driver_questionnaire_submission"]["driver_questionnaire_answers"];
    assert_eq!(answers[1]["images"].as_array().unwrap().len(), 1);

    // Over the body limit: refused, nothing stored.
    let huge = "A".repeat(dispatch_http::MAX_BODY_BYTES);
    let body = json!({"questionnaire_id": visit, "stop_id": stop, "answers": [
        {"question_id": 1, "value": true},
        {"question_id": 6, "images": [huge]}
    ]});
    let r = app
        .post("/driver/questionnaire-submissions", &key, body)
        .await;
    assert!(too_big(&r), "{:#}", r.body);

    // Any other body still holds at most 1 MiB of text per item.
    let name = "x".repeat(2 * 1024 * 1024);
    let r = app
        .post("/v2/vehicles", &app.north(), json!({"name": name}))
        .await;
    assert!(too_big(&r), "{:#}", r.body);
}
