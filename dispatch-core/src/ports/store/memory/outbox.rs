//! The in-memory event outbox.

use std::collections::BTreeMap;

use super::State;
use crate::events::DomainEvent;
use crate::model::organisation::DepotScope;
use crate::ports::store::{
    DeliveryOutcome, DeliveryRecord, DeliveryState, OutboxEvent, OutboxRepo, PendingDepot,
    StoreError,
};
use crate::time::Timestamp;

/// Every delivery record, in id order.
#[derive(Debug, Clone, Default)]
pub(super) struct Outbox {
    next_id: i64,
    rows: Vec<DeliveryRecord>,
}

impl Outbox {
    fn push(
        &mut self,
        scope: DepotScope,
        event: DomainEvent,
        now: Timestamp,
        resend_of: Option<i64>,
    ) -> i64 {
        self.next_id += 1;
        self.rows.push(DeliveryRecord {
            id: self.next_id,
            scope,
            event,
            created: now,
            state: DeliveryState::Pending,
            attempts: 0,
            error: None,
            finished: None,
            resend_of,
        });
        self.next_id
    }

    fn pending(&self, after: i64, depot_id: Option<i64>, limit: usize) -> Vec<OutboxEvent> {
        self.rows
            .iter()
            .filter(|r| r.id > after && r.state == DeliveryState::Pending)
            .filter(|r| depot_id.is_none_or(|d| r.scope.depot_id == d))
            .take(limit)
            .map(|r| OutboxEvent {
                id: r.id,
                scope: r.scope,
                event: r.event.clone(),
                created: r.created,
            })
            .collect()
    }
}

impl OutboxRepo for State {
    fn append_event(
        &mut self,
        scope: DepotScope,
        event: &DomainEvent,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.outbox.push(scope, event.clone(), now, None);
        Ok(())
    }

    fn list_events(&mut self, scope: DepotScope) -> Result<Vec<DomainEvent>, StoreError> {
        Ok(self
            .outbox
            .rows
            .iter()
            .filter(|r| r.scope == scope)
            .map(|r| r.event.clone())
            .collect())
    }

    fn count_pending_events(&mut self) -> Result<u64, StoreError> {
        Ok(self
            .outbox
            .rows
            .iter()
            .filter(|r| r.state == DeliveryState::Pending)
            .count() as u64)
    }

    fn pending_events(&mut self, after: i64, limit: usize) -> Result<Vec<OutboxEvent>, StoreError> {
        Ok(self.outbox.pending(after, None, limit))
    }

    fn pending_events_of_depot(
        &mut self,
        depot_id: i64,
        after: i64,
        limit: usize,
    ) -> Result<Vec<OutboxEvent>, StoreError> {
        Ok(self.outbox.pending(after, Some(depot_id), limit))
    }

    fn pending_depots(&mut self, up_to: i64) -> Result<Vec<PendingDepot>, StoreError> {
        let mut newest = BTreeMap::new();
        // Rows are in id order: the last one seen of a depot is its newest.
        for r in &self.outbox.rows {
            if r.id <= up_to && r.state == DeliveryState::Pending {
                newest.insert(
                    r.scope.depot_id,
                    PendingDepot {
                        scope: r.scope,
                        newest: r.id,
                    },
                );
            }
        }
        Ok(newest.into_values().collect())
    }

    fn mark_deliveries(&mut self, outcomes: &[DeliveryOutcome]) -> Result<(), StoreError> {
        for o in outcomes {
            if let Some(row) = self
                .outbox
                .rows
                .iter_mut()
                .find(|r| r.id == o.id && r.state == DeliveryState::Pending)
            {
                row.state = o.state;
                row.attempts = o.attempts;
                row.error = o.error.clone();
                row.finished = Some(o.at);
            }
        }
        Ok(())
    }

    fn purge_deliveries(
        &mut self,
        finished_before: Timestamp,
        failed_before: Option<Timestamp>,
        limit: usize,
    ) -> Result<usize, StoreError> {
        let rows = &self.outbox.rows;
        let expired = |r: &DeliveryRecord| {
            let cut = match r.state {
                DeliveryState::Pending => None,
                DeliveryState::Delivered | DeliveryState::Skipped => Some(finished_before),
                DeliveryState::Error => failed_before,
            };
            matches!((r.finished, cut), (Some(f), Some(c)) if f < c)
                && !rows.iter().any(|other| other.resend_of == Some(r.id))
        };
        let doomed: std::collections::HashSet<i64> = rows
            .iter()
            .filter(|r| expired(r))
            .take(limit)
            .map(|r| r.id)
            .collect();
        self.outbox.rows.retain(|r| !doomed.contains(&r.id));
        Ok(doomed.len())
    }

    fn list_deliveries(
        &mut self,
        state: DeliveryState,
        depot_id: Option<i64>,
        limit: usize,
    ) -> Result<Vec<DeliveryRecord>, StoreError> {
        Ok(self
            .outbox
            .rows
            .iter()
            .rev()
            .filter(|r| r.state == state && depot_id.is_none_or(|d| r.scope.depot_id == d))
            .take(limit)
            .cloned()
            .collect())
    }

    fn get_delivery(&mut self, id: i64) -> Result<Option<DeliveryRecord>, StoreError> {
        Ok(self.outbox.rows.iter().find(|r| r.id == id).cloned())
    }

    fn resend_event(&mut self, id: i64, now: Timestamp) -> Result<Option<i64>, StoreError> {
        let Some(original) = self.outbox.rows.iter().find(|r| r.id == id).cloned() else {
            return Ok(None);
        };
        Ok(Some(self.outbox.push(
            original.scope,
            original.event,
            now,
            Some(id),
        )))
    }
}
