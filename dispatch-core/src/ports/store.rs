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
mod outbox;
mod plans;
mod pod;
mod route_log;

pub use customers::CustomerRepo;
pub use driver::DriverRepo;
pub use leases::{JobCheckpoint, Lease, LeaseRepo, SendLease};
pub use memory::InMemoryStore;
pub use notifications::{DueTask, NewTask, NotificationRepo, TaskFilter};
pub use orders::{NewAttachment, NumberedOrder, OrderFilter, OrderRepo, OrderSummary};
pub use outbox::{
    DeliveryOutcome, DeliveryRecord, DeliveryState, OutboxEvent, OutboxRepo, PendingDepot,
};
pub use plans::{OptimisationRepo, PlanRepo, RouteRepo, RouteSummary, KEPT_PROBLEMS};
pub use pod::{NewImage, PendingImage, PodRepo, ProofPlace, QuestionnaireRepo, TrackingRepo};
pub use route_log::{RouteAuditEntry, RouteLogRepo};

use crate::model::location::Coordinates;
use crate::model::notification::{Channel, NotificationTemplate};
use crate::model::organisation::{
    AccessKey, Depot, DepotScope, DepotSettings, KeyPermission, Organisation,
};
use crate::model::reference::{CapacityType, CustomField, Skill, Tag, ThirdParty};
use crate::model::vehicle::{Vehicle, VehicleFields};
use crate::model::zone::{Polygon, Zone, ZoneGroup};
use crate::ports::geocoder::{CachedAnswer, GazetteerEntry};
use crate::ports::idempotency::{BeforeCommit, IdempotencyRepo};
use crate::time::Timestamp;

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
    /// writer of one order waits, then reads the first one's commit) and a write a concurrent
    /// one got in the way of (one number inserted by both, a deadlock) fails with
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

    /// Runs `work` in a read-only snapshot.
    fn run_read(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;

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

/// A depot to create.
#[derive(Debug, Clone, PartialEq)]
pub struct NewDepot {
    /// Name, unique within the organisation.
    pub name: String,
    /// Street address.
    pub address: Option<String>,
    /// Coordinates of the depot.
    pub location: Option<Coordinates>,
    /// Settings.
    pub settings: DepotSettings,
}

/// Organisations, depots, access keys and installation secrets.
pub trait OrganisationRepo {
    /// The organisation of that name.
    fn find_organisation_by_name(&mut self, name: &str)
        -> Result<Option<Organisation>, StoreError>;
    /// Creates an organisation.
    fn insert_organisation(
        &mut self,
        name: &str,
        now: Timestamp,
    ) -> Result<Organisation, StoreError>;
    /// How many depots exist in the whole store.
    fn count_depots(&mut self) -> Result<u64, StoreError>;
    /// The depot of the scope.
    fn get_depot(&mut self, scope: DepotScope) -> Result<Option<Depot>, StoreError>;
    /// The depot of that name in the organisation.
    fn find_depot_by_name(
        &mut self,
        organisation_id: i64,
        name: &str,
    ) -> Result<Option<Depot>, StoreError>;
    /// Creates a depot.
    fn insert_depot(
        &mut self,
        organisation_id: i64,
        depot: &NewDepot,
        now: Timestamp,
    ) -> Result<Depot, StoreError>;
    /// Overwrites a depot's name, address, location and settings (`updated` becomes `now`).
    fn update_depot(
        &mut self,
        scope: DepotScope,
        depot: &NewDepot,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// Access keys whose digest starts with `lookup` (the first 8 digest bytes, big-endian);
    /// the caller compares the full digest in constant time.
    fn access_keys_by_lookup(&mut self, lookup: i64) -> Result<Vec<AccessKey>, StoreError>;
    /// The key of that name in the depot.
    fn find_access_key_by_name(
        &mut self,
        scope: DepotScope,
        name: &str,
    ) -> Result<Option<AccessKey>, StoreError>;
    /// Stores a key (its digest only).
    fn insert_access_key(
        &mut self,
        scope: DepotScope,
        name: &str,
        permission: KeyPermission,
        key_hash: [u8; 32],
        now: Timestamp,
    ) -> Result<AccessKey, StoreError>;
    /// Changes a key's permission.
    fn set_access_key_permission(
        &mut self,
        scope: DepotScope,
        id: i64,
        permission: KeyPermission,
    ) -> Result<(), StoreError>;
    /// The installation secret named `name`; stores `fresh` first when none exists yet.
    fn installation_secret(&mut self, name: &str, fresh: [u8; 32]) -> Result<[u8; 32], StoreError>;
    /// Every organisation, by id.
    fn list_organisations(&mut self) -> Result<Vec<Organisation>, StoreError>;
    /// The organisation's depots, by id.
    fn list_depots(&mut self, organisation_id: i64) -> Result<Vec<Depot>, StoreError>;
    /// The depot's keys in force, by name.
    fn list_access_keys(&mut self, scope: DepotScope) -> Result<Vec<AccessKey>, StoreError>;
    /// Revokes the depot's key of that name: it stops authenticating with the commit, and the
    /// name's generation (see [`OrganisationRepo::access_key_generation`]) goes up by one.
    /// `false` when the depot has no key of that name.
    fn revoke_access_key(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError>;
    /// How many times a key of that name was revoked in the depot (0 when never). Keys are
    /// derived from it, so a key created again under a revoked name is a new key.
    fn access_key_generation(&mut self, scope: DepotScope, name: &str) -> Result<u32, StoreError>;
}

/// Reference data of a depot (and organisation-wide third parties and order statuses).
pub trait ReferenceRepo {
    /// Capacity types of the depot, by id.
    fn list_capacity_types(&mut self, scope: DepotScope) -> Result<Vec<CapacityType>, StoreError>;
    /// Creates the capacity type named `name` or updates its default.
    fn upsert_capacity_type(
        &mut self,
        scope: DepotScope,
        name: &str,
        default: &str,
        now: Timestamp,
    ) -> Result<CapacityType, StoreError>;
    /// Custom fields of the depot, by id.
    fn list_custom_fields(&mut self, scope: DepotScope) -> Result<Vec<CustomField>, StoreError>;
    /// Creates the custom field named `name` unless it exists.
    fn upsert_custom_field(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<CustomField, StoreError>;
    /// Tags of the depot, by id.
    fn list_tags(&mut self, scope: DepotScope) -> Result<Vec<Tag>, StoreError>;
    /// Creates the tag named `name` unless it exists.
    fn upsert_tag(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<Tag, StoreError>;
    /// Skills of the depot, by id.
    fn list_skills(&mut self, scope: DepotScope) -> Result<Vec<Skill>, StoreError>;
    /// The skill named exactly `name` (case-sensitive), created when missing.
    fn upsert_skill(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<Skill, StoreError>;
    /// Zone groups of the depot, by id.
    fn list_zone_groups(&mut self, scope: DepotScope) -> Result<Vec<ZoneGroup>, StoreError>;
    /// One zone group of the depot.
    fn get_zone_group(
        &mut self,
        scope: DepotScope,
        id: i64,
    ) -> Result<Option<ZoneGroup>, StoreError>;
    /// Creates the zone group named `name` unless it exists.
    fn upsert_zone_group(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<ZoneGroup, StoreError>;
    /// Zones of one group of the depot, by id.
    fn list_zones(
        &mut self,
        scope: DepotScope,
        zone_group_id: i64,
    ) -> Result<Vec<Zone>, StoreError>;
    /// Creates the zone named `name` in the group or replaces its polygon.
    fn upsert_zone(
        &mut self,
        scope: DepotScope,
        zone_group_id: i64,
        name: &str,
        polygon: &Polygon,
        now: Timestamp,
    ) -> Result<Zone, StoreError>;
    /// Third parties of the organisation, by id.
    fn list_third_parties(&mut self, organisation_id: i64) -> Result<Vec<ThirdParty>, StoreError>;
    /// Creates the third party named `name` unless it exists.
    fn upsert_third_party(
        &mut self,
        organisation_id: i64,
        name: &str,
        now: Timestamp,
    ) -> Result<ThirdParty, StoreError>;
    /// Custom order statuses of the organisation, in creation order.
    fn list_custom_order_statuses(
        &mut self,
        organisation_id: i64,
    ) -> Result<Vec<String>, StoreError>;
    /// Adds a custom order status; false when it already exists.
    fn insert_custom_order_status(
        &mut self,
        organisation_id: i64,
        status: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError>;
    /// Notification templates of the depot, by id.
    fn list_notification_templates(
        &mut self,
        scope: DepotScope,
    ) -> Result<Vec<NotificationTemplate>, StoreError>;
    /// Creates the template named `name` or updates its channel and body.
    fn upsert_notification_template(
        &mut self,
        scope: DepotScope,
        channel: Channel,
        name: &str,
        body: &str,
        now: Timestamp,
    ) -> Result<NotificationTemplate, StoreError>;
    /// The depot's gazetteer (offline geocoder table).
    fn list_gazetteer(&mut self, scope: DepotScope) -> Result<Vec<GazetteerEntry>, StoreError>;
    /// Adds a gazetteer entry, or moves the one with the same address and postcode.
    fn upsert_gazetteer_entry(
        &mut self,
        scope: DepotScope,
        entry: &GazetteerEntry,
    ) -> Result<(), StoreError>;
    /// The organisation's remembered answer of an outside geocoder to the question `query`
    /// (a [`GeocodeQuery::cache_key`](crate::ports::geocoder::GeocodeQuery::cache_key)).
    fn find_geocode_answer(
        &mut self,
        organisation_id: i64,
        query: &str,
    ) -> Result<Option<CachedAnswer>, StoreError>;
    /// Remembers an outside geocoder's answer to `query`, replacing an older one.
    fn put_geocode_answer(
        &mut self,
        organisation_id: i64,
        query: &str,
        answer: &CachedAnswer,
    ) -> Result<(), StoreError>;
}

/// Vehicles of a depot.
pub trait VehicleRepo {
    /// All vehicles of the depot (inactive included), by id.
    fn list_vehicles(&mut self, scope: DepotScope) -> Result<Vec<Vehicle>, StoreError>;
    /// One vehicle of the depot.
    fn get_vehicle(&mut self, scope: DepotScope, id: i64) -> Result<Option<Vehicle>, StoreError>;
    /// Stores a new vehicle. Its skills must exist in the depot (see
    /// [`ReferenceRepo::upsert_skill`]) and its capacities name capacity types of the depot.
    fn insert_vehicle(
        &mut self,
        scope: DepotScope,
        fields: &VehicleFields,
        now: Timestamp,
    ) -> Result<i64, StoreError>;
    /// Overwrites a vehicle; false when it is not in the depot.
    fn update_vehicle(
        &mut self,
        scope: DepotScope,
        id: i64,
        fields: &VehicleFields,
        now: Timestamp,
    ) -> Result<bool, StoreError>;
    /// Deletes a vehicle with its skills, capacities and every assignment of it; false when it
    /// is not in the depot.
    fn delete_vehicle(&mut self, scope: DepotScope, id: i64) -> Result<bool, StoreError>;
    /// How many vehicles the organisation holds across its depots.
    fn count_vehicles_in_organisation(&mut self, organisation_id: i64) -> Result<u64, StoreError>;
}
