//! Single-read latency while the solver runs: `GET /v2/orders/{id}` through the real binary
//! (SQLite, loopback, a fresh connection per request), idle and while a 1 000-order day is
//! optimised, with one solver thread and with as many as the machine has cores; for each, the
//! search under SCHED_IDLE (`--optimiser-idle on`, the default) and at a nice value only
//! (`--optimiser-idle off`) with `--optimiser-nice 0` and the default, 10 (on SQLite the
//! optimisation threads run that far below request handling's blocking threads, which run at
//! nice 5 below the store's writer; single reads run on the runtime's workers at nice 0).
//! Prints one table row per case; its last column splits the reads during the solve that took
//! over 2.5 ms into those the client saw and those whose handling in the server (routing to
//! response, by its request-duration histogram) took that long.
//!
//! ```text
//! cargo run --release --example read_latency -- [READS]
//! ```

#[path = "read_day/mod.rs"]
mod read_day;
#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Instant;

use read_day::{fill, seed, serve, start_solve, ORDERS, VANS};
use support::Server;

/// `reads` sequential single reads; their latencies in milliseconds, sorted.
fn read(server: &Server, key: &str, ids: &[i64], reads: usize) -> Vec<f64> {
    let mut took: Vec<f64> = (0..reads)
        .map(|n| {
            let id = ids[(n * 7919) % ids.len()];
            let start = Instant::now();
            let reply = server.get(&format!("/v2/orders/{id}"), key);
            assert_eq!(reply.status, 200);
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    took.sort_by(f64::total_cmp);
    took
}

/// `GET /v2/orders/{id}` requests the server has handled so far, and how many of them took over
/// 2.5 ms there: from its request-duration histogram, which times the handler (routing to
/// response), not accepting the connection, reading the request or writing the reply.
fn handled(server: &Server) -> (f64, f64) {
    let raw = support::exchange(&server.addr, support::Request::new("GET", "/metrics", None));
    let text = String::from_utf8_lossy(&raw);
    let bucket = |le: &str| -> f64 {
        text.lines()
            .filter(|l| l.starts_with("dispatch_http_request_duration_seconds_bucket{"))
            .filter(|l| l.contains("method=\"GET\"") && l.contains(&format!("le=\"{le}\"")))
            .filter(|l| {
                l.split("route=\"")
                    .nth(1)
                    .and_then(|r| r.split('"').next())
                    .is_some_and(|r| {
                        r.strip_prefix("/v2/orders/{")
                            .is_some_and(|rest| rest.ends_with('}') && !rest.contains('/'))
                    })
            })
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    };
    let all = bucket("+Inf");
    (all, all - bucket("0.0025"))
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn main() {
    let reads: usize = std::env::args()
        .nth(1)
        .map_or(2000, |s| s.parse().expect("READS: a number"));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("Single reads (GET /v2/orders/{{id}}), {reads} per column, {ORDERS} orders and {VANS} vans being optimised, {cores} cores");
    println!();
    println!("| solver threads | --optimiser-idle | --optimiser-nice | idle p50 ms | idle p99 ms | during solve p50 ms | during solve p99 ms | during solve over 2.5 ms: client / server |");
    println!("|---|---|---|---|---|---|---|---|");
    for threads in [1, cores] {
        for (search_idle, nice) in [("on", "10"), ("off", "10"), ("off", "0")] {
            let dir = tempfile::tempdir().expect("a temp dir");
            let db = dir.path().join("latency.db");
            let key = seed(&db);
            let server = serve(
                &db,
                threads,
                &["--optimiser-nice", nice, "--optimiser-idle", search_idle],
            );
            let ids = fill(&server, &key);
            let idle = read(&server, &key, &ids, reads);
            let job = start_solve(&server, &key);
            let before = handled(&server);
            let busy = read(&server, &key, &ids, reads);
            let after = handled(&server);
            // The server's count, when its histogram holds exactly these reads.
            let server_slow = if after.0 - before.0 == reads as f64 {
                format!("{}", after.1 - before.1)
            } else {
                "-".to_owned()
            };
            let slow = busy.iter().filter(|&&ms| ms > 2.5).count();
            assert!(
                server.job_in_progress(&key, &job),
                "the solve ended before the reads did: raise --solve-time"
            );
            println!(
                "| {threads} | {search_idle} | {nice} | {:.2} | {:.2} | {:.2} | {:.2} | {slow} / {server_slow} |",
                quantile(&idle, 0.5),
                quantile(&idle, 0.99),
                quantile(&busy, 0.5),
                quantile(&busy, 0.99)
            );
        }
    }
}
