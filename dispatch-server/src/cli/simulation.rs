//! `serve --simulate --clock-start --clock-speed`: the service on a simulated clock, so a
//! depot's whole day (plans, drivers' reports, notifications, webhooks) passes in minutes.
//! Never for production: every time the service keeps, writes and promises follows this clock.

use std::sync::Arc;

use dispatch_core::ports::clock::Clock;
use dispatch_core::time::Timestamp;
use dispatch_http::clock::{SimulatedClock, SystemClock};

/// The fastest simulated clock: a day in under a second and a half.
const FASTEST: f64 = 100_000.0;

/// The flags of a simulation.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SimulationArgs {
    /// Run on a simulated clock (with --clock-start and --clock-speed): for simulations and
    /// demonstrations, never for production. /healthz shows the clock.
    #[arg(long)]
    pub simulate: bool,
    /// The simulated clock's first instant, RFC 3339 (`2026-12-02T06:00:00Z`,
    /// `2026-12-02T07:00:00+01:00`); default: the wall clock's now. Only with --simulate.
    #[arg(long, value_name = "RFC3339", value_parser = rfc3339)]
    pub clock_start: Option<Timestamp>,
    /// How many times as fast as the wall clock the simulated clock runs (default 1; 600 passes
    /// a day in 2.4 minutes). Only with --simulate.
    #[arg(long, value_name = "N", value_parser = speed)]
    pub clock_speed: Option<f64>,
}

fn rfc3339(s: &str) -> Result<Timestamp, String> {
    chrono::DateTime::parse_from_rfc3339(s)
        .map(|t| Timestamp::from_millis(t.timestamp_millis()))
        .map_err(|e| {
            format!("`{s}` is not an RFC 3339 date and time (e.g. 2026-12-02T06:00:00Z): {e}")
        })
}

fn speed(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= FASTEST => Ok(v),
        _ => Err(format!(
            "`{s}` is not a clock speed above 0 and at most {FASTEST}"
        )),
    }
}

impl SimulationArgs {
    /// The clock the service runs on: the wall clock, or with --simulate the simulated one.
    /// --clock-start or --clock-speed without --simulate is refused: a production service must
    /// never run on a shifted or hurried clock because a variable was left set.
    pub fn clock(&self) -> Result<Arc<dyn Clock>, String> {
        if !self.simulate {
            if self.clock_start.is_some() || self.clock_speed.is_some() {
                return Err("--clock-start and --clock-speed (DISPATCH_CLOCK_START, \
                            DISPATCH_CLOCK_SPEED) run the service on a simulated clock, which \
                            only a simulation may do: add --simulate (DISPATCH_SIMULATE=true), \
                            never in production, or remove them"
                    .into());
            }
            return Ok(Arc::new(SystemClock));
        }
        let start = self.clock_start.unwrap_or_else(|| SystemClock.now());
        let speed = self.clock_speed.unwrap_or(1.0);
        tracing::warn!(
            clock_start = %start,
            clock_speed = speed,
            "SIMULATION: the service runs on a simulated clock (not for production): every time it keeps, writes and promises follows it; /healthz shows it"
        );
        Ok(Arc::new(SimulatedClock::new(start, speed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_flags_without_simulate_are_refused_and_say_what_to_add() {
        let args = SimulationArgs {
            clock_speed: Some(600.0),
            ..SimulationArgs::default()
        };
        let e = args.clock().err().expect("refused");
        assert!(e.contains("--simulate") && e.contains("production"), "{e}");
        assert!(!SimulationArgs::default().clock().unwrap().is_simulated());
    }

    #[test]
    fn starts_and_speeds_are_checked() {
        assert_eq!(
            rfc3339("2026-12-02T07:00:00+01:00").unwrap(),
            Timestamp::parse("2026-12-02T06:00:00.000Z").unwrap()
        );
        assert!(rfc3339("2026-12-02 06:00")
            .unwrap_err()
            .contains("RFC 3339"));
        assert_eq!(speed("600").unwrap(), 600.0);
        for bad in ["0", "-2", "NaN", "inf", "1000000", "x"] {
            assert!(speed(bad).is_err(), "{bad}");
        }
    }
}
