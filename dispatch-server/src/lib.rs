//! dispatch-server: the `dispatch` binary's process around the library crates.
//!
//! - [`cli`]: the subcommands (`serve`, `worker`, `seed`, `solve`, `export-problem`, `webhooks`,
//!   `keys`) and their flags; [`cli::database`] is the one place that knows both stores.
//! - [`runtime`]: the background workers' loops (optimisation jobs, webhook delivery,
//!   notification sending, image compression).
//! - [`travel`]: the travel matrices `serve` and `worker` plan on (great circle, OSRM).

pub mod cli;
pub mod redact;
pub mod runtime;
pub mod travel;
