//! The solver's integration tests, one module per concern; every solution is verified by the
//! independent checker.

mod solver_engine_common;
mod solver_support;

mod checker;
mod constraints;
mod engine_constraints;
mod engine_properties;
mod formats;
mod placement_bound;
mod population;
mod precheck;
mod properties;
mod strategy;
mod timetable;
mod vroom_answers;
mod vroom_keys;
mod warm_start;
mod workers;
