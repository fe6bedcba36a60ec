//! Several nodes on one database: the real `dispatch serve` and `dispatch worker` processes on
//! loopback, SQLite and a throwaway PostgreSQL side by side.
//!
//! `cargo run --release --example bench_nodes -- [ORDERS] [JOBS]` (defaults 3000 and 8) prints:
//! 1. Order ingest (POST /v2/orders, batches of 50, 6 client threads spread over the nodes,
//!    batch `b` to depot `b % depots`) and paging (GET /v2/orders?limit=100 through every page,
//!    6 clients, one depot) on SQLite with one API node and on PostgreSQL with one and three
//!    (`serve --workers off`), writers in one depot and spread over ten; for each, the API
//!    processes' CPU seconds and the database server's (PostgreSQL: the postmaster and its
//!    backends) per 1000 orders and per 100 pages, and the statements PostgreSQL ran per
//!    request (`pg_stat_statements`, utility commands such as BEGIN and COMMIT included: each
//!    is one round trip from the node). PostgreSQL runs durable (fsync and synchronous commit
//!    on), as in production.
//! 2. Optimisation jobs per minute with one and with two `dispatch worker`s (one job at a time
//!    each, one solver thread, a fixed 2 s budget): JOBS jobs of 40 orders queued at once,
//!    how many each worker ran (the job's holder in the store), and the workers' CPU seconds
//!    per job.
//!
//! On one small machine all processes share the same cores: the figures show that several
//! nodes are correct and what each request costs (the sizing model of benches/README.md), not a
//! speed-up.

#[path = "../tests/support/mod.rs"]
mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use dispatch_core::ports::store::Store;
use dispatch_store_postgres::throwaway::Cluster;
use dispatch_store_postgres::PostgresStore;
use serde_json::{json, Value};
use support::worker::{cpu_seconds, cpu_seconds_with_reaped_children, parent_pid, Worker};
use support::{seed, Fixture, Server};

const CLIENTS: usize = 6;
const BATCH: usize = 50;
const JOB_ORDERS: usize = 40;

fn order(number: &str, date: &str, i: usize) -> Value {
    let (a, b) = ((i % 7) as f64, ((i / 7) % 7) as f64);
    json!({"order_number": number, "type": "delivery", "delivery_date": date,
           "delivery_lat": 51.45 + 0.015 * a, "delivery_lng": -0.20 + 0.02 * b,
           "delivery_duration": 4})
}

fn cpu_of(nodes: &[Server]) -> f64 {
    nodes.iter().map(|n| cpu_seconds(n.pid())).sum()
}

/// One organisation with `depots` depots, a key each; returns the keys.
fn seed_depots(db: &Path, depots: usize) -> Vec<String> {
    let file = json!({"organisations": [{"name": "Bench", "depots": (0..depots)
        .map(|d| json!({"name": format!("Depot {d}"), "lat": 51.5, "lng": -0.12,
                        "settings": {"allow_orders_without_customer": true},
                        "access_keys": [{"name": "bench", "permission": "all"}]}))
        .collect::<Vec<_>>()}]});
    let seeded = seed(db, &file);
    (0..depots)
        .map(|d| {
            seeded["organisations"][0]["depots"][d]["access_keys"][0]["key"]
                .as_str()
                .expect("key printed")
                .to_owned()
        })
        .collect()
}

/// The database server's side of a PostgreSQL run: its CPU and the statements it ran.
struct Database<'a> {
    cluster: &'a Cluster,
    client: postgres::Client,
}

impl<'a> Database<'a> {
    fn open(cluster: &'a Cluster, url: &str) -> Database<'a> {
        let mut client = postgres::Client::connect(url, postgres::NoTls).expect("connect");
        client
            .batch_execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            .expect("pg_stat_statements (the cluster preloads it)");
        Database { cluster, client }
    }

    /// CPU seconds of the server: the postmaster with its exited children, and the live ones
    /// (the backends of the nodes' pools, the background processes).
    fn cpu(&self) -> f64 {
        let Some(server) = self.cluster.server_pid() else {
            return 0.0;
        };
        let mut total = cpu_seconds_with_reaped_children(server);
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if parent_pid(pid) == Some(server) {
                total += cpu_seconds(pid);
            }
        }
        total
    }

    /// Statements this database ran since the last call (the counters are reset).
    fn statements(&mut self) -> i64 {
        let row = self
            .client
            .query_one(
                "SELECT coalesce(sum(s.calls), 0)::bigint FROM pg_stat_statements s \
                 JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = current_database()",
                &[],
            )
            .expect("pg_stat_statements");
        self.client
            .batch_execute("SELECT pg_stat_statements_reset()")
            .expect("reset");
        // The query above and the reset are this reader's own, not the nodes'.
        row.get::<_, i64>(0) - 1
    }
}

