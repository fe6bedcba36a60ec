//! The storage port. Use cases open one transaction, call repository methods on it, and the
//! transaction commits when the closure returns `Ok` and rolls back otherwise:
//!
//! ```
//! use dispatch_core::ports::store::{InMemoryStore, Store, StoreError};
//! use dispatch_core::time::Timestamp;
//!
//! let store = InMemoryStore::new();
//! let store: &dyn Store = &store;
//! let org = store
//!     .transaction(|tx| tx.insert_organisation("Acme", Timestamp::from_millis(0)))
//!     .unwrap();
//! let found = store
//!     .read(|tx| tx.find_organisation_by_name("Acme"))
//!     .unwrap();
//! assert_eq!(found.map(|o| o.id), Some(org.id));
//! # Ok::<(), StoreError>(())
//! ```
//!
//! Every depot-scoped method takes the [`DepotScope`] and only ever sees that depot's rows;
//! organisation-wide ones take the organisation id. Repositories are split by aggregate
//! ([`OrganisationRepo`], [`ReferenceRepo`], [`VehicleRepo`]); [`StoreTx`] is all of them, and
//! later aggregates add their repository trait to it.

#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
mod customers;
mod driver;
mod leases;
mod memory;
mod notifications;
mod orders;
mod organisation;
mod outbox;
mod plans;
mod pod;
mod reference;
mod route_log;
mod vehicles;

pub use customers::CustomerRepo;
pub use driver::DriverRepo;
pub use leases::{JobCheckpoint, Lease, LeaseRepo, SendLease};
pub use memory::InMemoryStore;
pub use notifications::{DueTask, NewTask, NotificationRepo, TaskFilter};
pub use orders::{
    insert_orders_not_held, BatchStart, NewAttachment, NumberedOrder, OrderFilter, OrderRepo,
    OrderSummary, PreparedOrders, StoredSizes,
};
pub use organisation::{NewDepot, OrganisationRepo};
pub use outbox::{
    DeliveryOutcome, DeliveryRecord, DeliveryState, OutboxEvent, OutboxRepo, PendingDepot,
};
pub use plans::{OptimisationRepo, PlanRepo, RouteRepo, RouteSummary, KEPT_PROBLEMS};
pub use pod::{NewImage, PendingImage, PodRepo, ProofPlace, QuestionnaireRepo, TrackingRepo};
pub use reference::ReferenceRepo;
pub use route_log::{RouteAuditEntry, RouteLogRepo};
pub use vehicles::VehicleRepo;

use crate::model::order::Order;
use crate::model::organisation::DepotScope;
use crate::ports::idempotency::{BeforeCommit, IdempotencyRepo};

/// Failures of the storage backend. Domain outcomes (not found, invalid) are not errors here:
/// methods return `Option`/`bool` and the use case decides.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// A uniqueness rule of the data was broken (e.g. a concurrent insert of the same name), or
    /// a concurrent transaction got in the way (a deadlock): run again, the transaction may
    /// succeed.
    #[error("conflict: {0}")]
    Conflict(String),
    /// The backend failed (I/O, corruption, busy beyond the timeout ...).
    #[error("storage failure: {0}")]
    Backend(String),
    /// The transaction's closure failed and its work was rolled back.
    #[error("transaction rolled back")]
    RolledBack,
}

/// A write transaction's work that owns what it needs, so it may run on another thread than
/// its caller's ([`Store::run_owned_write`]).
pub type OwnedWrite = Box<dyn FnOnce(&mut dyn StoreTx) -> Result<(), StoreError> + Send>;

