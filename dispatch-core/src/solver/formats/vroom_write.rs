//! Writes a [`Problem`] as a VROOM-style JSON problem that [`super::vroom::read`] reads back to
//! an equivalent problem: every location as a `location_index` into `matrices.car` (durations
//! and distances, the exact matrix the problem holds), amounts, skills, priorities, windows,
//! breaks and route limits. Useful to replay a service optimisation with `dispatch solve` or
//! VROOM itself.
//!
//! VROOM has no pinned tasks: a task pinned to a vehicle gets one more skill that only that
//! vehicle has, which restricts it exactly as pinning does. A shift or window ending after
//! [`MAX_TIME`] (e.g. the solver's "always" window) is written ending at [`MAX_TIME`], the
//! largest time the reader accepts; a vehicle shift of exactly `[0, ∞)` is left out.

use serde_json::{json, Value};

use crate::solver::problem::{Place, Problem, Skills, TimeWindow};

/// Largest time, duration or amount written (the reader's bound).
pub const MAX_TIME: i64 = 1 << 42;

/// Why a problem cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// A value the format cannot carry; `path` names it.
    #[error("{path}: {message}")]
    Unrepresentable {
        /// Where, e.g. `vehicles[2].max_duration`.
        path: String,
        /// Why.
        message: String,
    },
}

fn unrepresentable(path: String, message: &str) -> WriteError {
    WriteError::Unrepresentable {
        path,
        message: message.to_owned(),
    }
}

fn value(path: &str, v: i64) -> Result<i64, WriteError> {
    if v < 0 {
        return Err(unrepresentable(
            path.to_owned(),
            "negative values cannot be written",
        ));
    }
    Ok(v.min(MAX_TIME))
}

fn windows(path: &str, w: &[TimeWindow]) -> Result<Value, WriteError> {
    let pairs = w
        .iter()
        .map(|w| Ok(json!([value(path, w.start)?, value(path, w.end)?])))
        .collect::<Result<Vec<_>, WriteError>>()?;
    Ok(Value::Array(pairs))
}

fn amounts(path: &str, a: &[i64]) -> Result<Value, WriteError> {
    let v = a
        .iter()
        .map(|&x| value(path, x))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!(v))
}

fn place(path: &str, id: u64, p: &Place) -> Result<Value, WriteError> {
    Ok(json!({
        "id": id,
        "location_index": p.location,
        "setup": value(&format!("{path}.setup"), p.setup)?,
        "service": value(&format!("{path}.service"), p.service)?,
        "time_windows": windows(&format!("{path}.time_windows"), &p.time_windows)?,
    }))
}

fn priority(path: String, p: u32) -> Result<u32, WriteError> {
    if p > 100 {
        return Err(unrepresentable(path, "VROOM priorities are 0 to 100"));
    }
    Ok(p)
}

/// The skill indices of a task, plus the pinning skill of its vehicle.
fn task_skills(skills: &Skills, pinned: Option<usize>, pin_base: usize) -> Vec<usize> {
    skills
        .indices()
        .chain(pinned.map(|v| pin_base + v))
        .collect()
}