/// What one run of ingest and paging measured.
struct ApiRun {
    ingest: f64,
    ingest_cpu: f64,
    ingest_db_cpu: Option<f64>,
    ingest_statements: Option<f64>,
    /// Paging figures (pages/s, node CPU and database CPU per 100 pages, statements per
    /// page), for runs in one depot.
    paging: Option<(f64, f64, Option<f64>, Option<f64>)>,
}

fn api_run(
    db: &Path,
    nodes: usize,
    depots: usize,
    orders: usize,
    mut database: Option<Database>,
) -> ApiRun {
    let keys = seed_depots(db, depots);
    let servers: Vec<Server> = (0..nodes)
        .map(|_| Server::start_with(db, &["--rate-limits", "off", "--workers", "off"]))
        .collect();
    let batches = orders / BATCH;
    let db_cpu = |d: &Option<Database>| d.as_ref().map(Database::cpu);
    if let Some(d) = database.as_mut() {
        d.statements();
    }
    let (cpu, server_cpu) = (cpu_of(&servers), db_cpu(&database));
    let start = Instant::now();
    std::thread::scope(|s| {
        for c in 0..CLIENTS {
            let (servers, keys) = (&servers, &keys);
            s.spawn(move || {
                for b in (c..batches).step_by(CLIENTS) {
                    let batch: Vec<Value> = (0..BATCH)
                        .map(|i| order(&format!("B{b}-{i}"), "2026-12-01", i))
                        .collect();
                    let (node, key) = (&servers[b % servers.len()], &keys[b % keys.len()]);
                    let r = node.post("/v2/orders", key, &Value::Array(batch));
                    assert_eq!(r.status, 200, "{}", r.text());
                }
            });
        }
    });
    let ingest = start.elapsed().as_secs_f64();
    let expected = batches * BATCH;
    let per_1000 = |seconds: f64| seconds / expected as f64 * 1000.0;
    let ingest_cpu = per_1000(cpu_of(&servers) - cpu);
    let ingest_db_cpu = db_cpu(&database)
        .zip(server_cpu)
        .map(|(b, a)| per_1000(b - a));
    let ingest_statements = database
        .as_mut()
        .map(|d| d.statements() as f64 / batches as f64);
    let paging = (depots == 1).then(|| {
        let (cpu, server_cpu) = (cpu_of(&servers), db_cpu(&database));
        let start = Instant::now();
        let pages = page_all(&servers, &keys[0], expected);
        let paging = start.elapsed().as_secs_f64();
        let per_100 = |seconds: f64| seconds / pages as f64 * 100.0;
        (
            pages as f64 / paging,
            per_100(cpu_of(&servers) - cpu),
            db_cpu(&database)
                .zip(server_cpu)
                .map(|(b, a)| per_100(b - a)),
            database
                .as_mut()
                .map(|d| d.statements() as f64 / pages as f64),
        )
    });
    ApiRun {
        ingest: expected as f64 / ingest,
        ingest_cpu,
        ingest_db_cpu,
        ingest_statements,
        paging,
    }
}

/// Every client pages through every order of the depot, each through one node; returns the
/// pages read.
fn page_all(servers: &[Server], key: &str, expected: usize) -> usize {
    std::thread::scope(|s| {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|c| {
                s.spawn(move || {
                    let node = &servers[c % servers.len()];
                    let mut path = "/v2/orders?limit=100".to_owned();
                    let (mut pages, mut seen) = (0, std::collections::HashSet::new());
                    loop {
                        let r = node.get(&path, key);
                        assert_eq!(r.status, 200);
                        pages += 1;
                        for order in r.json()["orders"].as_array().expect("orders") {
                            assert!(seen.insert(order["id"].clone()), "an order paged twice");
                        }
                        match r.next_link() {
                            Some(next) => path = next,
                            None => break,
                        }
                    }
                    // Every acknowledged order, whichever node took it, is read back once.
                    assert_eq!(seen.len(), expected, "orders read back through one node");
                    pages
                })
            })
            .collect();
        clients.into_iter().map(|c| c.join().unwrap()).sum()
    })
}

