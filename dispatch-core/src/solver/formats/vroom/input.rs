//! The JSON shape of a VROOM-style problem, and its optional travel matrices.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use super::keys::{CostsIn, Refused};
use super::{invalid, time};
use crate::solver::formats::FormatError;
use crate::solver::problem::Matrix;

#[derive(Deserialize)]
pub(super) struct Input {
    #[serde(default)]
    pub(super) jobs: Vec<JobIn>,
    #[serde(default)]
    pub(super) shipments: Vec<ShipmentIn>,
    pub(super) vehicles: Vec<VehicleIn>,
    pub(super) matrices: Option<BTreeMap<String, MatrixIn>>,
    pub(super) matrix: Option<Vec<Vec<u64>>>,
}

#[derive(Deserialize)]
pub(super) struct MatrixIn {
    pub(super) durations: Option<Vec<Vec<u64>>>,
    pub(super) distances: Option<Vec<Vec<u64>>>,
    pub(super) costs: Refused,
}

#[derive(Deserialize)]
pub(super) struct JobIn {
    pub(super) id: u64,
    pub(super) description: Option<String>,
    pub(super) location: Option<[f64; 2]>,
    pub(super) location_index: Option<usize>,
    #[serde(default)]
    pub(super) setup: u64,
    #[serde(default)]
    pub(super) service: u64,
    pub(super) delivery: Option<Vec<u64>>,
    pub(super) pickup: Option<Vec<u64>>,
    pub(super) amount: Option<Vec<u64>>,
    #[serde(default)]
    pub(super) skills: Vec<u32>,
    #[serde(default)]
    pub(super) priority: u32,
    #[serde(default)]
    pub(super) time_windows: Vec<[u64; 2]>,
    pub(super) setup_per_type: Refused,
    pub(super) service_per_type: Refused,
}

#[derive(Deserialize)]
pub(super) struct StopIn {
    pub(super) id: u64,
    pub(super) description: Option<String>,
    pub(super) location: Option<[f64; 2]>,
    pub(super) location_index: Option<usize>,
    #[serde(default)]
    pub(super) setup: u64,
    #[serde(default)]
    pub(super) service: u64,
    #[serde(default)]
    pub(super) time_windows: Vec<[u64; 2]>,
}

#[derive(Deserialize)]
pub(super) struct ShipmentIn {
    pub(super) pickup: StopIn,
    pub(super) delivery: StopIn,
    pub(super) amount: Option<Vec<u64>>,
    #[serde(default)]
    pub(super) skills: Vec<u32>,
    #[serde(default)]
    pub(super) priority: u32,
}

#[derive(Deserialize)]
pub(super) struct BreakIn {
    pub(super) id: u64,
    #[serde(default)]
    pub(super) time_windows: Vec<[u64; 2]>,
    #[serde(default)]
    pub(super) service: u64,
    pub(super) max_load: Refused,
}

#[derive(Deserialize)]
pub(super) struct VehicleIn {
    pub(super) id: u64,
    pub(super) description: Option<String>,
    pub(super) profile: Option<String>,
    pub(super) start: Option<[f64; 2]>,
    pub(super) start_index: Option<usize>,
    pub(super) end: Option<[f64; 2]>,
    pub(super) end_index: Option<usize>,
    pub(super) capacity: Option<Vec<u64>>,
    #[serde(default)]
    pub(super) skills: Vec<u32>,
    pub(super) time_window: Option<[u64; 2]>,
    #[serde(default)]
    pub(super) breaks: Vec<BreakIn>,
    pub(super) max_tasks: Option<usize>,
    pub(super) max_travel_time: Option<u64>,
    pub(super) costs: Option<CostsIn>,
    pub(super) speed_factor: Option<f64>,
    pub(super) max_distance: Refused,
    pub(super) steps: Refused,
    #[serde(rename = "type")]
    pub(super) vehicle_type: Refused,
}

fn square(path: &str, rows: Vec<Vec<u64>>) -> Result<(usize, Vec<i64>), FormatError> {
    let n = rows.len();
    let mut flat = Vec::with_capacity(n * n);
    for (i, row) in rows.into_iter().enumerate() {
        if row.len() != n {
            return Err(invalid(
                format!("{path}[{i}]"),
                format!("has {} values, the matrix has {n} rows", row.len()),
            ));
        }
        for v in row {
            flat.push(time(&format!("{path}[{i}]"), v)?);
        }
    }
    Ok((n, flat))
}

/// The given matrix, if any, for the vehicles' profile.
pub(super) fn given_matrix(input: &mut Input) -> Result<Option<Matrix>, FormatError> {
    let profiles: BTreeSet<&str> = input
        .vehicles
        .iter()
        .map(|v| v.profile.as_deref().unwrap_or("car"))
        .collect();
    let (durations, distances, path) = if let Some(mut matrices) = input.matrices.take() {
        if profiles.len() > 1 {
            return Err(invalid(
                "vehicles",
                "vehicles of different profiles are not supported",
            ));
        }
        let profile = profiles.into_iter().next().unwrap_or("car").to_owned();
        let m = matrices.remove(&profile).ok_or_else(|| {
            invalid(
                "matrices",
                format!("no matrix for the vehicles' profile `{profile}`"),
            )
        })?;
        let durations = m.durations.ok_or_else(|| {
            invalid(
                format!("matrices.{profile}.durations"),
                "a durations matrix is required",
            )
        })?;
        (durations, m.distances, format!("matrices.{profile}"))
    } else if let Some(durations) = input.matrix.take() {
        (durations, None, "matrix".to_owned())
    } else {
        return Ok(None);
    };
    let (n, durations) = square(&format!("{path}.durations"), durations)?;
    let matrix = match distances {
        Some(d) => {
            let (m, d) = square(&format!("{path}.distances"), d)?;
            if m != n {
                return Err(invalid(
                    format!("{path}.distances"),
                    "differs in size from durations",
                ));
            }
            Matrix::new(n, durations, d)
        }
        None => Matrix::from_durations(n, durations),
    };
    Ok(Some(matrix.expect("square and non-negative")))
}
