//! Double-precision re-check of Euclidean instances from their original coordinates.
//!
//! The integer model rounds travel times up, so it is stricter than the files' own convention;
//! this re-check uses exact (double) travel times and reports the two distance figures the
//! benchmark literature uses: the double-precision sum, and the DIMACS 2021 / CVRPLIB sum where
//! every arc is truncated to one decimal first.
//!
//! In the [`Convention::Dimacs`] convention travel times are the truncated arcs, as that
//! convention's published results assume; the distance figures are the same either way.
//!
//! Each route leaves at its vehicle's shift start (the earliest allowed departure); windows,
//! service and shift come from the problem divided by the plane's scale (the files' integers are
//! scaled exactly). No tolerance is applied.

use super::{describe, violation, Code, Violation};
use crate::solver::formats::{Convention, Plane};
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

/// Adds an arc of length `d` to both distance figures and returns its travel time.
fn leg(report: &mut PlaneReport, d: f64, plane: &Plane) -> f64 {
    let truncated = (d * 10.0).floor() / 10.0;
    report.distance += d;
    report.dimacs_distance += truncated;
    match plane.convention {
        Convention::Exact => d / plane.speed,
        Convention::Dimacs => truncated / plane.speed,
    }
}

/// Re-checks time windows and shifts of `solution` with exact travel times and sums its distance
/// both ways. Breaks, loads and everything else are [`super::check`]'s business.
pub fn check_plane(problem: &Problem, solution: &Solution, plane: &Plane) -> PlaneReport {
    let scale = plane.scale as f64;
    let arc = |a: usize, b: usize| -> f64 {
        let ((x1, y1), (x2, y2)) = (plane.points[a], plane.points[b]);
        (x1 - x2).hypot(y1 - y2)
    };
    let mut report = PlaneReport::default();
    for (r, route) in solution.routes.iter().enumerate() {
        let Some(vehicle) = problem.vehicles.get(route.vehicle) else {
            continue;
        };
        let mut t = vehicle.shift.start as f64 / scale;
        let mut at = vehicle.start;
        for (k, s) in route.steps.iter().enumerate() {
            if let Step::Break(b) = s.step {
                if let Some(brk) = vehicle.breaks.get(b) {
                    let w = brk.time_windows.iter().find(|w| w.end as f64 / scale >= t);
                    match (brk.time_windows.is_empty(), w) {
                        (true, _) => {}
                        (false, Some(w)) => t = t.max(w.start as f64 / scale),
                        (false, None) => report.violations.push(violation(
                            Code::BreakWindow,
                            Some(r),
                            Some(k),
                            format!("break cannot start at {t:.4} or later"),
                        )),
                    }
                    t += brk.service as f64 / scale;
                }
                continue;
            }
            let Some(p) = place(problem, s.step) else {
                continue;
            };
            if let Some(from) = at {
                t += leg(&mut report, arc(from, p.location), plane);
            }
            if !p.time_windows.is_empty() {
                match p.time_windows.iter().find(|w| w.end as f64 / scale >= t) {
                    Some(w) => t = t.max(w.start as f64 / scale),
                    None => {
                        let last = p.time_windows.last().map_or(0.0, |w| w.end as f64 / scale);
                        let name = describe(problem, route.vehicle, s);
                        report.violations.push(violation(
                            Code::TimeWindow,
                            Some(r),
                            Some(k),
                            format!(
                                "{name} reached at {t:.4} with exact travel times, after {last}"
                            ),
                        ));
                    }
                }
            }
            let setup = if at == Some(p.location) { 0 } else { p.setup };
            t += (setup + p.service) as f64 / scale;
            at = Some(p.location);
        }
        if let (Some(from), Some(end)) = (at, vehicle.end) {
            t += leg(&mut report, arc(from, end), plane);
        }
        let shift_end = vehicle.shift.end as f64 / scale;
        if t > shift_end {
            report.violations.push(violation(
                Code::ShiftEnd,
                Some(r),
                None,
                format!("ends at {t:.4} with exact travel times, after {shift_end}"),
            ));
        }
    }
    report
}
