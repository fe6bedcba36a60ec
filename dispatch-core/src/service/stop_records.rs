//! What a read of a stop shows beside the stop itself: the driver's records (visits, calls,
//! notes; [`driver`]) and the proof of delivery ([`proof`]), each read once for all the stops
//! of a route. The plan, order and driver reads all show them, so they sit below those use
//! cases.

pub mod driver;
pub mod proof;

pub use driver::{DriverReadSettings, RouteDriverRecords, StopDriverView};
pub use proof::{stop_proof, RouteProof};
