//! Route history (orders ever on a route) and the route audit log.

use crate::sql::{params, Connection, Statement};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::{RouteAuditEntry, RouteLogRepo, StoreError};
use dispatch_core::time::Timestamp;

use super::order_rows::corrupt;
use super::{ts, Db, Sql};

impl<C: Connection> RouteLogRepo for Db<C> {
    fn remember_route_orders(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_ids: &[i64],
    ) -> Result<(), StoreError> {
        let mut insert = self
            .0
            .prepare_cached("INSERT INTO route_orders_seen (depot_id, route_id, order_id) \
                 SELECT CAST(?1 AS BIGINT), id, CAST(?3 AS BIGINT) FROM routes WHERE depot_id = ?1 AND id = ?2 \
                 ON CONFLICT DO NOTHING")
            .st()?;
        for order in order_ids {
            insert
                .execute(params![scope.depot_id, route_id, order])
                .st()?;
        }
        Ok(())
    }

    fn remembered_route_orders(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let mut q = self
            .0
            .prepare_cached(
                "SELECT order_id FROM route_orders_seen WHERE depot_id = ?1 AND route_id = ?2 \
                 ORDER BY order_id",
            )
            .st()?;
        let rows = q
            .query_map(params![scope.depot_id, route_id], |r| r.get(0))
            .st()?;
        rows.collect::<Result<Vec<i64>, _>>().st()
    }

    fn append_route_audit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        action: &str,
        order_ids: &[i64],
        now: Timestamp,
    ) -> Result<RouteAuditEntry, StoreError> {
        let ids =
            serde_json::to_string(order_ids).map_err(|e| StoreError::Backend(e.to_string()))?;
        let id: i64 = self
            .0
            .prepare_cached(
                "INSERT INTO route_audit_log (depot_id, route_id, action, order_ids, created) \
                 VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
            )
            .st()?
            .query_row(
                params![scope.depot_id, route_id, action, ids, now.millis()],
                |r| r.get(0),
            )
            .st()?;
        Ok(RouteAuditEntry {
            id,
            route_id,
            action: action.to_owned(),
            order_ids: order_ids.to_vec(),
            created: now,
        })
    }

    fn route_audit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<RouteAuditEntry>, StoreError> {
        let mut q = self
            .0
            .prepare_cached(
                "SELECT id, route_id, action, order_ids, created FROM route_audit_log \
                 WHERE depot_id = ?1 AND route_id = ?2 ORDER BY id",
            )
            .st()?;
        let rows = q
            .query_map(params![scope.depot_id, route_id], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, i64>(4)?,
                ))
            })
            .st()?;
        let mut out = Vec::new();
        for row in rows {
            let (id, route_id, action, ids, created) = row.st()?;
            out.push(RouteAuditEntry {
                id,
                route_id,
                action,
                order_ids: serde_json::from_str(&ids).map_err(|_| corrupt("order_ids"))?,
                created: ts(created),
            });
        }
        Ok(out)
    }
}
