//! Request handling's blocking threads below the store's writer thread: where the store runs
//! writes on a thread of its own (SQLite: one writer holds the write lock every other writer
//! waits for), that thread wakes after each of its disk writes and should get a core at once.
//! With request threads at the same priority it waited about half a millisecond a batch in the
//! run queue while they kept every core busy; below it, they take the cores it leaves.
//!
//! Only the threads are lowered, never the writer raised: raising a priority needs a privilege
//! a service should not have, lowering one's own does not.

use std::cell::Cell;

/// The nice value request handling's blocking threads run at (at least) where the store has a
/// writer thread: below the writer's (the process's, 0). The optimisation threads count their
/// `--optimiser-nice` from it, so requests still come before a running solve by as much.
pub const REQUEST_NICE: u8 = 5;

thread_local! {
    /// Whether this thread was lowered already (a blocking thread runs many requests).
    static LOWERED: Cell<bool> = const { Cell::new(false) };
}

/// Lowers the calling thread (a blocking thread of the runtime) to [`REQUEST_NICE`] once; a
/// thread already lower keeps its value. A refusal only costs the priority, so it is logged.
pub(crate) fn below_writer() {
    if LOWERED.replace(true) {
        return;
    }
    if let Err(error) = renice_current_thread(|current| current.max(i32::from(REQUEST_NICE))) {
        tracing::warn!(%error, "request threads keep the store writer's priority");
    }
}

/// Sets the calling thread's nice value to `target` of its current one. On Linux a nice value
/// belongs to a thread (the threads it starts later inherit it) and an unprivileged process
/// may raise it (lower the priority) up to 19 but not take it back; elsewhere this does
/// nothing. Request handling and the optimisation threads share it.
pub fn renice_current_thread(target: impl FnOnce(i32) -> i32) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid, getpriority and setpriority read or set the calling thread's own
        // scheduling attribute; no memory is shared with the kernel.
        #[allow(unsafe_code)]
        let outcome = unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            *libc::__errno_location() = 0;
            let current = libc::getpriority(libc::PRIO_PROCESS, tid);
            if current == -1 && *libc::__errno_location() != 0 {
                -1
            } else {
                let wanted = target(current).clamp(-20, 19);
                if wanted == current {
                    0
                } else {
                    libc::setpriority(libc::PRIO_PROCESS, tid, wanted)
                }
            }
        };
        if outcome != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = target;
    Ok(())
}

/// Puts the calling thread under Linux's `SCHED_IDLE` policy: it runs only on a core no thread
/// of the normal policy wants, and such a thread that wakes takes the core from it at once (a
/// nice value only weighs shares: a woken thread may still wait out the running one's time
/// slice, a millisecond or more). The threads it starts later inherit the policy; an
/// unprivileged process cannot take it back. Elsewhere this does nothing.
pub fn idle_current_thread() -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: sets the calling thread's own (pid 0) scheduling policy; `param` is a valid
        // sched_param that outlives the call.
        #[allow(unsafe_code)]
        let outcome = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
        if outcome != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The nice value of the calling thread, as `renice_current_thread` sees it.
    fn nice_now() -> i32 {
        let mut seen = None;
        renice_current_thread(|current| {
            seen = Some(current);
            current
        })
        .unwrap();
        seen.unwrap()
    }

    #[test]
    fn a_thread_lowers_only_itself_and_never_past_19() {
        let before = nice_now();
        std::thread::spawn(move || {
            renice_current_thread(|current| current + 2).unwrap();
            assert_eq!(nice_now(), (before + 2).min(19));
            renice_current_thread(|current| current + 100).unwrap();
            assert_eq!(nice_now(), 19);
        })
        .join()
        .unwrap();
        assert_eq!(nice_now(), before, "the spawning thread kept its value");
    }

    /// The calling thread's scheduling policy.
    #[allow(unsafe_code)]
    fn policy() -> i32 {
        // SAFETY: reads the calling thread's own policy.
        unsafe { libc::sched_getscheduler(0) }
    }

    #[test]
    fn an_idle_thread_and_the_threads_it_starts_run_idle_and_its_spawner_does_not() {
        let before = policy();
        std::thread::spawn(|| {
            idle_current_thread().unwrap();
            assert_eq!(policy(), libc::SCHED_IDLE);
            let started = std::thread::spawn(policy).join().unwrap();
            assert_eq!(started, libc::SCHED_IDLE);
        })
        .join()
        .unwrap();
        assert_eq!(policy(), before);
        assert_ne!(before, libc::SCHED_IDLE);
    }

    #[test]
    fn request_threads_go_to_the_request_nice_and_a_lower_thread_stays_lower() {
        std::thread::spawn(|| {
            let start = nice_now();
            below_writer();
            assert_eq!(nice_now(), start.max(i32::from(REQUEST_NICE)));
            renice_current_thread(|_| 12).unwrap();
            LOWERED.set(false);
            below_writer();
            assert_eq!(nice_now(), 12);
        })
        .join()
        .unwrap();
    }
}
