//! Double-precision re-check of Euclidean instances from their original coordinates.
//!
//! The integer model rounds travel times up, so it is stricter than the files' own convention;
//! this re-check uses exact (double) travel times and reports the two distance figures the
//! benchmark literature uses: the double-precision sum, and the DIMACS 2021 / CVRPLIB sum where
//! every arc is truncated to one decimal first.
//!
//! In the [`Convention::Dimacs`] convention travel times are the truncated arcs, as that
//! convention's published results assume, and the whole re-check runs in integers (tenths of a
//! unit): no float decides feasibility there. The distance figures are the same either way.
//!
//! Each route leaves at its vehicle's shift start (the earliest allowed departure); windows,
//! service and shift come from the problem divided by the plane's scale (the files' integers are
//! scaled exactly). No tolerance is applied.

use super::{describe, violation, Code, Violation};
use crate::solver::formats::{dimacs_tenths, Convention, Plane};
use crate::solver::problem::{Place, Problem};
use crate::solver::solution::{Solution, Step};

/// Figures and violations of the double-precision re-check.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlaneReport {
    /// Total Euclidean distance in double precision.
    pub distance: f64,
    /// Total distance with every arc truncated to one decimal (DIMACS convention).
    pub dimacs_distance: f64,
    /// Windows or shift ends missed with exact travel times.
    pub violations: Vec<Violation>,
}

impl PlaneReport {
    /// True when no violation was found.
    pub fn is_feasible(&self) -> bool {
        self.violations.is_empty()
    }
}

fn place(problem: &Problem, step: Step) -> Option<&Place> {
    match step {
        Step::Job(i) => problem.jobs.get(i).map(|j| &j.place),
        Step::Pickup(i) => problem.shipments.get(i).map(|s| &s.pickup),
        Step::Delivery(i) => problem.shipments.get(i).map(|s| &s.delivery),
        Step::Break(_) => None,
    }
}

/// The time along a route. In the exact convention it is a double in coordinate units. In the
/// DIMACS convention every arc is a whole number of tenths and windows, service and shifts are
/// whole scale units, so the time is kept as an integer count of scale units: summing truncated
/// arcs in doubles drifts (ten arcs of 1.4 make 14.000000000000002) and rejected a valid route
/// arriving exactly at its due time, and floats must never decide feasibility.
#[derive(Debug, Clone, Copy)]
enum Clock {
    Exact(f64),
    Dimacs(i64),
}

impl Clock {
    fn at(plane: &Plane, units: i64) -> Clock {
        match plane.convention {
            Convention::Exact => Clock::Exact(units as f64 / plane.scale as f64),
            Convention::Dimacs => Clock::Dimacs(units),
        }
    }

    /// Adds a duration given in the problem's (scaled) units.
    fn add(&mut self, units: i64, plane: &Plane) {
        match self {
            Clock::Exact(t) => *t += units as f64 / plane.scale as f64,
            Clock::Dimacs(t) => *t += units,
        }
    }

    /// Drives `leg`: its double length, or its truncated tenths.
    fn drive(&mut self, leg: &Leg, plane: &Plane) {
        match self {
            Clock::Exact(t) => *t += leg.exact / plane.speed,
            // Truncated arcs are travel times in DIMACS (speed 1): a tenth is scale / 10 units.
            Clock::Dimacs(t) => *t += leg.tenths * (plane.scale / 10),
        }
    }

    /// Whether the clock has passed `units` (no tolerance).
    fn after(&self, units: i64, plane: &Plane) -> bool {
        match *self {
            Clock::Exact(t) => t > units as f64 / plane.scale as f64,
            Clock::Dimacs(t) => t > units,
        }
    }

    fn wait_until(&mut self, units: i64, plane: &Plane) {
        if !self.after(units, plane) {
            *self = Clock::at(plane, units);
        }
    }

