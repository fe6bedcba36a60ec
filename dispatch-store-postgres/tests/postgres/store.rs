//! What only the PostgreSQL store has: migrations shared by nodes starting at once, and the
//! serial order of writers and idempotency claims across nodes (each node a store with a pool
//! of its own on one database).

use std::sync::{Arc, Barrier};

use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::idempotency::conformance::claim;
use dispatch_core::ports::idempotency::Claim;
use dispatch_core::ports::store::conformance::{at, reference};
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_store_postgres::idempotency::PostgresIdempotencyStore;
use dispatch_store_postgres::throwaway::Cluster;
use dispatch_store_postgres::{PostgresStore, SCHEMA_VERSION};

pub(crate) fn cluster() -> &'static Cluster {
    Cluster::shared().unwrap()
}

/// `n` nodes on one fresh database, started at the same moment.
fn nodes(url: &str, n: usize) -> Vec<PostgresStore> {
    let barrier = Arc::new(Barrier::new(n));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let (url, barrier) = (url.to_owned(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                PostgresStore::open(&url)
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().unwrap().unwrap())
        .collect()
}

#[test]
fn nodes_starting_at_once_on_an_empty_database_migrate_it_once() {
    let url = cluster().create_empty_database().unwrap();
    let nodes = nodes(&url, 4);
    for node in &nodes {
        assert_eq!(node.schema_version().unwrap(), SCHEMA_VERSION);
    }
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let applied: i64 = client
        .query_one("SELECT count(*) FROM dispatch_schema_migrations", &[])
        .unwrap()
        .get(0);
    assert_eq!(applied, i64::from(SCHEMA_VERSION));
}

#[test]
fn a_database_from_a_newer_program_is_refused() {
    let url = cluster().create_database().unwrap();
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .batch_execute("INSERT INTO dispatch_schema_migrations (version) VALUES (99)")
        .unwrap();
    let err = PostgresStore::open(&url).unwrap_err();
    assert!(err.to_string().contains("newer"), "{err}");
}

#[test]
fn an_unreachable_database_is_a_clear_error() {
    let started = std::time::Instant::now();
    let err = PostgresStore::open("postgres://nobody@127.0.0.1:1/none").unwrap_err();
    assert!(matches!(err, StoreError::Backend(_)), "{err:?}");
    assert!(err.to_string().contains("127.0.0.1:1/none"), "{err}");
    assert!(err.to_string().contains("refused"), "{err}");
    assert!(
        started.elapsed().as_secs() < 5,
        "took {:?}",
        started.elapsed()
    );
}

/// A misspelt database name (or user) is refused by the server at once: the operator sees the
/// server's reason straight away, not a pool timeout ("timed out waiting for connection: db
/// error") half a minute later.
#[test]
fn a_database_that_does_not_exist_is_refused_at_once_with_the_servers_reason() {
    let url = cluster().url("no_such_database");
    let started = std::time::Instant::now();
    let err = PostgresStore::open(&url).unwrap_err();
    assert!(matches!(err, StoreError::Backend(_)), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("/no_such_database"), "{text}");
    assert!(text.contains("does not exist"), "{text}");
    assert!(
        started.elapsed().as_secs() < 5,
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn claims_of_one_key_on_several_nodes_have_exactly_one_winner() {
    let url = cluster().create_database().unwrap();
    let nodes = nodes(&url, 6);
    let keys: Vec<PostgresIdempotencyStore> = nodes
        .iter()
        .map(|n| PostgresIdempotencyStore::new(n).unwrap())
        .collect();
    let barrier = Barrier::new(keys.len());
    let claims: Vec<Claim> = std::thread::scope(|s| {
        let handles: Vec<_> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let barrier = &barrier;
                s.spawn(move || {
                    barrier.wait();
                    claim(k, "k", "h", &i.to_string(), at(1_800_000_000_000))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let winners = claims.iter().filter(|c| **c == Claim::Claimed).count();
    assert_eq!(winners, 1, "{claims:?}");
    assert!(claims
        .iter()
        .all(|c| matches!(c, Claim::Claimed | Claim::InProgress)));
}

/// Read-then-write transactions on several nodes: each sees every commit before it, as under
/// SQLite's single writer, so names derived from what was read never repeat (the shape of
/// order numbering and of "dispatch once").
#[test]
fn writers_on_several_nodes_run_in_one_serial_order() {
    let url = cluster().create_database().unwrap();
    let nodes = nodes(&url, 3);
    let (a, _, _) = reference::setup(&nodes[0]);
    std::thread::scope(|s| {
        for node in &nodes {
            for _ in 0..2 {
                s.spawn(move || {
                    let store: &dyn Store = node;
                    for _ in 0..10 {
                        store
                            .transaction(|tx| {
                                let n = tx.list_vehicles(a)?.len();
                                let fields = reference::fields(&format!("V{n}"), &[], vec![]);
                                tx.insert_vehicle(a, &fields, at(1))
                            })
                            .unwrap();
                    }
                });
            }
        }
    });
    let store: &dyn Store = &nodes[1];
    let mut names: Vec<String> = store
        .read(|tx| tx.list_vehicles(a))
        .unwrap()
        .into_iter()
        .map(|v| v.fields.name)
        .collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 60, "every transaction saw all earlier commits");
}

#[test]
fn a_transaction_that_panicked_leaves_no_connection_behind_in_it() {
    let url = cluster().create_database().unwrap();
    let store = PostgresStore::open_with_pool_size(&url, 1).unwrap();
    let (a, _, _) = reference::setup(&store);
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let s: &dyn Store = &store;
        let _: Result<(), StoreError> = s.transaction(|tx| {
            tx.upsert_tag(a, "half-done", at(1))?;
            panic!("the work failed");
        });
    }));
    assert!(panicked.is_err());
    let s: &dyn Store = &store;
    let tags = s.transaction(|tx| {
        tx.upsert_tag(a, "next", at(2))?;
        tx.list_tags(a)
    });
    let names: Vec<String> = tags.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(
        names,
        vec!["next".to_string()],
        "the panicked work was not committed"
    );
    let other = DepotScope {
        organisation_id: a.organisation_id,
        depot_id: a.depot_id + 100,
    };
    assert_eq!(s.read(|tx| tx.list_tags(other)).unwrap(), vec![]);
}
