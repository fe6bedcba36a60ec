//! Readers of instance file formats: Solomon / Gehring-Homberger VRPTW ([`solomon`]), Li & Lim
//! PDPTW ([`lilim`]) and VROOM-style JSON ([`vroom`]); the VROOM-style writer
//! ([`vroom_write`]) that exports a problem for replay; and VROOM's output format for solutions
//! ([`vroom_solution`]).
//!
//! Readers take the file's text (never a path) and the objective chosen by the caller, and return
//! an [`Instance`]: the [`Problem`] plus what is needed to print results in the file's terms.
//! Malformed input is a [`FormatError`] naming the line (and for JSON the column), never a panic.
//!
//! The Euclidean formats are scaled once, here, to the solver's integer units: one coordinate unit
//! becomes [`SCALE`] units, travel times are rounded *up* (so an integer-feasible schedule is
//! feasible with exact travel times), distances to the nearest unit, and the integer time windows
//! and service times of the files are scaled exactly. [`Convention::Dimacs`] instead truncates
//! every arc to one decimal, for comparisons with results published in that convention.

pub mod lilim;
pub mod solomon;
mod text;
pub(crate) use text::dimacs_tenths;
pub mod vroom;
pub mod vroom_solution;
pub mod vroom_write;

use std::str::FromStr;

use super::problem::{Objective, Problem};
use super::solution::Step;

/// Integer units per coordinate unit in the Euclidean formats.
/// One micro-unit: fine enough that rounding travel times up does not cut off published
/// best-known solutions that are tight in double precision (at 10 000 two of 652 were), small
/// enough that scaled sums stay far below `i64::MAX`.
pub const SCALE: i64 = 1_000_000;

/// A supported instance format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Solomon / Gehring-Homberger VRPTW text.
    Solomon,
    /// Li & Lim PDPTW text.
    LiLim,
    /// VROOM-style JSON problem.
    Vroom,
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        match s {
            "solomon" => Ok(Format::Solomon),
            "lilim" => Ok(Format::LiLim),
            "vroom" => Ok(Format::Vroom),
            other => Err(format!(
                "unknown format `{other}` (expected solomon, lilim or vroom)"
            )),
        }
    }
}

/// Why an instance could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// A text format is malformed at a line (1-based).
    #[error("line {line}: {message}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The JSON is malformed or has a value of the wrong type (positions are 1-based).
    #[error("line {line}, column {column}: {message}")]
    Json {
        /// 1-based line number.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The JSON is well-formed but a value is invalid; `path` names it, e.g. `jobs[3].location_index`.
    #[error("{path}: {message}")]
    Invalid {
        /// Where in the document.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// Auto-detection recognised none of the formats.
    #[error("unrecognised instance format: expected a Solomon or Li & Lim text file or a VROOM JSON problem")]
    Unrecognised,
}

/// How the Euclidean formats turn coordinates into travel times and distances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Convention {
    /// Exact Euclidean travel: times rounded up, distances to the nearest [`SCALE`] unit (the
    /// operator interface's convention for `dispatch solve`).
    #[default]
    Exact,
    /// DIMACS 2021 / CVRPLIB: every arc's distance *and* travel time truncated to one decimal.
    /// Only for comparing with results published in that convention.
    Dimacs,
}

/// Coordinates of every matrix location of a Euclidean instance, kept to re-check solutions in
/// double precision (see `checker::check_plane`).
#[derive(Debug, Clone, PartialEq)]
pub struct Plane {
    /// `(x, y)` of each location, indexed like the problem's matrix.
    pub points: Vec<(f64, f64)>,
    /// Integer units per coordinate unit (times and distances).
    pub scale: i64,
    /// Travel time = distance / speed.
    pub speed: f64,
    /// The convention the matrix was built in.
    pub convention: Convention,
}

/// A problem read from a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    /// What the solver gets. Task ids are the file's node numbers (Solomon, Li & Lim) or the JSON
    /// ids (VROOM), so results print without a further mapping.
    pub problem: Problem,
    /// The format it was read from.
    pub format: Format,
    /// Original coordinates for the Euclidean formats.
    pub plane: Option<Plane>,
    /// What a VROOM answer repeats of a VROOM-style problem ([`vroom_solution`]).
    pub vroom: Option<vroom::Echo>,
}

impl Instance {
    /// The id a step prints as: the node number or the JSON id of the task or break.
    pub fn step_id(&self, vehicle: usize, step: Step) -> u64 {
        let p = &self.problem;
        match step {
            Step::Job(i) => p.jobs[i].id,
            Step::Pickup(i) => p.shipments[i].pickup_id,
            Step::Delivery(i) => p.shipments[i].delivery_id,
            Step::Break(i) => p.vehicles[vehicle].breaks[i].id,
        }
    }

    /// The step of a node number of a text format (a job, or a shipment's pickup or delivery).
    pub fn node_step(&self, node: u64) -> Option<Step> {
        let p = &self.problem;
        if let Some(i) = p.jobs.iter().position(|j| j.id == node) {
            return Some(Step::Job(i));
        }
        p.shipments.iter().enumerate().find_map(|(i, s)| {
            if s.pickup_id == node {
                Some(Step::Pickup(i))
            } else if s.delivery_id == node {
                Some(Step::Delivery(i))
            } else {
                None
            }
        })
    }
}

/// Guesses the format: JSON if the text starts with `{`, Li & Lim if the first line holds three
/// numbers, Solomon if a line reads `VEHICLE`.
pub fn detect(text: &str) -> Result<Format, FormatError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('{') {
        return Ok(Format::Vroom);
    }
    let first = trimmed.lines().next().unwrap_or("");
    let tokens: Vec<&str> = first.split_whitespace().collect();
    if tokens.len() == 3 && tokens.iter().all(|t| t.parse::<f64>().is_ok()) {
        return Ok(Format::LiLim);
    }
    if trimmed
        .lines()
        .any(|l| l.trim().eq_ignore_ascii_case("VEHICLE"))
    {
        return Ok(Format::Solomon);
    }
    Err(FormatError::Unrecognised)
}

/// Reads `text` in `format` (detected when `None`) for the given objective, Euclidean formats in
/// the [`Convention::Exact`] convention.
pub fn read(
    text: &str,
    format: Option<Format>,
    objective: Objective,
) -> Result<Instance, FormatError> {
    read_with(text, format, objective, Convention::Exact)
}

/// As [`read`], with the convention for Euclidean formats (VROOM input ignores it).
pub fn read_with(
    text: &str,
    format: Option<Format>,
    objective: Objective,
    convention: Convention,
) -> Result<Instance, FormatError> {
    match format.map_or_else(|| detect(text), Ok)? {
        Format::Solomon => solomon::read(text, objective, convention),
        Format::LiLim => lilim::read(text, objective, convention),
        Format::Vroom => vroom::read(text, objective),
    }
}
