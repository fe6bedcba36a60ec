//! VROOM-style JSON problems (the subset fixed by the operator interface, with VROOM's meaning
//! for every key).
//!
//! Locations are matrix indices (`location_index`, `start_index`, `end_index`) into
//! `matrices.<profile>.durations` / `.distances` (or the legacy top-level `matrix`), or `[lon, lat]`
//! coordinates when no matrix is given, in which case travel comes from [`GreatCircle`] at
//! 50 km/h. Without a distances matrix, distances equal durations. VROOM's keys beyond that
//! subset are honoured or refused by name (`keys`); keys VROOM does not know are ignored, as
//! VROOM does.
//!
//! Syntax and type errors carry serde's line and column; invalid values carry the JSON path.

mod echo;
mod input;
mod keys;

pub use echo::{Echo, Stop, VehicleEcho};

use std::collections::{BTreeMap, HashMap, HashSet};

use input::{given_matrix, Input, StopIn};

use super::{Format, FormatError, Instance};
use crate::solver::problem::{
    Break, Job, Load, LocationIndex, Matrix, Objective, Place, Problem, Shipment, Skills, Time,
    TimeWindow, Vehicle,
};
use crate::solver::travel::{GreatCircle, Point};

/// Speed of the great-circle fallback, km/h.
const SPEED_KMH: f64 = GreatCircle::DEFAULT_SPEED_KMH;
/// Largest accepted time, duration or amount: keeps sums along routes far from overflow.
const MAX_VALUE: u64 = 1 << 42;
/// VROOM's highest priority.
const MAX_PRIORITY: u32 = 100;

fn invalid(path: impl Into<String>, message: impl Into<String>) -> FormatError {
    FormatError::Invalid {
        path: path.into(),
        message: message.into(),
    }
}

/// Assigns matrix locations: indices into the given matrix, or one location per distinct
/// coordinate pair when travel is derived from coordinates.
struct Locations {
    matrix_size: Option<usize>,
    points: Vec<Point>,
    by_point: HashMap<(u64, u64), LocationIndex>,
}

impl Locations {
    fn resolve(
        &mut self,
        path: &str,
        coords: Option<[f64; 2]>,
        index: Option<usize>,
    ) -> Result<Option<LocationIndex>, FormatError> {
        match (self.matrix_size, index, coords) {
            (Some(size), Some(i), _) if i >= size => Err(invalid(
                format!("{path}_index"),
                format!("{i} is outside the {size}x{size} matrix"),
            )),
            (Some(_), Some(i), _) => Ok(Some(i)),
            (Some(_), None, Some(_)) => Err(invalid(
                path,
                "with a matrix, locations must be given as indices (`..._index`)",
            )),
            (None, Some(_), _) => Err(invalid(
                format!("{path}_index"),
                "a location index needs `matrices` in the problem",
            )),
            (None, None, Some([lon, lat])) => {
                if !((-180.0..=180.0).contains(&lon) && (-90.0..=90.0).contains(&lat)) {
                    return Err(invalid(
                        path,
                        format!("[{lon}, {lat}] is not a [longitude, latitude] pair"),
                    ));
                }
                let key = (lon.to_bits(), lat.to_bits());
                let next = self.points.len();
                let loc = *self.by_point.entry(key).or_insert(next);
                if loc == next {
                    self.points.push(Point::new(lon, lat));
                }
                Ok(Some(loc))
            }
            (_, None, None) => Ok(None),
        }
    }

    fn required(
        &mut self,
        path: &str,
        coords: Option<[f64; 2]>,
        index: Option<usize>,
    ) -> Result<LocationIndex, FormatError> {
        self.resolve(path, coords, index)?
            .ok_or_else(|| invalid(path, "missing `location` or `location_index`"))
    }
}

fn time(path: &str, value: u64) -> Result<Time, FormatError> {
    if value > MAX_VALUE {
        return Err(invalid(path, format!("{value} is too large")));
    }
    Ok(value as Time)
}

