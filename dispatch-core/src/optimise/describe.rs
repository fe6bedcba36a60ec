//! Sentences for orders the solver left out, with the order's specifics: the skills it needs,
//! the load that does not fit, the windows no vehicle reaches.

use super::{BuiltDay, DayTime, LOAD_SCALE};
use crate::solver::problem::{Load, Skills, TimeWindow};
use crate::solver::solution::{Reason, Step};

fn skill_list(built: &BuiltDay, skills: &Skills) -> Vec<String> {
    skills
        .indices()
        .filter_map(|i| built.skill_names.get(i))
        .filter(|n| !n.starts_with('\0'))
        .cloned()
        .collect()
}

fn amount(load: Load) -> String {
    let whole = load as f64 / LOAD_SCALE;
    format!("{whole}")
}

fn clock(t: i64) -> String {
    let d = DayTime(t);
    match d.day_offset() {
        0 => d.time_of_day().to_string(),
        n => format!("{} (+{n} d)", d.time_of_day()),
    }
}

fn window_list(windows: &[TimeWindow]) -> String {
    windows
        .iter()
        .map(|w| format!("{}-{}", clock(w.start), clock(w.end)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The reason's sentence plus what about the task made it so.
pub(crate) fn describe(built: &BuiltDay, task: Step, reason: Reason) -> String {
    let p = &built.problem;
    let general = super::UnservedReason::from(reason).description();
    let (skills, pinned, need, windows): (&Skills, Option<usize>, Vec<Load>, Vec<&[TimeWindow]>) =
        match task {
            Step::Job(i) => {
                let j = &p.jobs[i];
                let need = j
                    .delivery
                    .iter()
                    .zip(&j.pickup)
                    .map(|(d, u)| *d.max(u))
                    .collect();
                (
                    &j.skills,
                    j.pinned_vehicle,
                    need,
                    vec![&j.place.time_windows[..]],
                )
            }
            Step::Pickup(i) | Step::Delivery(i) => {
                let s = &p.shipments[i];
                let w = vec![&s.pickup.time_windows[..], &s.delivery.time_windows[..]];
                (&s.skills, s.pinned_vehicle, s.amount.clone(), w)
            }
            Step::Break(_) => return general.to_owned(),
        };
    let assigned = pinned.map(|v| built.vehicle_ids[v]);
    let detail = match reason {
        Reason::Skills => {
            let names = skill_list(built, skills);
            match assigned {
                Some(v) => format!(
                    "it needs {}; its assigned vehicle {v} lacks some",
                    names.join(", ")
                ),
                None => format!("it needs {}", names.join(", ")),
            }
        }
        Reason::Capacity => {
            let eligible: Vec<usize> = match pinned {
                Some(v) => vec![v],
                None => (0..p.vehicles.len()).collect(),
            };
            let over: Vec<String> = (0..p.dimensions)
                .filter_map(|d| {
                    let most = eligible.iter().map(|&v| p.vehicles[v].capacity[d]).max()?;
                    (need[d] > most).then(|| {
                        format!(
                            "{} {} (the largest vehicle holds {})",
                            amount(need[d]),
                            built.capacity_names[d],
                            amount(most)
                        )
                    })
                })
                .collect();
            format!("it needs {}", over.join(", "))
        }
        Reason::TimeWindow => {
            let listed: Vec<String> = windows
                .iter()
                .filter(|w| !w.is_empty())
                .map(|w| window_list(w))
                .collect();
            format!("its windows are {}", listed.join("; "))
        }
        Reason::NoVehicle if p.vehicles.is_empty() => match built.not_before {
            Some(start) if !built.shifts_over.is_empty() => format!(
                "every shift on {} is over by {}, when this plan starts",
                built.date,
                start.time_of_day()
            ),
            _ => format!("no vehicle works on {}", built.date),
        },
        _ => return general.to_owned(),
    };
    format!("{general}: {detail}")
}
