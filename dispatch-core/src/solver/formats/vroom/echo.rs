//! What a VROOM answer repeats of its problem beyond the solver's model: coordinates, the
//! indices the user gave, descriptions, and what decides the reported cost and distances.

/// A place as the problem gave it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stop {
    /// `[lon, lat]`, when given.
    pub location: Option<[f64; 2]>,
    /// The matrix index, when given as `location_index` (or `start_index` / `end_index`).
    pub location_index: Option<usize>,
    /// The `description`, when given.
    pub description: Option<String>,
}

/// A vehicle's places and description as the problem gave them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VehicleEcho {
    /// Its start (empty for open starts).
    pub start: Stop,
    /// Its end (empty for open ends).
    pub end: Stop,
    /// The `description`, when given.
    pub description: Option<String>,
}

/// The echo of a VROOM-style problem, indexed like the [`crate::solver::problem::Problem`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Echo {
    /// Per job.
    pub jobs: Vec<Stop>,
    /// Per shipment, its pickup.
    pub pickups: Vec<Stop>,
    /// Per shipment, its delivery.
    pub deliveries: Vec<Stop>,
    /// Per vehicle.
    pub vehicles: Vec<VehicleEcho>,
    /// Whether the problem's matrix has distances of its own (VROOM then reports distances).
    pub distances: bool,
    /// VROOM's `costs.per_hour` (the same for every vehicle; 3600 by default): a route costs
    /// its travel time times `per_hour / 3600`.
    pub per_hour: u64,
}
