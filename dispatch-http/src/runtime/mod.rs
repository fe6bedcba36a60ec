//! Background work of the service, off the async runtime: the optimisation workers. Each is a
//! small loop over a core use case.

mod signal;

pub use signal::JobSignal;