fn windows(path: &str, raw: &[[u64; 2]]) -> Result<Vec<TimeWindow>, FormatError> {
    let mut out = raw
        .iter()
        .enumerate()
        .map(|(i, &[s, e])| {
            let p = format!("{path}[{i}]");
            if s > e {
                return Err(invalid(
                    p,
                    format!("window [{s}, {e}] ends before it starts"),
                ));
            }
            Ok(TimeWindow {
                start: time(&p, s)?,
                end: time(&p, e)?,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    out.sort();
    if out.windows(2).any(|w| w[1].start <= w[0].end) {
        return Err(invalid(path, "time windows overlap"));
    }
    Ok(out)
}

/// An amount vector of the problem's dimension; absent means zeros.
fn amount(path: &str, raw: Option<&Vec<u64>>, dims: usize) -> Result<Vec<Load>, FormatError> {
    match raw {
        None => Ok(vec![0; dims]),
        Some(v) if v.len() != dims => Err(invalid(
            path,
            format!("has {} values but capacities have {dims}", v.len()),
        )),
        Some(v) => v.iter().map(|&a| time(path, a)).collect(),
    }
}

fn priority(path: &str, p: u32) -> Result<u32, FormatError> {
    if p > MAX_PRIORITY {
        return Err(invalid(path, format!("{p} is above {MAX_PRIORITY}")));
    }
    Ok(p)
}

/// Reads a VROOM-style JSON problem.
pub fn read(text: &str, objective: Objective) -> Result<Instance, FormatError> {
    // A byte-order mark is not JSON but some editors write one.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut input: Input = serde_json::from_str(text).map_err(|e| FormatError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let speed_factor = keys::check(&input)?;
    let mut echo = Echo {
        distances: input
            .matrices
            .as_ref()
            .is_some_and(|m| m.values().any(|m| m.distances.is_some())),
        per_hour: keys::per_hour(&input),
        ..Echo::default()
    };
    let stop = |location, location_index, description: &Option<String>| Stop {
        location,
        location_index,
        description: description.clone(),
    };
    echo.jobs = input
        .jobs
        .iter()
        .map(|j| stop(j.location, j.location_index, &j.description))
        .collect();
    for s in &input.shipments {
        let (p, d) = (&s.pickup, &s.delivery);
        echo.pickups
            .push(stop(p.location, p.location_index, &p.description));
        echo.deliveries
            .push(stop(d.location, d.location_index, &d.description));
    }
    echo.vehicles = input
        .vehicles
        .iter()
        .map(|v| VehicleEcho {
            start: stop(v.start, v.start_index, &None),
            end: stop(v.end, v.end_index, &None),
            description: v.description.clone(),
        })
        .collect();
    let given = given_matrix(&mut input)?.map(|m| keys::scale(m, speed_factor, !echo.distances));
    let mut locs = Locations {
        matrix_size: given.as_ref().map(Matrix::size),
        points: Vec::new(),
        by_point: HashMap::new(),
    };
    let dims = input
        .vehicles
        .first()
        .and_then(|v| v.capacity.as_ref())
        .map_or(0, Vec::len);
    let mut skill_ids = BTreeMap::new();
    for s in input
        .jobs
        .iter()
        .flat_map(|j| &j.skills)
        .chain(input.shipments.iter().flat_map(|s| &s.skills))
        .chain(input.vehicles.iter().flat_map(|v| &v.skills))
    {
        let next = skill_ids.len();
        skill_ids.entry(*s).or_insert(next);
    }
    let skills = |raw: &[u32]| Skills::from_indices(raw.iter().map(|s| skill_ids[s]));

    let mut seen = HashSet::new();
    let mut jobs = Vec::with_capacity(input.jobs.len());
    for (i, j) in input.jobs.iter().enumerate() {
        let p = format!("jobs[{i}]");
        if !seen.insert(j.id) {
            return Err(invalid(
                format!("{p}.id"),
                format!("job id {} is repeated", j.id),
            ));
        }
        if j.amount.is_some() && j.delivery.is_some() {
            return Err(invalid(
                p,
                "give `delivery`, not both `amount` and `delivery`",
            ));
        }
        jobs.push(Job {
            id: j.id,
            place: Place {
                location: locs.required(&format!("{p}.location"), j.location, j.location_index)?,
                setup: time(&format!("{p}.setup"), j.setup)?,
                service: time(&format!("{p}.service"), j.service)?,
                time_windows: windows(&format!("{p}.time_windows"), &j.time_windows)?,
            },
            delivery: amount(
                &format!("{p}.delivery"),
                j.delivery.as_ref().or(j.amount.as_ref()),
                dims,
            )?,
            pickup: amount(&format!("{p}.pickup"), j.pickup.as_ref(), dims)?,
            skills: skills(&j.skills),
            priority: priority(&format!("{p}.priority"), j.priority)?,
            pinned_vehicle: None,
        });
    }

    let (mut pickup_ids, mut delivery_ids) = (HashSet::new(), HashSet::new());
    let mut shipments = Vec::with_capacity(input.shipments.len());
    for (i, s) in input.shipments.iter().enumerate() {
        let p = format!("shipments[{i}]");
        if !pickup_ids.insert(s.pickup.id) {
            return Err(invalid(format!("{p}.pickup.id"), "pickup id is repeated"));
        }
        if !delivery_ids.insert(s.delivery.id) {
            return Err(invalid(
                format!("{p}.delivery.id"),
                "delivery id is repeated",
            ));
        }
        let mut stop = |name: &str, stop: &StopIn| -> Result<Place, FormatError> {
            let q = format!("{p}.{name}");
            Ok(Place {
                location: locs.required(
                    &format!("{q}.location"),
                    stop.location,
                    stop.location_index,
                )?,
                setup: time(&format!("{q}.setup"), stop.setup)?,
                service: time(&format!("{q}.service"), stop.service)?,
                time_windows: windows(&format!("{q}.time_windows"), &stop.time_windows)?,
            })
        };
        shipments.push(Shipment {
            pickup_id: s.pickup.id,
            delivery_id: s.delivery.id,
            pickup: stop("pickup", &s.pickup)?,
            delivery: stop("delivery", &s.delivery)?,
            amount: amount(&format!("{p}.amount"), s.amount.as_ref(), dims)?,
            skills: skills(&s.skills),
            priority: priority(&format!("{p}.priority"), s.priority)?,
            pinned_vehicle: None,
        });
    }

    let mut vehicle_ids = HashSet::new();
    let mut vehicles = Vec::with_capacity(input.vehicles.len());
    for (i, v) in input.vehicles.iter().enumerate() {
        let p = format!("vehicles[{i}]");
        if !vehicle_ids.insert(v.id) {
            return Err(invalid(
                format!("{p}.id"),
                format!("vehicle id {} is repeated", v.id),
            ));
        }
        let shift = match v.time_window {
            None => TimeWindow::ALWAYS,
            Some(tw) => windows(&format!("{p}.time_window"), &[tw])?[0],
        };
        let mut break_ids = HashSet::new();
        let breaks = v
            .breaks
            .iter()
            .enumerate()
            .map(|(k, b)| {
                let q = format!("{p}.breaks[{k}]");
                if !break_ids.insert(b.id) {
                    return Err(invalid(format!("{q}.id"), "break id is repeated"));
                }
                Ok(Break {
                    id: b.id,
                    time_windows: windows(&format!("{q}.time_windows"), &b.time_windows)?,
                    service: time(&format!("{q}.service"), b.service)?,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        vehicles.push(Vehicle {
            id: v.id,
            start: locs.resolve(&format!("{p}.start"), v.start, v.start_index)?,
            end: locs.resolve(&format!("{p}.end"), v.end, v.end_index)?,
            capacity: match &v.capacity {
                None if dims > 0 => {
                    return Err(invalid(
                        format!("{p}.capacity"),
                        "missing (other vehicles have one)",
                    ))
                }
                raw => amount(&format!("{p}.capacity"), raw.as_ref(), dims)?,
            },
            skills: skills(&v.skills),
            shift,
            breaks,
            max_duration: None,
            max_travel_time: v
                .max_travel_time
                .map(|t| time(&format!("{p}.max_travel_time"), t))
                .transpose()?,
            max_tasks: v.max_tasks,
        });
    }

    let matrix = match given {
        Some(m) => m,
        None => GreatCircle::new(SPEED_KMH)
            .expect("a positive speed")
            .matrix(&locs.points)
            .map_err(|e| invalid("location", e.to_string()))
            .map(|m| keys::scale(m, speed_factor, false))?,
    };
    Ok(Instance {
        problem: Problem {
            name: String::new(),
            matrix,
            jobs,
            shipments,
            vehicles,
            dimensions: dims,
            objective,
        },
        format: Format::Vroom,
        plane: None,
        vroom: Some(echo),
    })
}
