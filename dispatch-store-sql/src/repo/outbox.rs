//! The event outbox: rows of `event_outbox` with their delivery outcome. Pending
//! rows (`outcome IS NULL`) are found through partial indexes, so a long delivered history
//! does not slow the worker down; finished rows are purged by age through `(outcome, finished)`.

use std::cell::Cell;

use crate::sql::{params, Connection, OptionalExtension, Row, Statement};
use dispatch_core::events::DomainEvent;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::{
    DeliveryOutcome, DeliveryRecord, DeliveryState, OutboxEvent, OutboxRepo, PendingDepot,
    StoreError,
};
use dispatch_core::time::Timestamp;
use serde_json::Value;

use super::{limit, ts, Db, Sql};

thread_local! {
    /// Whether the transaction running on this thread appended an event. A transaction runs on
    /// one thread from `BEGIN` to `COMMIT`, so the store reads this after committing to tell the
    /// delivery worker there is something new (see `SqliteStore::on_outbox_commit`).
    static APPENDED: Cell<bool> = const { Cell::new(false) };
}

/// Whether an event was appended on this thread since the last call; clears the mark.
pub fn take_appended() -> bool {
    APPENDED.with(|a| a.replace(false))
}

/// Restores the mark of an enclosing transaction (see `SqliteStore::run`).
pub fn set_appended(appended: bool) {
    APPENDED.with(|a| a.set(appended));
}

fn corrupt(what: &str) -> StoreError {
    StoreError::Backend(format!("corrupt stored {what}"))
}

const RECORD_COLUMNS: &str = "e.id, e.depot_id, d.organisation_id, e.name, e.payload, e.created, \
     e.outcome, e.attempts, e.last_error, e.finished, e.resend_of";

/// A row of [`RECORD_COLUMNS`], the event still encoded (decoded outside rusqlite's closure).
struct RawRecord {
    id: i64,
    scope: DepotScope,
    name: String,
    payload: String,
    created: i64,
    outcome: Option<String>,
    attempts: i64,
    error: Option<String>,
    finished: Option<i64>,
    resend_of: Option<i64>,
}

fn raw(r: &Row<'_>) -> crate::sql::Result<RawRecord> {
    Ok(RawRecord {
        id: r.get(0)?,
        scope: DepotScope {
            depot_id: r.get(1)?,
            organisation_id: r.get(2)?,
        },
        name: r.get(3)?,
        payload: r.get(4)?,
        created: r.get(5)?,
        outcome: r.get(6)?,
        attempts: r.get(7)?,
        error: r.get(8)?,
        finished: r.get(9)?,
        resend_of: r.get(10)?,
    })
}

impl RawRecord {
    fn record(self) -> Result<DeliveryRecord, StoreError> {
        let state = match self.outcome.as_deref() {
            None => DeliveryState::Pending,
            Some(s) => DeliveryState::parse(s).ok_or_else(|| corrupt("delivery outcome"))?,
        };
        Ok(DeliveryRecord {
            id: self.id,
            scope: self.scope,
            event: read_event(&self.name, &self.payload)?,
            created: ts(self.created),
            state,
            attempts: u32::try_from(self.attempts).unwrap_or(0),
            error: self.error,
            finished: self.finished.map(ts),
            resend_of: self.resend_of,
        })
    }
}

impl<C: Connection> Db<C> {
    fn records(
        &self,
        filter: &str,
        params: impl crate::sql::Params,
    ) -> Result<Vec<DeliveryRecord>, StoreError> {
        let sql = format!(
            "SELECT {RECORD_COLUMNS} FROM event_outbox e JOIN depots d ON d.id = e.depot_id {filter}"
        );
        let rows: Vec<RawRecord> = self
            .0
            .prepare_cached(&sql)
            .st()?
            .query_map(params, raw)
            .st()?
            .collect::<Result<_, _>>()
            .st()?;
        rows.into_iter().map(RawRecord::record).collect()
    }

    fn pending(
        &self,
        filter: &str,
        params: impl crate::sql::Params,
    ) -> Result<Vec<OutboxEvent>, StoreError> {
        Ok(self
            .records(filter, params)?
            .into_iter()
            .map(|r| OutboxEvent {
                id: r.id,
                scope: r.scope,
                event: r.event,
                created: r.created,
            })
            .collect())
    }

    fn insert_event(
        &self,
        scope: DepotScope,
        event: &DomainEvent,
        now: Timestamp,
        resend_of: Option<i64>,
    ) -> Result<i64, StoreError> {
        let id: i64 = self
            .0
            .prepare_cached(
                "INSERT INTO event_outbox (depot_id, name, type_id, payload, created, resend_of) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
            )
            .st()?
            .query_row(
                params![
                    scope.depot_id,
                    event.name(),
                    event.type_id(),
                    event.payload().to_string(),
                    now.millis(),
                    resend_of
                ],
                |r| r.get(0),
            )
            .st()?;
        set_appended(true);
        Ok(id)
    }
}

