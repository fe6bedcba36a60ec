//! dispatch-server: the `dispatch` binary's process around the library crates.
//!
//! - [`cli`]: the subcommands (`serve`, `worker`, `seed`, `solve`, `export-problem`, `webhooks`,
//!   `keys`) and their flags; [`cli::database`] is the one place that knows both stores.
//! - [`runtime`]: the background workers' loops (optimisation jobs, webhook delivery,
//!   notification sending, image compression).
//!
//! The outbound adapters these wire in (OSRM, SMTP, the SMS gateway, webhook POSTs, the image
//! codec) are `dispatch-adapters`'.

pub mod cli;
pub mod runtime;
