use std::sync::Mutex;

use super::*;
use crate::model::notification::TaskStatus;
use crate::model::order_input::OrderInput;
use crate::model::test_fixtures::delivery;
use crate::paging::PageRequest;
use crate::ports::clock::ManualClock;
use crate::ports::notifier::{RecordingSender, SendError, RECORDING_SENDER};
use crate::ports::store::{InMemoryStore, TaskFilter};
use crate::ports::tracking::SequentialLinks;
use crate::service::customers::tests::setup;
use crate::service::orders::upsert_batch;

fn at(ms: i64) -> Timestamp {
    Timestamp::from_millis(ms)
}

/// [`delivery`] to Ann, with her phone and e-mail when given.
fn order(number: &str, phone: Option<&str>, email: Option<&str>) -> OrderInput {
    let mut order = delivery(number);
    let end = &mut order.delivery.fields;
    end.contact_number = phone.map(|p| Some(p.into()));
    end.contact_email = email.map(|e| Some(e.into()));
    end.contact_name = Some(Some("Ann".into()));
    order
}

/// Depot North with an SMS and an e-mail template and three orders: with a phone, with an
/// e-mail, with neither.
fn fixture() -> (InMemoryStore, DepotScope, [i64; 2], [i64; 3]) {
    let (store, geo, a, _) = setup();
    let dyn_store: &dyn Store = &store;
    let templates = dyn_store
        .transaction(|tx| {
            let sms = tx.upsert_notification_template(
                a,
                Channel::Sms,
                "Soon",
                "Hi {contact_name}, {order_number} at {eta} {tracking_link}",
                at(0),
            )?;
            let mail = tx.upsert_notification_template(
                a,
                Channel::Email,
                "Planned",
                "Order {order_number} from {depot_name}",
                at(0),
            )?;
            Ok::<_, ServiceError>([sms.id, mail.id])
        })
        .unwrap();
    let written = upsert_batch(
        &store,
        &geo,
        a,
        vec![
            order("P", Some("+44 1"), None),
            order("E", None, Some("ann@example.com")),
            order("X", None, None),
        ],
        at(1),
        std::sync::Arc::new(()),
    )
    .unwrap();
    (
        store,
        a,
        templates,
        [written[0].id, written[1].id, written[2].id],
    )
}

fn tasks(store: &InMemoryStore, scope: DepotScope) -> Vec<NotificationTask> {
    (store as &dyn Store)
        .read(|tx| {
            tx.list_notification_tasks(
                scope,
                &TaskFilter::default(),
                &PageRequest {
                    after: None,
                    limit: 100,
                    updated_at_min: None,
                },
            )
        })
        .unwrap()
        .items
}

#[test]
fn schedule_makes_one_task_per_sendable_pair_and_reports_the_rest() {
    let (store, a, [sms, mail], [p, e, x]) = fixture();
    let request = ScheduleRequest {
        orders: vec![p, e, x, p],
        templates: vec![sms, mail],
        send_time: Some(at(5_000)),
    };
    let out = schedule(&store, &SequentialLinks::default(), a, &request, at(2), &()).unwrap();
    let pairs: Vec<(i64, i64)> = out
        .tasks
        .iter()
        .map(|t| (t.order.as_ref().unwrap().0, t.template_id))
        .collect();
    assert_eq!(pairs, [(p, sms), (e, mail)]);
    let t = &out.tasks[0];
    assert_eq!(
        (t.to.as_str(), t.status, t.scheduled_date),
        ("+44 1", TaskStatus::Scheduled, at(5_000))
    );
    assert_eq!(t.message, "Hi Ann, P at  ");
    assert_eq!(out.tasks[1].subject.as_deref(), Some("Planned"));
    assert_eq!(out.tasks[1].message, "Order E from North");
    let skipped: Vec<(i64, i64)> = out
        .skipped
        .iter()
        .map(|s| (s.order_id, s.template_id))
        .collect();
    assert_eq!(skipped, [(p, mail), (e, sms), (x, sms), (x, mail)]);
    assert!(
        out.skipped[3].reason.contains("no e-mail address"),
        "{:?}",
        out.skipped[3]
    );
    assert!(
        out.skipped[2].reason.contains("no phone number"),
        "{:?}",
        out.skipped[2]
    );
    assert_eq!(tasks(&store, a).len(), 2);
}

