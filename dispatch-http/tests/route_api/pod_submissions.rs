//! Questionnaire submissions read back (answers of every type, their images, the lists on
//! stop, route and plan reads) and the seed file's questionnaire definitions.

use axum::http::StatusCode;
use dispatch_adapters::images::Codec;
use dispatch_core::model::questionnaire::{AnswerInput, AnswerValue};
use dispatch_core::service::pod::{self, SubmissionInput};
use dispatch_core::service::seed;
use dispatch_http::keys::DerivedKeys;
use serde_json::json;

use super::pod::{compress_all, dispatched_day, driver_of, png, route_stops, seed_questionnaires};
use super::*;

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
    let driver = driver_of(&app, v);
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
    let s = app
        .with_store(|store| pod::submit(store, &Codec, &driver, &visit, now(&app)))
        .unwrap();
    let checkin = SubmissionInput {
        questionnaire_id: checkin_q,
        route_id: Some(laid.routes[0]),
        stop_id: None,
        answers: vec![answer(1, AnswerValue::Bool(false), vec![])],
    };
    let c = app
        .with_store(|store| pod::submit(store, &Codec, &driver, &checkin, now(&app)))
        .unwrap();

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
    let err = seed::parse(&bad.to_string())
        .and_then(|seed| app.with_store(|store| seed::apply(store, &DerivedKeys, &seed, now(&app))))
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
