//! Warm start: a given solution (routes as visit sequences) becomes the search's first
//! incumbent. A malformed start is refused with a [`StartError`]; a well-formed one whose routes
//! break a constraint is repaired by taking tasks out of the broken routes (kept in their order,
//! earliest first, as long as the route stays feasible) and reinserting them like the
//! construction does. The search only ever replaces its incumbent by a better one, so the
//! answer is never worse than the (repaired) start.

use super::constraint::feasible;
use super::instance::Instance;
use super::solution::Step;
use super::state::State;

/// One route of a starting solution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartRoute {
    /// Index into `Problem::vehicles`.
    pub vehicle: usize,
    /// The visits in order. Breaks are placed by the solver: [`Step::Break`] entries are ignored.
    pub steps: Vec<Step>,
}

/// Why a starting solution cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// A route names a vehicle the problem does not have.
    #[error("start route {route}: vehicle {vehicle} does not exist")]
    UnknownVehicle {
        /// Position of the route in the start.
        route: usize,
        /// The vehicle index given.
        vehicle: usize,
    },
    /// Two routes name the same vehicle.
    #[error("vehicle {vehicle} has more than one start route")]
    VehicleTwice {
        /// The vehicle index given twice.
        vehicle: usize,
    },
    /// A step names a job or shipment the problem does not have.
    #[error("start route {route}: {step:?} does not exist")]
    UnknownStep {
        /// Position of the route in the start.
        route: usize,
        /// The step given.
        step: Step,
    },
    /// A visit appears more than once in the start.
    #[error("{step:?} appears more than once in the start")]
    Repeated {
        /// The repeated step.
        step: Step,
    },
    /// A shipment's pickup and delivery are not on one route with the pickup first.
    #[error("shipment {shipment}: pickup and delivery must be on one route, the pickup first")]
    SplitShipment {
        /// Index into `Problem::shipments`.
        shipment: usize,
    },
}

/// Visit sequences per vehicle (search nodes), validated.
pub(crate) type Plan = Vec<(usize, Vec<u32>)>;

/// Checks the start's structure and turns steps into nodes.
pub(crate) fn validate(inst: &Instance, start: &[StartRoute]) -> Result<Plan, StartError> {
    let nv = inst.vehicles.len();
    let n_ship = inst.tasks.len() - inst.n_jobs;
    let mut vehicle_seen = vec![false; nv];
    // The start route holding each node so far (`usize::MAX`: none).
    let mut node_route = vec![usize::MAX; inst.loc.len()];
    let mut plan = Vec::with_capacity(start.len());
    for (route, sr) in start.iter().enumerate() {
        let vehicle = sr.vehicle;
        if vehicle >= nv {
            return Err(StartError::UnknownVehicle { route, vehicle });
        }
        if std::mem::replace(&mut vehicle_seen[vehicle], true) {
            return Err(StartError::VehicleTwice { vehicle });
        }
        let mut nodes = Vec::with_capacity(sr.steps.len());
        for &step in &sr.steps {
            let node = match step {
                Step::Break(_) => continue,
                Step::Job(i) if i < inst.n_jobs => inst.tasks[i].first,
                Step::Pickup(i) if i < n_ship => inst.tasks[inst.n_jobs + i].first,
                Step::Delivery(i) if i < n_ship => inst.tasks[inst.n_jobs + i].second,
                _ => return Err(StartError::UnknownStep { route, step }),
            };
            if std::mem::replace(&mut node_route[node as usize], route) != usize::MAX {
                return Err(StartError::Repeated { step });
            }
            if let Step::Delivery(shipment) = step {
                let pickup = inst.tasks[inst.n_jobs + shipment].first;
                if node_route[pickup as usize] != route {
                    return Err(StartError::SplitShipment { shipment });
                }
            }
            nodes.push(node);
        }
        plan.push((vehicle, nodes));
    }
    for shipment in 0..n_ship {
        let t = &inst.tasks[inst.n_jobs + shipment];
        if node_route[t.first as usize] != node_route[t.second as usize] {
            return Err(StartError::SplitShipment { shipment });
        }
    }
    Ok(plan)
}

/// The state with the plan's routes (repaired) and every other task of `tasks` left out, and
/// the tasks the start had on a route that could not keep them (not servable at all, not
/// allowed on that vehicle, or making the route infeasible).
pub(crate) fn initial(inst: &Instance, tasks: &[u32], plan: &Plan) -> (State, Vec<u32>) {
    let mut s = State::empty(inst, tasks);
    let mut servable = vec![false; inst.tasks.len()];
    for &t in tasks {
        servable[t as usize] = true;
    }
    let mut keep = vec![false; inst.tasks.len()];
    let mut displaced = Vec::new();
    for (v, nodes) in plan {
        let v = *v;
        let task_of = |x: u32| inst.node_task[x as usize] as usize;
        let firsts = nodes
            .iter()
            .copied()
            .filter(|&x| inst.tasks[task_of(x)].first == x);
        let on = |keep: &[bool]| -> Vec<u32> {
            nodes
                .iter()
                .copied()
                .filter(|&x| keep[task_of(x)])
                .collect()
        };
        for x in firsts.clone() {
            let t = task_of(x);
            keep[t] = servable[t] && inst.is_allowed(t, v);
        }
        if !feasible(inst, v, &on(&keep)) {
            // Keep tasks in the order of their first visit while the route stays feasible.
            for x in firsts.clone() {
                keep[task_of(x)] = false;
            }
            for x in firsts.clone() {
                let t = task_of(x);
                if servable[t] && inst.is_allowed(t, v) {
                    keep[t] = true;
                    keep[t] = feasible(inst, v, &on(&keep));
                }
            }
        }
        displaced.extend(firsts.map(task_of).filter(|&t| !keep[t]).map(|t| t as u32));
        let kept = on(&keep);
        if kept.is_empty() {
            continue;
        }
        for &x in &kept {
            s.set_route(task_of(x), v as u32);
        }
        s.route_mut(v).nodes = kept;
        s.refresh(inst, v);
    }
    let mut left = s.take_unassigned(inst);
    left.retain(|&t| !keep[t as usize]);
    for t in left {
        s.leave_out(inst, t as usize);
    }
    (s, displaced)
}
