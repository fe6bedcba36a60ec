//! Days whose fleet cannot carry every task. The objective counts tasks (by priority), not
//! volume, so on such a day a big delivery that fills a quarter of a van should give way to
//! the five small ones that fit in its place: insertion orders put small tasks first there.
//! Sizes are shares of the fleet's total capacity, so that kilograms and litres weigh alike.

use super::problem::{Load, Problem};

/// Parts per million of the fleet's capacity.
const PPM: i128 = 1_000_000;

/// Each task's size (jobs first, then shipments, as [`super::instance::Instance`] numbers
/// them) when the fleet cannot carry every job: in some dimension the jobs' deliveries, or
/// their pickups, add up to more than all vehicles' capacities together. A delivery rides from
/// the start and a pickup to the end of its route, so neither sum can exceed the fleet's total
/// on a feasible solution. `None` when both fit everywhere (most days; the classic benchmarks).
pub(crate) fn sizes(p: &Problem) -> Option<Vec<Load>> {
    let dims = p.dimensions;
    let fleet: Vec<i128> = (0..dims)
        .map(|d| {
            let caps = p.vehicles.iter();
            caps.map(|v| v.capacity.get(d).copied().unwrap_or(0) as i128)
                .sum()
        })
        .collect();
    let total = |amounts: &mut dyn Iterator<Item = &Vec<Load>>, d: usize| -> i128 {
        amounts
            .map(|a| a.get(d).copied().unwrap_or(0) as i128)
            .sum()
    };
    let scarce = (0..dims).any(|d| {
        total(&mut p.jobs.iter().map(|j| &j.delivery), d) > fleet[d]
            || total(&mut p.jobs.iter().map(|j| &j.pickup), d) > fleet[d]
    });
    if !scarce {
        return None;
    }
    let share = |amounts: &[&Vec<Load>]| -> Load {
        let ppm: i128 = (0..dims)
            .map(|d| {
                let a: i128 = amounts
                    .iter()
                    .map(|a| a.get(d).copied().unwrap_or(0) as i128)
                    .sum();
                a * PPM / fleet[d].max(1)
            })
            .sum();
        ppm.min(Load::MAX as i128) as Load
    };
    let jobs = p.jobs.iter().map(|j| share(&[&j.delivery, &j.pickup]));
    let shipments = p.shipments.iter().map(|s| share(&[&s.amount]));
    Some(jobs.chain(shipments).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::problem::Objective;

    fn day(deliveries: &[Load], capacity: Load) -> Problem {
        let points: Vec<(i64, i64)> = (0..=deliveries.len() as i64).map(|k| (k, 0)).collect();
        Problem {
            name: "scarce".into(),
            matrix: plane(&points),
            jobs: deliveries
                .iter()
                .enumerate()
                .map(|(k, &d)| {
                    let mut j = job(k as u64 + 1, k + 1);
                    j.delivery = vec![d];
                    j
                })
                .collect(),
            shipments: vec![],
            vehicles: vec![vehicle(1, capacity), vehicle(2, capacity)],
            dimensions: 1,
            objective: Objective::Duration,
        }
    }

    #[test]
    fn a_fleet_that_carries_every_delivery_is_not_scarce() {
        assert_eq!(sizes(&day(&[5, 5, 10], 10)), None);
    }

    #[test]
    fn deliveries_beyond_the_fleet_get_sizes_as_shares_of_it() {
        // 21 units for a fleet of 2 x 10: sizes in millionths of 20.
        let sizes = sizes(&day(&[1, 10, 10], 10)).expect("scarce");
        assert_eq!(sizes, vec![50_000, 500_000, 500_000]);
    }
}
