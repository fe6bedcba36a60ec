//! The one timing loop every side runs its loads in: all clients start together on threads of
//! their own, and a load takes until the last of them is done. A write load's inputs (the
//! service's request bodies, the database alone's rows) are built before the clock starts, as
//! a load tool with prepared bodies sends them: the time is the service's and the database's,
//! not the generator's, which would otherwise compete with them for the same cores.

use std::ops::Range;
use std::time::Instant;

use crate::workload::BATCH;

/// Runs `client(c)` for every client `c` of `clients` at once; returns what each returned, in
/// client order, and the seconds until the last one finished.
pub fn clients<T: Send>(clients: usize, client: impl Fn(usize) -> T + Sync) -> (Vec<T>, f64) {
    let started = Instant::now();
    let client = &client;
    let out = std::thread::scope(|s| {
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                s.spawn(move || {
                    let out = client(c);
                    crate::costs::count_own_thread();
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a client thread"))
            .collect()
    });
    (out, started.elapsed().as_secs_f64())
}

/// The batches client `c` of `clients` writes of orders `0..orders`: every `clients`-th batch
/// of [`BATCH`] from the `c`-th, as (batch number, the orders in it).
fn batches(c: usize, clients: usize, orders: usize) -> impl Iterator<Item = (usize, Range<usize>)> {
    (c..orders.div_ceil(BATCH))
        .step_by(clients)
        .map(move |b| (b, b * BATCH..((b + 1) * BATCH).min(orders)))
}

/// Runs a write load: first every client's batches with their inputs (`build` of the batch's
/// orders), built on the clients' threads outside the timed section, then `client(c, inputs)`
/// for every client at once; returns the seconds of the second part only.
pub fn writes<T: Send + Sync>(
    clients: usize,
    orders: usize,
    build: impl Fn(Range<usize>) -> T + Sync,
    client: impl Fn(usize, &[(usize, T)]) + Sync,
) -> f64 {
    let (inputs, _) = self::clients(clients, |c| {
        batches(c, clients, orders)
            .map(|(b, batch)| (b, build(batch)))
            .collect::<Vec<_>>()
    });
    self::clients(clients, |c| client(c, &inputs[c])).1
}

/// Runs a paging load: `client(c)` reads every page and returns (rows read, the ids seen);
/// returns (rows read by all clients, seconds, the first client's ids).
pub fn paging(
    clients: usize,
    client: impl Fn(usize) -> (usize, Vec<i64>) + Sync,
) -> (usize, f64, Vec<i64>) {
    let (lists, secs) = self::clients(clients, client);
    let rows = lists.iter().map(|(rows, _)| rows).sum();
    let ids = lists
        .into_iter()
        .next()
        .map(|(_, ids)| ids)
        .unwrap_or_default();
    (rows, secs, ids)
}
