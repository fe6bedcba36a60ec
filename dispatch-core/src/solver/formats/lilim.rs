//! Li & Lim PDPTW text files.
//!
//! Layout: a first line `K Q S` (vehicles, capacity, speed), then one line per task,
//! `NO X Y DEMAND READY DUE SERVICE PICKUP DELIVERY`; the first task is the depot. A pickup has
//! `PICKUP = 0`, `DELIVERY` = its delivery's number and a non-negative demand; its delivery has
//! `PICKUP` = the pickup's number, `DELIVERY = 0` and the negated demand. Each pair becomes a
//! [`Shipment`] whose ids are the two node numbers.
//!
//! Conventions as for Solomon (and the operator interface): Euclidean distance, travel time equal
//! to distance, the depot's window is every vehicle's shift, routes start and end at the depot,
//! `DUE` is the latest start of service. The speed `S` is read but not used: the published files
//! say 1, except ten that say 0 (e.g. `lc105`), and every published solution uses time = distance.

use std::collections::HashMap;

use super::text::{
    coordinate, depot_fleet, error, fleet_size, node_lines, node_place, token_lines, window,
    NodeLine,
};
use super::{Convention, Format, FormatError, Instance};
use crate::solver::problem::{Objective, Problem, Shipment, Skills};

/// The columns of a task line.
const COLUMNS: &str = "NO X Y DEMAND READY DUE SERVICE PICKUP DELIVERY";

type Task = NodeLine;

/// `(PICKUP, DELIVERY)`: the task numbers a line links to (the two columns after the common seven).
fn links(t: &Task) -> (i64, i64) {
    (t.rest[0], t.rest[1])
}

/// Reads a Li & Lim file, travel in the given convention.
pub fn read(
    text: &str,
    objective: Objective,
    convention: Convention,
) -> Result<Instance, FormatError> {
    let mut lines = token_lines(text);
    let (head_line, head) = lines.next().ok_or_else(|| error(1, "the file is empty"))?;
    if head.len() != 3 {
        return Err(error(
            head_line,
            "expected the header `VEHICLES CAPACITY SPEED`",
        ));
    }
    let (count, capacity) = fleet_size(head[0], head[1], head_line)?;
    coordinate(head[2], head_line, "speed")?;
    let tasks = node_lines(lines, COLUMNS)?;
    let depot = tasks
        .first()
        .ok_or_else(|| error(head_line, "no depot line after the header"))?;

    let mut by_number = HashMap::new();
    for (i, t) in tasks.iter().enumerate() {
        if t.number < 0 || by_number.insert(t.number, i).is_some() {
            return Err(error(
                t.line,
                format!("task number {} is negative or repeated", t.number),
            ));
        }
    }
    let mut shipments = Vec::new();
    let mut paired = vec![false; tasks.len()];
    for (i, t) in tasks.iter().enumerate().skip(1) {
        match links(t) {
            (0, 0) => {
                return Err(error(
                    t.line,
                    "task is neither a pickup nor a delivery (PICKUP and DELIVERY are both 0)",
                ))
            }
            (0, d) => {
                let j = *by_number
                    .get(&d)
                    .filter(|&&j| j != 0)
                    .ok_or_else(|| error(t.line, format!("delivery task {d} does not exist")))?;
                let del = &tasks[j];
                if links(del) != (t.number, 0) {
                    return Err(error(
                        del.line,
                        format!("task {} does not name pickup {} back", del.number, t.number),
                    ));
                }
                if t.demand < 0 || del.demand != -t.demand {
                    return Err(error(
                        del.line,
                        format!(
                            "delivery demand {} is not the negated pickup demand {}",
                            del.demand, t.demand
                        ),
                    ));
                }
                paired[i] = true;
                paired[j] = true;
                shipments.push(Shipment {
                    pickup_id: t.number as u64,
                    delivery_id: del.number as u64,
                    pickup: node_place(i, t)?,
                    delivery: node_place(j, del)?,
                    amount: vec![t.demand],
                    skills: Skills::default(),
                    priority: 0,
                    pinned_vehicle: None,
                });
            }
            (_, 0) => {}
            _ => {
                return Err(error(
                    t.line,
                    "task is both a pickup and a delivery (PICKUP and DELIVERY both non-zero)",
                ))
            }
        }
    }
    if let Some(t) = tasks.iter().skip(1).zip(&paired[1..]).find(|(_, &p)| !p) {
        return Err(error(
            t.0.line,
            format!(
                "delivery {} names pickup {} which does not name it back",
                t.0.number,
                links(t.0).0
            ),
        ));
    }

    let shift = window(depot.ready, depot.due, depot.line)?;
    let vehicles = depot_fleet(count, capacity, shift);
    let (matrix, plane) =
        super::text::euclidean(tasks.iter().map(|t| (t.x, t.y)).collect(), convention);
    Ok(Instance {
        problem: Problem {
            name: String::new(),
            matrix,
            jobs: Vec::new(),
            shipments,
            vehicles,
            dimensions: 1,
            objective,
        },
        format: Format::LiLim,
        plane: Some(plane),
        vroom: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "2\t10\t1\r\n0\t0\t0\t0\t0\t100\t0\t0\t0\r\n1\t3\t4\t-5\t0\t50\t1\t2\t0\r\n2\t6\t8\t5\t0\t50\t1\t0\t1\r\n";

    #[test]
    fn pairs_become_shipments_with_node_number_ids() {
        let inst = read(SMALL, Objective::VehiclesThenDistance, Convention::Exact).unwrap();
        let p = &inst.problem;
        assert_eq!(p.shipments.len(), 1);
        assert_eq!(p.shipments[0].pickup_id, 2);
        assert_eq!(p.shipments[0].delivery_id, 1);
        assert_eq!(p.shipments[0].pickup.location, 2);
        assert_eq!(p.shipments[0].amount, vec![5]);
        assert_eq!(p.vehicles.len(), 2);
        assert!(p.jobs.is_empty());
    }

    #[test]
    fn a_delivery_that_does_not_point_back_is_an_error_on_its_line() {
        let bad = SMALL.replace("1\t3\t4\t-5\t0\t50\t1\t2\t0", "1\t3\t4\t-5\t0\t50\t1\t7\t0");
        let err = read(&bad, Objective::Distance, Convention::Exact).unwrap_err();
        assert!(matches!(err, FormatError::Line { line: 3, .. }), "{err}");
    }

    #[test]
    fn the_speed_field_does_not_change_travel_times() {
        let zero = read(
            &SMALL.replacen("2\t10\t1", "2\t10\t0", 1),
            Objective::Distance,
            Convention::Exact,
        )
        .unwrap();
        let one = read(SMALL, Objective::Distance, Convention::Exact).unwrap();
        assert_eq!(zero.problem.matrix, one.problem.matrix);
        assert_eq!(
            one.problem.matrix.duration(0, 1),
            5 * crate::solver::formats::SCALE
        );
    }

    #[test]
    fn mismatched_demands_are_an_error() {
        let bad = SMALL.replace("-5", "-4");
        let err = read(&bad, Objective::Distance, Convention::Exact).unwrap_err();
        assert!(err.to_string().contains("negated"), "{err}");
    }
}