/// (jobs/min, jobs per worker, worker CPU s per job).
fn jobs_run(url: &str, workers: usize, jobs: usize) -> (f64, Vec<(String, usize)>, f64) {
    let db = Path::new(url);
    let fx = Fixture::seed(db);
    let key = fx.key.as_str();
    let api = Server::start_with(db, &["--rate-limits", "off", "--workers", "off"]);
    for name in ["Van 1", "Van 2"] {
        let r = api.post(
            "/v2/vehicles",
            key,
            &json!({"name": name, "availability": "full_day", "start_location": "depot", "end_location": "depot"}),
        );
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let dates: Vec<String> = (0..jobs).map(|d| format!("2026-12-{:02}", d + 1)).collect();
    for (d, date) in dates.iter().enumerate() {
        let batch: Vec<Value> = (0..JOB_ORDERS)
            .map(|i| order(&format!("J{d}-{i}"), date, i))
            .collect();
        assert_eq!(
            api.post("/v2/orders", key, &Value::Array(batch)).status,
            200
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let flags = [
        "--workers",
        "1",
        "--solver-threads",
        "1",
        "--solve-time",
        "2",
        "--solve-time-min",
        "2",
    ];
    let pool: Vec<Worker> = (0..workers)
        .map(|w| Worker::start(url, &format!("worker-{}", w + 1), dir.path(), &flags))
        .collect();
    let cpu: f64 = pool.iter().map(|w| cpu_seconds(w.pid())).sum();
    let start = Instant::now();
    let ids: Vec<String> = dates
        .iter()
        .map(|date| {
            let r = api.post(
                "/v2/plans/optimise/orders",
                key,
                &json!({"delivery_date": date, "settings": {}}),
            );
            assert_eq!(r.status, 200, "{}", r.text());
            r.json()["optimisation"]["id"].as_str().unwrap().to_owned()
        })
        .collect();
    for id in &ids {
        loop {
            let r = api.get(&format!("/v2/plans/optimise/{id}"), key);
            if r.json()["optimisation"]["in_progress"] == false {
                assert_eq!(r.json()["optimisation"]["error"], Value::Null);
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(600),
                "job {id} never ended"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let used: f64 = pool.iter().map(|w| cpu_seconds(w.pid())).sum::<f64>() - cpu;
    let store = PostgresStore::open(url).unwrap();
    let store: &dyn Store = &store;
    let mut spread: BTreeMap<String, usize> = pool.iter().map(|w| (w.node.clone(), 0)).collect();
    for id in &ids {
        let holder = store.read(|tx| tx.optimisation_holder(id)).unwrap();
        *spread
            .entry(holder.unwrap_or_else(|| "?".into()))
            .or_default() += 1;
    }
    (
        jobs as f64 / elapsed * 60.0,
        spread.into_iter().collect(),
        used / jobs as f64,
    )
}

fn main() {
    let mut args = std::env::args().skip(1);
    let orders: usize = args.next().map_or(3000, |a| a.parse().expect("ORDERS"));
    let jobs: usize = args.next().map_or(8, |a| a.parse().expect("JOBS"));
    let cluster = Cluster::start_durable_with("-c shared_preload_libraries=pg_stat_statements")
        .expect("a throwaway PostgreSQL (apt-get install postgresql)");
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!(
        "bench_nodes: {orders} orders, {jobs} jobs, {} cores, {profile} build\n",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!("| store | API nodes | depots | ingest orders/s | node CPU s / 1000 orders | database CPU s / 1000 orders | statements / request | paging pages/s | node CPU s / 100 pages | database CPU s / 100 pages | statements / page |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let sqlite = tempfile::tempdir().unwrap();
    let mut runs: Vec<(&str, usize, usize, String)> = vec![(
        "SQLite",
        1,
        1,
        sqlite.path().join("bench.db").display().to_string(),
    )];
    for (nodes, depots) in [(1, 1), (3, 1), (1, 10), (3, 10)] {
        runs.push((
            "PostgreSQL",
            nodes,
            depots,
            cluster.create_empty_database().unwrap(),
        ));
    }
    let figure =
        |f: Option<f64>, digits: usize| f.map_or("—".to_owned(), |v| format!("{v:.digits$}"));
    for (store, nodes, depots, db) in runs {
        let database = db
            .starts_with("postgres")
            .then(|| Database::open(&cluster, &db));
        let run = api_run(Path::new(&db), nodes, depots, orders, database);
        let (pages, pages_cpu, pages_db_cpu, page_statements) = match run.paging {
            Some((p, c, d, s)) => (Some(p), Some(c), d, s),
            None => (None, None, None, None),
        };
        println!(
            "| {store} | {nodes} | {depots} | {:.0} | {:.2} | {} | {} | {} | {} | {} | {} |",
            run.ingest,
            run.ingest_cpu,
            figure(run.ingest_db_cpu, 2),
            figure(run.ingest_statements, 1),
            figure(pages, 0),
            figure(pages_cpu, 2),
            figure(pages_db_cpu, 2),
            figure(page_statements, 1),
        );
    }
    println!("\n| workers | jobs | jobs/min | jobs per worker | worker CPU s / job |");
    println!("|---|---|---|---|---|");
    for workers in [1, 2] {
        let url = cluster.create_empty_database().unwrap();
        let (per_minute, spread, cpu) = jobs_run(&url, workers, jobs);
        let spread: Vec<String> = spread.iter().map(|(w, n)| format!("{w}: {n}")).collect();
        println!(
            "| {workers} | {jobs} | {per_minute:.1} | {} | {cpu:.2} |",
            spread.join(", ")
        );
    }
}
