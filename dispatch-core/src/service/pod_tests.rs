use super::*;
use crate::model::driver::Driver;
use crate::model::order::Side;
use crate::model::organisation::DepotSettings;
use crate::model::pod::{ImageFormat, ImageRead, StoredAnswer};
use crate::model::questionnaire::{
    AnswerInput, AnswerType, AnswerValue, Question, QuestionnaireDef, QuestionnaireType,
};
use crate::model::route::{NewRoute, RouteTiming};
use crate::model::stop::StopVisit;
use crate::ports::clock::ManualClock;
use crate::ports::store::{InMemoryStore, NewDepot, StoreError};
use crate::service::stop_records::stop_proof;
use crate::time::Date;

/// Accepts `IMG` followed by anything; "encodes" by prefixing `WEBP`, failing on `IMGBAD`.
struct FakeCodec;

impl ImageCodec for FakeCodec {
    fn inspect(&self, bytes: &[u8]) -> Result<ImageInfo, ImageRejection> {
        if bytes.starts_with(b"IMG") {
            Ok(ImageInfo {
                format: ImageFormat::Png,
                width: 10,
                height: 10,
            })
        } else {
            Err(ImageRejection::UnsupportedType)
        }
    }

    fn to_webp(&self, bytes: &[u8], lossless: bool, _max: u32) -> Result<Vec<u8>, String> {
        if bytes.starts_with(b"IMGBAD") {
            return Err("cannot encode".into());
        }
        let mut out = if lossless {
            b"WEBPL".to_vec()
        } else {
            b"WEBP".to_vec()
        };
        out.extend_from_slice(bytes);
        Ok(out)
    }
}

struct Day {
    store: InMemoryStore,
    driver: Driver,
    other: Driver,
    stop: i64,
    route: i64,
}

fn day() -> Day {
    let store = InMemoryStore::new();
    let t = Timestamp::from_millis(0);
    let (scope, stop, route) = (&store as &dyn Store)
        .transaction(|tx| {
            let org = tx.insert_organisation("Acme", t)?;
            let depot = tx.insert_depot(
                org.id,
                &NewDepot {
                    name: "North".into(),
                    address: None,
                    location: None,
                    settings: DepotSettings::default(),
                },
                t,
            )?;
            let scope = depot.scope();
            let mut route = tx.insert_route(
                scope,
                &NewRoute {
                    plan_id: 1,
                    solution_id: 1,
                    name: "R1".into(),
                    date: Date::parse("2026-11-24").unwrap(),
                    vehicle_id: Some(7),
                    timing: RouteTiming::default(),
                },
                t,
            )?;
            route.dispatched = true;
            tx.update_route(scope, &route)?;
            let visit = StopVisit {
                order_ids: vec![42],
                side: Side::Delivery,
                lat: None,
                lng: None,
                address: None,
                postcode: None,
                phone: None,
                arrival_date: route.date,
                arrival_s: 36_000,
                wait_s: 0,
                departure_date: route.date,
                departure_s: 36_600,
                planned_distance_m: 0,
            };
            let stops = tx.replace_stops(scope, route.id, &[visit], t)?;
            tx.upsert_questionnaire(
                scope,
                &QuestionnaireDef {
                    kind: QuestionnaireType::Visit,
                    title: "Visit".into(),
                    questions: vec![
                        Question {
                            id: 1,
                            kind: AnswerType::Checkbox,
                            question: "Left safely?".into(),
                            required: true,
                            options: vec![],
                        },
                        Question {
                            id: 2,
                            kind: AnswerType::Photo,
                            question: "Photo".into(),
                            required: false,
                            options: vec![],
                        },
                    ],
                },
                t,
            )?;
            Ok::<_, StoreError>((scope, stops[0].id, route.id))
        })
        .unwrap();
    Day {
        store,
        driver: Driver {
            credential_id: 0,
            scope,
            vehicle_id: 7,
        },
        other: Driver {
            credential_id: 0,
            scope,
            vehicle_id: 8,
        },
        stop,
        route,
    }
}

fn at(ms: i64) -> Timestamp {
    Timestamp::from_millis(ms)
}

