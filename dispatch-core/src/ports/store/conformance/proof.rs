//! The driver side's stored records: the vehicles' change feeds and the proof of delivery that
//! route reads gather for many stops at once.

use super::plans::{day, order};
use super::{at, two_depots};
use crate::model::driver_visit::{FeedKind, LatLng, TrackPoint};
use crate::model::organisation::DepotScope;
use crate::model::plan::NewPlan;
use crate::model::pod::{ImageFormat, ImageInfo, ImageKind, StopSignature};
use crate::model::questionnaire::{QuestionnaireDef, QuestionnaireType};
use crate::model::route::{NewRoute, RouteTiming};
use crate::ports::store::{NewImage, ProofPlace, Store, StoreError, StoreTx};

/// Feed messages come back after a cursor in id order; pruning drops the old ones of one depot
/// only, and ids are never reused, even when every message was pruned.
pub fn driver_feed_pruning(store: &dyn Store) {
    let (a, b) = two_depots(store);
    let append = |scope: DepotScope, route: i64, now: i64| {
        store
            .transaction(|tx| tx.append_driver_feed(scope, 7, route, FeedKind::Dispatched, at(now)))
            .unwrap()
    };
    let first = append(a, 1, 10);
    let second = append(a, 2, 20);
    let third = append(a, 3, 30);
    let other = append(b, 4, 10);
    assert!(first < second && second < third);

    let pruned = store
        .transaction(|tx| tx.prune_driver_feed(a, at(25)))
        .unwrap();
    assert_eq!(pruned, 2);
    let left = store.read(|tx| tx.driver_feed_after(a, 7, 0, 10)).unwrap();
    assert_eq!(left.iter().map(|e| e.id).collect::<Vec<_>>(), vec![third]);
    assert_eq!(left[0].route_id, 3);
    assert_eq!(store.read(|tx| tx.latest_driver_feed(a, 7)).unwrap(), third);
    // The other depot's message, as old as the pruned ones, stays.
    let theirs = store.read(|tx| tx.driver_feed_after(b, 7, 0, 10)).unwrap();
    assert_eq!(theirs.iter().map(|e| e.id).collect::<Vec<_>>(), vec![other]);

    store
        .transaction(|tx| tx.prune_driver_feed(a, at(1_000)))
        .unwrap();
    store
        .transaction(|tx| tx.prune_driver_feed(b, at(1_000)))
        .unwrap();
    assert_eq!(store.read(|tx| tx.latest_driver_feed(a, 7)).unwrap(), 0);
    let next = append(a, 5, 2_000);
    assert!(next > third && next > other, "feed id {next} reused");
}

/// Track points go by when they were received, oldest first, across depots, at most `limit` at
/// a time; a point received at or after the cut stays.
pub fn track_point_retention(store: &dyn Store) {
    let (a, b) = two_depots(store);
    let route_in = |scope: DepotScope| {
        store
            .transaction(|tx| {
                let plan = tx.insert_plan(scope, &NewPlan { date: day() }, at(1))?;
                let solution = tx.insert_solution(scope, plan.id, "job", &[], at(1))?;
                let route = NewRoute {
                    plan_id: plan.id,
                    solution_id: solution.id,
                    name: "Van".into(),
                    date: day(),
                    vehicle_id: None,
                    timing: RouteTiming::default(),
                };
                Ok::<_, StoreError>(tx.insert_route(scope, &route, at(1))?.id)
            })
            .unwrap()
    };
    let (ra, rb) = (route_in(a), route_in(b));
    let point = |ms: i64| TrackPoint {
        at: LatLng {
            lat: 51.5,
            lng: -0.1,
        },
        time: at(ms),
    };
    let report = |scope: DepotScope, route: i64, times: &[i64], received: i64| {
        let points: Vec<TrackPoint> = times.iter().map(|&t| point(t)).collect();
        store
            .transaction(|tx| tx.insert_track_points(scope, route, &points, at(received)))
            .unwrap();
    };
    report(a, ra, &[100, 101], 100);
    report(b, rb, &[100], 150);
    // Measured earlier than the first points but received later: it goes by its receipt.
    report(a, ra, &[50, 200], 200);
    report(a, ra, &[300], 300);
    let times = |scope: DepotScope, route: i64| {
        store
            .read(|tx| tx.track(scope, route))
            .unwrap()
            .iter()
            .map(|p| p.time.millis())
            .collect::<Vec<_>>()
    };

    let purge = |before: i64, limit: usize| {
        store
            .transaction(|tx| tx.purge_track_points(at(before), limit))
            .unwrap()
    };
    assert_eq!(
        purge(100, 10),
        0,
        "nothing received before the first report"
    );
    assert_eq!(purge(250, 2), 2, "at most the limit");
    assert_eq!(times(a, ra), vec![50, 200, 300]);
    assert_eq!(times(b, rb), vec![100]);
    assert_eq!(
        purge(250, 10),
        3,
        "the other depot's point and the next report"
    );
    assert_eq!(times(a, ra), vec![300]);
    assert!(times(b, rb).is_empty());
    assert_eq!(purge(250, 10), 0, "a point received at the cut stays");
    assert_eq!(times(a, ra), vec![300]);
}

