//! The store conformance suite of dispatch-core (`ports::store::conformance`, the same
//! scenarios the in-memory and SQLite stores pass), each on a fresh database of a throwaway
//! PostgreSQL cluster, and the idempotency store's suite likewise.

use dispatch_store_postgres::idempotency::PostgresIdempotencyStore;
use dispatch_store_postgres::throwaway::Cluster;
use dispatch_store_postgres::PostgresStore;

fn fresh() -> PostgresStore {
    let url = Cluster::shared().unwrap().create_database().unwrap();
    PostgresStore::open(&url).unwrap()
}

dispatch_core::store_conformance!(fresh());

mod idempotency {
    use super::*;

    dispatch_core::idempotency_store_conformance!(PostgresIdempotencyStore::new(&fresh()).unwrap());

    #[test]
    fn a_response_recorded_in_a_store_transaction_commits_with_it() {
        let store = fresh();
        let keys = PostgresIdempotencyStore::new(&store).unwrap();
        dispatch_core::ports::idempotency::conformance::a_response_recorded_in_a_transaction_commits_with_it(
            &store, &keys,
        );
    }
}
