//! Independent feasibility checker: re-simulates a solution from the problem alone.
