//! Route edits compute their stops (the travel matrix, the solver) outside the write
//! transaction, and apply them only to the route they were computed from.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dispatch_core::model::route_edit::REOPTIMIZE_STOP_LIMIT;
use dispatch_core::ports::matrix::{Matrix, MatrixError, Point, TravelMatrix};
use dispatch_core::service::route_orders::{
    add_orders, remove_orders, EditOutcome, EditSettings, OrderRef, EDIT_ATTEMPTS,
};

use super::*;

/// The app's travel matrix, calling `hook` with the call's number before each matrix.
struct Hooked<F> {
    inner: Arc<dyn TravelMatrix>,
    calls: AtomicUsize,
    hook: F,
}

impl<F: Fn(usize) + Send + Sync> TravelMatrix for Hooked<F> {
    fn matrix(&self, points: &[Point]) -> Result<Matrix, MatrixError> {
        (self.hook)(self.calls.fetch_add(1, Ordering::SeqCst));
        self.inner.matrix(points)
    }
}

fn hooked<F: Fn(usize) + Send + Sync>(app: &TestApp, hook: F) -> Hooked<F> {
    Hooked {
        inner: app.state.routing.matrix.clone(),
        calls: AtomicUsize::new(0),
        hook,
    }
}

/// Runs `write` in a write transaction on a thread of its own (another client) and says whether
/// it committed within three seconds.
fn commits_meanwhile(
    store: &Arc<dyn Store>,
    write: impl FnOnce(&mut dyn dispatch_core::ports::store::StoreTx) -> Result<(), ServiceError>
        + Send
        + 'static,
) -> bool {
    let store = store.clone();
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send((&*store as &dyn Store).transaction(write).is_ok());
    });
    wait.recv_timeout(Duration::from_secs(3)).unwrap_or(false)
}

/// Changes the route: with `timing`, what an edit is computed from (its end moves by a
/// minute), else only what a driver's positions change (its actual distance); both lock it and
/// move its `updated` on.
fn touch_route(
    scope: DepotScope,
    route: i64,
    timing: bool,
) -> impl FnOnce(&mut dyn dispatch_core::ports::store::StoreTx) -> Result<(), ServiceError> {
    move |tx| {
        let mut r = tx.get_route(scope, route)?.unwrap();
        if timing {
            r.timing.end_time_s += 60;
        } else {
            r.actual_distance_m = Some(r.actual_distance_m.unwrap_or(0) + 100);
        }
        r.is_locked = true;
        r.updated = r.updated.add_millis(1);
        tx.update_route(scope, &r)?;
        Ok(())
    }
}

fn add(
    app: &TestApp,
    matrix: &dyn TravelMatrix,
    route: i64,
    order: i64,
) -> Result<EditOutcome, ServiceError> {
    let links = dispatch_http::links::Links::of(&app.state);
    let refs = [OrderRef {
        id: Some(order),
        order_number: None,
    }];
    let settings = EditSettings::default();
    app.with_store(|store| {
        add_orders(
            store,
            matrix,
            &links,
            north_scope(app),
            route,
            &refs,
            settings,
            now(app),
        )
    })
}

fn stop_orders(app: &TestApp, route: i64) -> Vec<Vec<i64>> {
    let scope = north_scope(app);
    let stops = app.read(|tx| tx.list_stops(scope, route)).unwrap();
    stops.into_iter().map(|s| s.visit.order_ids).collect()
}

/// A route of two stops (`o[0]`, `o[1]`) and a third order `o[2]` to add; the route's id.
async fn two_stops_and_one_to_add(app: &TestApp) -> (i64, Vec<i64>) {
    let v = vehicle(app, "Van").await;
    let o = orders(app, "A", 3).await;
    let laid = lay_out(app, &[(Some(v), vec![o[0], o[1]])]);
    (laid.routes[0], o)
}

#[tokio::test]
async fn other_writers_go_on_while_a_route_edit_computes_its_stops() {
    let app = TestApp::new();
    let (route, o) = two_stops_and_one_to_add(&app).await;
    let (scope, store) = (north_scope(&app), app.store.clone());
    let other_writer_done = AtomicBool::new(false);
    let matrix = hooked(&app, |_| {
        let done = commits_meanwhile(&store, move |tx| {
            tx.append_event(
                scope,
                &DomainEvent::PlanDeleted { id: 0 },
                Timestamp::from_millis(0),
            )?;
            Ok(())
        });
        other_writer_done.store(done, Ordering::SeqCst);
    });
    let out = add(&app, &matrix, route, o[2]).unwrap();
    assert_eq!(out.errors, vec![]);
    assert!(
        other_writer_done.load(Ordering::SeqCst),
        "another writer waited for the route edit to compute"
    );
    assert_eq!(
        stop_orders(&app, route),
        vec![vec![o[0]], vec![o[1]], vec![o[2]]]
    );
}