/// A transactional store. Implementations must be usable from many threads; each call of
/// [`Store::run_write`] or [`Store::run_read`] is one transaction.
pub trait Store: Send + Sync {
    /// Runs `work` in a write transaction (serialised with other writers); commits when it
    /// returns `Ok`, rolls back otherwise. `work` is called exactly once.
    fn run_write(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;

    /// Runs `work` in a write transaction that changes the data of one depot only: rows of
    /// `depot` in depot-scoped tables (orders, customers, vehicles, routes, plans, events, the
    /// idempotency records of its keys ...), never an organisation-wide row (organisations,
    /// depots, order statuses, third parties) nor another depot's. It may read anything. Writers
    /// of one depot are serialised with each other and with [`Store::run_write`]; a store may run
    /// writers of different depots in parallel (PostgreSQL: a lock per depot). By default, a
    /// write transaction. `work` is called exactly once.
    fn run_depot_write(
        &self,
        depot: DepotScope,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let _ = depot;
        self.run_write(work)
    }

    /// Runs `work` in a write transaction of one depot that writes orders by their numbers and
    /// nothing else of the depot's: their rows and line items, their status events and the
    /// request's idempotency record (POST /orders for a batch that names no customer and no
    /// exchange pair). A store may run writers of this kind side by side in one depot, never
    /// beside another write of the depot (PostgreSQL: the depot's lock shared), if its
    /// [`OrderRepo::find_orders_by_numbers`] locks the orders it finds until commit (a second
    /// writer of one order waits, then reads the first one's commit), its
    /// [`OrderRepo::insert_orders_where_new`] waits for a concurrent insert of a number and
    /// leaves the number to it once committed, and a write a concurrent one got in the way of
    /// (one number inserted by both with [`OrderRepo::insert_orders`], a deadlock) fails with
    /// [`StoreError::Conflict`]: run again, it finds the other's commit. By default, a write
    /// of the depot ([`Store::run_depot_write`]). `work` is called exactly once.
    fn run_order_write(
        &self,
        depot: DepotScope,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.run_depot_write(depot, work)
    }

    /// Whether [`Store::run_order_write`] runs writers of one depot side by side (so that a
    /// caller runs one again when it fails with a conflict). `false` (the default) where it
    /// is an ordinary write of the depot.
    fn order_writes_side_by_side(&self) -> bool {
        false
    }

    /// Makes new orders of `depot` ready for [`OrderRepo::insert_prepared_orders`] in a later
    /// write transaction: a store whose writers run one at a time does here, outside the
    /// transaction, what it can of the insert (encoding the rows), so that its writers hold the
    /// write lock for the statements alone. By default, the orders as they are.
    fn prepare_new_orders(&self, depot: DepotScope, orders: Vec<Order>) -> PreparedOrders {
        let _ = depot;
        PreparedOrders::new(orders)
    }

    /// Runs `work`, which owns everything it reads and writes, in a write transaction of one
    /// depot ([`Store::run_depot_write`]), and returns after its commit (or rollback). A store
    /// whose writers run one at a time may run it on a writer thread of its own, which keeps the
    /// write lock while such writes queue, one transaction and one commit each, at a priority
    /// above request handling's ([`Store::writes_on_own_thread`]); by default on the caller's
    /// thread. `work` is called at most once.
    fn run_owned_write(&self, depot: DepotScope, work: OwnedWrite) -> Result<(), StoreError> {
        let mut work = Some(work);
        self.run_depot_write(depot, &mut |tx| match work.take() {
            Some(work) => work(tx),
            None => Err(StoreError::Backend("transaction body called twice".into())),
        })
    }

    /// Whether [`Store::run_owned_write`] runs on a writer thread of the store's own: the
    /// threads that handle requests then run below its priority, so that the writer, which
    /// holds the write lock every other writer waits for, gets a core as soon as it wakes from
    /// its disk writes. `false` (the default) where owned writes run on the caller's thread.
    fn writes_on_own_thread(&self) -> bool {
        false
    }

    /// Runs `work` in a read-only snapshot.
    fn run_read(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;

    /// Runs `work`, which asks the store one question (one repository call that reads, one
    /// statement), as a read. One statement sees one consistent state by itself, so a store may
    /// run it without a transaction around it (PostgreSQL: one round trip instead of three); a
    /// `work` that asks a second question fails there. By default, a read snapshot
    /// ([`Store::run_read`]).
    fn run_single_read(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.run_read(work)
    }

    /// Runs `work` in a write transaction of background-work bookkeeping: claims and leases,
    /// which order themselves by the rows [`LeaseRepo`]'s `lock_*` methods lock and touch only
    /// those rows and the lease tables. A store that serialises its writers with one lock may
    /// run these beside them (PostgreSQL: row locks with `SKIP LOCKED`, no write lock, so
    /// claims and heartbeats never queue behind the API's writes). By default, a write
    /// transaction. `work` is called exactly once.
    fn run_claim(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.run_write(work)
    }

    /// Whether a short read (a few indexed statements: an access key, one order, one page)
    /// runs in microseconds on the caller's thread, waiting for nothing but the local disk: an
    /// embedded database. An async caller then runs such reads on its own thread instead of
    /// handing them to a blocking pool and waiting to be woken twice. `false` (the default)
    /// where a read waits for a server (network round trips, a pool's free connection).
    fn reads_in_place(&self) -> bool {
        false
    }

    /// Rate-limit counters shared by every process on this store, for a store several API
    /// nodes share (PostgreSQL); `None` (the default) when one process counts in memory.
    fn shared_rate_limits(
        &self,
    ) -> Option<std::sync::Arc<dyn crate::ports::rate_limit::SharedRateLimits>> {
        None
    }
}

impl dyn Store + '_ {
    /// Runs `work` in a write transaction and returns its result; any `Err` rolls back.
    pub fn transaction<R, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<R, E>,
    ) -> Result<R, E> {
        run(work, |w| self.run_write(w))
    }

    /// Runs `work` in a write transaction and then, in the same transaction, `last` with its
    /// result: how a use case lets an idempotent request record its response together with
    /// its effect (see [`crate::ports::idempotency`]). Any `Err` rolls both back.
    pub fn transaction_with<R, E: From<StoreError>>(
        &self,
        last: &dyn BeforeCommit<R>,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<R, E>,
    ) -> Result<R, E> {
        self.transaction(|tx| {
            let result = work(tx)?;
            last.before_commit(tx, &result)?;
            Ok(result)
        })
    }

    /// Runs `work` in a write transaction of one depot's data ([`Store::run_depot_write`]) and
    /// returns its result; any `Err` rolls back.
    pub fn transaction_in<R, E: From<StoreError>>(
        &self,
        depot: DepotScope,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<R, E>,
    ) -> Result<R, E> {
        run(work, |w| self.run_depot_write(depot, w))
    }

