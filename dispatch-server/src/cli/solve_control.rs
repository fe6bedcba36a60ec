//! How `dispatch solve` steers the search: the wall-clock deadline, Ctrl-C (SIGINT) and SIGTERM
//! as a request to stop early with the best solution so far, and progress on stderr.

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dispatch_core::solver::{Control, Progress};

/// Exit status of a solve stopped by SIGINT (Ctrl-C): 128 + 2, as shells report it. The best
/// solution found so far is on stdout, complete, with `"interrupted": true`.
pub const EXIT_INTERRUPTED: u8 = 130;
/// Exit status of a solve stopped by SIGTERM: 128 + 15.
pub const EXIT_TERMINATED: u8 = 143;

/// The stop signals, once registered. A first SIGINT or SIGTERM asks the search to stop; a
/// second SIGINT ends the process at once (exit status 1), for a user who wants out now.
pub struct Signals {
    interrupt: Arc<AtomicBool>,
    terminate: Arc<AtomicBool>,
}

impl Signals {
    /// Registers the handlers. Before this, a signal ends the process as usual.
    pub fn register() -> Result<Signals, String> {
        let interrupt = Arc::new(AtomicBool::new(false));
        let terminate = Arc::new(AtomicBool::new(false));
        let fail = |e: std::io::Error| format!("cannot handle stop signals: {e}");
        #[cfg(unix)]
        {
            use signal_hook::consts::{SIGINT, SIGTERM};
            // Order matters: the conditional exit sees the flag set by an earlier SIGINT only.
            signal_hook::flag::register_conditional_shutdown(SIGINT, 1, interrupt.clone())
                .map_err(fail)?;
            signal_hook::flag::register(SIGINT, interrupt.clone()).map_err(fail)?;
            signal_hook::flag::register(SIGTERM, terminate.clone()).map_err(fail)?;
        }
        #[cfg(not(unix))]
        let _ = fail;
        Ok(Signals {
            interrupt,
            terminate,
        })
    }

    fn raised(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed) || self.terminate.load(Ordering::Relaxed)
    }

    /// The exit status for a finished solve: set by the signal that stopped it, if any.
    pub fn exit_code(&self) -> Option<ExitCode> {
        if self.interrupt.load(Ordering::Relaxed) {
            Some(ExitCode::from(EXIT_INTERRUPTED))
        } else if self.terminate.load(Ordering::Relaxed) {
            Some(ExitCode::from(EXIT_TERMINATED))
        } else {
            None
        }
    }
}

/// Share of the set-up time (reading, parsing and preparing the instance) kept free at the end
/// of the budget for what follows the search: checking and printing the solution and the
/// process's exit, which frees what the set-up built. Both are work over the same data on the
/// same machine, so they slow down together under load; the tail measured 1.5-3 % of the
/// set-up on a 5 000-order day (0.10-0.18 s after 6.3 s), and 10 % leaves room for the load to
/// rise between the two.
const TAIL_PER_SETUP: f64 = 0.1;
/// A worker finishes the iteration it is in when told to stop, and may then polish a new best
/// at the end of its last epoch: this many mean iterations (of one worker) are kept free.
const ITERATIONS_IN_FLIGHT: f64 = 2.0;

/// Stops at a wall-clock deadline or a stop signal and reports improvements to stderr.
///
/// The search ends a reserve before the limit so that the whole command, from reading the file
/// to the process's exit, keeps to it: the reserve is sized from costs measured in this run (the
/// set-up, and the mean iteration so far), so it follows the instance's size and the machine's
/// load ([`Deadline::reserve`]).
pub struct Deadline {
    started: Instant,
    limit: Duration,
    /// Time from the command's start to the end of the set-up.
    setup: Duration,
    threads: usize,
    /// Whether stderr is a terminal (a progress bar) rather than a log (progress lines).
    pub terminal: bool,
    /// Divides matrix costs for display (the Euclidean formats' scale).
    pub unit: f64,
    /// Search iterations run so far (all threads).
    pub iterations: AtomicU64,
    /// The stop signals.
    pub signals: Signals,
}

impl Deadline {
    /// A deadline `limit` after `started`, for a search whose set-up ended now and which runs
    /// `threads` workers.
    pub fn new(
        started: Instant,
        limit: Duration,
        threads: usize,
        terminal: bool,
        unit: f64,
        signals: Signals,
    ) -> Deadline {
        Deadline {
            started,
            limit,
            setup: started.elapsed(),
            threads: threads.max(1),
            terminal,
            unit,
            iterations: AtomicU64::new(0),
            signals,
        }
    }

    /// Whether a signal cut the search short.
    pub fn interrupted(&self) -> bool {
        self.signals.raised()
    }

