//! The service beside its database's own limit, measured in one run on one machine, and the
//! share of that limit the service reaches: the ratio stays comparable between runs and
//! machines where absolute figures drift with the machine's load.
//!
//! For every client count, on a fresh database each side:
//! - the database alone: the simplest client writes and reads the same rows (`raw_sqlite.rs`,
//!   `raw_postgres.rs`: multi-row statements, one transaction per batch);
//! - the service: the real router in-process over the store, driven over loopback
//!   (`service.rs`);
//!
//! and four loads on each: ingest (new orders, batches of 100), upserts (the same orders
//! rewritten by number), paging (every client lists every order, pages of 100) and single
//! reads (one order with its line items by id). With `--depots N` (N > 1) batch `b` goes to
//! depot `b % N` on both sides and only the writes run (named "..., N depots"). With `--nodes N`
//! (PostgreSQL, N > 1) the service runs N API nodes on the one database, each with its own
//! store, connections and runtime, and client `c` talks to node `c % N` (named "..., N nodes").
//!
//! ```text
//! cargo run --release --example load_ratio -- [--store sqlite|postgres] [--orders N]
//!     [--clients 1,4,16] [--depots 1,10] [--nodes 1,3] [--loads all|writes] [--rounds R] [--check FILE]
//!     [--durable on|off] [--lock-waits on|off] [--costs on|off]
//! ```
//!
//! `--store postgres` runs both sides on a throwaway cluster (Debian's server binaries, as the
//! store's tests find them) with fsync and synchronous commit on, as a production database
//! (`--durable off`: both off, for a short run that measures CPU and round trips, not the disk).
//! With `--rounds R` every figure is the median of R rounds. `--check FILE` compares each share
//! with the one in FILE (a table this program printed) and exits with status 1 when a share is
//! below half of it: the guard against a service that loses its share of the database's limit.
//! `--lock-waits on` (PostgreSQL) samples how many of the service's backends wait for a lock
//! while it writes (`lock_waits.rs`) and prints a second table: the lock wait per request, which
//! goes to near zero when writers spread over depots.
//! `--costs on` (PostgreSQL) prints what each write request cost (`costs.rs`): the service's
//! round trips to the database, its CPU time and the database's, the figures that size nodes
//! and database for a load.
//! `DISPATCH_LOAD_RATIO_SLOW_MS` (for the guard's own test only) makes the service's store wait
//! that long before every write transaction: a deliberately slowed store.

mod client;
mod costs;
mod lock_waits;
mod raw_postgres;
mod raw_sqlite;
mod service;
mod slowed;
mod timed;
mod workload;

use std::collections::BTreeMap;
use std::sync::Arc;

use dispatch_core::ports::geocoder::StoreGazetteer;
use dispatch_core::ports::store::Store;
use dispatch_store_postgres::idempotency::PostgresIdempotencyStore;
use dispatch_store_postgres::throwaway::Cluster;
use dispatch_store_postgres::PostgresStore;
use dispatch_store_sqlite::idempotency::SqliteIdempotencyStore;
use dispatch_store_sqlite::{SqliteGazetteer, SqliteStore};

/// The loads, in the order they run and print.
const LOADS: [&str; 4] = [
    "ingest (orders/s)",
    "upserts (orders/s)",
    "paging (rows/s)",
    "single reads (reads/s)",
];

/// A measurement's place in the tables: (nodes, depots, load, clients).
pub(crate) type Key = (usize, usize, usize, usize);

/// One load's figures per second on both sides.
#[derive(Clone, Copy)]
struct Pair {
    raw: f64,
    service: f64,
}

/// What both sides run: writes, then pages, then single reads.
pub trait Side {
    /// Writes orders `0..orders` (round 0 creates, round 1 rewrites them) in batches spread
    /// over `clients`; returns the seconds taken.
    fn write(&self, orders: usize, clients: usize, round: usize) -> f64;
    /// Every client lists every order; returns (rows read, seconds, the ids seen).
    fn page(&self, clients: usize) -> (usize, f64, Vec<i64>);
    /// `reads` single orders per client picked from `ids`; returns the seconds.
    fn read(&self, ids: &[i64], clients: usize, reads: usize) -> f64;
}