#[test]
fn unknown_ids_fail_the_whole_call_and_template_count_is_bounded() {
    let (store, a, [sms, mail], [p, ..]) = fixture();
    let call = |orders: Vec<i64>, templates: Vec<i64>| {
        schedule(
            &store,
            &SequentialLinks::default(),
            a,
            &ScheduleRequest {
                orders,
                templates,
                send_time: None,
            },
            at(2),
            &(),
        )
    };
    assert!(matches!(
        call(vec![p, 999], vec![sms]),
        Err(ServiceError::NotFound("order"))
    ));
    assert!(matches!(
        call(vec![p], vec![sms, 999]),
        Err(ServiceError::NotFound("notification template"))
    ));
    assert!(matches!(
        call(vec![p], vec![]),
        Err(ServiceError::Invalid(_))
    ));
    assert!(matches!(
        call(vec![p], vec![sms, mail, sms + mail]),
        Err(ServiceError::Invalid(_))
    ));
    assert!(tasks(&store, a).is_empty(), "nothing scheduled");
}

#[test]
fn dispatch_cancels_superseded_tasks_and_schedules_planned_start_notifications() {
    let (store, a, [sms, mail], [p, e, x]) = fixture();
    let dyn_store: &dyn Store = &store;
    let earlier = ScheduleRequest {
        orders: vec![p],
        templates: vec![sms, mail],
        send_time: Some(at(9_000)),
    };
    schedule(&store, &SequentialLinks::default(), a, &earlier, at(2), &()).unwrap();
    let other = ScheduleRequest {
        orders: vec![e],
        templates: vec![mail],
        send_time: Some(at(9_000)),
    };
    schedule(&store, &SequentialLinks::default(), a, &other, at(2), &()).unwrap();
    let none = dyn_store
        .transaction(|tx| {
            on_dispatch(
                tx,
                a,
                &[DispatchedOrder {
                    order_id: p,
                    eta: None,
                    tracking_link: None,
                }],
                at(3),
            )
        })
        .unwrap();
    assert_eq!(
        none,
        DispatchNotifications::default(),
        "no planned-start template: nothing happens"
    );

    let settings = crate::model::notification::NotificationSettings {
        planned_start_template: Some(sms),
        ..Default::default()
    };
    dyn_store
        .transaction(|tx| tx.set_notification_settings(a, &settings))
        .unwrap();
    let dispatched = [p, e, x].map(|order_id| DispatchedOrder {
        order_id,
        eta: Some("10:15".into()),
        tracking_link: Some("https://t.example/abc".into()),
    });
    let done = dyn_store
        .transaction(|tx| on_dispatch(tx, a, &dispatched, at(4)))
        .unwrap();
    assert_eq!(done.cancelled, 1, "P's earlier SMS task");
    assert_eq!(done.scheduled.tasks.len(), 1);
    let new = &done.scheduled.tasks[0];
    assert_eq!(new.message, "Hi Ann, P at 10:15 https://t.example/abc");
    assert_eq!(new.scheduled_date, at(4));
    assert_eq!(done.scheduled.skipped.len(), 2, "E and X have no phone");
    let all = tasks(&store, a);
    let status_of = |order: i64, template: i64| -> Vec<TaskStatus> {
        let mut s: Vec<_> = all
            .iter()
            .filter(|t| t.order.as_ref().unwrap().0 == order && t.template_id == template)
            .map(|t| t.status)
            .collect();
        s.sort_by_key(|s| s.as_str());
        s
    };
    assert_eq!(
        status_of(p, sms),
        [TaskStatus::Cancelled, TaskStatus::Scheduled]
    );
    assert_eq!(
        status_of(e, mail),
        [TaskStatus::Scheduled],
        "another template is not superseded"
    );
    let rolled_back: Result<(), ServiceError> = dyn_store.transaction(|tx| {
        on_dispatch(tx, a, &dispatched, at(5))?;
        Err(ServiceError::NotFound("route"))
    });
    assert!(rolled_back.is_err());
    assert_eq!(
        tasks(&store, a).len(),
        all.len(),
        "a failed dispatch leaves no tasks"
    );
}

struct Refusing(Mutex<Vec<String>>);

impl NotificationSender for Refusing {
    fn name(&self) -> String {
        "refusing".into()
    }
    fn send(&self, m: &OutgoingMessage) -> Result<(), SendError> {
        self.0.lock().unwrap().push(m.to.clone());
        Err(SendError("mailbox full".into()))
    }
}

use crate::ports::notifier::{NotificationSender, OutgoingMessage};

