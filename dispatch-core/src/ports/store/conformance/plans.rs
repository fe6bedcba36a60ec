//! Plans, solutions, the optimisation queue, routes and stops.

use std::collections::HashSet;

use super::{at, two_depots};
use crate::model::optimisation::{
    JobSpec, JobState, Optimisation, OptimiseSettings, OrderSelection, Queue,
};
use crate::model::order::{Endpoint, Order, OrderType, Side};
use crate::model::organisation::DepotScope;
use crate::model::plan::{NewPlan, UnservedOrder};
use crate::model::route::{NewRoute, RouteBreak, RouteTiming};
use crate::model::stop::StopVisit;
use crate::model::vehicle::{apply_patch, VehiclePatch};
use crate::paging::PageRequest;
use crate::patch::Patch;
use crate::ports::store::{Store, StoreError, KEPT_PROBLEMS};
use crate::status::Status;
use crate::time::Date;

/// The day the planning scenario plans.
pub fn day() -> Date {
    Date::parse("2026-12-01").unwrap()
}

/// An order numbered `number`.
pub fn order(number: &str, date: Option<Date>) -> Order {
    Order {
        id: 0,
        order_number: number.into(),
        kind: OrderType::Delivery,
        status: Status::open(),
        priority: None,
        customer_id: None,
        delivery: Endpoint {
            address: Some("1 High St".into()),
            lat: Some(51.5),
            lng: Some(-0.1),
            ..Endpoint::default()
        },
        pickup: Endpoint::default(),
        delivery_date: date,
        time_windows: Vec::new(),
        exchange_reference: None,
        parts: None,
        vehicle_id: None,
        emails: Vec::new(),
        third_party_id: None,
        tags: Vec::new(),
        skills: Vec::new(),
        capacities: Vec::new(),
        custom_fields: Vec::new(),
        manual_value: None,
        line_items: Vec::new(),
        created: at(1),
        updated: at(1),
    }
}

/// A queued optimisation job `id` of plan `plan_id`.
pub fn job(id: &str, scope: DepotScope, plan_id: i64, now: i64) -> Optimisation {
    let spec = JobSpec {
        selection: OrderSelection::Ids(vec![3, 1, 2]),
        vehicle_ids: Some(vec![7]),
        zone_group_id: Some(4),
        settings: OptimiseSettings {
            active_vehicles: true,
            auto_dispatch: false,
            maintain_upload_sequence: true,
        },
    };
    Optimisation::queued(
        id.into(),
        scope,
        plan_id,
        day(),
        Queue::Standard,
        spec,
        at(now),
    )
}

/// A stop visit serving `order_ids`, arriving at `arrival_s` seconds.
pub fn visit(order_ids: Vec<i64>, arrival_s: i64) -> StopVisit {
    StopVisit {
        order_ids,
        side: Side::Delivery,
        lat: Some(51.5),
        lng: Some(-0.1),
        address: Some("1 High St".into()),
        postcode: Some("AB1".into()),
        phone: None,
        arrival_date: day(),
        arrival_s,
        wait_s: 120,
        departure_date: day(),
        departure_s: arrival_s + 300,
        planned_distance_m: 1200,
    }
}

/// The first page of `limit` items.
pub fn page(limit: usize) -> PageRequest {
    PageRequest {
        after: None,
        limit,
        updated_at_min: None,
    }
}

