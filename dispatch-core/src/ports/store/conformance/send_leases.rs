//! Notification sends under leases (`service::notifications::sending` over
//! [`LeaseRepo`](crate::ports::store::LeaseRepo)): one node per send attempt, fenced outcomes,
//! expiry (sent again by another node), hand-back, and failure after every attempt died.

use super::at;
use crate::model::notification::{Channel, NotificationTask, TaskStatus};
use crate::model::organisation::{DepotScope, DepotSettings};
use crate::paging::PageRequest;
use crate::ports::store::{NewDepot, NewTask, Store, StoreError, TaskFilter};
use crate::service::notifications::sending::{
    claim_due, finish_send, release_sends, renew_sends, TaskClaim, INTERRUPTED, MAX_SEND_ATTEMPTS,
};

/// A depot of a new organisation `name` with one task per due instant of `due`, each about
/// order 7 from template 1.
fn tasks_due(store: &dyn Store, name: &str, due: &[i64]) -> (DepotScope, Vec<i64>) {
    store
        .transaction(|tx| {
            let org = tx.insert_organisation(name, at(0))?;
            let depot = NewDepot {
                name: "S".into(),
                address: None,
                location: None,
                settings: DepotSettings::default(),
            };
            let scope = tx.insert_depot(org.id, &depot, at(0))?.scope();
            let mut ids = Vec::new();
            for (n, when) in due.iter().enumerate() {
                let task = NewTask {
                    template_id: 1,
                    channel: Channel::Sms,
                    order: Some((7, "N7".into())),
                    scheduled: at(*when),
                    to: format!("+4400000{n:04}"),
                    subject: None,
                    message: format!("message {n}"),
                };
                ids.push(tx.insert_notification_task(scope, &task, at(0))?.id);
            }
            Ok::<_, StoreError>((scope, ids))
        })
        .unwrap()
}

fn task(store: &dyn Store, scope: DepotScope, id: i64) -> NotificationTask {
    let page = PageRequest {
        after: None,
        limit: 100,
        updated_at_min: None,
    };
    store
        .read(|tx| tx.list_notification_tasks(scope, &TaskFilter::default(), &page))
        .unwrap()
        .items
        .into_iter()
        .find(|t| t.id == id)
        .unwrap()
}

fn ids(claims: &[TaskClaim]) -> Vec<i64> {
    claims.iter().map(|c| c.task.id).collect()
}

