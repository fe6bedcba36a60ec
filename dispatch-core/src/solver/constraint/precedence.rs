//! Pickup before delivery: a shipment's two visits are on one route, its pickup first.
//!
//! The insertion code places a shipment's delivery after its pickup by construction and the
//! moves within a route keep the order or are checked here; moves that cut routes in two ask
//! whether a cut keeps every shipment whole.

use super::{Kind, Violation};
use crate::solver::instance::{Instance, NONE};

/// Whether every shipment with a visit in `run` has both there: a run of visits that can go
/// to another route whole.
pub(crate) fn whole(inst: &Instance, run: &[u32]) -> bool {
    run.iter().all(|&x| {
        let t = &inst.tasks[inst.node_task[x as usize] as usize];
        t.second == NONE || (run.contains(&t.first) && run.contains(&t.second))
    })
}

/// [`whole`] for a route's tail (its visits after a cut) in O(tail): on a route each pickup
/// precedes its delivery, so a tail holds a pickup only with its delivery, and a shipment is
/// cut iff the tail holds more deliveries than pickups.
pub(crate) fn whole_tail(inst: &Instance, tail: &[u32]) -> bool {
    let mut open = 0i64;
    for &x in tail {
        let t = &inst.tasks[inst.node_task[x as usize] as usize];
        if t.second != NONE {
            open += if t.first == x { 1 } else { -1 };
        }
    }
    open == 0
}

/// The deliveries of `nodes` without their pickup before them, as one
/// [`Kind::DeliveryBeforePickup`] counting them, if any.
pub(crate) fn measure(inst: &Instance, nodes: &[u32]) -> Option<Violation> {
    let broken = (0..nodes.len())
        .filter(|&k| before_pickup(inst, nodes, k))
        .count();
    (broken > 0).then_some(Violation {
        kind: Kind::DeliveryBeforePickup,
        amount: broken as i64,
    })
}

/// Whether no delivery of `nodes` comes without its pickup before it: [`measure`] finds
/// nothing, decided at the first such delivery.
pub(crate) fn keeps(inst: &Instance, nodes: &[u32]) -> bool {
    !(0..nodes.len()).any(|k| before_pickup(inst, nodes, k))
}

/// Whether the visit at position `k` of `nodes` is a delivery without its pickup before it.
#[inline]
fn before_pickup(inst: &Instance, nodes: &[u32], k: usize) -> bool {
    let x = nodes[k];
    let t = &inst.tasks[inst.node_task[x as usize] as usize];
    t.second == x && t.second != NONE && !nodes[..k].contains(&t.first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::problem::*;

    /// Job 1 (node 0) and two shipments: pickups at nodes 1 and 3, deliveries at 2 and 4.
    fn day() -> Problem {
        let place = |location| Place {
            location,
            setup: 0,
            service: 0,
            time_windows: vec![],
        };
        let shipment = |id: u64, from, to| Shipment {
            pickup_id: id,
            delivery_id: id + 1,
            pickup: place(from),
            delivery: place(to),
            amount: vec![1],
            skills: Skills::default(),
            priority: 0,
            pinned_vehicle: None,
        };
        Problem {
            name: "pairs".into(),
            matrix: plane(&[(0, 0), (0, 10), (10, 10), (10, 0), (5, 5)]),
            jobs: vec![job(1, 1)],
            shipments: vec![shipment(10, 2, 3), shipment(20, 4, 1)],
            vehicles: vec![vehicle(1, 5)],
            dimensions: 1,
            objective: Objective::Distance,
        }
    }

    #[test]
    fn pickups_before_their_deliveries_break_nothing() {
        let p = day();
        let inst = Instance::new(&p);
        assert_eq!(measure(&inst, &[1, 0, 3, 2, 4]), None);
        assert_eq!(measure(&inst, &[0]), None);
    }

    #[test]
    fn each_delivery_without_its_pickup_before_it_counts_once() {
        let p = day();
        let inst = Instance::new(&p);
        let broken = |amount| {
            Some(Violation {
                kind: Kind::DeliveryBeforePickup,
                amount,
            })
        };
        assert_eq!(measure(&inst, &[2, 1, 3, 4]), broken(1));
        assert_eq!(measure(&inst, &[4, 2, 0]), broken(2));
    }

    #[test]
    fn a_run_is_whole_when_it_holds_both_visits_of_each_shipment_or_neither() {
        let p = day();
        let inst = Instance::new(&p);
        assert!(whole(&inst, &[1, 0, 2]));
        assert!(whole(&inst, &[0]));
        assert!(whole(&inst, &[]));
        assert!(!whole(&inst, &[0, 2]));
        // One shipment's delivery and the other's pickup: both cut.
        assert!(!whole(&inst, &[2, 3]));
    }

    #[test]
    fn a_tail_is_whole_unless_it_holds_a_delivery_whose_pickup_stays_behind() {
        let p = day();
        let inst = Instance::new(&p);
        // The route 1 0 3 2 4: its tails after each cut.
        let route = [1, 0, 3, 2, 4];
        let whole_after: Vec<bool> = (0..=5).map(|i| whole_tail(&inst, &route[i..])).collect();
        assert_eq!(whole_after, vec![true, false, false, false, false, true]);
    }
}
