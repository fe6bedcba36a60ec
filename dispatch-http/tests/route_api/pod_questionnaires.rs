//! Questionnaires as drivers see them (`GET /driver/questionnaires`) and the submissions they
//! send (`POST /driver/questionnaire-submissions`) over the real router: checked against the
//! questionnaire's questions, images decoded and stored, every kind of bad answer refused with
//! the envelope and nothing stored.

use axum::http::StatusCode;
use base64::Engine;
use serde_json::json;

use super::driver::{credential, driven_route};
use super::pod::{png, route_stops, seed_questionnaires};
use super::pod_uploads::stored_images;
use super::*;

/// An image as the JSON submissions carry it.
pub fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[tokio::test]
async fn questionnaires_are_listed_to_drivers_and_submissions_are_checked_against_them() {
    let app = TestApp::new();
    seed_questionnaires(&app);
    let (_, key, route, _) = driven_route(&app, "Q", 1).await;
    let stop = route_stops(&app, route).await[0]["id"].as_i64().unwrap();
    let list = app.get("/driver/questionnaires", &key).await;
    let qs = list.ok()["questionnaires"].as_array().unwrap().clone();
    assert_eq!(qs.len(), 2);
    assert_eq!(
        qs[0]["questions"][2]["options"],
        json!(["Porch", "Neighbour"])
    );
    assert_eq!(qs[0]["questions"][0]["required"], true);
    let (visit, checkin) = (qs[0]["id"].as_i64().unwrap(), qs[1]["id"].as_i64().unwrap());

    let body = json!({"questionnaire_id": visit, "stop_id": stop, "answers": [
        {"question_id": 1, "value": true},
        {"question_id": 2, "value": "Behind the gate"},
        {"question_id": 3, "value": "Neighbour"},
        {"question_id": 4, "value": ["Sealed"]},
        {"question_id": 5, "value": "Ann", "images": [b64(&png(80, 30))]},
        {"question_id": 6, "images": [format!("data:image/png;base64,{}", b64(&png(30, 30)))]}
    ]});
    let r = app
        .post("/driver/questionnaire-submissions", &key, body)
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:#}", r.body);
    let created = r.body["driver_questionnaire_submission"].clone();
    let id = created["id"].as_i64().unwrap();
    let read = app
        .get(
            &format!("/v2/driver-questionnaire-submission/{id}"),
            &app.north(),
        )
        .await;
    assert_eq!(read.ok()["driver_questionnaire_submission"], created);
    assert_eq!(
        created["driver_questionnaire_answers"][3]["data"],
        "[\"Sealed\"]"
    );
    assert_eq!(
        created["driver_questionnaire_answers"][5]["images"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let checkin_body = json!({"questionnaire_id": checkin, "route_id": route, "answers": [{"question_id": 1, "value": true}]});
    let r = app
        .post(
            "/driver/questionnaire-submissions",
            &key,
            checkin_body.clone(),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:#}", r.body);
    let before = stored_images(&app);

    let bad = |body: Value| {
        let app = &app;
        let key = key.clone();
        async move {
            app.post("/driver/questionnaire-submissions", &key, body)
                .await
                .invalid_paths()
        }
    };
    assert_eq!(
        bad(
            json!({"questionnaire_id": visit, "stop_id": stop, "answers": [
                {"question_id": 1, "value": "yes"},
                {"question_id": 3, "value": "Garage"},
                {"question_id": 4, "value": "Sealed"},
                {"question_id": 5, "images": []},
                {"question_id": 6, "images": ["!!!not base64"]},
                {"question_id": 2, "value": 7},
                {"question_id": 9, "value": true}
            ]})
        )
        .await,
        ["answers.4.images.0", "answers.5.value"]
    );
    assert_eq!(
        bad(
            json!({"questionnaire_id": visit, "stop_id": stop, "answers": [
                {"question_id": 1, "value": "yes"},
                {"question_id": 3, "value": "Garage"},
                {"question_id": 4, "value": "Sealed"},
                {"question_id": 5, "images": []},
                {"question_id": 6, "images": [b64(b"GIF89a")]},
                {"question_id": 9, "value": true}
            ]})
        )
        .await,
        [
            "answers.0.value",
            "answers.1.value",
            "answers.2.value",
            "answers.3.images",
            "answers.5.question_id",
            "answers.4.images.0"
        ],
        "the answers' and the images' violations are listed together"
    );
    assert_eq!(
        bad(
            json!({"questionnaire_id": visit, "stop_id": stop, "answers": [
                {"question_id": 6, "images": [b64(b"GIF89a")]}
            ]})
        )
        .await,
        ["answers", "answers.0.images.0"]
    );
    assert_eq!(
        bad(
            json!({"questionnaire_id": visit, "stop_id": stop, "answers": [
                {"question_id": 1, "value": true}, {"question_id": 6, "images": [b64(b"GIF89a")]}
            ]})
        )
        .await,
        ["answers.1.images.0"]
    );
    assert_eq!(
        bad(json!({"stop_id": stop, "answers": []})).await,
        ["questionnaire_id"]
    );
    assert_eq!(
        bad(json!({"questionnaire_id": visit, "stop_id": stop})).await,
        ["answers"]
    );
    assert_eq!(
        bad(json!({"questionnaire_id": visit, "answers": []})).await,
        ["stop_id"]
    );
    assert_eq!(
        bad(json!({"questionnaire_id": 999999, "stop_id": stop, "answers": []})).await,
        ["questionnaire_id"]
    );
    assert_eq!(
        bad(json!({"questionnaire_id": checkin, "stop_id": stop, "answers": []})).await,
        ["route_id"]
    );
    assert_eq!(
        bad(json!({"questionnaire_id": "one", "extra": 1, "answers": {}})).await,
        ["extra", "questionnaire_id", "answers"]
    );
    app.post("/driver/questionnaire-submissions", &key, json!([1]))
        .await
        .envelope(400, "INVALID_INPUT");
    // Another vehicle's driver cannot answer for this route or stop.
    let v2 = vehicle(&app, "Other van").await;
    let other = credential(&app, v2).await;
    app.post("/driver/questionnaire-submissions", &other, checkin_body)
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    assert_eq!(
        stored_images(&app),
        before,
        "refused submissions store no image"
    );
}

#[tokio::test]
async fn refused_answers_say_what_was_received() {
    let app = TestApp::new();
    seed_questionnaires(&app);
    let (_, key, route, _) = driven_route(&app, "R", 1).await;
    let stop = route_stops(&app, route).await[0]["id"].as_i64().unwrap();
    let qs = app.get("/driver/questionnaires", &key).await.ok()["questionnaires"].clone();
    let (visit, checkin) = (qs[0]["id"].as_i64().unwrap(), qs[1]["id"].as_i64().unwrap());
    let received = |body: Value| {
        let (app, key) = (&app, key.clone());
        async move {
            let r = app
                .post("/driver/questionnaire-submissions", &key, body)
                .await;
            r.body["details"]["validationErrors"]
                .as_array()
                .unwrap_or_else(|| panic!("{:#}", r.body))
                .iter()
                .map(|i| (i["path"].clone(), i["received"].clone()))
                .collect::<Vec<_>>()
        }
    };
    let answers = json!([
        {"question_id": 1, "value": "yes"},
        {"question_id": 2, "value": false},
        {"question_id": 3, "value": "Garage"},
        {"question_id": 4, "value": ["Dry", "Wet"]},
        {"question_id": 5, "images": []},
        {"question_id": 1, "value": true},
        {"question_id": 9, "value": true},
        {"question_id": 6, "value": true, "images": [b64(&png(30, 30))]}
    ]);
    assert_eq!(
        received(json!({"questionnaire_id": visit, "stop_id": stop, "answers": answers})).await,
        [
            (json!(["answers", 0, "value"]), json!("yes")),
            (json!(["answers", 1, "value"]), json!("false")),
            (json!(["answers", 2, "value"]), json!("Garage")),
            (json!(["answers", 3, "value"]), json!("[\"Dry\",\"Wet\"]")),
            (json!(["answers", 4, "images"]), json!("0 images")),
            (json!(["answers", 5, "question_id"]), json!("1")),
            (json!(["answers", 6, "question_id"]), json!("9")),
            (json!(["answers", 7, "value"]), json!("true")),
        ]
    );
    let wire = json!([
        {"question_id": "one"},
        {"question_id": 2, "value": 7},
        {"question_id": 6, "images": ["!!!not base64", 5]}
    ]);
    assert_eq!(
        received(json!({"questionnaire_id": visit, "stop_id": stop, "answers": wire})).await,
        [
            (json!(["answers", 0, "question_id"]), json!("string")),
            (json!(["answers", 1, "value"]), json!("number")),
            (json!(["answers", 2, "images", 0]), json!("!!!not base64")),
            (json!(["answers", 2, "images", 1]), json!("number")),
        ]
    );
    let missing = json!({"questionnaire_id": visit, "stop_id": stop, "answers": []});
    assert_eq!(
        received(missing).await,
        [(json!(["answers"]), json!("no answer to question 1"))]
    );
    let places = [
        (
            json!({"questionnaire_id": 999, "stop_id": stop, "answers": []}),
            json!("999"),
        ),
        (
            json!({"questionnaire_id": visit, "answers": []}),
            json!("undefined"),
        ),
        (
            json!({"questionnaire_id": checkin, "route_id": route, "stop_id": stop, "answers": []}),
            json!(format!("stop_id {stop}")),
        ),
        (
            json!({"questionnaire_id": "x", "answers": 1}),
            json!("string"),
        ),
    ];
    for (body, expected) in places {
        let got = received(body.clone()).await;
        assert_eq!(got[0].1, expected, "{body}: {got:?}");
    }
}
