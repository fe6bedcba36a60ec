//! A deliberately slowed store, for the ratio guard's own test: with
//! `DISPATCH_LOAD_RATIO_SLOW_MS` set, every write transaction of the service's store first
//! waits that many milliseconds (a store that lost its speed), so the guard can be seen to
//! fail. Without it, the store is used as it is.

use std::sync::Arc;
use std::time::Duration;

use dispatch_core::model::order::Order;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::{PreparedOrders, Store, StoreError, StoreTx};

type Work<'a> = &'a mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>;

struct Slowed {
    store: Arc<dyn Store>,
    pause: Duration,
}

impl Store for Slowed {
    fn run_write(&self, work: Work<'_>) -> Result<(), StoreError> {
        std::thread::sleep(self.pause);
        self.store.run_write(work)
    }

    fn run_depot_write(&self, depot: DepotScope, work: Work<'_>) -> Result<(), StoreError> {
        std::thread::sleep(self.pause);
        self.store.run_depot_write(depot, work)
    }

    fn run_order_write(&self, depot: DepotScope, work: Work<'_>) -> Result<(), StoreError> {
        std::thread::sleep(self.pause);
        self.store.run_order_write(depot, work)
    }

    fn order_writes_side_by_side(&self) -> bool {
        self.store.order_writes_side_by_side()
    }

    fn prepare_new_orders(&self, depot: DepotScope, orders: Vec<Order>) -> PreparedOrders {
        self.store.prepare_new_orders(depot, orders)
    }

    fn run_read(&self, work: Work<'_>) -> Result<(), StoreError> {
        self.store.run_read(work)
    }

    fn run_claim(&self, work: Work<'_>) -> Result<(), StoreError> {
        self.store.run_claim(work)
    }

    fn shared_rate_limits(
        &self,
    ) -> Option<Arc<dyn dispatch_core::ports::rate_limit::SharedRateLimits>> {
        self.store.shared_rate_limits()
    }

    fn reads_in_place(&self) -> bool {
        self.store.reads_in_place()
    }
}

/// `store`, slowed when `DISPATCH_LOAD_RATIO_SLOW_MS` says so.
pub fn maybe<S: Store + 'static>(store: Arc<S>) -> Arc<dyn Store> {
    match std::env::var("DISPATCH_LOAD_RATIO_SLOW_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
    {
        Some(ms) => Arc::new(Slowed {
            store,
            pause: Duration::from_millis(ms),
        }),
        None => store,
    }
}
