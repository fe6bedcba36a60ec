//! The pre-check rules out only tasks that no route can serve: on a matrix that breaks the
//! triangle inequality, a task that fails alone may fit once its route passes another visit,
//! and the solver then opens a vehicle for it with that visit.

use crate::solver_engine_common;

use dispatch_core::solver::problem::*;
use dispatch_core::solver::solution::Step;
use solver_engine_common::*;

#[test]
fn a_shipment_late_on_the_direct_arc_is_served_through_a_visit_on_the_way() {
    // Depot 0, pickup at 1, a customer at 2, delivery at 3: from the pickup the delivery is 100
    // away directly but 15 through the customer (10, 5 of service there, then 10).
    #[rustfmt::skip]
    let d = vec![
        0, 10, 20, 50,
        10, 0, 10, 100,
        20, 10, 0, 10,
        50, 100, 10, 0,
    ];
    let m = Matrix::new(4, d.clone(), d).unwrap();
    let mut customer = job(1, 2, 0);
    customer.place.service = 5;
    let mut s = shipment(2, 1, 3, 1);
    s.delivery.time_windows = vec![TimeWindow { start: 0, end: 40 }];
    let fleet = vec![vehicle(1, 0, 10), vehicle(2, 0, 10)];
    let p = problem(m, vec![customer], vec![s], fleet);
    let sol = solve_checked(&p, 1, 1, 50);
    assert!(sol.unassigned.is_empty(), "{:?}", sol.unassigned);
    let (_, steps) = &routes(&sol)[0];
    assert_eq!(
        steps,
        &vec![Step::Pickup(0), Step::Job(0), Step::Delivery(0)]
    );
}
