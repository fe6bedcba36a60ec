//! PostgreSQL: what one request of a write load costs, the figures a sizing model is made of.
//! Round trips are the stores' own counts (`PostgresStore::round_trips`, every node's); the
//! service's CPU is this process's CPU time less what its load clients (and a lock-wait
//! sampler) spent on their own threads; the database's is the server's, its backends' and
//! its reaped backends' CPU time from `/proc`; which statements the round trips were is
//! `pg_stat_statements`' count (a BEGIN with its locks is one round trip of several
//! statements).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use dispatch_store_postgres::PostgresStore;
use postgres::{Client, NoTls};

use crate::workload::BATCH;
use crate::{Key, Side};

/// The server settings costing needs: statements counted by `pg_stat_statements`.
pub const SERVER_SETTINGS: &str =
    "-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on";

/// The statements of the service's database since the last reset: the first words of each
/// , how often it ran and the milliseconds spent planning and running it.
const STATEMENTS: &str = "SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 70), calls, \
    total_plan_time + total_exec_time \
    FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
    ORDER BY calls DESC, query";

/// CPU nanoseconds spent on threads that are not the service's (load clients, samplers), added
/// by each such thread when it ends its work ([`count_own_thread`]).
static NOT_SERVICE_NANOS: AtomicU64 = AtomicU64::new(0);

/// CPU time (user and system) of the process or thread `who` names.
#[allow(unsafe_code)]
fn rusage_nanos(who: libc::c_int) -> u64 {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(who, &mut usage);
        usage
    };
    let nanos = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
    nanos(usage.ru_utime) + nanos(usage.ru_stime)
}

/// Counts the calling thread's CPU time so far as not the service's: called by every load
/// client and sampler thread as it finishes (each runs one load on a thread of its own).
pub fn count_own_thread() {
    NOT_SERVICE_NANOS.fetch_add(rusage_nanos(libc::RUSAGE_THREAD), Ordering::Relaxed);
}

/// CPU seconds of process `pid` and its reaped children (`/proc/PID/stat`, clock ticks).
fn process_seconds(pid: u32, with_reaped: bool) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // Fields after the command (which may hold spaces) in parentheses.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let tick = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime, stime, cutime, cstime are fields 14-17 of stat(5): 11-14 after the state.
    let own = tick(11) + tick(12);
    let reaped = if with_reaped {
        tick(13) + tick(14)
    } else {
        0.0
    };
    (own + reaped) / 100.0
}

/// CPU seconds of the database server: the postmaster with what it reaped, and its live
/// backends.
fn database_seconds(server: u32) -> f64 {
    let children = std::fs::read_to_string(format!("/proc/{server}/task/{server}/children"))
        .unwrap_or_default();
    process_seconds(server, true)
        + children
            .split_whitespace()
            .filter_map(|c| c.parse().ok())
            .map(|c| process_seconds(c, false))
            .sum::<f64>()
}

/// One write load's costs.
#[derive(Clone)]
pub struct Costs {
    /// Requests (batches) the load sent.
    pub requests: f64,
    /// Round trips the service's stores made to the database.
    pub round_trips: f64,
    /// CPU seconds of the service (every node, the HTTP clients' threads excluded).
    pub service_cpu: f64,
    /// CPU seconds of the database server.
    pub database_cpu: f64,
    /// Seconds the load took.
    pub secs: f64,
    /// The statements the database ran for the service, with their counts and milliseconds.
    pub statements: Vec<(String, f64, f64)>,
}

/// A side whose writes are costed: [`Side::write`] as the inner side's, with the costs of
/// each write load kept in turn (ingest, then upserts).
pub struct Costed<'a> {
    inner: &'a dyn Side,
    stores: Vec<Arc<PostgresStore>>,
    server: u32,
    counter: Mutex<Client>,
    /// The costs of every write load, in the order they ran.
    pub costs: Mutex<Vec<Costs>>,
}

