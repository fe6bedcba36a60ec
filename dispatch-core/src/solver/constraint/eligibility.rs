//! Eligibility: a task goes only on a vehicle that has every skill it needs and, when it is
//! pinned, on that vehicle alone.
//!
//! The pre-check asks [`serves`] once per task and vehicle and records, in
//! [`Instance::allowed`], the vehicles that serve the task and fit it alone; the search asks
//! that table ([`Instance::is_allowed`], [`allowed`] for a whole sequence) before it moves a
//! task to another vehicle. It is never priced: a search only ever tries allowed vehicles.

use crate::solver::instance::Instance;
use crate::solver::problem::{Skills, Vehicle};

/// Whether vehicle `v` (index `index`) may serve a task needing `skills`, pinned to `pinned`.
pub(crate) fn serves(index: usize, v: &Vehicle, skills: &Skills, pinned: Option<usize>) -> bool {
    pinned.is_none_or(|p| p == index) && skills.is_subset_of(&v.skills)
}

/// Whether every task of `nodes` may go on vehicle `v`.
pub(crate) fn allowed(inst: &Instance, v: usize, nodes: &[u32]) -> bool {
    nodes
        .iter()
        .all(|&x| inst.is_allowed(inst.node_task[x as usize] as usize, v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::precheck::precheck;
    use crate::solver::problem::*;

    #[test]
    fn a_vehicle_serves_a_task_when_it_has_every_skill_the_task_needs() {
        let mut v = vehicle(1, 5);
        v.skills = Skills::from_indices([1, 3]);
        assert!(serves(0, &v, &Skills::default(), None));
        assert!(serves(0, &v, &Skills::from_indices([3]), None));
        assert!(!serves(0, &v, &Skills::from_indices([2, 3]), None));
    }

    #[test]
    fn a_pinned_task_is_served_by_its_vehicle_only() {
        let v = vehicle(1, 5);
        assert!(serves(2, &v, &Skills::default(), Some(2)));
        assert!(!serves(1, &v, &Skills::default(), Some(2)));
    }

    #[test]
    fn a_sequence_is_allowed_when_each_of_its_tasks_is() {
        let mut skilled = job(2, 2);
        skilled.skills = Skills::from_indices([4]);
        let mut other = vehicle(2, 5);
        other.skills = Skills::from_indices([4]);
        let p = Problem {
            name: "skills".into(),
            matrix: plane(&[(0, 0), (0, 10), (10, 0)]),
            jobs: vec![job(1, 1), skilled],
            shipments: vec![],
            vehicles: vec![vehicle(1, 5), other],
            dimensions: 1,
            objective: Objective::Distance,
        };
        let mut inst = Instance::new(&p);
        precheck(&p, &mut inst);
        assert!(allowed(&inst, 0, &[0]) && allowed(&inst, 1, &[0, 1]));
        assert!(!allowed(&inst, 0, &[0, 1]));
        assert!(allowed(&inst, 0, &[]));
    }
}