#[test]
fn a_signature_is_filed_for_the_stop_and_served_once_compressed() {
    let d = day();
    let input = SignatureInput {
        signed_by: "J. Smith".into(),
        lat: Some(51.5),
        lng: Some(-0.1),
        image: b"IMG sig".to_vec(),
    };
    let (sig, meta) =
        add_signature(&d.store, &FakeCodec, &d.driver, d.stop, &input, at(5)).unwrap();
    assert_eq!(sig.signed_by, "J. Smith");
    let pending = read_image(&d.store, d.driver.scope, meta.id, ImageKind::Signature).unwrap();
    assert_eq!(pending, ImageRead::Pending { id: meta.id });
    let clock = ManualClock::new(at(6));
    assert_eq!(
        compress_pending(&d.store, &FakeCodec, &clock, 10).unwrap(),
        1
    );
    assert_eq!(
        compress_pending(&d.store, &FakeCodec, &clock, 10).unwrap(),
        0
    );
    match read_image(&d.store, d.driver.scope, meta.id, ImageKind::Signature).unwrap() {
        ImageRead::Ready { image, .. } => {
            assert_eq!(image.content_type, "image/webp");
            assert_eq!(image.bytes, b"WEBPLIMG sig");
        }
        other => panic!("{other:?}"),
    }
    // Each endpoint serves its own kind only.
    assert_eq!(
        read_image(&d.store, d.driver.scope, meta.id, ImageKind::Photo),
        Err(ServiceError::NotFound("photo"))
    );
    let proof = (&d.store as &dyn Store)
        .read(|tx| {
            let stop = tx.list_stops(d.driver.scope, d.route)?.remove(0);
            stop_proof(tx, d.driver.scope, &stop)
        })
        .unwrap();
    assert_eq!(proof.signature.unwrap().0.lat, Some(51.5));
}

#[test]
fn another_vehicles_driver_cannot_touch_the_stop_and_nothing_is_stored() {
    let d = day();
    let err = add_photos(
        &d.store,
        &FakeCodec,
        &d.other,
        d.stop,
        &[b"IMG".to_vec()],
        at(1),
    );
    assert_eq!(err.unwrap_err(), ServiceError::NotFound("stop"));
    let pending = (&d.store as &dyn Store)
        .read(|tx| tx.pending_images(10))
        .unwrap();
    assert!(pending.is_empty());
}

#[test]
fn undecodable_photos_are_refused_at_their_position_before_anything_is_stored() {
    let d = day();
    let photos = [b"IMG ok".to_vec(), b"<svg/>".to_vec(), Vec::new()];
    let Err(ServiceError::Invalid(e)) =
        add_photos(&d.store, &FakeCodec, &d.driver, d.stop, &photos, at(1))
    else {
        panic!("expected a validation error");
    };
    assert_eq!(e.0.len(), 2);
    assert_eq!(e.0[0].path, vec![PathSegment::from("photo"), 1.into()]);
    let pending = (&d.store as &dyn Store)
        .read(|tx| tx.pending_images(10))
        .unwrap();
    assert!(pending.is_empty());
}

#[test]
fn a_failed_compression_serves_the_upload_as_it_came() {
    let d = day();
    let metas = add_photos(
        &d.store,
        &FakeCodec,
        &d.driver,
        d.stop,
        &[b"IMGBAD".to_vec()],
        at(1),
    )
    .unwrap();
    compress_pending(&d.store, &FakeCodec, &ManualClock::new(at(2)), 10).unwrap();
    match read_image(&d.store, d.driver.scope, metas[0].id, ImageKind::Photo).unwrap() {
        ImageRead::Ready { image, .. } => {
            assert_eq!(image.content_type, "image/png");
            assert_eq!(image.bytes, b"IMGBAD");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_visit_submission_stores_answers_with_their_images_and_lists_under_the_stop() {
    let d = day();
    let qid = questionnaires(&d.store, d.driver.scope).unwrap()[0].id;
    let input = SubmissionInput {
        questionnaire_id: qid,
        route_id: None,
        stop_id: Some(d.stop),
        answers: vec![
            AnswerInput {
                question_id: 1,
                value: AnswerValue::Bool(true),
                images: vec![],
            },
            AnswerInput {
                question_id: 2,
                value: AnswerValue::Absent,
                images: vec![b"IMG 1".to_vec(), b"IMG 2".to_vec()],
            },
        ],
    };
    let s = submit(&d.store, &FakeCodec, &d.driver, &input, at(3)).unwrap();
    assert_eq!(s.head.stop_id, Some(d.stop));
    assert_eq!(s.route_id, d.route);
    let StoredAnswer { image_ids, .. } = &s.answers[1];
    assert_eq!(image_ids.len(), 2);
    assert_eq!(
        get_submission(&d.store, d.driver.scope, s.head.id).unwrap(),
        s
    );
    // A VISIT questionnaire needs a stop; the other vehicle cannot answer at this stop.
    let no_stop = SubmissionInput {
        stop_id: None,
        route_id: Some(d.route),
        ..input.clone()
    };
    assert!(matches!(
        submit(&d.store, &FakeCodec, &d.driver, &no_stop, at(4)),
        Err(ServiceError::Invalid(_))
    ));
    assert_eq!(
        submit(&d.store, &FakeCodec, &d.other, &input, at(4)),
        Err(ServiceError::NotFound("stop"))
    );
}
