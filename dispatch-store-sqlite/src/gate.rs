//! The write gate: every writer of this process holds it for the length of its write
//! transaction, so one writes at a time and the others queue here in order instead of polling
//! SQLite's lock with the busy handler's sleeps (which made the tail latency of concurrent
//! writes jump by hundreds of milliseconds). The busy timeout still arbitrates between
//! processes (`seed` next to `serve`).
//!
//! Writers of callers' threads take it in turn as they would a mutex. The store's writer
//! thread keeps it while its jobs queue and, between two jobs, hands it to a waiting writer of
//! another thread, then sleeps until that one gives it back. A handed gate is reserved for the
//! side it was handed to until that side takes it: with a plain mutex a thread that unlocks
//! and locks again at once gets it back before a waiter that must first be woken, so the writer
//! would have to spin or sleep a guessed time to let the other in. Here neither side can take
//! the other's turn, and nobody waits longer than one transaction of the other side.

use std::sync::{Condvar, Mutex, MutexGuard};

/// The gate: who holds it, who waits, and where each side sleeps.
#[derive(Default)]
pub(crate) struct Gate {
    state: Mutex<State>,
    /// Writers of callers' threads sleep here.
    callers: Condvar,
    /// The writer thread sleeps here.
    writer: Condvar,
}

#[derive(Default)]
struct State {
    holder: Holder,
    /// Writers of callers' threads waiting for the gate.
    callers_waiting: usize,
    /// Whether the writer thread waits for the gate.
    writer_waiting: bool,
}

/// Who has the gate. `ForCaller` and `ForWriter`: given up to a side that waited, and only that
/// side may take it.
#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
enum Holder {
    #[default]
    Free,
    ForCaller,
    ForWriter,
    Caller,
    Writer,
}

/// The gate held by a writer of a caller's thread, until dropped.
pub(crate) struct CallerTurn<'a>(&'a Gate);

/// The gate held by the writer thread, until dropped.
pub(crate) struct WriterTurn<'a>(&'a Gate);

impl Gate {
    fn state(&self) -> MutexGuard<'_, State> {
        // Only the short sections below hold this lock, and none of them panics: a poisoned
        // lock still guards a consistent state.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for the gate (a writer of a caller's thread).
    pub(crate) fn lock(&self) -> CallerTurn<'_> {
        let mut state = self.state();
        state.callers_waiting += 1;
        while !matches!(state.holder, Holder::Free | Holder::ForCaller) {
            state = self.callers.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.callers_waiting -= 1;
        state.holder = Holder::Caller;
        CallerTurn(self)
    }

    /// Waits for the gate (the writer thread).
    pub(crate) fn lock_for_writer(&self) -> WriterTurn<'_> {
        self.take_for_writer(self.state());
        WriterTurn(self)
    }

    fn take_for_writer(&self, mut state: MutexGuard<'_, State>) {
        state.writer_waiting = true;
        while !matches!(state.holder, Holder::Free | Holder::ForWriter) {
            state = self.writer.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.writer_waiting = false;
        state.holder = Holder::Writer;
    }

    /// Gives the gate up: to the writer thread if `writer_first` and it waits, else to a
    /// waiting caller, else free. The side it goes to is woken after the state's lock is
    /// released, so that it does not wake only to wait for that lock.
    fn release(&self, writer_first: bool) {
        let mut state = self.state();
        let wake = if writer_first && state.writer_waiting {
            state.holder = Holder::ForWriter;
            Some(&self.writer)
        } else if state.callers_waiting > 0 {
            state.holder = Holder::ForCaller;
            Some(&self.callers)
        } else {
            state.holder = Holder::Free;
            None
        };
        drop(state);
        if let Some(side) = wake {
            side.notify_one();
        }
    }
}

