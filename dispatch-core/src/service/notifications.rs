//! Customer notifications: scheduling tasks for orders (`POST /notifications/schedule/orders`),
//! what dispatch does to them, and sending the due ones under leases ([`sending`]).

use crate::model::customer::Customer;
use crate::model::notification::{
    Channel, NotificationSettings, NotificationTask, NotificationTemplate,
};
use crate::model::notification_render::{render, RenderContext};
use crate::model::order::{Order, Side};
use crate::model::order_fields::is_email;
use crate::model::organisation::DepotScope;
use crate::ports::idempotency::BeforeCommit;
use crate::ports::store::{NewTask, Store, StoreError, StoreTx};
use crate::ports::tracking::TrackingLinks;
use crate::service::promise;
use crate::service::tracking::issue_link;
use crate::service::Found;
use crate::service::ServiceError;
use crate::time::Timestamp;

pub mod sending;

pub use sending::{
    claim_due, finish_send, release_sends, renew_sends, send_batch, send_due, Claimed, SendReport,
    Senders, TaskClaim, INTERRUPTED, MAX_SEND_ATTEMPTS,
};

/// Most templates per schedule call (spec: Limits).
pub const MAX_TEMPLATES: usize = 2;

/// A schedule call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleRequest {
    /// Order ids (duplicates count once).
    pub orders: Vec<i64>,
    /// Template ids, 1 to [`MAX_TEMPLATES`] (duplicates count once).
    pub templates: Vec<i64>,
    /// When to send; `None` is now.
    pub send_time: Option<Timestamp>,
}

/// An order and template pair that got no task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedPair {
    /// The order.
    pub order_id: i64,
    /// Its number.
    pub order_number: String,
    /// The template.
    pub template_id: i64,
    /// Why (no phone number for SMS, no valid e-mail address ...).
    pub reason: String,
}

/// What a schedule call did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scheduled {
    /// One task per order and template pair that can be sent, in request order.
    pub tasks: Vec<NotificationTask>,
    /// The pairs that cannot be sent.
    pub skipped: Vec<SkippedPair>,
}

/// Schedules one task per order and template pair. An order or template id that is not in the
/// depot fails the whole call (404, nothing scheduled); a pair that cannot be sent is reported
/// in [`Scheduled::skipped`] while the others are scheduled. An order on a dispatched route
/// renders `{eta}` (its promised service start, [`super::promise`]) and `{tracking_link}` as a
/// dispatch would, however long after the dispatch it is scheduled.
pub fn schedule(
    store: &dyn Store,
    links: &dyn TrackingLinks,
    scope: DepotScope,
    request: &ScheduleRequest,
    now: Timestamp,
    last: &dyn BeforeCommit<Scheduled>,
) -> Result<Scheduled, ServiceError> {
    let orders = dedup(&request.orders);
    let template_ids = dedup(&request.templates);
    if template_ids.is_empty() || template_ids.len() > MAX_TEMPLATES {
        return Err(ServiceError::invalid(
            vec!["templates".into()],
            "1 to 2 template ids",
            &template_ids.len().to_string(),
            "templates must name one or two templates",
        ));
    }
    let at = request.send_time.unwrap_or(now);
    store.transaction_with_in(scope, last, |tx| {
        let all = tx.list_notification_templates(scope)?;
        let templates = template_ids
            .iter()
            .map(|id| all.iter().find(|t| t.id == *id).cloned())
            .collect::<Option<Vec<_>>>()
            .ok_or(ServiceError::NotFound("notification template"))?;
        let mut loaded = Vec::with_capacity(orders.len());
        for id in &orders {
            loaded.push(tx.get_order(scope, *id).found("order")?);
        }
        let mut out = Scheduled::default();
        for order in &loaded {
            let (eta, link) = match promise::of_order(tx, scope, order.id)? {
                Some(p) => (
                    Some(p.eta_text()),
                    Some(issue_link(tx, scope, order.id, links, now)?),
                ),
                None => (None, None),
            };
            let ctx = context(tx, scope, order, eta, link)?;
            for template in &templates {
                schedule_pair(tx, scope, order, &ctx, template, at, now, &mut out)?;
            }
        }
        Ok(out)
    })
}