/// The loads on one side: figures per second in [`LOADS`] order (`None` for a load not run:
/// paging and single reads run with one depot only, and not with `--loads writes`).
fn run(side: &dyn Side, orders: usize, clients: usize, reads_too: bool) -> [Option<f64>; 4] {
    let ingest = orders as f64 / side.write(orders, clients, 0);
    let upserts = orders as f64 / side.write(orders, clients, 1);
    if !reads_too {
        return [Some(ingest), Some(upserts), None, None];
    }
    let (rows, secs, ids) = side.page(clients);
    assert_eq!(
        rows,
        orders * clients,
        "every client lists every order once"
    );
    let reads = (orders / 4).max(1000).div_ceil(clients);
    let single = (reads * clients) as f64 / side.read(&ids, clients, reads);
    [
        Some(ingest),
        Some(upserts),
        Some(rows as f64 / secs),
        Some(single),
    ]
}

/// One measurement: both sides of one store at one client and depot count, back to back so
/// both see the machine in the same state.
struct Case {
    orders: usize,
    clients: usize,
    depots: usize,
    nodes: usize,
    reads_too: bool,
    lock_waits: bool,
    costs: bool,
}

fn sqlite_pair(case: &Case) -> Measured {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("raw.db");
    // The store's migrations make the schema, its seed the depots; then the store is gone.
    service::seed(
        &SqliteStore::open(&path).expect("create the raw database"),
        case.depots,
    );
    let raw = run(
        &raw_sqlite::Raw::new(path),
        case.orders,
        case.clients,
        case.reads_too,
    );
    let path = dir.path().join("service.db");
    let store = Arc::new(SqliteStore::open(&path).expect("open the database"));
    let service = service::Service::start(
        slowed::maybe(store.clone()),
        Arc::new(SqliteGazetteer::new(store)),
        Arc::new(SqliteIdempotencyStore::open(&path).expect("open the idempotency store")),
        case.depots,
    );
    let measured = run(&service, case.orders, case.clients, case.reads_too);
    Measured {
        pairs: pairs(raw, measured),
        waits: Vec::new(),
        costs: Vec::new(),
    }
}

/// What one case measured: the pairs of [`LOADS`] and, with `--lock-waits on` and `--costs
/// on`, the service's lock waits and costs in ingest and upserts.
struct Measured {
    pairs: [Option<Pair>; 4],
    waits: Vec<lock_waits::Waits>,
    /// The database alone's and the service's.
    costs: Vec<(costs::Costs, costs::Costs)>,
}

fn postgres_pair(cluster: &Cluster, case: &Case) -> Measured {
    let url = cluster.create_database().expect("a raw database");
    service::seed(
        &PostgresStore::open(&url).expect("migrate the raw database"),
        case.depots,
    );
    let raw_side = raw_postgres::Raw::new(url.clone());
    let raw_costed = case.costs.then(|| {
        let server = cluster.server_pid().expect("the server's process id");
        costs::Costed::new(&raw_side, Vec::new(), server, &url)
    });
    let raw = run(
        raw_costed.as_ref().map_or(&raw_side, |c| c as &dyn Side),
        case.orders,
        case.clients,
        case.reads_too,
    );
    let raw_costs = raw_costed.map_or_else(Vec::new, |c| {
        c.costs.into_inner().unwrap_or_else(|e| e.into_inner())
    });
    let url = cluster.create_database().expect("a service database");
    let stores: Vec<Arc<PostgresStore>> = (0..case.nodes)
        .map(|_| Arc::new(PostgresStore::open(&url).expect("open the database")))
        .collect();
    let node = |store: &Arc<PostgresStore>| {
        (
            slowed::maybe(store.clone()),
            Arc::new(StoreGazetteer::new(store.clone() as Arc<dyn Store>)),
            Arc::new(PostgresIdempotencyStore::new(store).expect("open the idempotency store")),
        )
    };
    let (store, gazetteer, idempotency) = node(&stores[0]);
    let mut service = service::Service::start(store, gazetteer, idempotency, case.depots);
    for store in &stores[1..] {
        let (store, gazetteer, idempotency) = node(store);
        service.add_node(store, gazetteer, idempotency);
    }
    let sampled = case
        .lock_waits
        .then(|| lock_waits::Sampled::new(&service, url.clone()));
    let measured_side: &dyn Side = sampled.as_ref().map_or(&service, |s| s as &dyn Side);
    let costed = case.costs.then(|| {
        let server = cluster.server_pid().expect("the server's process id");
        costs::Costed::new(measured_side, stores, server, &url)
    });
    let measured_side: &dyn Side = costed.as_ref().map_or(measured_side, |c| c as &dyn Side);
    let measured = run(measured_side, case.orders, case.clients, case.reads_too);
    let costs = costed.map_or_else(Vec::new, |c| {
        c.costs.into_inner().unwrap_or_else(|e| e.into_inner())
    });
    let costs = raw_costs.into_iter().zip(costs).collect();
    let waits = sampled.map_or_else(Vec::new, |s| {
        s.waits.into_inner().unwrap_or_else(|e| e.into_inner())
    });
    Measured {
        pairs: pairs(raw, measured),
        waits,
        costs,
    }
}