    /// `transaction_with` in a write transaction of one depot's data
    /// ([`Store::run_depot_write`]).
    pub fn transaction_with_in<R, E: From<StoreError>>(
        &self,
        depot: DepotScope,
        last: &dyn BeforeCommit<R>,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<R, E>,
    ) -> Result<R, E> {
        self.transaction_in(depot, |tx| {
            let result = work(tx)?;
            last.before_commit(tx, &result)?;
            Ok(result)
        })
    }

    /// Runs `work`, which owns what it needs, in a write transaction of one depot's data
    /// ([`Store::run_owned_write`]: possibly on the store's writer thread) and returns its
    /// result once committed; any `Err` rolls back.
    pub fn owned_transaction_in<R, E>(
        &self,
        depot: DepotScope,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<R, E> + Send + 'static,
    ) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        // The work's result comes back through this slot: the store's runner sees only
        // whether to commit.
        let out = std::sync::Arc::new(std::sync::Mutex::new(None));
        let slot = out.clone();
        let status = self.run_owned_write(
            depot,
            Box::new(move |tx| {
                let result = work(tx);
                let failed = result.is_err();
                *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                match failed {
                    true => Err(StoreError::RolledBack),
                    false => Ok(()),
                }
            }),
        );
        let out = out.lock().unwrap_or_else(|e| e.into_inner()).take();
        settle(status, out)
    }

    /// `transaction_with` in a write of orders by number ([`Store::run_order_write`]).
    pub fn order_transaction_with_in<R, E: From<StoreError>>(
        &self,
        depot: DepotScope,
        last: &dyn BeforeCommit<R>,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<R, E>,
    ) -> Result<R, E> {
        run(
            |tx| {
                let result = work(tx)?;
                last.before_commit(tx, &result)?;
                Ok(result)
            },
            |w| self.run_order_write(depot, w),
        )
    }

    /// Runs `work` in a claim transaction ([`Store::run_claim`]) and returns its result; any
    /// `Err` rolls back.
    pub fn claim<R, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<R, E>,
    ) -> Result<R, E> {
        run(work, |w| self.run_claim(w))
    }

    /// Runs `work` in a read snapshot and returns its result.
    pub fn read<R, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<R, E>,
    ) -> Result<R, E> {
        run(work, |w| self.run_read(w))
    }

    /// Runs `work`, one question to the store ([`Store::run_single_read`]), and returns its
    /// result.
    pub fn read_single<R, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<R, E>,
    ) -> Result<R, E> {
        run(work, |w| self.run_single_read(w))
    }
}

/// Adapts a typed, once-called closure to the object-safe runner: the result travels through
/// `out`, and a failed closure makes the runner roll back.
fn run<R, E: From<StoreError>>(
    work: impl FnOnce(&mut dyn StoreTx) -> Result<R, E>,
    runner: impl FnOnce(
        &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>,
) -> Result<R, E> {
    let mut work = Some(work);
    let mut out: Option<Result<R, E>> = None;
    let status = runner(&mut |tx| {
        let Some(work) = work.take() else {
            return Err(StoreError::Backend("transaction body called twice".into()));
        };
        let result = work(tx);
        let failed = result.is_err();
        out = Some(result);
        if failed {
            Err(StoreError::RolledBack)
        } else {
            Ok(())
        }
    });
    settle(status, out)
}

/// A transaction's outcome from the runner's `status` and what its work returned (`out`,
/// `None` when it never ran): the work's error where it failed, the runner's where the
/// transaction did (a failed commit after successful work).
fn settle<R, E: From<StoreError>>(
    status: Result<(), StoreError>,
    out: Option<Result<R, E>>,
) -> Result<R, E> {
    match (status, out) {
        (Ok(()), Some(result)) => result,
        (Err(StoreError::RolledBack), Some(Err(e))) => Err(e),
        (Err(e), _) => Err(e.into()),
        (Ok(()), None) => Err(StoreError::Backend("transaction body never ran".into()).into()),
    }
}

/// Every repository, inside one transaction.
pub trait StoreTx:
    OrganisationRepo
    + ReferenceRepo
    + VehicleRepo
    + CustomerRepo
    + OrderRepo
    + PlanRepo
    + OptimisationRepo
    + RouteRepo
    + RouteLogRepo
    + OutboxRepo
    + IdempotencyRepo
    + NotificationRepo
    + DriverRepo
    + QuestionnaireRepo
    + PodRepo
    + TrackingRepo
    + LeaseRepo
{
}

impl<
        T: OrganisationRepo
            + ReferenceRepo
            + VehicleRepo
            + CustomerRepo
            + OrderRepo
            + PlanRepo
            + OptimisationRepo
            + RouteRepo
            + RouteLogRepo
            + OutboxRepo
            + NotificationRepo
            + IdempotencyRepo
            + DriverRepo
            + QuestionnaireRepo
            + PodRepo
            + TrackingRepo
            + LeaseRepo
            + ?Sized,
    > StoreTx for T
{
}
