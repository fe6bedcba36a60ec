//! The clock port: the core never reads the system clock itself.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use crate::time::Timestamp;

/// A source of the current time.
pub trait Clock: Send + Sync {
    /// The current instant.
    fn now(&self) -> Timestamp;

    /// How many times as fast as the wall clock this clock runs: 1 for the wall clock, more
    /// for a simulation's clock that passes a day in minutes.
    fn speed(&self) -> f64 {
        1.0
    }

    /// Whether this is a simulation's clock (started at a chosen instant, possibly running
    /// faster than the wall clock) rather than the wall clock.
    fn is_simulated(&self) -> bool {
        false
    }

    /// The milliseconds of this clock that pass while `wall` passes on the wall clock: the
    /// length of a lease written in this clock's time but renewed by a worker that waits in
    /// wall time.
    fn span_of(&self, wall: Duration) -> i64 {
        let ms = wall.as_secs_f64() * 1000.0 * self.speed();
        if ms >= i64::MAX as f64 {
            i64::MAX
        } else {
            ms as i64
        }
    }

    /// The wall time in which `span` of this clock's time passes: how long a worker that waits
    /// for a time of this clock (a retry, the next poll) sleeps.
    fn wall_time_of(&self, span: Duration) -> Duration {
        Duration::try_from_secs_f64(span.as_secs_f64() / self.speed()).unwrap_or(Duration::MAX)
    }
}

/// A clock that stands still until moved; for tests and simulations.
#[derive(Debug)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    /// A clock showing `start`.
    pub fn new(start: Timestamp) -> Self {
        ManualClock(AtomicI64::new(start.millis()))
    }

    /// Moves the clock forward by `millis` milliseconds.
    pub fn advance_millis(&self, millis: i64) {
        self.0.fetch_add(millis, Ordering::SeqCst);
    }

    /// Sets the clock to `at`.
    pub fn set(&self, at: Timestamp) {
        self.0.store(at.millis(), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_millis(self.0.load(Ordering::SeqCst))
    }
}
