//! Where the tail of a single read during a solve lies: `GET /v2/orders/{id}` as
//! `read_latency` sends it (the test support's client: a thread per request, each reply checked
//! against the OpenAPI document) interleaved read by read with a lean client (connect, write,
//! read to the end), idle and while a 1 000-order day is optimised, with one solver thread and
//! with one per core. For the lean reads over 2.5 ms it sums their time, its connect and
//! exchange parts, the client thread's run-queue wait and the server's runtime threads'
//! run-queue wait around each (Linux schedstat: time runnable but not running). Flags after
//! READS go to `dispatch serve` (e.g. `--optimiser-idle off --optimiser-nice 14`).
//!
//! ```text
//! cargo run --release --example read_tail -- [READS] [SERVE FLAGS...]
//! ```

#[path = "read_day/mod.rs"]
mod read_day;
#[path = "../tests/support/mod.rs"]
mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use read_day::{fill, seed, serve, start_solve};

/// Run-queue wait so far (ns) of the calling thread.
fn own_wait() -> u64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    s.split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The schedstat files of the server's (this process's child's) threads named `prefix*`.
fn server_threads(prefix: &str) -> Vec<std::path::PathBuf> {
    let me = std::process::id().to_string();
    let mut out = Vec::new();
    for p in std::fs::read_dir("/proc").unwrap().flatten() {
        let stat = std::fs::read_to_string(p.path().join("stat")).unwrap_or_default();
        let Some(rest) = stat.rsplit(") ").next() else {
            continue;
        };
        let ppid = rest.split_whitespace().nth(1).unwrap_or("");
        if ppid != me {
            continue;
        }
        for t in std::fs::read_dir(p.path().join("task")).unwrap().flatten() {
            let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
            if comm.starts_with(prefix) {
                out.push(t.path().join("schedstat"));
            }
        }
    }
    out
}

/// Summed (run time, run-queue wait) in ns of these threads.
fn threads_sched(paths: &[std::path::PathBuf]) -> (u64, u64) {
    paths.iter().fold((0, 0), |(r, w), p| {
        let s = std::fs::read_to_string(p).unwrap_or_default();
        let mut f = s.split_whitespace().map(|v| v.parse::<u64>().unwrap_or(0));
        (r + f.next().unwrap_or(0), w + f.next().unwrap_or(0))
    })
}

struct Lean {
    total: f64,
    connect: f64,
    exchange: f64,
    client_wait: f64,
    workers_wait: f64,
}

fn lean_read(addr: &str, key: &str, id: i64, workers: &[std::path::PathBuf]) -> Lean {
    let head = format!("GET /v2/orders/{id} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nx-access-key: {key}\r\ncontent-length: 0\r\n\r\n");
    let (w0, s0) = (own_wait(), threads_sched(workers).1);
    let t0 = Instant::now();
    let mut stream = TcpStream::connect(addr).expect("connect");
    let t1 = Instant::now();
    stream.write_all(head.as_bytes()).expect("write");
    let mut raw = Vec::with_capacity(8192);
    stream.read_to_end(&mut raw).expect("read");
    let t2 = Instant::now();
    let (w1, s1) = (own_wait(), threads_sched(workers).1);
    assert!(
        raw.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&raw[..raw.len().min(200)])
    );
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    Lean {
        total: ms(t2 - t0),
        connect: ms(t1 - t0),
        exchange: ms(t2 - t1),
        client_wait: (w1 - w0) as f64 / 1e6,
        workers_wait: (s1 - s0) as f64 / 1e6,
    }
}

fn q(v: &[f64], p: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[((s.len() - 1) as f64 * p).round() as usize]
}

fn report(label: &str, support_ms: &[f64], lean: &[Lean]) {
    let tot: Vec<f64> = lean.iter().map(|l| l.total).collect();
    let slow: Vec<&Lean> = lean.iter().filter(|l| l.total > 2.5).collect();
    let sum = |f: &dyn Fn(&Lean) -> f64| slow.iter().map(|l| f(l)).sum::<f64>() + 0.0;
    println!(
        "| {label} | {:.2} | {:.2} | {} | {:.2} | {:.2} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
        q(support_ms, 0.5), q(support_ms, 0.99), support_ms.iter().filter(|&&m| m > 2.5).count(),
        q(&tot, 0.5), q(&tot, 0.99), slow.len(),
        sum(&|l| l.total), sum(&|l| l.connect), sum(&|l| l.exchange), sum(&|l| l.client_wait), sum(&|l| l.workers_wait),
    );
}

fn main() {
    let reads: usize = std::env::args()
        .nth(1)
        .map_or(2000, |s| s.parse().expect("READS"));
    let extra: Vec<String> = std::env::args().skip(2).collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("Reads interleaved: support's client / a lean one; {reads} each per row; slow = lean reads over 2.5 ms, their summed times in ms");
    println!();
    println!("| case | support p50 | support p99 | support > 2.5 ms | lean p50 | lean p99 | slow lean reads | slow: total | connect | exchange | client run-queue wait | server runtime threads' run-queue wait |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for threads in [1, cores] {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("latency.db");
        let key = seed(&db);
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let server = serve(&db, threads, &extra);
        let ids = fill(&server, &key);
        let workers = server_threads("tokio-rt-worker");
        let run = |label: &str| {
            let mut sup = Vec::new();
            let mut lean = Vec::new();
            for n in 0..reads {
                let id = ids[(n * 7919) % ids.len()];
                let t = Instant::now();
                assert_eq!(server.get(&format!("/v2/orders/{id}"), &key).status, 200);
                sup.push(t.elapsed().as_secs_f64() * 1e3);
                lean.push(lean_read(
                    &server.addr,
                    &key,
                    ids[(n * 7919 + 1) % ids.len()],
                    &workers,
                ));
            }
            report(label, &sup, &lean);
        };
        run(&format!(
            "{threads} solver threads, no solve ({} runtime threads)",
            workers.len()
        ));
        let job = start_solve(&server, &key);
        run(&format!("{threads} solver threads, during the solve"));
        assert!(
            server.job_in_progress(&key, &job),
            "the solve ended before the reads did"
        );
    }
}
