//! What a route remembers beyond its stops: every order that was ever on it (so an order
//! removed from it is recognised when it comes back) and the audit log of edits made to it
//! after it was dispatched.

use super::StoreError;
use crate::model::organisation::DepotScope;
use crate::time::Timestamp;

/// One row of a route's audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteAuditEntry {
    /// Identifier.
    pub id: i64,
    /// The route.
    pub route_id: i64,
    /// What happened (`orders_added`, `orders_removed`, `reversed`).
    pub action: String,
    /// The orders concerned, by id.
    pub order_ids: Vec<i64>,
    /// When.
    pub created: Timestamp,
}

/// Route history and audit log.
pub trait RouteLogRepo {
    /// Remembers that these orders were on the route (repeats are ignored).
    fn remember_route_orders(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_ids: &[i64],
    ) -> Result<(), StoreError>;
    /// Every order remembered for the route, ascending.
    fn remembered_route_orders(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<i64>, StoreError>;
    /// Appends a row to the route's audit log. Rows outlive the route (a deleted plan keeps
    /// the record of what was changed on its dispatched routes).
    fn append_route_audit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        action: &str,
        order_ids: &[i64],
        now: Timestamp,
    ) -> Result<RouteAuditEntry, StoreError>;
    /// The route's audit log, oldest first.
    fn route_audit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<RouteAuditEntry>, StoreError>;
}