/// The whole-route reads (photos, signatures, questionnaire submissions, tracking tokens for
/// many orders) return exactly what asking per order returns, and nothing of another route or
/// depot.
pub fn route_proof_reads(store: &dyn Store) {
    let (a, b) = two_depots(store);
    let (route, other_route, orders) = store
        .transaction(|tx| {
            let plan = tx.insert_plan(a, &NewPlan { date: day() }, at(1))?;
            let solution = tx.insert_solution(a, plan.id, "job", &[], at(1))?;
            let new_route = |name: &str| NewRoute {
                plan_id: plan.id,
                solution_id: solution.id,
                name: name.into(),
                date: day(),
                vehicle_id: None,
                timing: RouteTiming::default(),
            };
            let route = tx.insert_route(a, &new_route("Van 1"), at(1))?;
            let other_route = tx.insert_route(a, &new_route("Van 2"), at(1))?;
            let mut orders = Vec::new();
            for n in ["P1", "P2", "P3", "P4"] {
                orders.push(tx.insert_order(a, &order(n, Some(day())))?);
            }
            Ok::<_, StoreError>((route.id, other_route.id, orders))
        })
        .unwrap();
    let [o1, o2, o3, o4] = orders[..] else {
        unreachable!()
    };
    store
        .transaction(|tx| {
            photo(tx, a, route, o1, 10)?;
            photo(tx, a, route, o1, 11)?;
            photo(tx, a, route, o2, 12)?;
            photo(tx, a, other_route, o3, 13)?;
            let signed = image(tx, a, ImageKind::Signature, route, o2, 14)?;
            tx.put_signature(
                a,
                route,
                o2,
                &StopSignature {
                    image_id: signed,
                    stop_id: o2 * 100,
                    signed_by: "Ann".into(),
                    lat: Some(52.5),
                    lng: None,
                    created: at(14),
                },
            )?;
            let form = tx.upsert_questionnaire(
                a,
                &QuestionnaireDef {
                    kind: QuestionnaireType::Visit,
                    title: "Visit".into(),
                    questions: vec![],
                },
                at(15),
            )?;
            for (r, o) in [(route, o1), (route, o3), (route, o3), (other_route, o2)] {
                let place = ProofPlace {
                    route_id: r,
                    stop_id: Some(o * 100),
                    order_id: Some(o),
                };
                tx.insert_submission(a, &form, place, &[], at(16))?;
            }
            tx.ensure_tracking_token(a, o1, "token-1", at(17))?;
            tx.ensure_tracking_token(a, o4, "token-4", at(17))?;
            Ok::<_, StoreError>(())
        })
        .unwrap();

    for asked in [vec![o1, o2, o3, o4], vec![o2], vec![o4, o1], vec![]] {
        store
            .read(|tx| {
                let mut photos = Vec::new();
                let mut signatures = Vec::new();
                let mut submissions = Vec::new();
                let mut tokens = Vec::new();
                for &o in &asked {
                    photos.extend(tx.photos_of_visit(a, route, o)?.into_iter().map(|m| (o, m)));
                    if let Some(s) = tx.signature_of_visit(a, route, o)? {
                        let meta = tx.get_image(a, s.image_id)?.expect("signature image");
                        signatures.push((o, s, meta));
                    }
                    let found = tx.submissions_of_visit(a, route, o)?;
                    submissions.extend(found.into_iter().map(|s| (o, s)));
                    tokens.extend(tx.tracking_token(a, o)?.map(|t| (o, t)));
                }
                assert_eq!(
                    sorted(tx.photos_of_visits(a, route, &asked)?),
                    sorted(photos)
                );
                assert_eq!(
                    sorted(tx.signatures_of_visits(a, route, &asked)?),
                    sorted(signatures)
                );
                assert_eq!(
                    sorted(tx.submissions_of_visits(a, route, &asked)?),
                    sorted(submissions)
                );
                assert_eq!(sorted(tx.tracking_tokens(a, &asked)?), sorted(tokens));
                Ok::<_, StoreError>(())
            })
            .unwrap();
    }
    store
        .read(|tx| {
            let all = [o1, o2, o3, o4];
            assert_eq!(tx.photos_of_visits(a, route, &all)?.len(), 3);
            assert_eq!(tx.submissions_of_visits(a, route, &all)?.len(), 3);
            assert!(tx.photos_of_visits(b, route, &all)?.is_empty());
            assert!(tx.signatures_of_visits(b, route, &all)?.is_empty());
            assert!(tx.submissions_of_visits(b, route, &all)?.is_empty());
            assert!(tx.tracking_tokens(b, &all)?.is_empty());
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

fn image(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    kind: ImageKind,
    route: i64,
    order: i64,
    now: i64,
) -> Result<i64, StoreError> {
    let new = NewImage {
        kind,
        place: ProofPlace {
            route_id: route,
            stop_id: Some(order * 100),
            order_id: Some(order),
        },
        answer_id: None,
        lossless: kind == ImageKind::Signature,
        info: ImageInfo {
            format: ImageFormat::Png,
            width: 2,
            height: 1,
        },
        bytes: b"not decoded by the store",
    };
    Ok(tx.insert_image(scope, &new, at(now))?.id)
}

fn photo(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route: i64,
    order: i64,
    now: i64,
) -> Result<i64, StoreError> {
    image(tx, scope, ImageKind::Photo, route, order, now)
}

/// Batch reads promise no order across orders; compare as sets.
fn sorted<T: std::fmt::Debug>(mut items: Vec<T>) -> Vec<String> {
    let mut out: Vec<String> = items.drain(..).map(|i| format!("{i:?}")).collect();
    out.sort();
    out
}