/// Runs the scenario on `store` (a fresh, empty store).
pub fn planning(store: &dyn Store) {
    let (a, b) = two_depots(store);

    // Plans and solutions draw ids from one sequence; reads are depot-scoped.
    let (p1, p2, s1) = store
        .transaction(|tx| {
            let p1 = tx.insert_plan(a, &NewPlan { date: day() }, at(10))?;
            let s1 = tx.insert_solution(
                a,
                p1.id,
                "job-1",
                &[UnservedOrder {
                    order_id: 9,
                    reason: "CAPACITY".into(),
                    description: "too big".into(),
                }],
                at(11),
            )?;
            let p2 = tx.insert_plan(a, &NewPlan { date: day() }, at(12))?;
            Ok::<_, StoreError>((p1, p2, s1))
        })
        .unwrap();
    assert!(p1.id != s1.id && p2.id != s1.id && p1.id != p2.id);
    assert!(!p1.dispatched && p1.active_solution_id.is_none());
    let read = store.read(|tx| tx.get_solution(a, s1.id)).unwrap().unwrap();
    assert_eq!(read, s1);
    assert_eq!(read.unserved[0].reason, "CAPACITY");
    assert_eq!(store.read(|tx| tx.get_solution(b, s1.id)).unwrap(), None);
    assert_eq!(store.read(|tx| tx.get_plan(b, p1.id)).unwrap(), None);

    // Updating a plan moves it to the front of the list; pages follow each other.
    let mut p1u = p1.clone();
    p1u.active_solution_id = Some(s1.id);
    p1u.updated = at(20);
    assert!(store.transaction(|tx| tx.update_plan(a, &p1u)).unwrap());
    assert!(!store.transaction(|tx| tx.update_plan(b, &p1u)).unwrap());
    let first = store.read(|tx| tx.list_plans(a, &page(1))).unwrap();
    assert_eq!(first.items, vec![p1u.clone()]);
    let second = store
        .read(|tx| {
            tx.list_plans(
                a,
                &PageRequest {
                    after: first.next,
                    ..page(1)
                },
            )
        })
        .unwrap();
    assert_eq!(second.items, vec![p2.clone()]);
    assert_eq!(second.next, None);
    assert!(store
        .read(|tx| tx.list_plans(b, &page(10)))
        .unwrap()
        .items
        .is_empty());

    // The queue: claims in creation order, counts per depot and queue, leases expire.
    store
        .transaction(|tx| {
            tx.insert_optimisation(&job("job-1", a, p1.id, 30))?;
            tx.insert_optimisation(&job("job-2", a, p2.id, 31))
        })
        .unwrap();
    assert_eq!(
        store
            .read(|tx| tx.count_active_optimisations(a, Queue::Standard))
            .unwrap(),
        2
    );
    assert_eq!(
        store
            .read(|tx| tx.count_active_optimisations(a, Queue::Long))
            .unwrap(),
        0
    );
    let stored = store
        .read(|tx| tx.get_optimisation(a, "job-1"))
        .unwrap()
        .unwrap();
    assert_eq!(stored, job("job-1", a, p1.id, 30));
    assert_eq!(
        store.read(|tx| tx.get_optimisation(b, "job-1")).unwrap(),
        None
    );
    let claimed = store
        .transaction(|tx| tx.claim_optimisation(at(40), at(100)))
        .unwrap()
        .unwrap();
    assert_eq!((claimed.id.as_str(), claimed.attempts), ("job-1", 1));
    assert_eq!(claimed.state, JobState::Running);
    assert!(store
        .read(|tx| tx.expired_optimisations(at(99)))
        .unwrap()
        .is_empty());
    assert!(store
        .transaction(|tx| tx.renew_optimisation_lease("job-1", at(200)))
        .unwrap());
    let expired = store.read(|tx| tx.expired_optimisations(at(201))).unwrap();
    assert_eq!(expired.len(), 1);
    assert_eq!(expired[0].id, "job-1");
    let mut done = claimed.clone();
    done.state = JobState::Succeeded;
    done.solution_id = Some(s1.id);
    done.lease_until = None;
    store
        .transaction(|tx| tx.update_optimisation(&done))
        .unwrap();
    assert!(!store
        .transaction(|tx| tx.renew_optimisation_lease("job-1", at(300)))
        .unwrap());
    assert_eq!(
        store
            .read(|tx| tx.latest_optimisation_of_plan(a, p1.id))
            .unwrap()
            .map(|j| j.solution_id),
        Some(Some(s1.id))
    );
    let next = store
        .transaction(|tx| tx.claim_optimisation(at(50), at(60)))
        .unwrap()
        .unwrap();
    assert_eq!(next.id, "job-2");
    assert_eq!(
        store
            .transaction(|tx| tx.claim_optimisation(at(50), at(60)))
            .unwrap(),
        None
    );

    // Solved problems: by job, newest per plan, scoped, the depot keeps only the newest few.
    store
        .transaction(|tx| {
            tx.store_problem(&job("job-1", a, p1.id, 30), "{\"n\":1}", at(41))?;
            tx.store_problem(&job("job-2", a, p1.id, 31), "{\"n\":2}", at(42))
        })
        .unwrap();
    assert_eq!(
        store
            .read(|tx| tx.get_problem(a, "job-1"))
            .unwrap()
            .as_deref(),
        Some("{\"n\":1}")
    );
    assert_eq!(store.read(|tx| tx.get_problem(b, "job-1")).unwrap(), None);
    assert_eq!(
        store
            .read(|tx| tx.latest_problem_of_plan(a, p1.id))
            .unwrap(),
        Some(("job-2".to_owned(), "{\"n\":2}".to_owned()))
    );
    store
        .transaction(|tx| {
            for n in 0..KEPT_PROBLEMS {
                tx.insert_optimisation(&job(&format!("extra-{n}"), a, p2.id, 50))?;
                tx.store_problem(&job(&format!("extra-{n}"), a, p2.id, 50), "{}", at(50))?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
    assert_eq!(store.read(|tx| tx.get_problem(a, "job-1")).unwrap(), None);
    assert_eq!(
        store
            .read(|tx| tx.latest_problem_of_plan(a, p1.id))
            .unwrap(),
        None
    );
    assert!(store
        .read(|tx| tx.get_problem(a, "extra-0"))
        .unwrap()
        .is_some());

    // Orders due on a date, and routes with their stops.
    let (o1, o2) = store
        .transaction(|tx| {
            let o1 = tx.insert_order(a, &order("A1", Some(day())))?;
            let o2 = tx.insert_order(a, &order("A2", Some(day())))?;
            tx.insert_order(a, &order("A3", Date::parse("2026-12-02")))?;
            tx.insert_order(b, &order("B1", Some(day())))?;
            Ok::<_, StoreError>((o1, o2))
        })
        .unwrap();
    assert_eq!(
        store.read(|tx| tx.order_ids_due(a, day())).unwrap(),
        vec![o1, o2]
    );
    let timing = RouteTiming {
        start_time_s: 8 * 3600,
        end_time_s: 9 * 3600,
        total_time_s: 3600,
        travel_time_s: 2400,
        operation_time_s: 600,
        distance_m: 30_000,
        breaks: vec![
            RouteBreak {
                start_s: 8 * 3600 + 1200,
                end_s: 8 * 3600 + 1500,
            },
            RouteBreak {
                start_s: 86_400 + 600,
                end_s: 86_400 + 900,
            },
        ],
    };
    let (route, stops) = store
        .transaction(|tx| {
            let route = tx.insert_route(
                a,
                &NewRoute {
                    plan_id: p1.id,
                    solution_id: s1.id,
                    name: "Van 1".into(),
                    date: day(),
                    vehicle_id: None,
                    timing: timing.clone(),
                },
                at(70),
            )?;
            let stops = tx.replace_stops(
                a,
                route.id,
                &[visit(vec![o2], 30_000), visit(vec![o1, o2], 31_000)],
                at(70),
            )?;
            Ok::<_, StoreError>((route, stops))
        })
        .unwrap();
    assert_eq!(route.timing, timing);
    assert_eq!(
        store.read(|tx| tx.get_route(a, route.id)).unwrap(),
        Some(route.clone())
    );
    assert_eq!(store.read(|tx| tx.get_route(b, route.id)).unwrap(), None);
    let listed = store.read(|tx| tx.list_stops(a, route.id)).unwrap();
    assert_eq!(listed, stops);
    assert_eq!(listed[1].visit.order_ids, vec![o1, o2]);
    assert_eq!(listed[1].sequence, 1);
    assert_eq!(
        store
            .read(|tx| tx.routes_of_order(a, o1))
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect::<Vec<_>>(),
        vec![route.id]
    );
    assert!(store
        .read(|tx| tx.routes_of_order(b, o1))
        .unwrap()
        .is_empty());
    // The same question for a whole list of orders at once, a long one included.
    let unknown = o1.max(o2) + 10_000;
    let many: Vec<i64> = (unknown..unknown + 600).chain([o2, o1]).collect();
    assert_eq!(
        store.read(|tx| tx.orders_with_stops(a, &many)).unwrap(),
        HashSet::from([o1, o2])
    );
    assert!(store
        .read(|tx| tx.orders_with_stops(b, &[o1, o2]))
        .unwrap()
        .is_empty());
    let summaries = store.read(|tx| tx.list_routes(a, &page(10))).unwrap();
    assert_eq!(summaries.items.len(), 1);
    assert_eq!(summaries.items[0].stops, 2);
    // Rewriting the stops replaces them (new ids) and the route keeps its identity.
    let rewritten = store
        .transaction(|tx| tx.replace_stops(a, route.id, &[visit(vec![o1], 40_000)], at(80)))
        .unwrap();
    assert_eq!(rewritten.len(), 1);
    assert!(!stops.iter().any(|s| s.id == rewritten[0].id));
    assert!(store
        .read(|tx| tx.routes_of_order(a, o2))
        .unwrap()
        .is_empty());
    assert_eq!(
        store.read(|tx| tx.orders_with_stops(a, &[o1, o2])).unwrap(),
        HashSet::from([o1])
    );
    let mut dispatched = route.clone();
    dispatched.dispatched = true;
    dispatched.is_locked = true;
    dispatched.started_ts = Some(at(90));
    dispatched.actual_distance_m = Some(31_000);
    // A re-timed route takes its break elsewhere: the update keeps the new breaks.
    dispatched.timing.breaks.truncate(1);
    dispatched.timing.breaks[0].start_s += 300;
    dispatched.updated = at(90);
    assert!(store
        .transaction(|tx| tx.update_route(a, &dispatched))
        .unwrap());
    assert!(!store
        .transaction(|tx| tx.update_route(b, &dispatched))
        .unwrap());
    assert_eq!(
        store.read(|tx| tx.routes_of_plan(a, p1.id)).unwrap(),
        vec![dispatched.clone()]
    );
    assert!(store
        .transaction(|tx| tx.replace_stops(b, route.id, &[], at(91)))
        .is_err());

    // Deleting the plan takes everything of it; the other plan stays.
    assert!(!store.transaction(|tx| tx.delete_plan(b, p1.id)).unwrap());
    assert!(store.transaction(|tx| tx.delete_plan(a, p1.id)).unwrap());
    assert_eq!(store.read(|tx| tx.get_plan(a, p1.id)).unwrap(), None);
    assert_eq!(store.read(|tx| tx.get_route(a, route.id)).unwrap(), None);
    assert!(store
        .read(|tx| tx.list_stops(a, route.id))
        .unwrap()
        .is_empty());
    assert_eq!(store.read(|tx| tx.get_solution(a, s1.id)).unwrap(), None);
    assert_eq!(
        store.read(|tx| tx.get_optimisation(a, "job-1")).unwrap(),
        None
    );
    assert!(store.read(|tx| tx.get_plan(a, p2.id)).unwrap().is_some());
}

/// Runs the scenario on `store` (a fresh, empty store).
pub fn vehicle_deletion_keeps_routes(store: &dyn Store) {
    let (a, _) = two_depots(store);
    let fields = apply_patch(
        &VehiclePatch {
            name: Patch::Value("Van".into()),
            availability: Patch::Value("always".into()),
            start_location: Patch::Value("depot".into()),
            end_location: Patch::Value("depot".into()),
            ..Default::default()
        },
        None,
    )
    .unwrap();
    let route = store
        .transaction(|tx| {
            let vehicle = tx.insert_vehicle(a, &fields, at(1))?;
            let plan = tx.insert_plan(a, &NewPlan { date: day() }, at(1))?;
            let solution = tx.insert_solution(a, plan.id, "j", &[], at(1))?;
            tx.insert_route(
                a,
                &NewRoute {
                    plan_id: plan.id,
                    solution_id: solution.id,
                    name: "Van".into(),
                    date: day(),
                    vehicle_id: Some(vehicle),
                    timing: RouteTiming::default(),
                },
                at(1),
            )
        })
        .unwrap();
    assert!(route.vehicle_id.is_some());
    store
        .transaction(|tx| tx.delete_vehicle(a, route.vehicle_id.unwrap()))
        .unwrap();
    let read = store.read(|tx| tx.get_route(a, route.id)).unwrap().unwrap();
    assert_eq!(read.vehicle_id, None);
}
