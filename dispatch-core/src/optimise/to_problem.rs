//! Orders, vehicles and settings to a solver [`Problem`], with the reason each order left out
//! before solving is left out.

use std::collections::HashMap;

use super::exclusions::{day_exclusion, missing_location};
use super::orders::{vehicle_skill, Resolver};
use super::{vehicles, BuiltDay, DayRequest, OptimiseError, LOAD_SCALE};
use crate::model::location::Coordinates;
use crate::model::order::Order;
use crate::ports::matrix::{Point, TravelMatrix};
use crate::solver::problem::{Load, LocationIndex, Objective, Problem, Skills};

/// The load standing for "no limit": far above any real amount, far below overflow.
pub(crate) const UNLIMITED_LOAD: Load = 1 << 40;

/// An amount an order needs, in load units, rounded up (never under-counted).
pub(crate) fn demand_load(amount: f64) -> Load {
    if !amount.is_finite() || amount <= 0.0 {
        return 0;
    }
    // The small tolerance keeps 0.1 * 1000 = 100.000...01 at 100.
    ((amount * LOAD_SCALE - 1e-6).ceil() as Load).clamp(0, UNLIMITED_LOAD)
}

/// An amount a vehicle holds, in load units, rounded down (never over-counted).
pub(crate) fn capacity_load(amount: f64) -> Load {
    if !amount.is_finite() || amount <= 0.0 {
        return 0;
    }
    ((amount * LOAD_SCALE + 1e-6).floor() as Load).clamp(0, UNLIMITED_LOAD)
}

/// The matrix locations: the depot first (when it has coordinates), then every distinct point.
#[derive(Debug, Default)]
pub(crate) struct Locations {
    coords: Vec<Coordinates>,
    by_key: HashMap<(u64, u64), LocationIndex>,
    depot: Option<LocationIndex>,
}

impl Locations {
    pub(crate) fn new(depot: Option<Coordinates>) -> Locations {
        let mut locs = Locations::default();
        locs.depot = depot.map(|c| locs.add(c));
        locs
    }

    pub(crate) fn depot(&self) -> Option<LocationIndex> {
        self.depot
    }

    pub(crate) fn add(&mut self, c: Coordinates) -> LocationIndex {
        let next = self.coords.len();
        let i = *self
            .by_key
            .entry((c.lat.to_bits(), c.lng.to_bits()))
            .or_insert(next);
        if i == next {
            self.coords.push(c);
        }
        i
    }

    fn points(&self) -> Vec<Point> {
        self.coords
            .iter()
            .map(|c| Point::new(c.lng, c.lat))
            .collect()
    }
}

/// Skill names (case-sensitive) to bit indices.
#[derive(Debug, Default)]
pub(crate) struct SkillIndex(HashMap<String, usize>);

impl SkillIndex {
    pub(crate) fn index(&mut self, name: &str) -> usize {
        let next = self.0.len();
        *self.0.entry(name.to_owned()).or_insert(next)
    }

    /// The names by index.
    fn names(&self) -> Vec<String> {
        let mut names = vec![String::new(); self.0.len()];
        for (name, &i) in &self.0 {
            names[i] = name.clone();
        }
        names
    }
}

/// Which orders are checked against the day before building.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Checks {
    /// Planning a day: every rule of [`super::exclusions::day_exclusion`].
    Day,
    /// Timing a given route: only orders that cannot be located are left out.
    LocationOnly,
}

/// Builds the solver problem of a day: the request's vehicles working that date, its orders as
/// tasks, and the travel matrix over every location used. Orders that cannot be planned on the
/// day are listed in [`BuiltDay::excluded`] with their reason.
pub fn build_day(req: &DayRequest, matrix: &dyn TravelMatrix) -> Result<BuiltDay, OptimiseError> {
    build(req, matrix, Checks::Day)
}

pub(crate) fn build(
    req: &DayRequest,
    matrix: &dyn TravelMatrix,
    checks: Checks,
) -> Result<BuiltDay, OptimiseError> {
    let depot = req
        .depot
        .lat
        .zip(req.depot.lng)
        .and_then(|(lat, lng)| Coordinates::new(lat, lng));
    let mut locs = Locations::new(depot);
    let mut skills = SkillIndex::default();
    let vehicles::Fleet {
        vehicles,
        ids: vehicle_ids,
        shifts_over,
    } = vehicles::build(req, &mut locs, &mut skills)?;
    let vehicle_index: HashMap<i64, usize> = vehicle_ids
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i))
        .collect();

    let mut excluded = Vec::new();
    let mut eligible: Vec<(usize, &Order)> = Vec::with_capacity(req.orders.len());
    for (rank, order) in req.orders.iter().enumerate() {
        let left_out = match checks {
            Checks::Day => day_exclusion(req, order, &vehicle_index, &shifts_over),
            Checks::LocationOnly => missing_location(order),
        };
        match left_out {
            Some(u) => excluded.push(u),
            None => eligible.push((rank, order)),
        }
    }
    let mut resolver = Resolver {
        customers: req.customers.iter().map(|c| (c.id, c)).collect(),
        capacity_types: req.capacity_types.iter().map(|t| t.id).collect(),
        vehicle_index: &vehicle_index,
        locs: &mut locs,
        skills: &mut skills,
    };
    let tasks = resolver.tasks(&eligible);
    let mut vehicles = vehicles;
    let pinned_targets = tasks
        .jobs
        .iter()
        .filter_map(|j| j.pinned_vehicle)
        .chain(tasks.shipments.iter().filter_map(|s| s.pinned_vehicle));
    for v in pinned_targets {
        let own = skills.index(&vehicle_skill(v));
        let have = &vehicles[v].skills;
        vehicles[v].skills = Skills::from_indices(have.indices().chain([own]));
    }
    excluded.extend(tasks.excluded);
    let rank_of: HashMap<i64, usize> = req
        .orders
        .iter()
        .enumerate()
        .map(|(i, o)| (o.id, i))
        .collect();
    excluded.sort_by_key(|u| rank_of.get(&u.order_id).copied());

    let (matrix, travel) = matrix.sourced_matrix(&locs.points())?;
    let mut ranks = tasks.job_ranks;
    ranks.extend(tasks.shipment_ranks);
    Ok(BuiltDay {
        problem: Problem {
            name: format!("depot {} {}", req.depot.id, req.date),
            matrix,
            jobs: tasks.jobs,
            shipments: tasks.shipments,
            vehicles,
            dimensions: req.capacity_types.len(),
            objective: Objective::Duration,
        },
        date: req.date,
        job_visits: tasks.job_visits,
        shipment_orders: tasks.shipment_orders,
        vehicle_ids,
        locations: locs.coords,
        ranks,
        order_rank: rank_of,
        skill_names: skills.names(),
        capacity_names: req.capacity_types.iter().map(|t| t.name.clone()).collect(),
        excluded,
        shifts_over,
        not_before: req.not_before,
        maintain_upload_sequence: req.maintain_upload_sequence,
        travel,
    })
}
