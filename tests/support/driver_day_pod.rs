//! The proof-of-delivery part of the driver's day (`tests/support/driver_day.rs`): the depot's
//! questionnaires in the seed file, the route check-in, and at a stop a signature, photos
//! (multipart, one of them a phone-sized photo) and a VISIT questionnaire submission with an
//! answer of every type; then every image read back as the depot reads it: 202 with
//! `Retry-After` while compressing, then raw WebP and `encoding=base64`.

#![allow(dead_code)] // the test and the example read different parts of a day

use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{json, Value};

use crate::support::{json_ok, Reply, Request, Server};

/// The depot's questionnaires: a VISIT one with a question of every type, and a check-in.
pub fn questionnaires() -> Value {
    json!([
        {"type": "VISIT", "title": "Delivery checks", "questions": [
            {"question": "Left in a safe place?", "type": "CHECKBOX", "required": true},
            {"question": "Where exactly?", "type": "TEXT"},
            {"question": "Handed to", "type": "SELECT", "options": ["Customer", "Neighbour"]},
            {"question": "Condition", "type": "MULTI_SELECT", "options": ["Dry", "Sealed", "Dented"]},
            {"question": "Customer signature", "type": "SIGNATURE"},
            {"question": "Photos of the drop", "type": "PHOTO"}
        ]},
        {"type": "ROUTE_VEHICLE_CHECKIN", "title": "Van check", "questions": [
            {"question": "Tyres and lights fine?", "type": "CHECKBOX", "required": true}
        ]}
    ])
}

/// A PNG of noise (xorshift), which compresses as badly as a camera photo.
pub fn photo(width: u32, height: u32, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    let img = image::RgbImage::from_fn(width, height, |_, _| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        image::Rgb([state as u8, (state >> 8) as u8, (state >> 16) as u8])
    });
    encode(image::DynamicImage::ImageRgb8(img))
}

/// A signature-like PNG: dark strokes on white.
pub fn signature(width: u32, height: u32) -> Vec<u8> {
    let img = image::GrayImage::from_fn(width, height, |x, y| {
        let on_stroke =
            (y as i64 - (height as i64 / 2 + ((x as f64 / 9.0).sin() * 12.0) as i64)).abs() < 3;
        image::Luma([if on_stroke { 20 } else { 255 }])
    });
    encode(image::DynamicImage::ImageLuma8(img))
}

fn encode(img: image::DynamicImage) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)
        .expect("a PNG");
    out.into_inner()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

const BOUNDARY: &str = "----driver-day-boundary";