/// One order of a dispatch, with what dispatch knows about its visit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchedOrder {
    /// The order.
    pub order_id: i64,
    /// Its promised service start, `HH:mm` (the `{eta}` placeholder).
    pub eta: Option<String>,
    /// Its customer tracking page (the `{tracking_link}` placeholder).
    pub tracking_link: Option<String>,
}

/// What [`on_dispatch`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DispatchNotifications {
    /// Earlier Scheduled tasks of the same order and template that were cancelled.
    pub cancelled: u64,
    /// The planned-start tasks and the pairs that could not be sent.
    pub scheduled: Scheduled,
}

/// The notification side of deleting an order (spec: "Associated records are deleted with
/// it"): its Scheduled tasks of every template are cancelled, so a message about an order the
/// depot deleted never reaches its customer; a task a worker already started sending is left
/// alone, and sent or failed tasks stay as the record of what happened.
pub fn on_order_deleted(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    order_id: i64,
    now: Timestamp,
) -> Result<u64, StoreError> {
    let mut cancelled = 0;
    for template in tx.list_notification_templates(scope)? {
        cancelled +=
            tx.cancel_scheduled_tasks(scope, order_id, template.id, "the order was deleted", now)?;
    }
    Ok(cancelled)
}

/// The notification side of dispatching a route or a plan (spec: States and transitions, the
/// dispatch row). **Call it inside the dispatch's own write transaction**, after the orders
/// became ROUTED, with every order the dispatch put on the road, so the tasks exist exactly
/// when the dispatch committed:
///
/// - when the depot names a planned-start template (seed: `settings.notifications
///   .planned_start_template`), each order's earlier Scheduled tasks from that template are
///   cancelled (superseded; a task a worker already started sending is left alone), and one
///   new task from it is scheduled for now, rendered with the order's `eta` and
///   `tracking_link`; orders without a phone (SMS) or a valid e-mail (EMAIL) are reported in
///   `skipped` and do not fail the dispatch;
/// - when the depot names none, nothing happens.
///
/// There is no SMS credit accounting in this service, so cancelling refunds nothing.
/// An order id not in the depot is 404 (the caller passes the orders it just routed).
pub fn on_dispatch(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    orders: &[DispatchedOrder],
    now: Timestamp,
) -> Result<DispatchNotifications, ServiceError> {
    let mut out = DispatchNotifications::default();
    let Some(template) = configured_template(tx, scope, |s| s.planned_start_template)? else {
        return Ok(out);
    };
    for d in orders {
        let order = tx.get_order(scope, d.order_id).found("order")?;
        out.cancelled += tx.cancel_scheduled_tasks(
            scope,
            order.id,
            template.id,
            "superseded by the planned-start notification of a dispatch",
            now,
        )?;
        let ctx = context(tx, scope, &order, d.eta.clone(), d.tracking_link.clone())?;
        schedule_pair(
            tx,
            scope,
            &order,
            &ctx,
            &template,
            now,
            now,
            &mut out.scheduled,
        )?;
    }
    Ok(out)
}

/// The on-delivery notification of one order (the driver side, when its stop comes within the
/// depot's on-delivery window). **Call it inside the transaction that fires
/// `orders.on_delivery`.** When the depot names an on-delivery template (seed:
/// `settings.notifications.on_delivery_template`), one task from it is scheduled for now,
/// rendered with `eta` (`HH:mm`); an order nobody can be sent it to is reported in `skipped`.
/// Without such a template nothing happens.
pub fn on_delivery(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    order_id: i64,
    eta: &str,
    now: Timestamp,
) -> Result<Scheduled, ServiceError> {
    let mut out = Scheduled::default();
    let Some(template) = configured_template(tx, scope, |s| s.on_delivery_template)? else {
        return Ok(out);
    };
    let order = tx.get_order(scope, order_id).found("order")?;
    let ctx = context(tx, scope, &order, Some(eta.to_owned()), None)?;
    schedule_pair(tx, scope, &order, &ctx, &template, now, now, &mut out)?;
    Ok(out)
}