    /// Time since the command started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// How long before the limit the search stops, by what this run has measured so far.
    pub fn reserve(&self) -> Duration {
        reserve(
            self.setup,
            self.started.elapsed(),
            self.iterations.load(Ordering::Relaxed),
            self.threads,
        )
    }

    /// When the search stops, counted from the command's start.
    fn search_limit(&self) -> Duration {
        self.limit.saturating_sub(self.reserve())
    }
}

/// The reserve after `elapsed`, for a set-up that took `setup` and `iterations` search
/// iterations over `threads` workers since. The mean iteration counts the construction in: an
/// overestimate that fades as iterations accumulate.
fn reserve(setup: Duration, elapsed: Duration, iterations: u64, threads: usize) -> Duration {
    let tail = setup.as_secs_f64() * TAIL_PER_SETUP;
    let iteration = if iterations == 0 {
        0.0
    } else {
        elapsed.saturating_sub(setup).as_secs_f64() * threads as f64 / iterations as f64
    };
    Duration::from_secs_f64(tail + ITERATIONS_IN_FLIGHT * iteration)
}

impl Control for Deadline {
    fn should_stop(&self) -> bool {
        self.signals.raised() || self.started.elapsed() >= self.search_limit()
    }

    fn on_improvement(&self, p: &Progress) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let cost = p.cost as f64 / self.unit;
        let mut err = std::io::stderr().lock();
        // Progress is best effort: a closed stderr must not stop the search.
        let _ = if self.terminal {
            let limit = self.search_limit().as_secs_f64().max(1e-9);
            let filled = ((elapsed / limit).min(1.0) * 30.0) as usize;
            write!(
                err,
                "\r[{}{}] {elapsed:6.2}s  vehicles {:3}  cost {cost:.2}  unassigned {}   ",
                "#".repeat(filled),
                " ".repeat(30 - filled),
                p.vehicles,
                p.unassigned
            )
        } else {
            writeln!(
                err,
                "progress elapsed_s={elapsed:.3} iteration={} vehicles={} cost={cost:.2} unassigned={}",
                p.iteration, p.vehicles, p.unassigned
            )
        };
    }

    fn on_iterations(&self, total: u64) {
        self.iterations.store(total, Ordering::Relaxed);
    }

    fn elapsed_fraction(&self) -> Option<f64> {
        let limit = self.search_limit().as_secs_f64();
        Some(if limit > 0.0 {
            (self.started.elapsed().as_secs_f64() / limit).min(1.0)
        } else {
            1.0
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    fn deadline(limit: f64, started_ago: f64, setup: f64) -> Deadline {
        let started = Instant::now()
            .checked_sub(secs(started_ago))
            .expect("the monotonic clock runs longer than the test's offsets");
        let mut d = Deadline::new(
            started,
            secs(limit),
            1,
            false,
            1.0,
            Signals::register().unwrap(),
        );
        d.setup = secs(setup);
        d
    }

    #[test]
    fn the_reserve_grows_with_the_measured_set_up_and_iteration_times() {
        assert_eq!(reserve(secs(6.0), secs(6.0), 0, 1), secs(0.6));
        assert_eq!(reserve(secs(0.0), secs(0.0), 0, 4), Duration::ZERO);
        // 1 000 iterations in 10 s after the set-up: 10 ms each on one worker, 40 ms on four.
        let one = reserve(secs(2.0), secs(12.0), 1_000, 1);
        assert!(
            (one.as_secs_f64() - (0.2 + 2.0 * 0.01)).abs() < 1e-9,
            "{one:?}"
        );
        let four = reserve(secs(2.0), secs(12.0), 1_000, 4);
        assert!(
            (four.as_secs_f64() - (0.2 + 2.0 * 0.04)).abs() < 1e-9,
            "{four:?}"
        );
    }

    #[test]
    fn the_search_stops_the_reserve_before_the_limit() {
        // 100 s limit, 98 s gone: a 6 s set-up reserves 0.6 s (stop at 99.4 s), a 30 s one 3 s.
        assert!(!deadline(100.0, 98.0, 6.0).should_stop());
        assert!(deadline(100.0, 98.0, 30.0).should_stop());
        // The cooling runs against the search's own end, not the command's.
        let d = deadline(100.0, 50.0, 30.0);
        let fraction = d.elapsed_fraction().unwrap();
        assert!(
            fraction > 50.0 / 100.0 && fraction < 50.5 / 97.0,
            "{fraction}"
        );
        // A reserve longer than the whole budget stops the search at once.
        assert!(deadline(1.0, 0.5, 20.0).should_stop());
    }
}