impl<'a> Costed<'a> {
    /// Costs `inner`'s writes through `stores` (one per node) on the server `server`, whose
    /// database `url` the stores use.
    pub fn new(
        inner: &'a dyn Side,
        stores: Vec<Arc<PostgresStore>>,
        server: u32,
        url: &str,
    ) -> Self {
        let mut counter = Client::connect(url, NoTls).expect("connect the statement counter");
        counter
            .batch_execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            .expect("pg_stat_statements (preloaded by SERVER_SETTINGS)");
        Costed {
            inner,
            stores,
            server,
            counter: Mutex::new(counter),
            costs: Mutex::new(Vec::new()),
        }
    }

    fn round_trips(&self) -> u64 {
        self.stores.iter().map(|s| s.round_trips()).sum()
    }
}

impl Side for Costed<'_> {
    fn write(&self, orders: usize, clients: usize, round: usize) -> f64 {
        let mut counter = self.counter.lock().unwrap_or_else(|e| e.into_inner());
        counter
            .batch_execute("SELECT pg_stat_statements_reset()")
            .expect("reset the statement counts");
        let (trips, process, others, database) = (
            self.round_trips(),
            rusage_nanos(libc::RUSAGE_SELF),
            NOT_SERVICE_NANOS.load(Ordering::Relaxed),
            database_seconds(self.server),
        );
        let secs = self.inner.write(orders, clients, round);
        let others = NOT_SERVICE_NANOS.load(Ordering::Relaxed) - others;
        let service = rusage_nanos(libc::RUSAGE_SELF).saturating_sub(process + others);
        let database_cpu = database_seconds(self.server) - database;
        let statements = counter
            .query(STATEMENTS, &[])
            .expect("the statement counts")
            .iter()
            .map(|r| {
                (
                    r.get::<_, String>(0),
                    r.get::<_, i64>(1) as f64,
                    r.get::<_, f64>(2),
                )
            })
            .filter(|(query, _, _)| !query.contains("pg_stat_statements"))
            .collect();
        self.costs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Costs {
                requests: orders.div_ceil(BATCH) as f64,
                round_trips: (self.round_trips() - trips) as f64,
                service_cpu: service as f64 / 1e9,
                database_cpu,
                secs,
                statements,
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

/// The costs table of `--costs on`: per write load, what one request (a batch of [`BATCH`]
/// orders) cost (medians over the rounds), then which statements its round trips were (the
/// first round's).
pub fn print(costs: &BTreeMap<Key, Vec<(Costs, Costs)>>, orders: usize) {
    if costs.is_empty() {
        return;
    }
    println!(
        "\n{orders} orders in requests of {BATCH}: what one request cost (service CPU: every node, \
         clients excluded; the database alone's CPU per transaction of {BATCH} beside it)\n"
    );
    println!("| load | clients | requests/s | round trips per request | service CPU ms per request | database CPU ms per request | database alone: its CPU ms per batch |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let med = |c: &[(Costs, Costs)], f: &dyn Fn(&Costs, &Costs) -> f64| {
        crate::median(c.iter().map(|(raw, s)| f(raw, s)).collect())
    };
    for ((nodes, depots, load, clients), c) in costs {
        println!(
            "| {} | {clients} | {:.0} | {:.1} | {:.2} | {:.2} | {:.2} |",
            crate::load_name(*nodes, *depots, *load),
            med(c, &|_, s| s.requests / s.secs),
            med(c, &|_, s| s.round_trips / s.requests),
            med(c, &|_, s| s.service_cpu / s.requests * 1e3),
            med(c, &|_, s| s.database_cpu / s.requests * 1e3),
            med(c, &|raw, _| raw.database_cpu / raw.requests * 1e3),
        );
    }
    for ((nodes, depots, load, clients), c) in costs {
        let (raw, service) = &c[0];
        for (side, c) in [("the service", service), ("the database alone", raw)] {
            println!(
                "\nStatements per request of {side}, {} at {clients} clients:\n",
                crate::load_name(*nodes, *depots, *load)
            );
            println!(
                "| statement | per request | ms per request (planning and running) |\n|---|---:|---:|"
            );
            for (query, calls, ms) in &c.statements {
                let r = c.requests;
                println!("| `{query}` | {:.2} | {:.3} |", calls / r, ms / r);
            }
        }
    }
}
