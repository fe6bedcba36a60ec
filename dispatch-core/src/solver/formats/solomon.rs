//! Solomon / Gehring-Homberger VRPTW text files.
//!
//! Layout: the instance name on the first line; a `VEHICLE` block whose value line is
//! `NUMBER CAPACITY`; a `CUSTOMER` block with header lines and then one line per node,
//! `CUST_NO XCOORD YCOORD DEMAND READY_TIME DUE_DATE SERVICE_TIME`. The first node is the depot.
//!
//! Conventions: Euclidean travel (time = distance), every vehicle's shift is the depot's window and
//! every route starts and ends at the depot; `DUE_DATE` is the latest start of service; one load
//! dimension. Task ids are the node numbers.

use std::collections::HashSet;

use super::text::{
    depot_fleet, error, fleet_size, is_numeric, node_lines, node_place, token_lines, window,
};
use super::{Convention, Format, FormatError, Instance};
use crate::solver::problem::{Job, Objective, Problem, Skills};

/// The columns of a node line.
const COLUMNS: &str = "CUST_NO XCOORD YCOORD DEMAND READY_TIME DUE_DATE SERVICE_TIME";

/// Reads a Solomon or Gehring-Homberger file, travel in the given convention.
pub fn read(
    text: &str,
    objective: Objective,
    convention: Convention,
) -> Result<Instance, FormatError> {
    let mut lines = token_lines(text).peekable();
    let (_, first) = lines.next().ok_or_else(|| error(1, "the file is empty"))?;
    let name = first.join(" ");

    let (vehicle_line, _) = lines
        .by_ref()
        .find(|(_, t)| t.len() == 1 && t[0].eq_ignore_ascii_case("VEHICLE"))
        .ok_or_else(|| error(text.lines().count().max(1), "no VEHICLE section"))?;
    let (fleet_line, fleet) = lines
        .by_ref()
        .find(|(_, t)| is_numeric(t) || t[0].eq_ignore_ascii_case("CUSTOMER"))
        .ok_or_else(|| {
            error(
                vehicle_line,
                "the VEHICLE section has no NUMBER CAPACITY line",
            )
        })?;
    if fleet.len() != 2 || !is_numeric(&fleet) {
        return Err(error(
            fleet_line,
            "expected the VEHICLE values `NUMBER CAPACITY`",
        ));
    }
    let (count, capacity) = fleet_size(fleet[0], fleet[1], fleet_line)?;

    let (customer_line, _) = lines
        .by_ref()
        .find(|(_, t)| t.len() == 1 && t[0].eq_ignore_ascii_case("CUSTOMER"))
        .ok_or_else(|| error(fleet_line, "no CUSTOMER section after the VEHICLE section"))?;
    // Header lines (`CUST NO. XCOORD. ...`) precede the first data line.
    while lines.next_if(|(_, t)| !is_numeric(t)).is_some() {}
    let nodes = node_lines(lines, COLUMNS)?;
    let depot = nodes
        .first()
        .ok_or_else(|| error(customer_line, "the CUSTOMER section has no depot line"))?;

    let mut seen = HashSet::new();
    for n in &nodes {
        if n.number < 0 || !seen.insert(n.number) {
            return Err(error(
                n.line,
                format!("customer number {} is negative or repeated", n.number),
            ));
        }
        if n.demand < 0 {
            return Err(error(n.line, format!("demand {} is negative", n.demand)));
        }
    }

    let shift = window(depot.ready, depot.due, depot.line)?;
    let jobs = nodes[1..]
        .iter()
        .enumerate()
        .map(|(i, n)| {
            Ok(Job {
                id: n.number as u64,
                place: node_place(i + 1, n)?,
                delivery: vec![n.demand],
                pickup: vec![0],
                skills: Skills::default(),
                priority: 0,
                pinned_vehicle: None,
            })
        })
        .collect::<Result<Vec<_>, FormatError>>()?;
    let vehicles = depot_fleet(count, capacity, shift);
    let (matrix, plane) =
        super::text::euclidean(nodes.iter().map(|n| (n.x, n.y)).collect(), convention);
    Ok(Instance {
        problem: Problem {
            name,
            matrix,
            jobs,
            shipments: Vec::new(),
            vehicles,
            dimensions: 1,
            objective,
        },
        format: Format::Solomon,
        plane: Some(plane),
        vroom: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::formats::SCALE;

    const SMALL: &str = "TINY\r\n\r\nVEHICLE\r\nNUMBER     CAPACITY\r\n  2         50\r\n\r\nCUSTOMER\r\nCUST NO.  XCOORD.   YCOORD.    DEMAND   READY TIME  DUE DATE   SERVICE   TIME\r\n \r\n    0      0         0          0          0       100          0   \r\n    1      3         4         10        5        50         2   \r\n    2      6         8         20        0        60         3   \r\n";

    #[test]
    fn reads_fleet_depot_window_and_scaled_customers() {
        let inst = read(SMALL, Objective::Distance, Convention::Exact).unwrap();
        let p = &inst.problem;
        assert_eq!(p.name, "TINY");
        assert_eq!(p.vehicles.len(), 2);
        assert_eq!(p.vehicles[0].capacity, vec![50]);
        assert_eq!(p.vehicles[0].shift.end, 100 * SCALE);
        assert_eq!(p.jobs.len(), 2);
        assert_eq!(p.jobs[1].id, 2);
        assert_eq!(p.jobs[0].place.service, 2 * SCALE);
        assert_eq!(p.jobs[0].place.time_windows[0].start, 5 * SCALE);
        assert_eq!(p.matrix.distance(0, 1), 5 * SCALE);
        assert_eq!(p.matrix.duration(1, 2), 5 * SCALE);
    }

    #[test]
    fn a_short_node_line_names_its_line() {
        let bad = SMALL.replace("20        0        60         3", "20        0");
        let err = read(&bad, Objective::Distance, Convention::Exact).unwrap_err();
        assert!(matches!(err, FormatError::Line { line: 12, .. }), "{err}");
    }

    #[test]
    fn a_missing_vehicle_section_is_an_error() {
        let err = read(
            "X\nCUSTOMER\n0 0 0 0 0 1 0\n",
            Objective::Distance,
            Convention::Exact,
        )
        .unwrap_err();
        assert!(err.to_string().contains("VEHICLE"), "{err}");
    }
}
