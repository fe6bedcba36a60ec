//! The wake-up call from request handlers to idle background workers (optimisation jobs,
//! image compression), which run in the same process.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Wakes idle workers when work is queued. Cheap to clone; a signal nobody waits for is
/// harmless.
#[derive(Debug, Clone, Default)]
pub struct JobSignal(Arc<(Mutex<u64>, Condvar)>);

impl JobSignal {
    /// Tells the workers work is waiting.
    pub fn notify(&self) {
        let (count, cv) = &*self.0;
        *count.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        cv.notify_all();
    }

    /// Waits until notified after `seen` or until `timeout`; returns the new count.
    pub fn wait(&self, seen: u64, timeout: Duration) -> u64 {
        let (count, cv) = &*self.0;
        let guard = count.lock().unwrap_or_else(|e| e.into_inner());
        let (guard, _) = cv
            .wait_timeout_while(guard, timeout, |c| *c == seen)
            .unwrap_or_else(|e| e.into_inner());
        *guard
    }

    /// How many times it was notified.
    pub fn current(&self) -> u64 {
        *self.0 .0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
