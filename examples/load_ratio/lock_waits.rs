//! PostgreSQL: how long the service's writers wait for each other's locks. A sampler on its own
//! connection asks `pg_stat_activity` every few milliseconds how many backends of the service's
//! database wait for a heavyweight lock (the per-depot and whole-store advisory locks, row and
//! table locks); the mean count over a load is the waiting backend-seconds per second, and
//! with the load's duration and requests it is the lock wait per request.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use postgres::{Client, NoTls};

use crate::{Key, Side};

/// Time between two samples.
const EVERY: Duration = Duration::from_millis(5);

const WAITING: &str = "SELECT count(*) FROM pg_stat_activity \
    WHERE datname = current_database() AND wait_event_type = 'Lock'";

/// One write load's lock waits.
#[derive(Clone, Copy)]
pub struct Waits {
    /// Mean backends waiting for a lock while the load ran.
    pub waiting: f64,
    /// Seconds the load took.
    pub secs: f64,
}

/// A side whose writes are sampled: [`Side::write`] as the inner side's, with the waits of
/// each write load kept in turn (ingest, then upserts).
pub struct Sampled<'a> {
    inner: &'a dyn Side,
    url: String,
    /// The waits of every write load, in the order they ran.
    pub waits: Mutex<Vec<Waits>>,
}

impl<'a> Sampled<'a> {
    /// Samples the database at `url` while `inner` writes.
    pub fn new(inner: &'a dyn Side, url: String) -> Self {
        Sampled {
            inner,
            url,
            waits: Mutex::new(Vec::new()),
        }
    }
}

impl Side for Sampled<'_> {
    fn write(&self, orders: usize, clients: usize, round: usize) -> f64 {
        let mut sampler = Client::connect(&self.url, NoTls).expect("connect the sampler");
        let stop = AtomicBool::new(false);
        let (secs, (sum, samples)) = std::thread::scope(|s| {
            let counting = s.spawn(|| {
                let (mut sum, mut samples) = (0i64, 0u32);
                while !stop.load(Ordering::Relaxed) {
                    let row = sampler.query_one(WAITING, &[]).expect("sample the waits");
                    sum += row.get::<_, i64>(0);
                    samples += 1;
                    std::thread::sleep(EVERY);
                }
                crate::costs::count_own_thread();
                (sum, samples)
            });
            let secs = self.inner.write(orders, clients, round);
            stop.store(true, Ordering::Relaxed);
            (secs, counting.join().expect("the sampler"))
        });
        self.waits
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Waits {
                waiting: sum as f64 / f64::from(samples.max(1)),
                secs,
            });
        secs
    }

    fn page(&self, clients: usize) -> (usize, f64, Vec<i64>) {
        self.inner.page(clients)
    }

    fn read(&self, ids: &[i64], clients: usize, reads: usize) -> f64 {
        self.inner.read(ids, clients, reads)
    }
}

/// The lock-wait table of `--lock-waits on`: per write load, the mean number of the service's
/// backends waiting for a lock and what that makes per request (medians over the rounds).
pub fn print(waits: &BTreeMap<Key, Vec<Waits>>, orders: usize) {
    if waits.is_empty() {
        return;
    }
    let requests = orders.div_ceil(crate::workload::BATCH) as f64;
    println!("\n| load | clients | service seconds | backends waiting for a lock | lock wait per request (ms) |");
    println!("|---|---:|---:|---:|---:|");
    for ((nodes, depots, load, clients), w) in waits {
        let secs = crate::median(w.iter().map(|w| w.secs).collect());
        let waiting = crate::median(w.iter().map(|w| w.waiting).collect());
        let per_request = crate::median(
            w.iter()
                .map(|w| w.waiting * w.secs / requests * 1e3)
                .collect(),
        );
        println!(
            "| {} | {clients} | {secs:.2} | {waiting:.2} | {per_request:.1} |",
            crate::load_name(*nodes, *depots, *load)
        );
    }
}
