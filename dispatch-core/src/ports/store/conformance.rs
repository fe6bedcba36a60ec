//! The behaviour every [`Store`] must show, as scenarios run against each store: the in-memory
//! store here, the SQLite and PostgreSQL stores in their crates' tests.
//!
//! Each scenario takes a fresh, empty store. [`store_conformance!`](crate::store_conformance)
//! turns them into named `#[test]`s for one store, so a store crate writes one line per store.

pub mod active_routes;
pub mod leases;
pub mod orders;
pub mod orders_where_new;
pub mod outbox;
pub mod plans;
pub mod proof;
pub mod reference;
pub mod send_leases;

pub use active_routes::one_active_route_per_order;
pub use leases::{concurrent_claims_take_each_job_once, job_leases, named_leases};
pub use orders::{
    customers_and_orders, live_orders_of_many_ids_at_once, orders_updated_together,
    prepared_orders_inserted_or_refused,
};
pub use orders_where_new::orders_inserted_where_new;
pub use outbox::{ids_grow_across_purges, outbox_delivery, outbox_retention};
pub use plans::{planning, vehicle_deletion_keeps_routes};
pub use proof::{driver_feed_pruning, route_proof_reads, track_point_retention};
pub use reference::organisation_reference_and_vehicles;
pub use send_leases::{concurrent_send_claims_take_each_task_once, notification_send_leases};

use super::{Store, StoreError};
use crate::model::organisation::DepotScope;
use crate::time::Timestamp;

/// The instant `ms` milliseconds after the epoch.
pub fn at(ms: i64) -> Timestamp {
    Timestamp::from_millis(ms)
}

/// Depots A and B of one organisation, for scenarios about one depot's data beside another's.
pub fn two_depots(store: &dyn Store) -> (DepotScope, DepotScope) {
    store
        .transaction(|tx| {
            let org = tx.insert_organisation("Acme", at(0))?;
            let a = tx.insert_depot(org.id, &reference::depot("A"), at(0))?;
            let b = tx.insert_depot(org.id, &reference::depot("B"), at(0))?;
            Ok::<_, StoreError>((a.scope(), b.scope()))
        })
        .unwrap()
}

/// Writers on many threads at once all commit, each exactly once.
pub fn concurrent_writers_all_commit(store: &dyn Store) {
    let (a, _, _) = reference::setup(store);
    std::thread::scope(|s| {
        for t in 0..8 {
            s.spawn(move || {
                for i in 0..10 {
                    store
                        .transaction(|tx| {
                            tx.insert_vehicle(
                                a,
                                &reference::fields(&format!("{t}-{i}"), &[], vec![]),
                                at(0),
                            )
                        })
                        .unwrap();
                }
            });
        }
    });
    assert_eq!(store.read(|tx| tx.list_vehicles(a)).unwrap().len(), 80);
}

/// Expands to one `#[test]` per scenario, each on a fresh store made by `$store` (an expression
/// evaluated once per test; the optional `let` binds what it needs first, e.g. a temporary
/// directory that must live as long as the store).
#[macro_export]
macro_rules! store_conformance {
    ($(let $bind:pat = $init:expr;)? $store:expr) => {
        $crate::store_conformance!(@cases [$(let $bind = $init;)?] [$store]
            organisation_reference_and_vehicles,
            customers_and_orders,
            live_orders_of_many_ids_at_once,
            orders_updated_together,
            prepared_orders_inserted_or_refused,
            orders_inserted_where_new,
            outbox_delivery,
            outbox_retention,
            ids_grow_across_purges,
            planning,
            vehicle_deletion_keeps_routes,
            one_active_route_per_order,
            driver_feed_pruning,
            track_point_retention,
            route_proof_reads,
            concurrent_writers_all_commit,
            job_leases,
            concurrent_claims_take_each_job_once,
            named_leases,
            notification_send_leases,
            concurrent_send_claims_take_each_task_once,
        );
    };
    (@cases [$($setup:tt)*] [$store:expr] $case:ident, $($rest:tt)*) => {
        #[test]
        fn $case() {
            $($setup)*
            let store = $store;
            $crate::ports::store::conformance::$case(&store);
        }
        $crate::store_conformance!(@cases [$($setup)*] [$store] $($rest)*);
    };
    (@cases [$($setup:tt)*] [$store:expr]) => {};
}

#[cfg(test)]
mod in_memory {
    use crate::ports::store::InMemoryStore;

    crate::store_conformance!(InMemoryStore::new());
}
