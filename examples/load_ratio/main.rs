//! The service beside its database's own limit, measured in one run on one machine, and the
//! share of that limit the service reaches: the ratio stays comparable between runs and
//! machines where absolute figures drift with the machine's load.
//!
//! For every client count, on a fresh database each side:
//! - the database alone: the simplest client writes and reads the same rows (`raw_sqlite.rs`);
//! - the service: the real router in-process over the store, driven over loopback
//!   (`service.rs`);
//!
//! and four loads on each: ingest (new orders, batches of 100), upserts (the same orders
//! rewritten by number), paging (every client lists every order, pages of 100) and single
//! reads (one order with its line items by id).
//!
//! ```text
//! cargo run --release --example load_ratio -- [--orders N] [--clients 1,4,16] [--rounds R]
//!     [--check FILE]
//! ```
//!
//! With `--rounds R` every figure is the median of R rounds. `--check FILE` compares each share
//! with the one in FILE (a table this program printed) and exits with status 1 when a share is
//! below half of it: the guard against a service that loses its share of the database's limit.

mod client;
mod raw_sqlite;
mod service;
mod workload;

use std::collections::BTreeMap;
use std::sync::Arc;

use dispatch_store_sqlite::idempotency::SqliteIdempotencyStore;
use dispatch_store_sqlite::{SqliteGazetteer, SqliteStore};

/// The loads, in the order they run and print.
const LOADS: [&str; 4] = [
    "ingest (orders/s)",
    "upserts (orders/s)",
    "paging (rows/s)",
    "single reads (reads/s)",
];

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

/// The four loads on one side: figures per second in [`LOADS`] order.
fn run(side: &dyn Side, orders: usize, clients: usize) -> [f64; 4] {
    let ingest = orders as f64 / side.write(orders, clients, 0);
    let upserts = orders as f64 / side.write(orders, clients, 1);
    let (rows, secs, ids) = side.page(clients);
    assert_eq!(
        rows,
        orders * clients,
        "every client lists every order once"
    );
    let reads = (orders / 4).max(1000).div_ceil(clients);
    let single = (reads * clients) as f64 / side.read(&ids, clients, reads);
    [ingest, upserts, rows as f64 / secs, single]
}

fn sqlite_raw(orders: usize, clients: usize) -> [f64; 4] {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("raw.db");
    // The store's migrations make the schema, its seed the depot; then the store is gone.
    service::seed(&SqliteStore::open(&path).expect("create the raw database"));
    run(&raw_sqlite::Raw::new(path), orders, clients)
}

fn sqlite_service(orders: usize, clients: usize) -> [f64; 4] {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("service.db");
    let store = Arc::new(SqliteStore::open(&path).expect("open the database"));
    let service = service::Service::start(
        store.clone(),
        Arc::new(SqliteGazetteer::new(store)),
        Arc::new(SqliteIdempotencyStore::open(&path).expect("open the idempotency store")),
    );
    run(&service, orders, clients)
}

struct Args {
    orders: usize,
    clients: Vec<usize>,
    rounds: usize,
    check: Option<String>,
}

fn args() -> Args {
    let mut a = Args {
        orders: 20_000,
        clients: vec![1, 4, 16],
        rounds: 1,
        check: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--orders" => a.orders = value.parse().expect("--orders N"),
            "--clients" => {
                a.clients = value
                    .split(',')
                    .map(|c| c.parse().expect("--clients 1,4,16"))
                    .collect()
            }
            "--rounds" => a.rounds = value.parse::<usize>().expect("--rounds R").max(1),
            "--check" => a.check = Some(value),
            other => panic!("unknown flag {other}"),
        }
    }
    a
}

fn median(mut v: Vec<f64>) -> f64 {
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
    let mut figures: BTreeMap<(usize, usize), Vec<Pair>> = BTreeMap::new();
    for _ in 0..args.rounds {
        for &clients in &args.clients {
            // Back to back, so both sides see the machine in the same state.
            let raw = sqlite_raw(args.orders, clients);
            let service = sqlite_service(args.orders, clients);
            for (load, (raw, service)) in raw.into_iter().zip(service).enumerate() {
                figures
                    .entry((clients, load))
                    .or_default()
                    .push(Pair { raw, service });
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
    for (load, name) in LOADS.iter().enumerate() {
        for &clients in &args.clients {
            let pairs = &figures[&(clients, load)];
            let raw = median(pairs.iter().map(|p| p.raw).collect());
            let service = median(pairs.iter().map(|p| p.service).collect());
            let share = median(pairs.iter().map(|p| p.service / p.raw).collect());
            println!("| sqlite | {name} | {clients} | {raw:.0} | {service:.0} | {share:.2} |");
            let key = ("sqlite".to_owned(), (*name).to_owned(), clients);
            if let Some(before) = committed.as_ref().and_then(|c| c.get(&key)) {
                if share < before / 2.0 {
                    failed.push(format!(
                        "sqlite {name} at {clients} clients: share {share:.2}, committed {before:.2}"
                    ));
                }
            }
        }
    }
    if let Some(file) = &args.check {
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
