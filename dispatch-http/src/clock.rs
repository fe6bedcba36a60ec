//! The system clock behind the core's `Clock` port.

use dispatch_core::ports::clock::Clock;
use dispatch_core::time::Timestamp;

/// Wall-clock time in UTC.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        Timestamp::from_millis(millis)
    }
}
