//! Builders shared by the solver's unit tests: a plane matrix, a plain job, a plain vehicle.

use super::problem::*;

/// Rounded Euclidean distances (and equal travel times) between `points`, location i at
/// `points[i]`.
pub(crate) fn plane(points: &[(i64, i64)]) -> Matrix {
    let mut d = Vec::with_capacity(points.len() * points.len());
    for a in points {
        for b in points {
            let (x, y) = ((a.0 - b.0) as f64, (a.1 - b.1) as f64);
            d.push((x * x + y * y).sqrt().round() as i64);
        }
    }
    Matrix::new(points.len(), d.clone(), d).expect("square")
}

/// A job at `location` delivering one unit, no windows, no service time.
pub(crate) fn job(id: u64, location: usize) -> Job {
    Job {
        id,
        place: Place {
            location,
            setup: 0,
            service: 0,
            time_windows: vec![],
        },
        delivery: vec![1],
        pickup: vec![0],
        skills: Skills::default(),
        priority: 0,
        pinned_vehicle: None,
    }
}

/// A vehicle based at location 0 with one load dimension, no limits.
pub(crate) fn vehicle(id: u64, capacity: Load) -> Vehicle {
    Vehicle {
        id,
        start: Some(0),
        end: Some(0),
        capacity: vec![capacity],
        skills: Skills::default(),
        shift: TimeWindow::ALWAYS,
        breaks: vec![],
        max_duration: None,
        max_travel_time: None,
        max_tasks: None,
    }
}
