//! Shared pieces of the whitespace-separated text formats.

use super::{Convention, FormatError, Plane, SCALE};
use crate::solver::problem::{Matrix, Place, Skills, Time, TimeWindow, Vehicle};
use crate::solver::travel::{Euclidean, Point};

/// Largest absolute time, demand or coordinate accepted from a file, so that scaled values and
/// their sums along routes stay far from overflow.
const MAX_VALUE: i64 = 10_000_000;

/// The non-blank lines of `text` with their 1-based numbers, split into tokens.
pub(super) fn token_lines(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split_whitespace().collect::<Vec<_>>()))
        .filter(|(_, tokens)| !tokens.is_empty())
}

pub(super) fn error(line: usize, message: impl Into<String>) -> FormatError {
    FormatError::Line {
        line,
        message: message.into(),
    }
}

/// An integer field; decimals are refused because times and demands must scale exactly.
pub(super) fn int(token: &str, line: usize, what: &str) -> Result<i64, FormatError> {
    let value: i64 = token
        .parse()
        .map_err(|_| error(line, format!("{what} `{token}` is not an integer")))?;
    if value.abs() > MAX_VALUE {
        return Err(error(line, format!("{what} {value} is too large")));
    }
    Ok(value)
}

/// A coordinate (any finite decimal).
pub(super) fn coordinate(token: &str, line: usize, what: &str) -> Result<f64, FormatError> {
    match token.parse::<f64>() {
        Ok(v) if v.is_finite() && v.abs() <= MAX_VALUE as f64 => Ok(v),
        _ => Err(error(line, format!("{what} `{token}` is not a number"))),
    }
}

/// One node line of the Euclidean formats, unscaled: the seven values every layout starts with
/// (number, x, y, demand, ready, due, service) and any further integer columns in `rest`.
pub(super) struct NodeLine {
    pub line: usize,
    pub number: i64,
    pub x: f64,
    pub y: f64,
    pub demand: i64,
    pub ready: i64,
    pub due: i64,
    pub service: i64,
    pub rest: Vec<i64>,
}

/// Reads a node line laid out as `columns` (the column names, space-separated, the first seven
/// being the common ones); a value that does not parse is named after its column.
fn node_line(line: usize, tokens: &[&str], columns: &str) -> Result<NodeLine, FormatError> {
    let names: Vec<&str> = columns.split_whitespace().collect();
    if tokens.len() != names.len() {
        return Err(error(
            line,
            format!(
                "expected {} values ({columns}), found {}",
                names.len(),
                tokens.len()
            ),
        ));
    }
    let int_at = |i: usize| int(tokens[i], line, names[i]);
    Ok(NodeLine {
        line,
        number: int_at(0)?,
        x: coordinate(tokens[1], line, names[1])?,
        y: coordinate(tokens[2], line, names[2])?,
        demand: int_at(3)?,
        ready: int_at(4)?,
        due: int_at(5)?,
        service: int_at(6)?,
        rest: (7..names.len()).map(int_at).collect::<Result<_, _>>()?,
    })
}

/// The node lines that follow a layout's header, each laid out as `columns`.
pub(super) fn node_lines<'a>(
    lines: impl Iterator<Item = (usize, Vec<&'a str>)>,
    columns: &str,
) -> Result<Vec<NodeLine>, FormatError> {
    lines
        .map(|(line, tokens)| node_line(line, &tokens, columns))
        .collect()
}

/// Where and when a node is served: matrix `location`, its window and service time scaled, no
/// set-up (the layouts have none).
pub(super) fn node_place(location: usize, n: &NodeLine) -> Result<Place, FormatError> {
    Ok(Place {
        location,
        setup: 0,
        service: duration(n.service, n.line, "service time")?,
        time_windows: vec![window(n.ready, n.due, n.line)?],
    })
}

/// True when every token parses as a number (a data line rather than a header).
pub(super) fn is_numeric(tokens: &[&str]) -> bool {
    tokens.iter().all(|t| t.parse::<f64>().is_ok())
}

/// The scaled window `[ready, due]`, checked to be non-empty and non-negative.
pub(super) fn window(ready: i64, due: i64, line: usize) -> Result<TimeWindow, FormatError> {
    if ready < 0 || due < ready {
        return Err(error(
            line,
            format!("time window [{ready}, {due}] is empty or negative"),
        ));
    }
    Ok(TimeWindow {
        start: ready * SCALE,
        end: due * SCALE,
    })
}

/// The vehicle count and capacity of a fleet line, checked to be non-negative.
pub(super) fn fleet_size(
    count: &str,
    capacity: &str,
    line: usize,
) -> Result<(u64, i64), FormatError> {
    let (count, capacity) = (
        int(count, line, "vehicle number")?,
        int(capacity, line, "capacity")?,
    );
    if count < 0 || capacity < 0 {
        return Err(error(
            line,
            "vehicle number and capacity must not be negative",
        ));
    }
    Ok((count as u64, capacity))
}

/// The classic sets' fleet: `count` identical vehicles numbered from 1, leaving from and
/// returning to node 0 (the depot) within `shift`.
pub(super) fn depot_fleet(count: u64, capacity: i64, shift: TimeWindow) -> Vec<Vehicle> {
    (0..count)
        .map(|id| Vehicle {
            id: id + 1,
            start: Some(0),
            end: Some(0),
            capacity: vec![capacity],
            skills: Skills::default(),
            shift,
            breaks: Vec::new(),
            max_duration: None,
            max_travel_time: None,
            max_tasks: None,
        })
        .collect()
}

/// A non-negative scaled duration.
pub(super) fn duration(value: i64, line: usize, what: &str) -> Result<Time, FormatError> {
    if value < 0 {
        return Err(error(line, format!("{what} {value} is negative")));
    }
    Ok(value * SCALE)
}

/// The DIMACS / CVRPLIB arc from `a` to `b` in whole tenths: the Euclidean distance truncated
/// to one decimal. The matrix and the checker's re-check share it so they cannot disagree.
pub(crate) fn dimacs_tenths(a: (f64, f64), b: (f64, f64)) -> i64 {
    ((a.0 - b.0).hypot(a.1 - b.1) * 10.0).floor() as i64
}

/// The scaled Euclidean matrix over `points` (travel time = distance), and the plane kept for
/// double-precision checks.
pub(super) fn euclidean(points: Vec<(f64, f64)>, convention: Convention) -> (Matrix, Plane) {
    let matrix = match convention {
        Convention::Exact => {
            let pts: Vec<Point> = points.iter().map(|&(x, y)| Point::new(x, y)).collect();
            // Coordinates are bounded by MAX_VALUE, so every scaled distance is in range.
            Euclidean::new(SCALE, 1.0)
                .expect("a positive scale and speed")
                .matrix(&pts)
                .expect("finite, bounded coordinates give a valid matrix")
        }
        Convention::Dimacs => {
            let tenths: Vec<i64> = points
                .iter()
                .flat_map(|&a| points.iter().map(move |&b| dimacs_tenths(a, b)))
                .map(|t| t * (SCALE / 10))
                .collect();
            Matrix::from_durations(points.len(), tenths).expect("square, non-negative")
        }
    };
    (
        matrix,
        Plane {
            points,
            scale: SCALE,
            speed: 1.0,
            convention,
        },
    )
}
