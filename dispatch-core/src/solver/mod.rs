//! The vehicle-routing solver: [`problem::Problem`] in, [`solution::Solution`] out.
//!
//! Everything that decides feasibility is integer: [`problem::Time`], [`problem::Distance`] and
//! [`problem::Load`]. Readers of floating-point formats scale and round conservatively once, at the
//! edge (see [`formats`]).

pub mod checker;
pub mod formats;
pub mod problem;
pub mod solution;
