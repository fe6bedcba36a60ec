//! Vehicles to solver vehicles: the day's shift, break, start and end, capacities and skills.

use super::orders::{minutes_to_s, DAY_S};
use super::to_problem::{capacity_load, Locations, SkillIndex, UNLIMITED_LOAD};
use super::{DayRequest, OptimiseError};
use crate::model::location::Coordinates;
use crate::model::reference::CapacityType;
use crate::model::vehicle::{Availability, EndLocation, Place, Shift, StartLocation, Vehicle};
use crate::solver::problem::{self as sp, Break, LocationIndex, TimeWindow};
use crate::time::Date;

/// The shift of the plan date: the entry for its weekday, else the default one.
fn day_shift(v: &Vehicle, date: Date) -> Option<Shift> {
    let shifts = v.shifts();
    let weekday = date.weekday();
    shifts
        .iter()
        .find(|s| s.day_of_week == Some(weekday))
        .or_else(|| shifts.iter().find(|s| s.day_of_week.is_none()))
        .cloned()
}

/// The working window of a shift in seconds after local midnight.
pub(crate) fn shift_window(s: &Shift) -> TimeWindow {
    match (s.availability, s.shift_start, s.shift_end) {
        (Availability::Shift, Some(a), Some(b)) => {
            let (start, mut end) = (i64::from(a.minutes()) * 60, i64::from(b.minutes()) * 60);
            if end < start {
                end += DAY_S;
            }
            TimeWindow { start, end }
        }
        (Availability::Always, _, _) => TimeWindow::ALWAYS,
        // A shift without its times works the whole day, as `full_day`.
        _ => TimeWindow {
            start: 0,
            end: DAY_S,
        },
    }
}

/// The shift and breaks left from [`DayRequest::not_before`] on; `None` when the shift is over.
fn from_now(
    mut shift: TimeWindow,
    mut breaks: Vec<Break>,
    req: &DayRequest,
) -> Option<(TimeWindow, Vec<Break>)> {
    let Some(now) = req.not_before else {
        return Some((shift, breaks));
    };
    shift.start = shift.start.max(now.seconds());
    if shift.start > shift.end {
        return None;
    }
    // A break that can no longer start is not planned: the driver took it or went without.
    // (A break without windows may start any time in the shift, which now begins later.)
    breaks.retain_mut(|b| {
        if b.time_windows.is_empty() {
            return true;
        }
        for w in &mut b.time_windows {
            w.start = w.start.max(now.seconds());
        }
        b.time_windows.retain(|w| w.start <= w.end);
        !b.time_windows.is_empty()
    });
    Some((shift, breaks))
}

fn breaks(s: &Shift) -> Vec<Break> {
    s.breaks
        .iter()
        .filter(|b| b.enabled)
        .filter_map(|b| Some((b.break_start?, b.break_end?, b.break_duration)))
        .enumerate()
        .map(|(i, (from, to, minutes))| {
            let service = minutes_to_s(minutes);
            let start = i64::from(from.minutes()) * 60;
            let mut end = i64::from(to.minutes()) * 60;
            if end < start {
                end += DAY_S;
            }
            // `break_end` is the latest end; the solver's window bounds the start.
            let latest_start = (end - service).max(start);
            Break {
                id: i as u64,
                time_windows: vec![TimeWindow {
                    start,
                    end: latest_start,
                }],
                service,
            }
        })
        .collect()
}

fn place_coordinates(p: &Place) -> Option<Coordinates> {
    Coordinates::new(p.lat?, p.lng?)
}

/// A vehicle's capacity per capacity type: its own amount, else the type's numeric default,
/// else no limit.
fn capacities(v: &Vehicle, types: &[CapacityType]) -> Vec<sp::Load> {
    types
        .iter()
        .map(|t| {
            let own = v
                .fields
                .capacities
                .iter()
                .find(|c| c.id == t.id)
                .map(|c| c.capacity);
            match own.or_else(|| t.default.trim().parse::<f64>().ok()) {
                Some(a) if a.is_finite() => capacity_load(a),
                _ => UNLIMITED_LOAD,
            }
        })
        .collect()
}

/// Whether the vehicle works on `date` in a plan that takes only active vehicles when
/// `only_active`, and then its shift of that date.
fn working(v: &Vehicle, date: Date, only_active: bool) -> Option<Shift> {
    let shift = day_shift(v, date)?;
    (!only_active || (v.fields.active && shift.enabled)).then_some(shift)
}

