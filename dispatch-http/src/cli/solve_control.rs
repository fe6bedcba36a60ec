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

/// Stops at a wall-clock deadline or a stop signal and reports improvements to stderr.
pub struct Deadline {
    pub started: Instant,
    pub limit: Duration,
    pub terminal: bool,
    /// Divides matrix costs for display (the Euclidean formats' scale).
    pub unit: f64,
    /// Search iterations run so far (all threads).
    pub iterations: AtomicU64,
    pub signals: Signals,
}

impl Deadline {
    /// Whether a signal cut the search short.
    pub fn interrupted(&self) -> bool {
        self.signals.raised()
    }
}

impl Control for Deadline {
    fn should_stop(&self) -> bool {
        self.signals.raised() || self.started.elapsed() >= self.limit
    }

    fn on_improvement(&self, p: &Progress) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let cost = p.cost as f64 / self.unit;
        let mut err = std::io::stderr().lock();
        // Progress is best effort: a closed stderr must not stop the search.
        let _ = if self.terminal {
            let limit = self.limit.as_secs_f64().max(1e-9);
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
        let limit = self.limit.as_secs_f64();
        Some(if limit > 0.0 {
            (self.started.elapsed().as_secs_f64() / limit).min(1.0)
        } else {
            1.0
        })
    }
}
