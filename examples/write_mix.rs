//! The SQLite store's write gate under mixed writes: owned writes (the store's writer thread
//! runs them, keeping the gate from one job to the next while more are queued) stream from
//! `OWNERS` threads, while one thread writes with `run_write` on its own thread, which the
//! writer thread lets in between two of its jobs. Each write is a one-row transaction with its
//! commit (WAL, synchronous=FULL). Prints the caller's wait for the gate (from the call until
//! its transaction body starts), both sides' writes a second and the writer thread's CPU time
//! per owned write, as one table row:
//! `| owner threads | owned writes/s | caller writes/s | caller wait p50 ms | p99 ms | max ms |
//! writer CPU µs per owned write |`.
//!
//! ```text
//! cargo run --release --example write_mix -- [SECONDS] [OWNERS]
//! ```

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_core::time::Timestamp;
use dispatch_store_sqlite::SqliteStore;

/// CPU time in nanoseconds of this process's thread named `name` (Linux: its schedstat).
fn thread_cpu_ns(name: &str) -> Option<u64> {
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if comm.trim_end() == name {
            let stat = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
            return stat.split_whitespace().next()?.parse().ok();
        }
    }
    None
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn main() -> Result<(), StoreError> {
    let mut args = std::env::args().skip(1);
    let seconds: f64 = args.next().map_or(5.0, |s| s.parse().expect("SECONDS"));
    let owners: usize = args.next().map_or(4, |s| s.parse().expect("OWNERS"));
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = Arc::new(SqliteStore::open(dir.path().join("mix.db"))?);
    let scope = DepotScope {
        organisation_id: 1,
        depot_id: 1,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let owned = Arc::new(AtomicU64::new(0));
    let now = Timestamp::from_millis(1_800_000_000_000);

    // Warm-up: the writer thread exists and has its connection.
    store.run_owned_write(
        scope,
        Box::new(move |tx| tx.insert_organisation("warm-up", now).map(drop)),
    )?;
    let writer_before = thread_cpu_ns("sqlite-writer").unwrap_or(0);
    let started = Instant::now();
    let owner_threads: Vec<_> = (0..owners)
        .map(|t| {
            let (store, stop, owned) = (store.clone(), stop.clone(), owned.clone());
            std::thread::spawn(move || {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let name = format!("owned {t} {n}");
                    store
                        .run_owned_write(
                            scope,
                            Box::new(move |tx| tx.insert_organisation(&name, now).map(drop)),
                        )
                        .expect("an owned write");
                    n += 1;
                    owned.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let mut waits = Vec::new();
    let mut n = 0u64;
    while started.elapsed().as_secs_f64() < seconds {
        let call = Instant::now();
        let mut waited = None;
        let name = format!("caller {n}");
        store.run_write(&mut |tx| {
            waited.get_or_insert_with(|| call.elapsed());
            tx.insert_organisation(&name, now).map(drop)
        })?;
        waits.push(waited.unwrap_or(Duration::ZERO).as_secs_f64() * 1e3);
        n += 1;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let owned_writes = owned.load(Ordering::Relaxed);
    let writer_ns = thread_cpu_ns("sqlite-writer").unwrap_or(0) - writer_before;
    stop.store(true, Ordering::Relaxed);
    for thread in owner_threads {
        thread.join().expect("an owner thread");
    }
    waits.sort_by(f64::total_cmp);
    println!(
        "| {owners} | {:.0} | {:.0} | {:.2} | {:.2} | {:.2} | {:.1} |",
        owned_writes as f64 / elapsed,
        waits.len() as f64 / elapsed,
        quantile(&waits, 0.5),
        quantile(&waits, 0.99),
        waits.last().copied().unwrap_or(0.0),
        writer_ns as f64 / 1e3 / owned_writes.max(1) as f64,
    );
    Ok(())
}
