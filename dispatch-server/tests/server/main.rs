//! The `dispatch` binary driven as a subprocess: `solve` (output, determinism, interruption),
//! `POST /vroom`, and the middleware through the real process.

mod middleware_e2e;
mod serve;
mod solve_cli;
mod solve_interrupt;
mod vroom_api;
