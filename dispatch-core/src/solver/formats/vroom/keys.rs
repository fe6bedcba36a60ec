//! VROOM keys beyond the operator interface's subset that change the answer: honoured where the
//! reader can express them in the problem, refused by name otherwise, never ignored.
//!
//! - `vehicles[].speed_factor`: the same factor for every vehicle divides all travel times (as
//!   VROOM does, rounded to whole units); different factors per vehicle are refused, the
//!   problem has one travel-time matrix.
//! - `vehicles[].costs`: `per_hour` alone (the same for every vehicle) scales every route's cost
//!   alike and leaves the answer unchanged; a `fixed` or `per_km` cost, or costs that differ
//!   between vehicles, are refused.
//! - `vehicles[].max_distance`, `vehicles[].steps`, `vehicles[].type`, `breaks[].max_load`,
//!   `jobs[].setup_per_type` / `service_per_type` and `matrices.<profile>.costs` are refused.

use serde::Deserialize;
use serde_json::Value;

use super::input::Input;
use super::invalid;
use crate::solver::formats::FormatError;
use crate::solver::problem::Matrix;

/// VROOM's vehicle `costs` object.
#[derive(Deserialize, Clone, Copy, PartialEq, Debug)]
pub(super) struct CostsIn {
    #[serde(default)]
    fixed: u64,
    #[serde(default = "default_per_hour")]
    per_hour: u64,
    #[serde(default)]
    per_km: u64,
}

fn default_per_hour() -> u64 {
    3600
}

/// VROOM's bound on `speed_factor`.
const MAX_SPEED_FACTOR: f64 = 5.0;

fn refuse(path: String, what: &str) -> FormatError {
    invalid(
        path,
        format!("is not supported: {what}; remove the key to solve without it"),
    )
}

/// Checks the keys above and returns the travel-time factor to apply (1 when absent).
pub(super) fn check(input: &Input) -> Result<f64, FormatError> {
    for (i, v) in input.vehicles.iter().enumerate() {
        let p = format!("vehicles[{i}]");
        if v.max_distance.is_some() {
            return Err(refuse(
                format!("{p}.max_distance"),
                "the solver has no distance limit per vehicle",
            ));
        }
        if v.steps.is_some() {
            return Err(refuse(
                format!("{p}.steps"),
                "routes are always searched from scratch",
            ));
        }
        if v.vehicle_type.is_some() {
            return Err(refuse(
                format!("{p}.type"),
                "per-type setup and service times",
            ));
        }
        for (k, b) in v.breaks.iter().enumerate() {
            if b.max_load.is_some() {
                return Err(refuse(
                    format!("{p}.breaks[{k}].max_load"),
                    "a load limit for taking a break",
                ));
            }
        }
        if let Some(c) = v.costs {
            if c.fixed != 0 {
                return Err(refuse(
                    format!("{p}.costs.fixed"),
                    "a fixed cost per used vehicle",
                ));
            }
            if c.per_km != 0 {
                return Err(refuse(
                    format!("{p}.costs.per_km"),
                    "a cost per distance travelled",
                ));
            }
        }
        let first = &input.vehicles[0];
        let per_hour = |c: Option<CostsIn>| c.map_or(default_per_hour(), |c| c.per_hour);
        if per_hour(v.costs) != per_hour(first.costs) {
            return Err(refuse(
                format!("{p}.costs.per_hour"),
                "costs that differ between vehicles",
            ));
        }
        if let Some(f) = v.speed_factor {
            if !(f > 0.0 && f <= MAX_SPEED_FACTOR) {
                return Err(invalid(
                    format!("{p}.speed_factor"),
                    format!("{f} is outside (0, {MAX_SPEED_FACTOR}]"),
                ));
            }
        }
        if v.speed_factor.unwrap_or(1.0) != first.speed_factor.unwrap_or(1.0) {
            return Err(refuse(
                format!("{p}.speed_factor"),
                "speed factors that differ between vehicles",
            ));
        }
    }
    for (i, j) in input.jobs.iter().enumerate() {
        for (key, value) in [
            ("setup_per_type", &j.setup_per_type),
            ("service_per_type", &j.service_per_type),
        ] {
            if value.is_some() {
                return Err(refuse(
                    format!("jobs[{i}].{key}"),
                    "per-type setup and service times",
                ));
            }
        }
    }
    if let Some(m) = &input.matrices {
        if let Some((profile, _)) = m.iter().find(|(_, m)| m.costs.is_some()) {
            return Err(refuse(
                format!("matrices.{profile}.costs"),
                "a cost matrix apart from travel times",
            ));
        }
    }
    Ok(input
        .vehicles
        .first()
        .and_then(|v| v.speed_factor)
        .unwrap_or(1.0))
}

/// VROOM's cost per hour of travel, the same for every vehicle once [`check`] passed.
pub(super) fn per_hour(input: &Input) -> u64 {
    input
        .vehicles
        .first()
        .and_then(|v| v.costs)
        .map_or(default_per_hour(), |c| c.per_hour)
}

/// `matrix` with every travel time divided by `factor` (rounded), and the distances too when
/// they stand in for travel times.
pub(super) fn scale(matrix: Matrix, factor: f64, distances_too: bool) -> Matrix {
    if factor == 1.0 {
        return matrix;
    }
    let n = matrix.size();
    let scaled = |v: i64| (v as f64 / factor).round() as i64;
    let cells = || (0..n).flat_map(|i| (0..n).map(move |j| (i, j)));
    let durations = cells()
        .map(|(i, j)| scaled(matrix.duration(i, j)))
        .collect();
    let distances = cells()
        .map(|(i, j)| {
            let d = matrix.distance(i, j);
            if distances_too {
                scaled(d)
            } else {
                d
            }
        })
        .collect();
    Matrix::new(n, durations, distances).expect("scaling keeps the size and the sign")
}

/// Keys only refused: their value is kept as raw JSON.
pub(super) type Refused = Option<Value>;