#[tokio::test]
async fn an_edit_whose_route_changed_while_it_computed_is_computed_again_on_the_new_route() {
    let app = TestApp::new();
    let (route, o) = two_stops_and_one_to_add(&app).await;
    let (scope, store) = (north_scope(&app), app.store.clone());
    let matrix = hooked(&app, |call| {
        if call == 0 {
            assert!(commits_meanwhile(&store, touch_route(scope, route, true)));
        }
    });
    let out = add(&app, &matrix, route, o[2]).unwrap();
    assert_eq!(out.errors, vec![]);
    assert_eq!(matrix.calls.load(Ordering::SeqCst), 2, "computed once more");
    // Both changes stand: the other writer's and the edit's.
    let r = app.get(&format!("/v2/routes/{route}"), &app.north()).await;
    assert_eq!(r.ok()["route"]["is_locked"], true);
    assert_eq!(
        stop_orders(&app, route),
        vec![vec![o[0]], vec![o[1]], vec![o[2]]]
    );
}

#[tokio::test]
async fn a_change_the_edit_does_not_read_is_kept_without_computing_again() {
    let app = TestApp::new();
    let (route, o) = two_stops_and_one_to_add(&app).await;
    let (scope, store) = (north_scope(&app), app.store.clone());
    let matrix = hooked(&app, |call| {
        if call == 0 {
            assert!(commits_meanwhile(&store, touch_route(scope, route, false)));
        }
    });
    let out = add(&app, &matrix, route, o[2]).unwrap();
    assert_eq!(out.errors, vec![]);
    assert_eq!(matrix.calls.load(Ordering::SeqCst), 1, "computed once");
    let r = app.read(|tx| tx.get_route(scope, route)).unwrap().unwrap();
    assert_eq!((r.actual_distance_m, r.is_locked), (Some(100), true));
    assert_eq!(
        stop_orders(&app, route),
        vec![vec![o[0]], vec![o[1]], vec![o[2]]]
    );
}

#[tokio::test]
async fn an_edit_whose_route_keeps_changing_is_503_and_writes_nothing() {
    let app = TestApp::new();
    let (route, o) = two_stops_and_one_to_add(&app).await;
    let (scope, store) = (north_scope(&app), app.store.clone());
    let matrix = hooked(&app, |_| {
        assert!(commits_meanwhile(&store, touch_route(scope, route, true)));
    });
    let refused = add(&app, &matrix, route, o[2]);
    assert!(
        matches!(
            refused,
            Err(ServiceError::Unavailable {
                retry_after_s: 1,
                ..
            })
        ),
        "{refused:?}"
    );
    assert_eq!(matrix.calls.load(Ordering::SeqCst), EDIT_ATTEMPTS);
    assert_eq!(stop_orders(&app, route), vec![vec![o[0]], vec![o[1]]]);
    assert_eq!(status_of(&app, o[2]).await, "OPEN");
}

#[tokio::test]
async fn removing_with_reoptimize_from_a_route_too_long_to_re_solve_only_re_times_it() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let mut all = orders(&app, "A", 100).await;
    all.extend(orders(&app, "B", REOPTIMIZE_STOP_LIMIT + 2 - 100).await);
    // Far and near in turn: any re-solve would reorder them.
    let mut zigzag = Vec::new();
    let (mut front, mut back) = (0, all.len());
    while front < back {
        zigzag.push(all[front]);
        front += 1;
        if front < back {
            back -= 1;
            zigzag.push(all[back]);
        }
    }
    let laid = lay_out(&app, &[(Some(v), zigzag.clone())]);
    let route = laid.routes[0];
    let refs = [OrderRef {
        id: Some(zigzag[0]),
        order_number: None,
    }];
    let settings = EditSettings {
        allow_dispatched: false,
        reoptimize: true,
    };
    let matrix = app.state.routing.matrix.clone();
    let out = app
        .with_store(|store| {
            remove_orders(
                store,
                &*matrix,
                north_scope(&app),
                route,
                &refs,
                settings,
                now(&app),
            )
        })
        .unwrap();
    assert_eq!(out.errors, vec![]);
    let kept: Vec<Vec<i64>> = zigzag[1..].iter().map(|id| vec![*id]).collect();
    assert_eq!(
        stop_orders(&app, route),
        kept,
        "re-sequenced beyond the stop limit"
    );
    assert_eq!(status_of(&app, zigzag[0]).await, "OPEN");
}