/// A multipart body of text fields `(name, value)` and files `(name, bytes)`.
fn multipart(texts: &[(&str, &str)], files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, value) in texts {
        body.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    for (i, (name, bytes)) in files.iter().enumerate() {
        body.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"; \
                 filename=\"{name}-{i}.png\"\r\nContent-Type: image/png\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

fn upload(server: &Server, driver: &str, path: &str, body: Vec<u8>) -> Reply {
    server.send(Request::new("POST", path, Some(driver)).raw(body).header(
        "content-type",
        &format!("multipart/form-data; boundary={BOUNDARY}"),
    ))
}

/// The driver's questionnaires by type: (VISIT id, ROUTE_VEHICLE_CHECKIN id).
pub fn questionnaire_ids(server: &Server, driver: &str) -> (i64, i64) {
    let list = json_ok(
        server.get("/driver/questionnaires", driver),
        "questionnaires",
    );
    let id = |kind: &str| {
        list["questionnaires"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["type"] == kind)
            .and_then(|q| q["id"].as_i64())
            .unwrap_or_else(|| panic!("a {kind} questionnaire: {list}"))
    };
    (id("VISIT"), id("ROUTE_VEHICLE_CHECKIN"))
}

/// The route's check-in submission, as created.
pub fn check_in(server: &Server, driver: &str, questionnaire: i64, route: i64) -> Value {
    json_ok(
        server.post(
            "/driver/questionnaire-submissions",
            driver,
            &json!({"questionnaire_id": questionnaire, "route_id": route,
                    "answers": [{"question_id": 1, "value": true}]}),
        ),
        "check-in",
    )["driver_questionnaire_submission"]
        .clone()
}

/// What the driver uploaded at the stop, as each upload answered.
#[derive(Debug, Default, Clone)]
pub struct StopProof {
    /// The stop.
    pub stop_id: i64,
    /// `POST /driver/stops/{id}/signature`'s `signature`.
    pub signature: Value,
    /// `POST /driver/stops/{id}/photos`'s `photos`.
    pub photos: Value,
    /// `POST /driver/questionnaire-submissions`'s submission.
    pub submission: Value,
    /// Size of the phone-sized photo, and of the photo in the submission, in bytes.
    pub photo_bytes: usize,
    pub answer_photo_bytes: usize,
}

/// Signs, photographs and answers the VISIT questionnaire at `stop`.
pub fn at_stop(server: &Server, driver: &str, questionnaire: i64, stop: i64) -> StopProof {
    let signed = signature(300, 120);
    let big = photo(1600, 1200, 7);
    let small = photo(64, 48, 11);
    let in_answer = photo(800, 600, 13);
    let sig = upload(
        server,
        driver,
        &format!("/driver/stops/{stop}/signature"),
        multipart(
            &[
                ("signed_by", "Ann Lee"),
                ("lat", "51.5021"),
                ("lng", "-0.1181"),
            ],
            &[("signature", &signed)],
        ),
    );
    let photos = upload(
        server,
        driver,
        &format!("/driver/stops/{stop}/photos"),
        multipart(&[], &[("photo", &big), ("photo", &small)]),
    );
    let submission = server.post(
        "/driver/questionnaire-submissions",
        driver,
        &json!({"questionnaire_id": questionnaire, "stop_id": stop, "answers": [
            {"question_id": 1, "value": true},
            {"question_id": 2, "value": "Behind the blue gate"},
            {"question_id": 3, "value": "Neighbour"},
            {"question_id": 4, "value": ["Dry", "Sealed"]},
            {"question_id": 5, "value": "Ann Lee", "images": [b64(&signed)]},
            {"question_id": 6, "value": "porch", "images": [
                format!("data:image/png;base64,{}", b64(&in_answer)), b64(&small)]}
        ]}),
    );
    StopProof {
        stop_id: stop,
        signature: json_ok(sig, "signature")["signature"].clone(),
        photos: json_ok(photos, "photos")["photos"].clone(),
        submission: json_ok(submission, "submission")["driver_questionnaire_submission"].clone(),
        photo_bytes: big.len(),
        answer_photo_bytes: in_answer.len(),
    }
}

/// One image as the depot reads it.
#[derive(Debug, Clone)]
pub struct ImageRead {
    /// The absolute URL read.
    pub url: String,
    /// The 202 answers seen while it was compressing: (`Retry-After`, body).
    pub pending: Vec<(Option<String>, Value)>,
    /// The raw read once compressed.
    pub raw: Reply,
    /// `?encoding=base64`.
    pub base64: Value,
    /// `data` of the base64 read, decoded.
    pub decoded: Vec<u8>,
}

/// Reads an image URL with the depot's key, waiting as `Retry-After` says while it answers
/// 202, then reads it raw and as base64.
pub fn read_image(server: &Server, key: &str, url: &str) -> ImageRead {
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut pending = Vec::new();
    let raw = loop {
        let reply = server.get(url, key);
        if reply.status != 202 {
            assert_eq!(
                reply.status,
                200,
                "{url}: {}",
                String::from_utf8_lossy(&reply.raw)
            );
            break reply;
        }
        let retry = reply.header("retry-after").map(str::to_owned);
        let wait = retry
            .as_deref()
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(1);
        pending.push((retry, reply.json()));
        assert!(Instant::now() < deadline, "{url} never compressed");
        std::thread::sleep(Duration::from_secs(wait));
    };
    let base64 = json_ok(server.get(&format!("{url}?encoding=base64"), key), "base64");
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(base64["data"].as_str().unwrap_or_default())
        .expect("standard base64");
    ImageRead {
        url: url.to_owned(),
        pending,
        raw,
        base64,
        decoded,
    }
}

/// Every image URL of the stop's proof: the signature, the photos, the answers' images.
pub fn image_urls(proof: &StopProof) -> Vec<String> {
    let mut urls = vec![proof.signature["url"].as_str().unwrap().to_owned()];
    for p in proof.photos.as_array().unwrap() {
        urls.push(p["url"].as_str().unwrap().to_owned());
    }
    for a in proof.submission["driver_questionnaire_answers"]
        .as_array()
        .unwrap()
    {
        for url in a["images"].as_array().unwrap() {
            urls.push(url.as_str().unwrap().to_owned());
        }
    }
    urls
}

/// The depot's reads of the proof: the submissions by id, and every image.
#[derive(Debug, Clone, Default)]
pub struct ProofReads {
    /// `GET /v2/driver-questionnaire-submission/{id}` of the visit and of the check-in.
    pub visit: Value,
    pub checkin: Value,
    /// Every image of the stop, photos first (the largest takes longest to compress).
    pub images: Vec<ImageRead>,
}

/// Reads back what the driver uploaded, as the depot.
pub fn read_back(server: &Server, key: &str, proof: &StopProof, checkin: &Value) -> ProofReads {
    let submission = |id: &Value| {
        json_ok(
            server.get(&format!("/v2/driver-questionnaire-submission/{id}"), key),
            "submission read",
        )["driver_questionnaire_submission"]
            .clone()
    };
    let mut urls = image_urls(proof);
    urls.rotate_left(1);
    ProofReads {
        visit: submission(&proof.submission["id"]),
        checkin: submission(&checkin["id"]),
        images: urls.iter().map(|u| read_image(server, key, u)).collect(),
    }
}
