//! "An order is on one active route at most": a route that is dispatched and not completed by
//! its driver may not share an order with another such route. Every store refuses the write
//! that would break it (a conflict), whichever repository method tries, and writers racing on
//! several threads cannot break it either.

use super::plans::{day, order, visit};
use super::{at, two_depots};
use crate::model::organisation::DepotScope;
use crate::model::plan::NewPlan;
use crate::model::route::{NewRoute, Route, RouteTiming};
use crate::ports::store::{Store, StoreError};

fn route_with(store: &dyn Store, scope: DepotScope, plan: i64, orders: &[i64]) -> Route {
    store
        .transaction(|tx| {
            let route = tx.insert_route(
                scope,
                &NewRoute {
                    plan_id: plan,
                    solution_id: plan,
                    name: "Route".into(),
                    date: day(),
                    vehicle_id: None,
                    timing: RouteTiming::default(),
                },
                at(2),
            )?;
            let visits: Vec<_> = orders.iter().map(|&o| visit(vec![o], 36_000)).collect();
            tx.replace_stops(scope, route.id, &visits, at(2))?;
            Ok::<_, StoreError>(route)
        })
        .unwrap()
}

fn set_flags(
    store: &dyn Store,
    scope: DepotScope,
    route: &Route,
    dispatched: bool,
    completed: bool,
) -> Result<bool, StoreError> {
    let mut r = route.clone();
    r.dispatched = dispatched;
    r.completed_ts = completed.then(|| at(9));
    store.transaction(|tx| tx.update_route(scope, &r))
}

fn conflict<T: std::fmt::Debug>(result: Result<T, StoreError>) {
    assert!(
        matches!(result, Err(StoreError::Conflict(_))),
        "expected a conflict, got {result:?}"
    );
}

/// Runs the scenario on `store` (a fresh, empty store).
pub fn one_active_route_per_order(store: &dyn Store) {
    let (a, _) = two_depots(store);
    let (o, plan) = store
        .transaction(|tx| {
            let mut ids = Vec::new();
            for n in 0..4 {
                ids.push(tx.insert_order(a, &order(&format!("A-{n}"), Some(day())))?);
            }
            let plan = tx.insert_plan(a, &NewPlan { date: day() }, at(1))?;
            Ok::<_, StoreError>((ids, plan.id))
        })
        .unwrap();
    let r1 = route_with(store, a, plan, &[o[0]]);
    let r2 = route_with(store, a, plan, &[o[0], o[1]]);
    // Undispatched routes (proposals) may share orders; the first dispatch takes o[0].
    assert!(set_flags(store, a, &r1, true, false).unwrap());
    conflict(set_flags(store, a, &r2, true, false));
    assert!(
        !store
            .read(|tx| tx.get_route(a, r2.id))
            .unwrap()
            .unwrap()
            .dispatched
    );
    // Without o[0] the second route dispatches; o[0] cannot join it while r1 is active.
    store
        .transaction(|tx| tx.replace_stops(a, r2.id, &[visit(vec![o[1]], 36_000)], at(3)))
        .unwrap();
    assert!(set_flags(store, a, &r2, true, false).unwrap());
    conflict(
        store.transaction(|tx| {
            tx.replace_stops(a, r2.id, &[visit(vec![o[1], o[0]], 36_000)], at(4))
        }),
    );
    // A completed route is no longer active: its orders may be on another active route.
    assert!(set_flags(store, a, &r1, true, true).unwrap());
    store
        .transaction(|tx| {
            tx.replace_stops(
                a,
                r2.id,
                &[visit(vec![o[1]], 36_000), visit(vec![o[0]], 37_000)],
                at(5),
            )
        })
        .unwrap();
    // A deleted plan's routes leave the active set with it.
    let other = store
        .transaction(|tx| tx.insert_plan(a, &NewPlan { date: day() }, at(6)))
        .unwrap();
    let r3 = route_with(store, a, other.id, &[o[1]]);
    conflict(set_flags(store, a, &r3, true, false));
    store.transaction(|tx| tx.delete_plan(a, plan)).unwrap();
    assert!(set_flags(store, a, &r3, true, false).unwrap());

    // Two writers dispatching two routes of one order at once: exactly one commits.
    let racing = [
        route_with(store, a, other.id, &[o[2], o[3]]),
        route_with(store, a, other.id, &[o[3]]),
    ];
    let results: Vec<bool> = std::thread::scope(|s| {
        let handles: Vec<_> = racing
            .iter()
            .map(|r| s.spawn(move || set_flags(store, a, r, true, false).is_ok()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(results.iter().filter(|ok| **ok).count(), 1, "{results:?}");
}
