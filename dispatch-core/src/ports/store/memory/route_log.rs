//! The in-memory route history and audit log.

use super::State;
use crate::model::organisation::DepotScope;
use crate::ports::store::{RouteAuditEntry, RouteLogRepo, StoreError};
use crate::time::Timestamp;

/// Remembered orders and audit rows of every depot's routes.
#[derive(Debug, Clone, Default)]
pub(super) struct RouteLog {
    remembered: Vec<(i64, i64, i64)>,
    audit: Vec<(i64, RouteAuditEntry)>,
}

impl RouteLogRepo for State {
    fn remember_route_orders(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_ids: &[i64],
    ) -> Result<(), StoreError> {
        for &order in order_ids {
            let row = (scope.depot_id, route_id, order);
            if !self.route_log.remembered.contains(&row) {
                self.route_log.remembered.push(row);
            }
        }
        Ok(())
    }

    fn remembered_route_orders(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let mut out: Vec<i64> = self
            .route_log
            .remembered
            .iter()
            .filter(|(d, r, _)| *d == scope.depot_id && *r == route_id)
            .map(|(_, _, o)| *o)
            .collect();
        out.sort_unstable();
        Ok(out)
    }

    fn append_route_audit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        action: &str,
        order_ids: &[i64],
        now: Timestamp,
    ) -> Result<RouteAuditEntry, StoreError> {
        let entry = RouteAuditEntry {
            id: self.id(),
            route_id,
            action: action.to_owned(),
            order_ids: order_ids.to_vec(),
            created: now,
        };
        self.route_log.audit.push((scope.depot_id, entry.clone()));
        Ok(entry)
    }

    fn route_audit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<RouteAuditEntry>, StoreError> {
        Ok(self
            .route_log
            .audit
            .iter()
            .filter(|(d, e)| *d == scope.depot_id && e.route_id == route_id)
            .map(|(_, e)| e.clone())
            .collect())
    }
}
