//! Background work of the service, off the async runtime: the optimisation workers. Each is a
//! small loop over a core use case.

pub mod optimiser;
mod routing;
mod signal;

pub use optimiser::{Optimiser, OptimiserConfig};
pub use routing::{Routing, DISPATCH_DEADLINE};
pub use signal::JobSignal;