impl WriterTurn<'_> {
    /// Between two of the writer thread's jobs: when a writer of another thread waits, hands it
    /// the gate and sleeps until that one has written and given it back; else keeps the gate.
    pub(crate) fn let_one_in(&mut self) {
        let gate = self.0;
        let mut state = gate.state();
        if state.callers_waiting == 0 {
            return;
        }
        state.holder = Holder::ForCaller;
        // Waiting from now, so that the caller's release comes back here, not to the next caller.
        state.writer_waiting = true;
        drop(state);
        gate.callers.notify_one();
        gate.take_for_writer(gate.state());
    }
}

impl Drop for WriterTurn<'_> {
    fn drop(&mut self) {
        self.0.release(false);
    }
}

impl Drop for CallerTurn<'_> {
    /// The writer thread, when it waits, comes before the next caller: callers that keep coming
    /// do not keep it from its queue either.
    fn drop(&mut self) {
        self.0.release(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    fn waiting(gate: &Gate, callers: usize, writer: bool) {
        while {
            let s = gate.state();
            s.callers_waiting != callers || s.writer_waiting != writer
        } {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn between_two_jobs_the_writer_lets_exactly_one_waiting_caller_in() {
        let gate = Gate::default();
        let log = Mutex::new(Vec::new());
        let mut turn = gate.lock_for_writer();
        std::thread::scope(|s| {
            for c in ["a", "b"] {
                let (gate, log) = (&gate, &log);
                s.spawn(move || {
                    let _turn = gate.lock();
                    log.lock().unwrap().push(c);
                });
            }
            waiting(&gate, 2, false);
            // As the writer thread runs its queue: a job, then one caller in, then the next.
            log.lock().unwrap().push("job 1");
            for job in ["job 2", "job 3", "job 4"] {
                turn.let_one_in();
                log.lock().unwrap().push(job);
            }
            drop(turn);
        });
        let log = log.into_inner().unwrap();
        // Whichever caller came first, each let in between two jobs; with none waiting the
        // writer went on.
        assert_eq!(log.len(), 6, "{log:?}");
        assert_eq!(
            [log[0], log[2], log[4], log[5]],
            ["job 1", "job 2", "job 3", "job 4"]
        );
        let mut callers = [log[1], log[3]];
        callers.sort_unstable();
        assert_eq!(callers, ["a", "b"]);
    }

    #[test]
    fn a_writer_that_waits_comes_before_the_next_caller() {
        let gate = Gate::default();
        let log = Mutex::new(Vec::new());
        let first = gate.lock();
        std::thread::scope(|s| {
            let (g, l) = (&gate, &log);
            s.spawn(move || {
                let _turn = g.lock_for_writer();
                l.lock().unwrap().push("writer");
            });
            waiting(&gate, 0, true);
            s.spawn(move || {
                let _turn = g.lock();
                l.lock().unwrap().push("caller");
            });
            waiting(&gate, 1, true);
            drop(first);
        });
        assert_eq!(log.into_inner().unwrap(), ["writer", "caller"]);
    }

    #[test]
    fn without_a_waiting_caller_the_writer_keeps_the_gate() {
        let gate = Gate::default();
        let mut turn = gate.lock_for_writer();
        turn.let_one_in();
        assert_eq!(gate.state().holder, Holder::Writer);
        drop(turn);
        assert_eq!(gate.state().holder, Holder::Free);
    }

    #[test]
    fn one_holder_at_a_time_while_both_sides_keep_coming() {
        let gate = Gate::default();
        let inside = AtomicBool::new(false);
        let enter = || assert!(!inside.swap(true, Ordering::SeqCst), "two holders at once");
        let leave = || inside.store(false, Ordering::SeqCst);
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    for _ in 0..2000 {
                        let _turn = gate.lock();
                        enter();
                        leave();
                    }
                });
            }
            for _ in 0..200 {
                let mut turn = gate.lock_for_writer();
                for _ in 0..10 {
                    enter();
                    leave();
                    turn.let_one_in();
                }
            }
        });
        assert_eq!(gate.state().holder, Holder::Free);
    }
}