#[test]
fn due_tasks_are_sent_once_at_their_time_and_failures_are_recorded() {
    let (store, a, [sms, mail], [p, e, _]) = fixture();
    let r = ScheduleRequest {
        orders: vec![p, e],
        templates: vec![sms, mail],
        send_time: Some(at(10_000)),
    };
    schedule(&store, &SequentialLinks::default(), a, &r, at(2), &()).unwrap();
    let clock = ManualClock::new(at(9_999));
    let refusing = Refusing(Mutex::new(Vec::new()));
    let senders = Senders {
        sms: &RecordingSender,
        email: &refusing,
    };
    assert_eq!(
        send_due(&store, &clock, &senders, "node-a", 60_000, 100).unwrap(),
        SendReport::default(),
        "not due yet"
    );
    clock.set(at(10_000));
    let report = send_due(&store, &clock, &senders, "node-a", 60_000, 100).unwrap();
    assert_eq!((report.sent, report.recorded, report.failed), (0, 1, 1));
    assert_eq!(
        send_due(&store, &clock, &senders, "node-a", 60_000, 100).unwrap(),
        SendReport::default(),
        "never twice"
    );
    assert_eq!(refusing.0.lock().unwrap().as_slice(), ["ann@example.com"]);
    let all = tasks(&store, a);
    let sent = all
        .iter()
        .find(|t| t.status == TaskStatus::Recorded)
        .expect("the default sender's task is Recorded, not Sent");
    assert_eq!(sent.sender.as_deref(), Some(RECORDING_SENDER));
    assert_eq!(sent.sent_date, Some(at(10_000)));
    let failed = all.iter().find(|t| t.status == TaskStatus::Failed).unwrap();
    assert_eq!(
        (failed.sender.as_deref(), failed.error.as_deref()),
        (Some("refusing"), Some("mailbox full"))
    );
    assert_eq!(failed.sent_date, None);
}

#[test]
fn a_task_whose_node_died_mid_send_is_sent_by_another_node_and_fails_after_every_attempt_died() {
    let (store, a, [sms, _], [p, ..]) = fixture();
    let r = ScheduleRequest {
        orders: vec![p],
        templates: vec![sms],
        send_time: Some(at(10)),
    };
    let task = schedule(&store, &SequentialLinks::default(), a, &r, at(2), &())
        .unwrap()
        .tasks[0]
        .clone();
    let clock = ManualClock::new(at(20));
    let senders = Senders {
        sms: &RecordingSender,
        email: &RecordingSender,
    };
    // node-a claims and dies (its claim is never finished): nobody else sends meanwhile.
    let dead = claim_due(&store, "node-a", at(20), at(100), 10).unwrap();
    assert_eq!(dead.tasks.len(), 1);
    assert_eq!(dead.tasks[0].attempt, 1);
    clock.set(at(100));
    assert_eq!(
        send_due(&store, &clock, &senders, "node-b", 1_000, 100).unwrap(),
        SendReport::default(),
        "leased to node-a until 100"
    );
    // Its lease ran out: node-b sends it; node-a's late outcome is refused.
    clock.set(at(101));
    let report = send_due(&store, &clock, &senders, "node-b", 1_000, 100).unwrap();
    assert_eq!((report.recorded, report.interrupted), (1, 0));
    assert!(!finish_send(
        &store,
        &dead.tasks[0],
        Err("late".into()),
        "x",
        true,
        at(102)
    )
    .unwrap());
    let t = &tasks(&store, a)[0];
    assert_eq!(
        (t.status, t.sent_date),
        (TaskStatus::Recorded, Some(at(101)))
    );

    // Another task whose node dies on every attempt fails after MAX_SEND_ATTEMPTS.
    let task2 = schedule(&store, &SequentialLinks::default(), a, &r, at(200), &())
        .unwrap()
        .tasks[0]
        .clone();
    assert_ne!(task.id, task2.id);
    for n in 1..=MAX_SEND_ATTEMPTS {
        let now = i64::from(n) * 1_000;
        let c = claim_due(&store, &format!("node-{n}"), at(now), at(now + 10), 10).unwrap();
        assert_eq!((c.tasks.len(), c.tasks[0].attempt), (1, n));
    }
    let last = claim_due(&store, "node-z", at(10_000), at(10_010), 10).unwrap();
    assert_eq!((last.tasks.len(), last.interrupted), (0, 1));
    let t = tasks(&store, a)
        .into_iter()
        .find(|t| t.id == task2.id)
        .unwrap();
    assert_eq!(t.status, TaskStatus::Failed);
    assert_eq!(t.error.as_deref(), Some(INTERRUPTED));
    assert_eq!(t.sender, None);
}