fn pairs(raw: [Option<f64>; 4], service: [Option<f64>; 4]) -> [Option<Pair>; 4] {
    std::array::from_fn(|i| match (raw[i], service[i]) {
        (Some(raw), Some(service)) => Some(Pair { raw, service }),
        _ => None,
    })
}

struct Args {
    store: String,
    orders: usize,
    clients: Vec<usize>,
    depots: Vec<usize>,
    nodes: Vec<usize>,
    writes_only: bool,
    rounds: usize,
    check: Option<String>,
    durable: bool,
    lock_waits: bool,
    costs: bool,
}

fn list(value: &str, flag: &str) -> Vec<usize> {
    value
        .split(',')
        .map(|c| c.parse().unwrap_or_else(|_| panic!("{flag} 1,4,16")))
        .collect()
}

fn args() -> Args {
    let mut a = Args {
        store: "sqlite".into(),
        orders: 20_000,
        clients: vec![1, 4, 16],
        depots: vec![1],
        nodes: vec![1],
        writes_only: false,
        rounds: 1,
        check: None,
        durable: true,
        lock_waits: false,
        costs: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            println!("{}", HELP);
            std::process::exit(0);
        }
        let value = it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--store" if value == "sqlite" || value == "postgres" => a.store = value,
            "--orders" => a.orders = value.parse().expect("--orders N"),
            "--clients" => a.clients = list(&value, "--clients"),
            "--depots" => a.depots = list(&value, "--depots"),
            "--nodes" => a.nodes = list(&value, "--nodes"),
            "--loads" if value == "all" || value == "writes" => a.writes_only = value == "writes",
            "--rounds" => a.rounds = value.parse::<usize>().expect("--rounds R").max(1),
            "--check" => a.check = Some(value),
            "--durable" if value == "on" || value == "off" => a.durable = value == "on",
            "--lock-waits" if value == "on" || value == "off" => a.lock_waits = value == "on",
            "--costs" if value == "on" || value == "off" => a.costs = value == "on",
            other => panic!("unknown flag or value: {other} {value}"),
        }
    }
    a
}

const HELP: &str = "load_ratio: the service beside its database's own limit (shares of it)

  --store sqlite|postgres   the store (default sqlite; postgres: a throwaway cluster)
  --orders N                orders per load (default 20000), in batches of 100
  --clients 1,4,16          client counts
  --depots 1,10             depot counts: writes spread over them (more than 1: writes only)
  --nodes 1,3               postgres: API nodes on the one database, clients spread over them
  --loads all|writes        all four loads (default) or ingest and upserts only
  --rounds R                median of R rounds
  --check FILE              exit 1 when a share is below half of FILE's
  --durable on|off          postgres: fsync and synchronous commit on (default) or off
  --lock-waits on|off       postgres: sample the service's lock waits while it writes (default off)
  --costs on|off            postgres: round trips and CPU per write request (default off)";

/// A load's name in the table: with more than one depot or node, how many.
pub(crate) fn load_name(nodes: usize, depots: usize, load: usize) -> String {
    let mut name = LOADS[load].to_owned();
    if depots > 1 {
        name.push_str(&format!(", {depots} depots"));
    }
    if nodes > 1 {
        name.push_str(&format!(", {nodes} nodes"));
    }
    name
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The shares of a table this program printed: (store, load, clients) to share.
fn committed_shares(text: &str) -> BTreeMap<(String, String, usize), f64> {
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line
                .trim()
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect();
            let [store, load, clients, _, _, share] = cells[..] else {
                return None;
            };
            Some((
                (store.to_owned(), load.to_owned(), clients.parse().ok()?),
                share.parse().ok()?,
            ))
        })
        .collect()
}

