//! A running job's best solution as a checkpoint: routes written by the order book's ids
//! (vehicle ids, order ids with the side visited), not by the solver's indices, so a job
//! resumed on another node — whose problem may list orders in another order, or lack an order
//! deleted meanwhile — starts from the same routes, minus what no longer exists.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::BuiltDay;
use crate::model::order::Side;
use crate::solver::solution::{Solution, Step};
use crate::solver::StartRoute;

/// One visit: the first order of the solver task and which end of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Key {
    order: i64,
    pickup: bool,
}

#[derive(Debug, Serialize, Deserialize)]
struct SavedRoute {
    vehicle: i64,
    visits: Vec<Key>,
}

fn job_key(built: &BuiltDay, job: usize) -> Option<Key> {
    built.job_visits.get(job)?.first().map(|v| Key {
        order: v.order_id,
        pickup: v.side == Side::Pickup,
    })
}

fn step_key(built: &BuiltDay, step: Step) -> Option<Key> {
    match step {
        Step::Job(j) => job_key(built, j),
        Step::Pickup(s) => built.shipment_orders.get(s).map(|&order| Key {
            order,
            pickup: true,
        }),
        Step::Delivery(s) => built.shipment_orders.get(s).map(|&order| Key {
            order,
            pickup: false,
        }),
        Step::Break(_) => None,
    }
}

/// The solution's routes as checkpoint text.
pub fn encode(built: &BuiltDay, solution: &Solution) -> String {
    let routes: Vec<SavedRoute> = solution
        .routes
        .iter()
        .filter_map(|r| {
            Some(SavedRoute {
                vehicle: *built.vehicle_ids.get(r.vehicle)?,
                visits: r
                    .steps
                    .iter()
                    .filter_map(|s| step_key(built, s.step))
                    .collect(),
            })
        })
        .collect();
    serde_json::to_string(&routes).unwrap_or_else(|_| "[]".to_owned())
}

/// The checkpoint's routes on `built`'s indices: vehicles and visits that no longer exist are
/// left out (a shipment keeps its pickup only with its delivery). `None` when the text is not
/// a checkpoint.
pub fn decode(built: &BuiltDay, text: &str) -> Option<Vec<StartRoute>> {
    let saved: Vec<SavedRoute> = serde_json::from_str(text).ok()?;
    let vehicles: HashMap<i64, usize> = built
        .vehicle_ids
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i))
        .collect();
    let mut steps: HashMap<Key, Step> = HashMap::new();
    for j in 0..built.job_visits.len() {
        if let Some(key) = job_key(built, j) {
            steps.insert(key, Step::Job(j));
        }
    }
    for (s, &order) in built.shipment_orders.iter().enumerate() {
        steps.insert(
            Key {
                order,
                pickup: true,
            },
            Step::Pickup(s),
        );
        steps.insert(
            Key {
                order,
                pickup: false,
            },
            Step::Delivery(s),
        );
    }
    let mut used = std::collections::HashSet::new();
    let routes = saved
        .into_iter()
        .filter_map(|r| {
            let vehicle = *vehicles.get(&r.vehicle)?;
            if !used.insert(vehicle) {
                return None;
            }
            let found: Vec<Step> = r
                .visits
                .iter()
                .filter_map(|k| steps.get(k))
                .copied()
                .collect();
            let complete =
                |s: usize| found.contains(&Step::Pickup(s)) && found.contains(&Step::Delivery(s));
            let steps = found
                .iter()
                .copied()
                .filter(|step| match *step {
                    Step::Pickup(s) | Step::Delivery(s) => complete(s),
                    _ => true,
                })
                .collect();
            Some(StartRoute { vehicle, steps })
        })
        .collect();
    Some(routes)
}
