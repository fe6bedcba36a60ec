//! What only the PostgreSQL store has: migrations shared by nodes starting at once, and the
//! serial order of writers and idempotency claims across nodes (each node a store with a pool
//! of its own on one database).

use std::sync::{Arc, Barrier};

use dispatch_core::model::order_fields::NamedRef;
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

/// Reference data of each of the catalog's four lists in the depot: a capacity type, a skill,
/// two tags and a custom field.
pub(crate) fn reference_data(store: &dyn Store, depot: DepotScope) {
    store
        .transaction(|tx| {
            tx.upsert_capacity_type(depot, "weight", "0", at(1))?;
            tx.upsert_skill(depot, "forklift", at(1))?;
            tx.upsert_tag(depot, "fragile", at(1))?;
            tx.upsert_tag(depot, "cold", at(1))?;
            tx.upsert_custom_field(depot, "door code", at(1))?;
            Ok::<_, StoreError>(())
        })
        .unwrap();
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

#[test]
fn a_single_read_is_one_round_trip_and_refuses_a_second_statement() {
    let url = cluster().create_database().unwrap();
    let store = PostgresStore::open_with_pool_size(&url, 1).unwrap();
    let (a, _, _) = reference::setup(&store);
    let s: &dyn Store = &store;
    s.transaction(|tx| tx.upsert_tag(a, "fragile", at(1)))
        .unwrap();
    // The first run prepares the statement on the connection (a round trip of its own).
    s.read_single(|tx| tx.list_tags(a)).unwrap();
    let before = store.round_trips();
    let tags = s.read_single(|tx| tx.list_tags(a)).unwrap();
    assert_eq!(tags.len(), 1);
    assert_eq!(store.round_trips() - before, 1, "no BEGIN, no COMMIT");

    let second: Result<_, StoreError> = s.read_single(|tx| {
        tx.list_tags(a)?;
        tx.list_skills(a)
    });
    assert!(
        matches!(&second, Err(StoreError::Backend(m)) if m.contains("second statement")),
        "{second:?}"
    );
    // The one connection is whole again: a transaction after it sees every list.
    let read = s.read(|tx| Ok::<_, StoreError>((tx.list_tags(a)?, tx.list_skills(a)?)));
    assert_eq!(read.unwrap().0.len(), 1);
}

#[test]
fn the_reference_catalog_is_the_four_lists_in_one_round_trip() {
    let url = cluster().create_database().unwrap();
    let store = PostgresStore::open(&url).unwrap();
    let (a, b, _) = reference::setup(&store);
    let s: &dyn Store = &store;
    reference_data(s, a);
    s.transaction(|tx| tx.upsert_tag(b, "elsewhere", at(1)))
        .unwrap();
    let (lists, one) = s
        .read(|tx| {
            let lists: [Vec<(i64, String)>; 4] = [
                tx.list_capacity_types(a)?
                    .into_iter()
                    .map(|c| (c.id, c.name))
                    .collect(),
                tx.list_skills(a)?
                    .into_iter()
                    .map(|c| (c.id, c.name))
                    .collect(),
                tx.list_tags(a)?
                    .into_iter()
                    .map(|c| (c.id, c.name))
                    .collect(),
                tx.list_custom_fields(a)?
                    .into_iter()
                    .map(|c| (c.id, c.name))
                    .collect(),
            ];
            Ok::<_, StoreError>((lists, tx.reference_catalog(a)?))
        })
        .unwrap();
    let pairs = |v: &[NamedRef]| -> Vec<(i64, String)> {
        v.iter().map(|n| (n.id, n.name.clone())).collect()
    };
    assert_eq!(
        [
            pairs(&one.capacity_types),
            pairs(&one.skills),
            pairs(&one.tags),
            pairs(&one.custom_fields)
        ],
        lists
    );
    assert_eq!(one.tags.len(), 2, "another depot's tag is not in it");
    let before = store.round_trips();
    s.read_single(|tx| tx.reference_catalog(a)).unwrap();
    assert_eq!(store.round_trips() - before, 1);
}
