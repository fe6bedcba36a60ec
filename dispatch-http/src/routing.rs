//! What the route endpoints share: the travel matrix for re-timing and solving routes, the
//! dispatch deadline, and the per-depot booking queue (the spec's BOOKING_CHECK concurrency 1:
//! a depot's availability checks run one at a time, later ones wait their turn).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dispatch_core::ports::matrix::{GreatCircle, TravelMatrix};
use dispatch_core::ports::roads::RoadGeometry;

use crate::console::roads::Roads;

/// The spec's longest dispatch call.
pub const DISPATCH_DEADLINE: Duration = Duration::from_secs(120);

/// Shared by the route, dispatch and booking handlers.
pub struct Routing {
    /// Travel times and distances for reversing, re-solving and booking checks.
    pub matrix: Arc<dyn TravelMatrix>,
    /// How long a dispatch may take before it answers 503.
    pub dispatch_deadline: Duration,
    /// The roads the board's map draws routes along (`--osrm-url`); `None`: straight lines.
    pub roads: Option<Arc<Roads>>,
    booking: Mutex<HashMap<i64, Arc<tokio::sync::Mutex<()>>>>,
}

impl Routing {
    /// Routing over `matrix` with the spec's dispatch deadline.
    pub fn new(matrix: Arc<dyn TravelMatrix>) -> Routing {
        Routing {
            matrix,
            dispatch_deadline: DISPATCH_DEADLINE,
            roads: None,
            booking: Mutex::new(HashMap::new()),
        }
    }

    /// The same, with the board's map drawing routes along `geometry`'s roads.
    pub fn with_roads(mut self, geometry: Arc<dyn RoadGeometry>) -> Routing {
        self.roads = Some(Arc::new(Roads::new(geometry)));
        self
    }

    /// The depot's booking queue: hold the guard of its lock while checking.
    pub fn booking_queue(&self, depot_id: i64) -> Arc<tokio::sync::Mutex<()>> {
        let mut queues = self.booking.lock().unwrap_or_else(|e| e.into_inner());
        queues.entry(depot_id).or_default().clone()
    }
}

impl Default for Routing {
    fn default() -> Routing {
        Routing::new(Arc::new(
            GreatCircle::new(GreatCircle::DEFAULT_SPEED_KMH).expect("a valid speed"),
        ))
    }
}

impl std::fmt::Debug for Routing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Routing")
            .field("dispatch_deadline", &self.dispatch_deadline)
            .finish_non_exhaustive()
    }
}