/// Due tasks go to one node each, soonest first and never before they are due; heartbeats and
/// outcomes are the holder's only; a task whose node died is sent by another node once the
/// lease ran out, and the dead node's outcome is refused; a hand-back frees a task at once
/// without counting the attempt; claimed tasks are not cancelled; a task whose node died on
/// every attempt fails.
pub fn notification_send_leases(store: &dyn Store) {
    let (scope, t) = tasks_due(store, "Sends", &[10, 20, 1_000]);
    let a = claim_due(store, "node-a", at(30), at(100), 1).unwrap();
    assert_eq!((ids(&a.tasks), a.tasks[0].attempt), (vec![t[0]], 1));
    assert_eq!(a.tasks[0].task.message, "message 0");
    assert_eq!(a.tasks[0].scope, scope);
    let b = claim_due(store, "node-b", at(30), at(100), 10).unwrap();
    assert_eq!(ids(&b.tasks), vec![t[1]], "t0 is leased, t2 not due");
    assert!(claim_due(store, "node-c", at(30), at(100), 10)
        .unwrap()
        .tasks
        .is_empty());
    assert!(renew_sends(store, &a.tasks, at(200), at(50))
        .unwrap()
        .is_empty());
    let mut impostor = a.tasks[0].clone();
    impostor.holder = "node-b".into();
    assert_eq!(
        renew_sends(store, std::slice::from_ref(&impostor), at(300), at(50)).unwrap(),
        vec![t[0]]
    );
    let cancelled = store
        .transaction(|tx| tx.cancel_scheduled_tasks(scope, 7, 1, "superseded", at(60)))
        .unwrap();
    assert_eq!(cancelled, 1, "only t2, which nobody claimed");

    // node-b dies: its lease (100) runs out; node-a's was renewed to 200.
    let c = claim_due(store, "node-c", at(150), at(300), 10).unwrap();
    assert_eq!((ids(&c.tasks), c.tasks[0].attempt), (vec![t[1]], 2));
    assert_eq!(
        renew_sends(store, &b.tasks, at(400), at(151)).unwrap(),
        vec![t[1]]
    );
    assert!(!finish_send(store, &b.tasks[0], Ok(()), "sender-b", true, at(152)).unwrap());
    assert!(finish_send(store, &c.tasks[0], Ok(()), "sender-c", true, at(160)).unwrap());
    assert!(!finish_send(store, &c.tasks[0], Ok(()), "sender-c", true, at(161)).unwrap());
    let sent = task(store, scope, t[1]);
    assert_eq!(
        (sent.status, sent.sender.as_deref(), sent.sent_date),
        (TaskStatus::Sent, Some("sender-c"), Some(at(160)))
    );
    assert!(finish_send(
        store,
        &a.tasks[0],
        Err("refused".into()),
        "sender-a",
        true,
        at(170)
    )
    .unwrap());
    let failed = task(store, scope, t[0]);
    assert_eq!(
        (failed.status, failed.error.as_deref(), failed.sent_date),
        (TaskStatus::Failed, Some("refused"), None)
    );

    // A graceful stop hands a task back: claimable at once, attempt not counted, and
    // cancellable again.
    let (scope, t) = tasks_due(store, "Hand-back", &[1_000, 1_000]);
    let d = claim_due(store, "node-d", at(1_000), at(5_000), 10).unwrap();
    assert_eq!(ids(&d.tasks), t);
    assert_eq!(release_sends(store, &d.tasks[..1], at(1_001)).unwrap(), 1);
    assert_eq!(release_sends(store, &d.tasks[..1], at(1_002)).unwrap(), 0);
    let e = claim_due(store, "node-e", at(1_003), at(5_000), 10).unwrap();
    assert_eq!((ids(&e.tasks), e.tasks[0].attempt), (vec![t[0]], 1));
    release_sends(store, &e.tasks, at(1_004)).unwrap();
    let cancelled = store
        .transaction(|tx| tx.cancel_scheduled_tasks(scope, 7, 1, "superseded", at(1_005)))
        .unwrap();
    assert_eq!(cancelled, 1, "t0 again, not t1 (still node-d's)");

    // node-d dies on t1, and so does every node after it.
    for n in 2..=MAX_SEND_ATTEMPTS {
        let now = 10_000 * i64::from(n);
        let next = claim_due(store, &format!("node-{n}"), at(now), at(now + 10), 10).unwrap();
        assert_eq!((ids(&next.tasks), next.tasks[0].attempt), (vec![t[1]], n));
    }
    let last = claim_due(store, "node-z", at(100_000), at(100_010), 10).unwrap();
    assert_eq!((last.tasks.len(), last.interrupted), (0, 1));
    let gave_up = task(store, scope, t[1]);
    assert_eq!(
        (gave_up.status, gave_up.error.as_deref(), gave_up.sender),
        (TaskStatus::Failed, Some(INTERRUPTED), None)
    );
}

/// Nodes claiming at once (threads here), in small batches, take every task exactly once.
pub fn concurrent_send_claims_take_each_task_once(store: &dyn Store) {
    let (_, all) = tasks_due(store, "Concurrent", &[5; 40]);
    let claimed: Vec<i64> = std::thread::scope(|s| {
        let nodes: Vec<_> = (0..4)
            .map(|n| {
                s.spawn(move || {
                    let mut mine = Vec::new();
                    loop {
                        let batch =
                            claim_due(store, &format!("node-{n}"), at(10), at(10_000), 3).unwrap();
                        if batch.tasks.is_empty() {
                            return mine;
                        }
                        for c in batch.tasks {
                            assert_eq!(c.attempt, 1, "task {} claimed twice", c.task.id);
                            mine.push(c.task.id);
                        }
                    }
                })
            })
            .collect();
        nodes.into_iter().flat_map(|n| n.join().unwrap()).collect()
    });
    let mut sorted = claimed.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, all, "{claimed:?}");
}
