//! The clocks behind the core's `Clock` port: the wall clock, and a simulation's clock.

use std::time::Instant;

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

/// A simulation's clock (`serve --simulate`): it shows `start` when made and then runs
/// `speed` times as fast as the wall clock, so a depot's day can pass in minutes. It follows
/// the machine's monotonic clock, so stepping the system clock does not move it.
#[derive(Debug, Clone, Copy)]
pub struct SimulatedClock {
    start: Timestamp,
    anchor: Instant,
    speed: f64,
}

impl SimulatedClock {
    /// A clock showing `start` now and running `speed` (finite, above 0) times as fast as the
    /// wall clock.
    pub fn new(start: Timestamp, speed: f64) -> Self {
        assert!(
            speed.is_finite() && speed > 0.0,
            "a clock speed is finite and above 0"
        );
        SimulatedClock {
            start,
            anchor: Instant::now(),
            speed,
        }
    }

    /// The instant the clock started at.
    pub fn start(&self) -> Timestamp {
        self.start
    }
}

impl Clock for SimulatedClock {
    fn now(&self) -> Timestamp {
        let passed = self.anchor.elapsed().as_secs_f64() * 1000.0 * self.speed;
        self.start.add_millis(passed as i64)
    }

    fn speed(&self) -> f64 {
        self.speed
    }

    fn is_simulated(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_simulated_clock_starts_where_asked_and_runs_at_its_speed() {
        let start = Timestamp::parse("2026-12-02T06:00:00.000Z").unwrap();
        let clock = SimulatedClock::new(start, 600.0);
        let first = clock.now();
        assert!(
            first >= start && first.millis() - start.millis() < 600 * 50,
            "{first}"
        );
        std::thread::sleep(Duration::from_millis(100));
        let passed = clock.now().millis() - start.millis();
        // 100 ms of wall time is a minute at speed 600 (scheduling may add a little).
        assert!((60_000..600_000).contains(&passed), "{passed} ms passed");
        assert!(clock.is_simulated() && !SystemClock.is_simulated());
    }

    #[test]
    fn leases_and_waits_are_scaled_by_the_speed() {
        let clock = SimulatedClock::new(Timestamp::from_millis(0), 1000.0);
        assert_eq!(clock.span_of(Duration::from_secs(10)), 10_000_000);
        assert_eq!(
            clock.wall_time_of(Duration::from_secs(60)),
            Duration::from_millis(60)
        );
        assert_eq!(SystemClock.span_of(Duration::from_secs(10)), 10_000);
        assert_eq!(
            SystemClock.wall_time_of(Duration::from_secs(3)),
            Duration::from_secs(3)
        );
    }
}