/// Whether the vehicle starts or ends at the depot's position: `depot` and `app-location`
/// starts, `depot` ends, and `other` places without coordinates.
fn at_depot(v: &Vehicle) -> bool {
    let f = &v.fields;
    let start = match f.start_location {
        StartLocation::Depot | StartLocation::AppLocation => true,
        StartLocation::Other => place_coordinates(&f.start).is_none(),
    };
    let end = match f.end_location {
        EndLocation::Depot => true,
        EndLocation::Other => place_coordinates(&f.end).is_none(),
        EndLocation::None => false,
    };
    start || end
}

/// Where the vehicle's routes start and end as the optimiser plans them: the depot's position
/// (`depot`) for `depot` and `app-location` starts and `depot` ends, the vehicle's own place for
/// `other` (the depot's when the place has no coordinates); no end for an open route (`none`).
pub fn route_ends(
    v: &Vehicle,
    depot: Option<Coordinates>,
) -> (Option<Coordinates>, Option<Coordinates>) {
    let f = &v.fields;
    let start = match f.start_location {
        StartLocation::Depot | StartLocation::AppLocation => depot,
        StartLocation::Other => place_coordinates(&f.start).or(depot),
    };
    let end = match f.end_location {
        EndLocation::Depot => depot,
        EndLocation::Other => place_coordinates(&f.end).or(depot),
        EndLocation::None => None,
    };
    (start, end)
}

/// The vehicles of `vehicles` a plan of `date` would start or end at the depot's position (see
/// [`DayRequest::only_active_vehicles`] for `only_active`), in their order: a plan of them
/// fails when the depot has no position, so requests are refused before one is queued.
pub fn vehicles_at_depot(vehicles: &[Vehicle], date: Date, only_active: bool) -> Vec<i64> {
    vehicles
        .iter()
        .filter(|v| working(v, date, only_active).is_some() && at_depot(v))
        .map(|v| v.id)
        .collect()
}

/// The vehicles of a request that work on its date, as the solver takes them.
pub(crate) struct Fleet {
    /// The solver's vehicles.
    pub vehicles: Vec<sp::Vehicle>,
    /// Per solver vehicle: its id.
    pub ids: Vec<i64>,
    /// Vehicles that work on the date but whose shift is over when the plan starts
    /// ([`DayRequest::not_before`]): they get no route, and the sentences of the orders left
    /// out say so rather than that nobody works.
    pub shifts_over: Vec<i64>,
}

/// The vehicles of the request that work on its date, as solver vehicles, with their ids.
pub(crate) fn build(
    req: &DayRequest,
    locs: &mut Locations,
    skills: &mut SkillIndex,
) -> Result<Fleet, OptimiseError> {
    let mut out = Vec::new();
    let mut ids = Vec::new();
    let mut shifts_over = Vec::new();
    for v in req.vehicles {
        let Some(working) = working(v, req.date, req.only_active_vehicles) else {
            continue;
        };
        let Some((shift, breaks)) = from_now(shift_window(&working), breaks(&working), req) else {
            shifts_over.push(v.id);
            continue;
        };
        let f = &v.fields;
        let depot = locs.depot().ok_or(OptimiseError::DepotWithoutLocation {
            vehicle_id: v.id,
            depot_id: req.depot.id,
        });
        let start: Option<LocationIndex> = match f.start_location {
            StartLocation::Depot | StartLocation::AppLocation => Some(depot.clone()?),
            StartLocation::Other => match place_coordinates(&f.start) {
                Some(c) => Some(locs.add(c)),
                None => Some(depot.clone()?),
            },
        };
        let end: Option<LocationIndex> = match f.end_location {
            EndLocation::Depot => Some(depot?),
            EndLocation::Other => match place_coordinates(&f.end) {
                Some(c) => Some(locs.add(c)),
                None => Some(depot?),
            },
            EndLocation::None => None,
        };
        let skill_set = sp::Skills::from_indices(f.skills.iter().map(|s| skills.index(s)));
        out.push(sp::Vehicle {
            id: v.id as u64,
            start,
            end,
            capacity: capacities(v, req.capacity_types),
            skills: skill_set,
            shift,
            breaks,
            max_duration: working
                .max_route_duration
                .map(|m| minutes_to_s(Some(m)))
                .filter(|&s| s > 0),
            max_travel_time: None,
            max_tasks: None,
        });
        ids.push(v.id);
    }
    Ok(Fleet {
        vehicles: out,
        ids,
        shifts_over,
    })
}