fn main() {
    let args = args();
    assert!(
        args.store == "postgres" || args.nodes == [1],
        "--nodes: several API nodes share a PostgreSQL database (--store postgres)"
    );
    let cluster = (args.store == "postgres").then(|| {
        let mut settings = String::new();
        if !args.durable {
            settings.push_str("-c fsync=off -c synchronous_commit=off -c full_page_writes=off ");
        }
        if args.costs {
            settings.push_str(costs::SERVER_SETTINGS);
        }
        let started = Cluster::start_durable_with(&settings);
        started.expect("a throwaway PostgreSQL cluster")
    });
    let mut figures: BTreeMap<Key, Vec<Pair>> = BTreeMap::new();
    let mut waits: BTreeMap<Key, Vec<lock_waits::Waits>> = BTreeMap::new();
    let mut costs: BTreeMap<Key, Vec<(costs::Costs, costs::Costs)>> = BTreeMap::new();
    for _ in 0..args.rounds {
        for &nodes in &args.nodes {
            for &depots in &args.depots {
                for &clients in &args.clients {
                    let case = Case {
                        orders: args.orders,
                        clients,
                        depots,
                        nodes,
                        reads_too: depots == 1 && !args.writes_only,
                        lock_waits: args.lock_waits,
                        costs: args.costs,
                    };
                    let measured = match &cluster {
                        Some(cluster) => postgres_pair(cluster, &case),
                        None => sqlite_pair(&case),
                    };
                    let key = |load| (nodes, depots, load, clients);
                    for (load, w) in measured.waits.into_iter().enumerate() {
                        waits.entry(key(load)).or_default().push(w);
                    }
                    for (load, c) in measured.costs.into_iter().enumerate() {
                        costs.entry(key(load)).or_default().push(c);
                    }
                    for (load, pair) in measured.pairs.into_iter().enumerate() {
                        if let Some(pair) = pair {
                            figures.entry(key(load)).or_default().push(pair);
                        }
                    }
                }
            }
        }
    }
    let committed = args.check.as_ref().map(|file| {
        committed_shares(&std::fs::read_to_string(file).expect("read the committed table"))
    });
    println!(
        "{} orders, batches and pages of 100, median of {} round(s)\n",
        args.orders, args.rounds
    );
    println!("| store | load | clients | database alone | service | share |");
    println!("|---|---|---:|---:|---:|---:|");
    let mut failed = Vec::new();
    for ((nodes, depots, load, clients), pairs) in &figures {
        let name = load_name(*nodes, *depots, *load);
        let store = &args.store;
        let raw = median(pairs.iter().map(|p| p.raw).collect());
        let service = median(pairs.iter().map(|p| p.service).collect());
        let share = median(pairs.iter().map(|p| p.service / p.raw).collect());
        println!("| {store} | {name} | {clients} | {raw:.0} | {service:.0} | {share:.2} |");
        let key = (store.clone(), name.clone(), *clients);
        if let Some(before) = committed.as_ref().and_then(|c| c.get(&key)) {
            if share < before / 2.0 {
                failed.push(format!(
                    "{store} {name} at {clients} clients: share {share:.2}, committed {before:.2}"
                ));
            }
        }
    }
    lock_waits::print(&waits, args.orders);
    costs::print(&costs, args.orders);
    if let Some(file) = &args.check {
        let compared = figures
            .keys()
            .filter(|(nodes, depots, load, clients)| {
                committed.as_ref().is_some_and(|c| {
                    c.contains_key(&(
                        args.store.clone(),
                        load_name(*nodes, *depots, *load),
                        *clients,
                    ))
                })
            })
            .count();
        if compared == 0 {
            eprintln!("\nnothing measured here has a share in {file}");
            std::process::exit(1);
        }
        if failed.is_empty() {
            println!("\nevery share is at least half of the one in {file}");
        } else {
            eprintln!("\nbelow half of the committed share ({file}):");
            for f in &failed {
                eprintln!("  {f}");
            }
            std::process::exit(1);
        }
    }
}
