//! The store's writer thread: owned write transactions ([`Store::run_owned_write`], a POST
//! /orders batch of new orders) run here, one transaction and one commit each, and the caller
//! gets the outcome after the commit.
//!
//! SQLite has one writer at a time, so the writer's time on a core bounds every writer's
//! throughput. A transaction that commits blocks several times (the WAL write, its fsync) and
//! each time waits for a core again; on a request thread it waited about half a millisecond a
//! batch in the run queue behind the other request threads, which kept every core busy. Here
//! it runs on a thread of its own that request handling runs below (`writes_on_own_thread`),
//! and it keeps the write lock while jobs queue, so the next one starts without handing the
//! lock to another thread that must first be woken.
//!
//! [`Store::run_owned_write`]: dispatch_core::ports::store::Store::run_owned_write

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Instant;

use dispatch_core::ports::store::{OwnedWrite, StoreError};

use rusqlite::Connection;

use crate::Pool;

/// One owned write, queued.
struct Job {
    work: OwnedWrite,
    queued: Instant,
    done: mpsc::SyncSender<Result<(), StoreError>>,
}

/// The writer thread, which runs until its store is dropped.
pub(crate) struct Writer {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl Writer {
    /// Starts the writer thread on `pool`. The thread keeps the priority of the one that opens
    /// the store (the process's, at start).
    pub(crate) fn start(pool: Arc<Pool>) -> Result<Writer, StoreError> {
        let (jobs, queue) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || serve(&pool, &queue))
            .map_err(|e| StoreError::Backend(format!("starting the writer thread: {e}")))?;
        Ok(Writer {
            jobs: Some(jobs),
            thread: Some(thread),
        })
    }

    /// Runs `work` on the writer thread; returns once it committed or rolled back.
    pub(crate) fn run(&self, work: OwnedWrite) -> Result<(), StoreError> {
        let stopped = || StoreError::Backend("the writer thread has stopped".into());
        let (done, outcome) = mpsc::sync_channel(1);
        let job = Job {
            work,
            queued: Instant::now(),
            done,
        };
        self.jobs
            .as_ref()
            .ok_or_else(stopped)?
            .send(job)
            .map_err(|_| stopped())?;
        outcome.recv().map_err(|_| stopped())?
    }
}

impl Drop for Writer {
    /// Closes the queue and waits for the thread to finish what was queued.
    fn drop(&mut self) {
        self.jobs.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The writer thread's loop: takes the write lock for the first queued job and keeps it while
/// more are queued, letting one waiting writer of another thread in between two jobs.
fn serve(pool: &Pool, queue: &mpsc::Receiver<Job>) {
    // The writer's own connection, kept across jobs: its page cache stays valid (no other
    // connection wrote in between unless a writer of another thread did) and its prepared
    // statements stay prepared.
    let mut conn = None;
    while let Ok(first) = queue.recv() {
        let mut turn = pool.write_gate.lock_for_writer();
        run(pool, &mut conn, first);
        while let Ok(job) = queue.try_recv() {
            turn.let_one_in();
            run(pool, &mut conn, job);
        }
        drop(turn);
    }
}

/// Runs one job with the write lock held and answers its caller after the commit. A job that
/// panics answers with an error and leaves the thread serving.
fn run(pool: &Pool, conn: &mut Option<Connection>, job: Job) {
    let Job { work, queued, done } = job;
    metrics::histogram!("dispatch_db_write_wait_seconds").record(queued.elapsed().as_secs_f64());
    let mut work = Some(work);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        pool.write_locked(conn, &mut |tx| match work.take() {
            Some(work) => work(tx),
            None => Err(StoreError::Backend("transaction body called twice".into())),
        })
    }))
    .unwrap_or_else(|_| Err(StoreError::Backend("a write panicked".into())));
    // A connection left inside a transaction (a failed ROLLBACK, or a job that panicked in it)
    // is not used again: dropping it rolls the transaction back, and the next job opens another.
    if conn.as_ref().is_some_and(|c| !c.is_autocommit()) {
        *conn = None;
    }
    // What the job holds (a reply it shares with its caller) goes before the answer.
    drop(work);
    let _ = done.send(outcome);
}