/// The depot's template that `pick` names in its automatic-notification settings, while it
/// exists.
fn configured_template(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    pick: impl Fn(&NotificationSettings) -> Option<i64>,
) -> Result<Option<NotificationTemplate>, StoreError> {
    let Some(id) = pick(&tx.notification_settings(scope)?) else {
        return Ok(None);
    };
    Ok(tx
        .list_notification_templates(scope)?
        .into_iter()
        .find(|t| t.id == id))
}

#[allow(clippy::too_many_arguments)]
fn schedule_pair(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    order: &Order,
    ctx: &RenderContext,
    template: &NotificationTemplate,
    at: Timestamp,
    now: Timestamp,
    out: &mut Scheduled,
) -> Result<(), ServiceError> {
    let customer = match order.customer_id {
        Some(id) => tx.get_customer(scope, id)?,
        None => None,
    };
    match recipient(order, customer.as_ref(), template.channel) {
        Ok(to) => {
            let task = NewTask {
                template_id: template.id,
                channel: template.channel,
                order: Some((order.id, order.order_number.clone())),
                scheduled: at,
                to,
                subject: (template.channel == Channel::Email).then(|| template.name.clone()),
                message: render(&template.body, ctx),
            };
            out.tasks
                .push(tx.insert_notification_task(scope, &task, now)?);
        }
        Err(reason) => out.skipped.push(SkippedPair {
            order_id: order.id,
            order_number: order.order_number.clone(),
            template_id: template.id,
            reason,
        }),
    }
    Ok(())
}

/// Who gets the message: the delivery contact, else the customer; for e-mail also the order's
/// first `emails` entry. Why not, when nobody can.
fn recipient(
    order: &Order,
    customer: Option<&Customer>,
    channel: Channel,
) -> Result<String, String> {
    let present = |v: Option<&String>| v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    match channel {
        Channel::Sms => present(order.delivery.contact_number.as_ref())
            .or_else(|| present(customer.and_then(|c| c.phone.as_ref())))
            .ok_or_else(|| {
                format!(
                    "order {} has no phone number (delivery contact or customer) for an SMS",
                    order.order_number
                )
            }),
        Channel::Email => {
            let address = present(order.delivery.contact_email.as_ref())
                .or_else(|| present(customer.and_then(|c| c.email.as_ref())))
                .or_else(|| present(order.emails.first()));
            match address {
                Some(a) if is_email(&a) => Ok(a),
                Some(a) => Err(format!(
                    "order {} has an invalid e-mail address: {a}",
                    order.order_number
                )),
                None => Err(format!(
                    "order {} has no e-mail address (delivery contact, customer or emails)",
                    order.order_number
                )),
            }
        }
    }
}

fn context(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    order: &Order,
    eta: Option<String>,
    tracking_link: Option<String>,
) -> Result<RenderContext, ServiceError> {
    let customer = match order.customer_id {
        Some(id) => tx.get_customer(scope, id)?,
        None => None,
    };
    let window = order
        .time_windows
        .iter()
        .find(|w| w.side == Side::Delivery)
        .map(|w| format!("{}-{}", w.from, w.to));
    Ok(RenderContext {
        order_number: order.order_number.clone(),
        customer_name: customer.and_then(|c| c.name),
        contact_name: order.delivery.contact_name.clone(),
        delivery_address: order.delivery.address.clone(),
        delivery_postcode: order.delivery.postcode.clone(),
        delivery_date: order.delivery_date.map(|d| d.to_string()),
        delivery_window: window,
        eta,
        tracking_link,
        depot_name: tx.get_depot(scope)?.map(|d| d.name),
    })
}

fn dedup(ids: &[i64]) -> Vec<i64> {
    let mut seen = Vec::with_capacity(ids.len());
    for id in ids {
        if !seen.contains(id) {
            seen.push(*id);
        }
    }
    seen
}

#[cfg(test)]
mod tests;