impl<C: Connection> OutboxRepo for Db<C> {
    fn append_event(
        &mut self,
        scope: DepotScope,
        event: &DomainEvent,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.insert_event(scope, event, now, None).map(|_| ())
    }

    fn list_events(&mut self, scope: DepotScope) -> Result<Vec<DomainEvent>, StoreError> {
        Ok(self
            .records(
                "WHERE e.depot_id = ?1 AND d.organisation_id = ?2 ORDER BY e.id",
                params![scope.depot_id, scope.organisation_id],
            )?
            .into_iter()
            .map(|r| r.event)
            .collect())
    }

    fn count_pending_events(&mut self) -> Result<u64, StoreError> {
        self.0
            .query_row(
                "SELECT count(*) FROM event_outbox WHERE outcome IS NULL",
                params![],
                |r| r.get(0),
            )
            .st()
    }

    fn pending_events(
        &mut self,
        after: i64,
        limit_to: usize,
    ) -> Result<Vec<OutboxEvent>, StoreError> {
        self.pending(
            "WHERE e.outcome IS NULL AND e.id > ?1 ORDER BY e.id LIMIT ?2",
            params![after, limit(limit_to)],
        )
    }

    fn pending_events_of_depot(
        &mut self,
        depot_id: i64,
        after: i64,
        limit_to: usize,
    ) -> Result<Vec<OutboxEvent>, StoreError> {
        self.pending(
            "WHERE e.outcome IS NULL AND e.depot_id = ?1 AND e.id > ?2 ORDER BY e.id LIMIT ?3",
            params![depot_id, after, limit(limit_to)],
        )
    }

    fn pending_depots(&mut self, up_to: i64) -> Result<Vec<PendingDepot>, StoreError> {
        // A walk of the partial index on pending rows `(depot_id, id)`, one probe per depot
        // (neither SQLite nor PostgreSQL skips through an index for DISTINCT), then each
        // depot's newest pending row at or below `up_to`: the cost follows the depots with
        // pending events, never a backlog's length. Each planner is held to that index: SQLite
        // would take `(outcome, id)` for `outcome IS NULL` (every pending row, sorted), and
        // PostgreSQL may walk the pending ids back from `up_to` through other depots' backlogs,
        // which a row comparison on `(depot_id, id)` rules out.
        let rows: Vec<(i64, i64, Option<i64>)> = self
            .0
            .prepare_cached(C::DIALECT.pick(
                "WITH RECURSIVE pending(depot_id) AS (\
                 SELECT (SELECT depot_id FROM event_outbox INDEXED BY event_outbox_open_by_depot \
                         WHERE outcome IS NULL ORDER BY depot_id LIMIT 1) \
                 UNION ALL \
                 SELECT (SELECT e.depot_id FROM event_outbox e INDEXED BY event_outbox_open_by_depot \
                         WHERE e.outcome IS NULL AND e.depot_id > p.depot_id \
                         ORDER BY e.depot_id LIMIT 1) \
                 FROM pending p WHERE p.depot_id IS NOT NULL) \
                 SELECT p.depot_id, d.organisation_id, \
                        (SELECT e.id FROM event_outbox e INDEXED BY event_outbox_open_by_depot \
                         WHERE e.outcome IS NULL AND e.depot_id = p.depot_id AND e.id <= ?1 \
                         ORDER BY e.id DESC LIMIT 1) \
                 FROM pending p JOIN depots d ON d.id = p.depot_id ORDER BY p.depot_id",
                "WITH RECURSIVE pending(depot_id) AS (\
                 SELECT (SELECT depot_id FROM event_outbox WHERE outcome IS NULL \
                         ORDER BY depot_id LIMIT 1) \
                 UNION ALL \
                 SELECT (SELECT e.depot_id FROM event_outbox e \
                         WHERE e.outcome IS NULL AND e.depot_id > p.depot_id \
                         ORDER BY e.depot_id LIMIT 1) \
                 FROM pending p WHERE p.depot_id IS NOT NULL) \
                 SELECT p.depot_id, d.organisation_id, \
                        (SELECT CASE WHEN e.depot_id = p.depot_id THEN e.id END \
                         FROM event_outbox e \
                         WHERE e.outcome IS NULL AND (e.depot_id, e.id) <= (p.depot_id, ?1) \
                         ORDER BY e.depot_id DESC, e.id DESC LIMIT 1) \
                 FROM pending p JOIN depots d ON d.id = p.depot_id ORDER BY p.depot_id",
            ))
            .st()?
            .query_map([up_to], |r| r.columns())
            .st()?
            .collect::<Result<_, _>>()
            .st()?;
        Ok(rows
            .into_iter()
            .filter_map(|(depot_id, organisation_id, newest)| {
                Some(PendingDepot {
                    scope: DepotScope {
                        organisation_id,
                        depot_id,
                    },
                    newest: newest?,
                })
            })
            .collect())
    }