    /// In coordinate units, for messages.
    fn show(&self, plane: &Plane) -> f64 {
        match *self {
            Clock::Exact(t) => t,
            Clock::Dimacs(t) => t as f64 / plane.scale as f64,
        }
    }
}

/// One arc both ways: its double length and its DIMACS length in tenths.
struct Leg {
    exact: f64,
    tenths: i64,
}

/// Sums the distance figures; DIMACS tenths are summed as integers and converted once.
#[derive(Default)]
struct Odometer {
    exact: f64,
    tenths: i64,
}

impl Odometer {
    fn leg(&mut self, plane: &Plane, a: usize, b: usize) -> Leg {
        let ((x1, y1), (x2, y2)) = (plane.points[a], plane.points[b]);
        let leg = Leg {
            exact: (x1 - x2).hypot(y1 - y2),
            tenths: dimacs_tenths((x1, y1), (x2, y2)),
        };
        self.exact += leg.exact;
        self.tenths += leg.tenths;
        leg
    }
}

/// Re-checks time windows and shifts of `solution` with the convention's travel times (exact
/// doubles, or DIMACS tenths in integers) and sums its distance both ways. Breaks, loads and
/// everything else are [`super::check`]'s business.
pub fn check_plane(problem: &Problem, solution: &Solution, plane: &Plane) -> PlaneReport {
    let mut report = PlaneReport::default();
    let mut odometer = Odometer::default();
    let scale = plane.scale as f64;
    for (r, route) in solution.routes.iter().enumerate() {
        let Some(vehicle) = problem.vehicles.get(route.vehicle) else {
            continue;
        };
        let mut t = Clock::at(plane, vehicle.shift.start);
        let mut at = vehicle.start;
        for (k, s) in route.steps.iter().enumerate() {
            if let Step::Break(b) = s.step {
                if let Some(brk) = vehicle.breaks.get(b) {
                    let w = brk.time_windows.iter().find(|w| !t.after(w.end, plane));
                    match (brk.time_windows.is_empty(), w) {
                        (true, _) => {}
                        (false, Some(w)) => t.wait_until(w.start, plane),
                        (false, None) => report.violations.push(violation(
                            Code::BreakWindow,
                            Some(r),
                            Some(k),
                            format!("break cannot start at {:.4} or later", t.show(plane)),
                        )),
                    }
                    t.add(brk.service, plane);
                }
                continue;
            }
            let Some(p) = place(problem, s.step) else {
                continue;
            };
            if let Some(from) = at {
                t.drive(&odometer.leg(plane, from, p.location), plane);
            }
            if !p.time_windows.is_empty() {
                match p.time_windows.iter().find(|w| !t.after(w.end, plane)) {
                    Some(w) => t.wait_until(w.start, plane),
                    None => {
                        let last = p.time_windows.last().map_or(0.0, |w| w.end as f64 / scale);
                        let name = describe(problem, route.vehicle, s);
                        report.violations.push(violation(
                            Code::TimeWindow,
                            Some(r),
                            Some(k),
                            format!(
                                "{name} reached at {:.4} with the convention's travel times, after {last}",
                                t.show(plane)
                            ),
                        ));
                    }
                }
            }
            let setup = if at == Some(p.location) { 0 } else { p.setup };
            t.add(setup + p.service, plane);
            at = Some(p.location);
        }
        if let (Some(from), Some(end)) = (at, vehicle.end) {
            t.drive(&odometer.leg(plane, from, end), plane);
        }
        if t.after(vehicle.shift.end, plane) {
            report.violations.push(violation(
                Code::ShiftEnd,
                Some(r),
                None,
                format!(
                    "ends at {:.4} with the convention's travel times, after {}",
                    t.show(plane),
                    vehicle.shift.end as f64 / scale
                ),
            ));
        }
    }
    report.distance = odometer.exact;
    report.dimacs_distance = odometer.tenths as f64 / 10.0;
    report
}
