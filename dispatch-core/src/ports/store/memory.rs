//! An in-memory [`Store`] for core tests and examples. A transaction works on a copy of the
//! state and swaps it in on commit, so rollbacks and isolation behave like the real store.

use std::sync::Mutex;

mod driver;
mod idempotency;
mod leases;
mod notifications;
mod orders;
mod organisation;
mod outbox;
mod plans;
mod pod;
mod reference;
mod route_log;
mod routes;
mod vehicles;

use super::{Store, StoreError, StoreTx};
use crate::model::notification::NotificationTemplate;
use crate::model::organisation::{AccessKey, Depot, DepotScope, Organisation};
use crate::model::reference::{CapacityType, CustomField, Skill, Tag, ThirdParty};
use crate::model::vehicle::Vehicle;
use crate::model::zone::{Zone, ZoneGroup};
use crate::ports::geocoder::{CachedAnswer, GazetteerEntry};

/// The in-memory store.
#[derive(Debug, Default)]
pub struct InMemoryStore {
    state: Mutex<State>,
}

impl InMemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[derive(Debug, Clone, Default)]
struct State {
    next_id: i64,
    organisations: Vec<Organisation>,
    depots: Vec<Depot>,
    keys: Vec<AccessKey>,
    /// (depot scope, key name, generation) of revoked key names.
    revoked_keys: Vec<(DepotScope, String, u32)>,
    secrets: Vec<(String, [u8; 32])>,
    capacity_types: Vec<(i64, CapacityType)>,
    custom_fields: Vec<(i64, CustomField)>,
    tags: Vec<(i64, Tag)>,
    skills: Vec<(i64, Skill)>,
    zone_groups: Vec<(i64, ZoneGroup)>,
    zones: Vec<(i64, Zone)>,
    third_parties: Vec<(i64, ThirdParty)>,
    order_statuses: Vec<(i64, String)>,
    templates: Vec<(i64, NotificationTemplate)>,
    gazetteer: Vec<(i64, GazetteerEntry)>,
    /// (organisation, question) -> an outside geocoder's answer.
    geocode_cache: std::collections::HashMap<(i64, String), CachedAnswer>,
    vehicles: Vec<Vehicle>,
    orders: orders::OrderBook,
    outbox: outbox::Outbox,
    notifications: notifications::Notifications,
    planning: plans::Planning,
    route_log: route_log::RouteLog,
    driver: driver::DriverSide,
    proofs: pod::Proofs,
    idempotency: idempotency::Records,
    leases: leases::Leases,
}

impl State {
    fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }
}

impl Store for InMemoryStore {
    fn run_write(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut copy = guard.clone();
        work(&mut copy)?;
        *guard = copy;
        Ok(())
    }

    fn run_read(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut copy = self.state.lock().unwrap_or_else(|e| e.into_inner()).clone();
        work(&mut copy)
    }
}

/// Rows of one depot (or organisation) from a scoped table, in id order.
fn scoped<T: Clone>(rows: &[(i64, T)], owner: i64) -> Vec<T> {
    rows.iter()
        .filter(|(o, _)| *o == owner)
        .map(|(_, r)| r.clone())
        .collect()
}