    fn mark_deliveries(&mut self, outcomes: &[DeliveryOutcome]) -> Result<(), StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(
                "UPDATE event_outbox SET outcome = ?2, attempts = ?3, last_error = ?4, finished = ?5, \
                 delivered = CASE WHEN CAST(?2 AS TEXT) = 'DELIVERED' THEN CAST(?5 AS BIGINT) END, \
                 failed = (CAST(?2 AS TEXT) = 'ERROR') \
                 WHERE id = ?1 AND outcome IS NULL",
            )
            .st()?;
        for o in outcomes {
            if o.state == DeliveryState::Pending {
                return Err(StoreError::Backend(
                    "a delivery outcome cannot be pending".into(),
                ));
            }
            stmt.execute(params![
                o.id,
                o.state.as_str(),
                o.attempts,
                o.error,
                o.at.millis()
            ])
            .st()?;
        }
        Ok(())
    }

    fn purge_deliveries(
        &mut self,
        finished_before: Timestamp,
        failed_before: Option<Timestamp>,
        limit_to: usize,
    ) -> Result<usize, StoreError> {
        // Candidates come from the `(outcome, finished)` index; a row a re-send names stays
        // (found through the partial index on `resend_of`). The newest row always stays, as on
        // SQLite (where ids are `MAX(id) + 1` and an id handed out again would sit behind the
        // delivery worker's scan position); PostgreSQL identities never repeat, but the two
        // stores keep one behaviour.
        let mut stmt = self
            .0
            .prepare_cached(
                "DELETE FROM event_outbox WHERE id IN (\
                 SELECT e.id FROM event_outbox e \
                 WHERE ((e.outcome IN ('DELIVERED', 'SKIPPED') AND e.finished < ?1) \
                     OR (e.outcome = 'ERROR' AND e.finished < ?2)) \
                   AND NOT EXISTS (SELECT 1 FROM event_outbox r WHERE r.resend_of = e.id) \
                   AND e.id < (SELECT MAX(id) FROM event_outbox) \
                 LIMIT ?3)",
            )
            .st()?;
        stmt.execute(params![
            finished_before.millis(),
            failed_before.map_or(i64::MIN, Timestamp::millis),
            limit(limit_to)
        ])
        .st()
    }

    fn list_deliveries(
        &mut self,
        state: DeliveryState,
        depot_id: Option<i64>,
        limit_to: usize,
    ) -> Result<Vec<DeliveryRecord>, StoreError> {
        let outcome = match state {
            DeliveryState::Pending => None,
            other => Some(other.as_str()),
        };
        self.records(
            "WHERE e.outcome IS NOT DISTINCT FROM CAST(?1 AS TEXT) \
             AND (CAST(?2 AS BIGINT) IS NULL OR e.depot_id = ?2) ORDER BY e.id DESC LIMIT ?3",
            params![outcome, depot_id, limit(limit_to)],
        )
    }

    fn get_delivery(&mut self, id: i64) -> Result<Option<DeliveryRecord>, StoreError> {
        Ok(self.records("WHERE e.id = ?1", [id])?.into_iter().next())
    }

    fn resend_event(&mut self, id: i64, now: Timestamp) -> Result<Option<i64>, StoreError> {
        let original: Option<(i64, String, String)> = self
            .0
            .query_row(
                "SELECT depot_id, name, payload FROM event_outbox WHERE id = ?1",
                [id],
                |r| r.columns(),
            )
            .optional()
            .st()?;
        let Some((depot_id, name, payload)) = original else {
            return Ok(None);
        };
        let event = read_event(&name, &payload)?;
        let organisation_id: i64 = self
            .0
            .query_row(
                "SELECT organisation_id FROM depots WHERE id = ?1",
                [depot_id],
                |r| r.get(0),
            )
            .st()?;
        let scope = DepotScope {
            organisation_id,
            depot_id,
        };
        self.insert_event(scope, &event, now, Some(id)).map(Some)
    }
}

/// Reads an event back from its name and payload.
fn read_event(name: &str, payload: &str) -> Result<DomainEvent, StoreError> {
    let v: Value = serde_json::from_str(payload).map_err(|_| corrupt("event"))?;
    let int = |k: &str| {
        v.get(k)
            .and_then(Value::as_i64)
            .ok_or_else(|| corrupt("event"))
    };
    let text = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| corrupt("event"))
    };
    Ok(match name {
        "orders.status" => DomainEvent::OrderStatus {
            order_id: int("order_id")?,
            order_number: text("order_number")?,
            status: text("status")?,
        },
        "plans.created" => DomainEvent::PlanCreated { id: int("id")? },
        "plans.dispatched" => DomainEvent::PlanDispatched { id: int("id")? },
        "routes.edited" => DomainEvent::RouteEdited { id: int("id")? },
        "routes.deleted" => DomainEvent::RouteDeleted { id: int("id")? },
        "routes.completed" => DomainEvent::RouteCompleted { id: int("id")? },
        "plans.deleted" => DomainEvent::PlanDeleted { id: int("id")? },
        "orders.on_delivery" => DomainEvent::OrderOnDelivery {
            order_id: int("order_id")?,
            order_number: text("order_number")?,
            route_id: int("route_id")?,
            eta: text("eta")?,
            time_to_arrival: int("time_to_arrival")?,
        },
        _ => return Err(corrupt("event name")),
    })
}