/// The problem as VROOM-style JSON text.
pub fn write(p: &Problem) -> Result<String, WriteError> {
    let pin_base = p
        .jobs
        .iter()
        .map(|j| &j.skills)
        .chain(p.shipments.iter().map(|s| &s.skills))
        .chain(p.vehicles.iter().map(|v| &v.skills))
        .flat_map(Skills::indices)
        .max()
        .map_or(0, |m| m + 1);
    let pinned_to = |v: usize| {
        p.jobs.iter().any(|j| j.pinned_vehicle == Some(v))
            || p.shipments.iter().any(|s| s.pinned_vehicle == Some(v))
    };
    let mut jobs = Vec::with_capacity(p.jobs.len());
    for (i, j) in p.jobs.iter().enumerate() {
        let path = format!("jobs[{i}]");
        let mut job = place(&path, j.id, &j.place)?;
        job["delivery"] = amounts(&format!("{path}.delivery"), &j.delivery)?;
        job["pickup"] = amounts(&format!("{path}.pickup"), &j.pickup)?;
        job["skills"] = json!(task_skills(&j.skills, j.pinned_vehicle, pin_base));
        job["priority"] = json!(priority(format!("{path}.priority"), j.priority)?);
        jobs.push(job);
    }
    let mut shipments = Vec::with_capacity(p.shipments.len());
    for (i, s) in p.shipments.iter().enumerate() {
        let path = format!("shipments[{i}]");
        shipments.push(json!({
            "pickup": place(&format!("{path}.pickup"), s.pickup_id, &s.pickup)?,
            "delivery": place(&format!("{path}.delivery"), s.delivery_id, &s.delivery)?,
            "amount": amounts(&format!("{path}.amount"), &s.amount)?,
            "skills": task_skills(&s.skills, s.pinned_vehicle, pin_base),
            "priority": priority(format!("{path}.priority"), s.priority)?,
        }));
    }
    let mut vehicles = Vec::with_capacity(p.vehicles.len());
    for (i, v) in p.vehicles.iter().enumerate() {
        let path = format!("vehicles[{i}]");
        if v.max_duration.is_some() {
            return Err(unrepresentable(
                format!("{path}.max_duration"),
                "VROOM has no route duration limit",
            ));
        }
        let mut skills: Vec<usize> = v.skills.indices().collect();
        if pinned_to(i) {
            skills.push(pin_base + i);
        }
        let breaks = v
            .breaks
            .iter()
            .enumerate()
            .map(|(k, b)| {
                let q = format!("{path}.breaks[{k}]");
                Ok(json!({
                    "id": b.id,
                    "time_windows": windows(&format!("{q}.time_windows"), &b.time_windows)?,
                    "service": value(&format!("{q}.service"), b.service)?,
                }))
            })
            .collect::<Result<Vec<_>, WriteError>>()?;
        let mut vehicle = json!({
            "id": v.id,
            "profile": "car",
            "capacity": amounts(&format!("{path}.capacity"), &v.capacity)?,
            "skills": skills,
            "breaks": breaks,
        });
        if let Some(s) = v.start {
            vehicle["start_index"] = json!(s);
        }
        if let Some(e) = v.end {
            vehicle["end_index"] = json!(e);
        }
        if v.shift != TimeWindow::ALWAYS {
            let q = format!("{path}.time_window");
            vehicle["time_window"] = json!([value(&q, v.shift.start)?, value(&q, v.shift.end)?]);
        }
        if let Some(n) = v.max_tasks {
            vehicle["max_tasks"] = json!(n);
        }
        if let Some(t) = v.max_travel_time {
            vehicle["max_travel_time"] = json!(value(&format!("{path}.max_travel_time"), t)?);
        }
        vehicles.push(vehicle);
    }
    let n = p.matrix.size();
    let rows = |f: &dyn Fn(usize, usize) -> i64| -> Value {
        Value::Array(
            (0..n)
                .map(|a| json!((0..n).map(|b| f(a, b)).collect::<Vec<_>>()))
                .collect(),
        )
    };
    let doc = json!({
        "jobs": jobs,
        "shipments": shipments,
        "vehicles": vehicles,
        "matrices": {
            "car": {
                "durations": rows(&|a, b| p.matrix.duration(a, b)),
                "distances": rows(&|a, b| p.matrix.distance(a, b)),
            }
        },
    });
    Ok(serde_json::to_string_pretty(&doc).expect("JSON values always serialise"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::formats::vroom::read;
    use crate::solver::problem::*;

    fn place(location: usize, windows: Vec<TimeWindow>) -> Place {
        Place {
            location,
            setup: 3,
            service: 60,
            time_windows: windows,
        }
    }

    fn tw(start: i64, end: i64) -> TimeWindow {
        TimeWindow { start, end }
    }

    fn problem() -> Problem {
        let d = vec![0, 5, 9, 7, 5, 0, 4, 6, 9, 4, 0, 2, 7, 6, 2, 0];
        let m = Matrix::new(4, d.clone(), d.iter().map(|x| x * 10).collect()).unwrap();
        let vehicle = |id, start, end, shift| Vehicle {
            id,
            start,
            end,
            capacity: vec![10, 1 << 40],
            skills: Skills::from_indices([0]),
            shift,
            breaks: vec![],
            max_duration: None,
            max_travel_time: None,
            max_tasks: None,
        };
        let mut v2 = vehicle(8, None, Some(3), tw(100, 900));
        v2.breaks = vec![Break {
            id: 1,
            time_windows: vec![tw(300, 400)],
            service: 30,
        }];
        v2.max_tasks = Some(5);
        v2.max_travel_time = Some(1000);
        Problem {
            name: String::new(),
            matrix: m,
            jobs: vec![
                Job {
                    id: 11,
                    place: place(1, vec![tw(0, 50), tw(100, 200)]),
                    delivery: vec![2, 0],
                    pickup: vec![0, 3],
                    skills: Skills::from_indices([0, 2]),
                    priority: 3,
                    pinned_vehicle: None,
                },
                Job {
                    id: 12,
                    place: place(2, vec![]),
                    delivery: vec![1, 1],
                    pickup: vec![0, 0],
                    skills: Skills::default(),
                    priority: 1,
                    pinned_vehicle: Some(1),
                },
            ],
            shipments: vec![Shipment {
                pickup_id: 21,
                delivery_id: 21,
                pickup: place(2, vec![tw(10, 20)]),
                delivery: place(3, vec![]),
                amount: vec![4, 0],
                skills: Skills::default(),
                priority: 2,
                pinned_vehicle: None,
            }],
            vehicles: vec![vehicle(7, Some(0), Some(0), TimeWindow::ALWAYS), v2],
            dimensions: 2,
            objective: Objective::Duration,
        }
    }

    #[test]
    fn written_problems_read_back_equivalent_with_pins_as_skills() {
        let p = problem();
        let back = read(&write(&p).unwrap(), Objective::Duration)
            .unwrap()
            .problem;
        let mut expected = p.clone();
        // Skill indices are renumbered in order of first use by the reader: 0, 2, then the pin (4).
        expected.jobs[0].skills = Skills::from_indices([0, 1]);
        expected.jobs[1].skills = Skills::from_indices([2]);
        expected.jobs[1].pinned_vehicle = None;
        expected.vehicles[1].skills = Skills::from_indices([0, 2]);
        assert_eq!(back, expected);
    }

    #[test]
    fn a_written_problem_solves_to_the_same_cost() {
        struct Never;
        impl crate::solver::Control for Never {
            fn should_stop(&self) -> bool {
                false
            }
        }
        let p = problem();
        let back = read(&write(&p).unwrap(), Objective::Duration)
            .unwrap()
            .problem;
        let config = crate::solver::Config {
            seed: 3,
            threads: 1,
            max_iterations: Some(500),
        };
        let a = crate::solver::solve(&p, &config, &Never);
        let b = crate::solver::solve(&back, &config, &Never);
        assert_eq!(a.routes.len(), b.routes.len());
        assert_eq!(a.unassigned.len(), b.unassigned.len());
        let served = |s: &crate::solver::solution::Solution| -> Vec<(usize, usize)> {
            s.routes
                .iter()
                .map(|r| (r.vehicle, r.steps.len()))
                .collect()
        };
        assert_eq!(served(&a), served(&b));
    }

    #[test]
    fn unrepresentable_values_are_errors_naming_their_path() {
        let mut p = problem();
        p.vehicles[0].max_duration = Some(100);
        let err = write(&p).unwrap_err();
        assert!(
            err.to_string().starts_with("vehicles[0].max_duration"),
            "{err}"
        );
        let mut p = problem();
        p.jobs[1].priority = 101;
        assert!(write(&p)
            .unwrap_err()
            .to_string()
            .starts_with("jobs[1].priority"));
    }

    #[test]
    fn endless_shifts_are_capped_at_the_readers_bound() {
        let mut p = problem();
        p.vehicles[1].shift = tw(100, Time::MAX / 4);
        let back = read(&write(&p).unwrap(), Objective::Duration)
            .unwrap()
            .problem;
        assert_eq!(back.vehicles[1].shift, tw(100, MAX_TIME));
    }
}
