//! The event outbox: appending, delivery outcomes, re-sends and retention.

use super::{at, two_depots};
use crate::events::DomainEvent;
use crate::model::organisation::DepotScope;
use crate::ports::store::{DeliveryOutcome, DeliveryState, PendingDepot, Store, StoreError};

/// One event of every webhook type.
pub fn every_event_type() -> Vec<DomainEvent> {
    vec![
        DomainEvent::OrderStatus {
            order_id: 1,
            order_number: "N1".into(),
            status: "ROUTED".into(),
        },
        DomainEvent::PlanCreated { id: 2 },
        DomainEvent::PlanDispatched { id: 2 },
        DomainEvent::RouteEdited { id: 3 },
        DomainEvent::RouteDeleted { id: 3 },
        DomainEvent::RouteCompleted { id: 4 },
        DomainEvent::PlanDeleted { id: 2 },
        DomainEvent::OrderOnDelivery {
            order_id: 1,
            order_number: "N1".into(),
            route_id: 4,
            eta: "10:30".into(),
            time_to_arrival: 15,
        },
    ]
}

/// A delivery outcome of event `id`.
pub fn outcome(
    id: i64,
    state: DeliveryState,
    attempts: u32,
    error: Option<&str>,
) -> DeliveryOutcome {
    DeliveryOutcome {
        id,
        state,
        attempts,
        error: error.map(str::to_owned),
        at: at(100),
    }
}

