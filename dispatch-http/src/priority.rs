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
            } else if current >= i32::from(REQUEST_NICE) {
                0
            } else {
                libc::setpriority(libc::PRIO_PROCESS, tid, i32::from(REQUEST_NICE))
            }
        };
        if outcome != 0 {
            tracing::warn!(error = %std::io::Error::last_os_error(),
                "request threads keep the store writer's priority");
        }
    }
}