/// Runs the scenario on `store` (a fresh, empty store).
pub fn outbox_delivery(store: &dyn Store) {
    let (a, b) = two_depots(store);
    let events = every_event_type();
    store
        .transaction(|tx| {
            for (i, e) in events.iter().enumerate() {
                tx.append_event(if i % 2 == 0 { a } else { b }, e, at(10 + i as i64))?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
    let rolled_back: Result<(), StoreError> = store.transaction(|tx| {
        tx.append_event(a, &DomainEvent::PlanCreated { id: 99 }, at(50))?;
        Err(StoreError::Conflict("the change failed".into()))
    });
    assert!(rolled_back.is_err());

    store
        .transaction(|tx| {
            let pending = tx.pending_events(0, 100)?;
            let got: Vec<_> = pending.iter().map(|p| p.event.clone()).collect();
            assert_eq!(got, events, "every type round-trips, oldest first");
            assert!(pending.windows(2).all(|w| w[0].id < w[1].id));
            assert_eq!(pending[0].scope, a);
            assert_eq!(pending[1].scope, b);
            assert_eq!(pending[3].created, at(13));
            let after_two = tx.pending_events(pending[1].id, 2)?;
            assert_eq!(after_two.len(), 2);
            assert_eq!(after_two[0].id, pending[2].id);
            let of_b = tx.pending_events_of_depot(b.depot_id, 0, 100)?;
            assert_eq!(of_b.len(), 4);
            assert!(of_b.iter().all(|p| p.scope == b));
            // Each depot's newest pending event at or below an id; a depot with none there is
            // left out.
            let newest = |depot: DepotScope, newest: i64| PendingDepot {
                scope: depot,
                newest,
            };
            assert_eq!(
                tx.pending_depots(pending[4].id)?,
                [newest(a, pending[4].id), newest(b, pending[3].id)]
            );
            assert_eq!(
                tx.pending_depots(pending[0].id)?,
                [newest(a, pending[0].id)]
            );
            assert_eq!(tx.pending_depots(0)?, []);

            let ids: Vec<i64> = pending.iter().map(|p| p.id).collect();
            tx.mark_deliveries(&[
                outcome(ids[0], DeliveryState::Delivered, 1, None),
                outcome(
                    ids[1],
                    DeliveryState::Error,
                    3,
                    Some("receiver answered HTTP 500"),
                ),
                outcome(
                    ids[2],
                    DeliveryState::Skipped,
                    0,
                    Some("no webhook configured"),
                ),
            ])?;
            // A late outcome for an already finished row changes nothing.
            tx.mark_deliveries(&[outcome(ids[1], DeliveryState::Delivered, 1, None)])?;
            let left = tx.pending_events(0, 100)?;
            assert_eq!(left.len(), events.len() - 3);
            assert_eq!(left[0].id, ids[3]);
            assert_eq!(
                tx.pending_depots(ids[2])?,
                [],
                "finished events are not pending"
            );
            assert_eq!(tx.pending_depots(ids[3])?, [newest(b, ids[3])]);

            let failed = tx.list_deliveries(DeliveryState::Error, None, 10)?;
            assert_eq!(failed.len(), 1);
            let f = &failed[0];
            assert_eq!((f.id, f.scope, f.attempts), (ids[1], b, 3));
            assert_eq!(f.error.as_deref(), Some("receiver answered HTTP 500"));
            assert_eq!(f.finished, Some(at(100)));
            assert!(tx
                .list_deliveries(DeliveryState::Error, Some(a.depot_id), 10)?
                .is_empty());
            assert_eq!(
                tx.get_delivery(ids[0])?.map(|d| d.state),
                Some(DeliveryState::Delivered)
            );

            let resent = tx.resend_event(ids[1], at(200))?.expect("exists");
            assert!(resent > *ids.last().unwrap());
            assert_eq!(tx.resend_event(123_456, at(200))?, None);
            let copy = tx.get_delivery(resent)?.expect("stored");
            assert_eq!(copy.state, DeliveryState::Pending);
            assert_eq!(copy.resend_of, Some(ids[1]));
            assert_eq!(copy.event, events[1]);
            assert_eq!((copy.scope, copy.created), (b, at(200)));
            assert_eq!(
                tx.get_delivery(ids[1])?,
                Some(f.clone()),
                "the ERROR record stays"
            );
            let pending_b = tx.pending_events_of_depot(b.depot_id, 0, 100)?;
            assert_eq!(pending_b.last().map(|p| p.id), Some(resent));
            assert_eq!(tx.list_events(a)?.len(), 4);
            assert_eq!(tx.list_events(b)?.len(), 5);
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

/// Retention: finished rows older than their cut go (in batches of at most `limit`), pending
/// rows and rows a re-send names stay, ERROR rows have their own cut (or none).
pub fn outbox_retention(store: &dyn Store) {
    let (a, _) = two_depots(store);
    let ids: Vec<i64> = store
        .transaction(|tx| {
            for i in 0..7 {
                tx.append_event(a, &DomainEvent::PlanCreated { id: i }, at(10))?;
            }
            let ids: Vec<i64> = tx.pending_events(0, 10)?.iter().map(|e| e.id).collect();
            let done = |id, state, when| DeliveryOutcome {
                at: at(when),
                ..outcome(id, state, 1, None)
            };
            tx.mark_deliveries(&[
                done(ids[0], DeliveryState::Delivered, 100),
                done(ids[1], DeliveryState::Skipped, 150),
                done(ids[2], DeliveryState::Delivered, 900),
                done(ids[3], DeliveryState::Error, 100),
                done(ids[4], DeliveryState::Error, 100),
                done(ids[5], DeliveryState::Delivered, 120),
            ])?;
            tx.resend_event(ids[4], at(200))?;
            Ok::<_, StoreError>(ids)
        })
        .unwrap();
    let state = |id: i64| {
        store
            .read(|tx| tx.get_delivery(id))
            .unwrap()
            .map(|d| d.state)
    };
    let purge = |before: i64, failed: Option<i64>, limit: usize| {
        store
            .transaction(|tx| tx.purge_deliveries(at(before), failed.map(at), limit))
            .unwrap()
    };
    assert_eq!(purge(500, None, 2), 2, "at most the limit");
    assert_eq!(purge(500, None, 10), 1, "then the rest");
    for id in [ids[0], ids[1], ids[5]] {
        assert_eq!(state(id), None, "finished before the cut: gone");
    }
    assert_eq!(
        state(ids[2]),
        Some(DeliveryState::Delivered),
        "after the cut"
    );
    assert_eq!(
        state(ids[3]),
        Some(DeliveryState::Error),
        "ERROR without a cut"
    );
    assert_eq!(state(ids[6]), Some(DeliveryState::Pending), "pending never");
    assert_eq!(purge(5000, Some(500), 10), 2);
    assert_eq!(state(ids[2]), None);
    assert_eq!(state(ids[3]), None, "ERROR past its own cut");
    assert_eq!(
        state(ids[4]),
        Some(DeliveryState::Error),
        "an ERROR a pending re-send names stays"
    );
    assert_eq!(state(ids[6]), Some(DeliveryState::Pending));
}

/// Retention never lets an event id be handed out again: after every finished row is past
/// its cut, the next event still gets a higher id than any before it (the delivery worker
/// scans forward from the highest id it has seen).
pub fn ids_grow_across_purges(store: &dyn Store) {
    let (a, _) = two_depots(store);
    let first = store
        .transaction(|tx| {
            tx.append_event(a, &DomainEvent::PlanCreated { id: 1 }, at(10))?;
            let id = tx.pending_events(0, 10)?[0].id;
            tx.mark_deliveries(&[DeliveryOutcome {
                at: at(100),
                ..outcome(id, DeliveryState::Delivered, 1, None)
            }])?;
            tx.purge_deliveries(at(5000), Some(at(5000)), 10)?;
            tx.append_event(a, &DomainEvent::PlanCreated { id: 2 }, at(6000))?;
            Ok::<_, StoreError>(id)
        })
        .unwrap();
    let next = store.read(|tx| tx.pending_events(0, 10)).unwrap();
    assert_eq!(next.len(), 1);
    assert!(next[0].id > first, "{} after {first}", next[0].id);
}
