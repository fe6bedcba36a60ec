//! Order and line-item statuses: the default and custom sets, the derived `PARTIALLY_*`
//! aggregates and the one transition function every status change goes through.
//!
//! The spec names OPEN, ROUTED, DELIVERED and (implicitly, through "delivered or undelivered
//! orders") UNDELIVERED; these four form the default set every organisation holds. Custom
//! statuses are added per organisation. When the line items of an order disagree, the order's
//! status is `PARTIALLY_<S>` where `S` is the most advanced line-item status, ranked
//! OPEN < ROUTED < custom < UNDELIVERED < DELIVERED.

use std::fmt;

/// A new order's status when the depot configures no other starting status.
pub const OPEN: &str = "OPEN";
/// The status of an order on a dispatched route.
pub const ROUTED: &str = "ROUTED";
/// Delivered in full.
pub const DELIVERED: &str = "DELIVERED";
/// Attempted and not delivered.
pub const UNDELIVERED: &str = "UNDELIVERED";
/// The default set every organisation holds, in listing order.
pub const DEFAULT_STATUSES: [&str; 4] = [OPEN, ROUTED, DELIVERED, UNDELIVERED];
/// Prefix of the aggregates derived from disagreeing line items.
pub const PARTIAL_PREFIX: &str = "PARTIALLY_";
/// Longest custom status name, in characters.
pub const MAX_STATUS_CHARS: usize = 255;

/// A status value as stored on an order or line item: a default, a custom or a derived one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Status(String);

impl Status {
    /// Wraps a stored value without checking it (values come from the store or from
    /// [`StatusSet`], which did the checking).
    pub fn from_stored(value: impl Into<String>) -> Status {
        Status(value.into())
    }

    /// The OPEN status.
    pub fn open() -> Status {
        Status(OPEN.to_owned())
    }

    /// The ROUTED status.
    pub fn routed() -> Status {
        Status(ROUTED.to_owned())
    }

    /// The value as written on the wire.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True for a `PARTIALLY_*` aggregate.
    pub fn is_derived(&self) -> bool {
        self.0.starts_with(PARTIAL_PREFIX)
    }

    /// True for a status that means the work on the order is finished (delivered,
    /// undelivered, a custom outcome, or a partial one of those).
    pub fn is_completed(&self) -> bool {
        let base = self.0.strip_prefix(PARTIAL_PREFIX).unwrap_or(&self.0);
        base != OPEN && base != ROUTED
    }

    fn rank(&self) -> u8 {
        match self.0.as_str() {
            OPEN => 0,
            ROUTED => 1,
            UNDELIVERED => 3,
            DELIVERED => 4,
            _ => 2,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One entry of the order-status list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusEntry {
    /// The status value.
    pub status: String,
    /// False for the default set, true for statuses the organisation added.
    pub is_custom: bool,
}

/// Why a status operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StatusRejection {
    /// A custom status name must be 1-255 characters.
    #[error("a status must be 1 to 255 characters long")]
    InvalidLength,
    /// Defaults can be neither added nor removed.
    #[error("`{0}` is a default status")]
    IsDefault(String),
    /// The organisation already has this status.
    #[error("the status `{0}` already exists")]
    AlreadyExists(String),
    /// `PARTIALLY_*` names are reserved for derived aggregates.
    #[error("`{0}` is derived from line items and cannot be chosen directly")]
    Derived(String),
    /// A custom status to remove was never added.
    #[error("the status `{0}` was not added")]
    NotFound(String),
    /// A status value the organisation does not know.
    #[error("unknown status `{0}`")]
    Unknown(String),
    /// The transition needs an OPEN order.
    #[error("the order is {0}, not OPEN")]
    NotOpen(Status),
    /// The order is already on an active route.
    #[error("the order is already routed")]
    AlreadyRouted,
    /// Delivered or undelivered orders (in full or in part) cannot be moved.
    #[error("the order is completed ({0})")]
    Completed(Status),
    /// A line item index that the order does not have.
    #[error("the order has no line item {0}")]
    NoSuchLineItem(usize),
}

/// The statuses one organisation knows: the default set plus its custom ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusSet {
    custom: Vec<String>,
}

impl StatusSet {
    /// The set with these custom statuses (as stored).
    pub fn new(custom: Vec<String>) -> StatusSet {
        StatusSet { custom }
    }

    /// The list view: defaults first, then custom statuses; no derived aggregates.
    pub fn entries(&self) -> Vec<StatusEntry> {
        DEFAULT_STATUSES
            .iter()
            .map(|s| StatusEntry {
                status: (*s).to_owned(),
                is_custom: false,
            })
            .chain(self.custom.iter().map(|s| StatusEntry {
                status: s.clone(),
                is_custom: true,
            }))
            .collect()
    }

    /// Checks a custom status to add; returns it exactly as sent (no trimming).
    /// Names equal to a default or an existing status ignoring case are refused, because the
    /// order list filter matches statuses case-insensitively and could not tell them apart.
    pub fn check_new_custom(&self, name: &str) -> Result<String, StatusRejection> {
        check_custom_name(name)?;
        if name.to_ascii_uppercase().starts_with(PARTIAL_PREFIX) {
            return Err(StatusRejection::Derived(name.to_owned()));
        }
        if self.custom.iter().any(|c| c.eq_ignore_ascii_case(name)) {
            return Err(StatusRejection::AlreadyExists(name.to_owned()));
        }
        Ok(name.to_owned())
    }

    /// Checks a custom status to remove, matched exactly as listed.
    pub fn check_removal(&self, name: &str) -> Result<(), StatusRejection> {
        check_custom_name(name)?;
        if self.custom.iter().any(|c| c == name) {
            Ok(())
        } else {
            Err(StatusRejection::NotFound(name.to_owned()))
        }
    }

    /// Resolves a list filter value case-insensitively: a default, a custom status, or the
    /// `PARTIALLY_*` aggregate of one of them. Returns the stored spelling.
    pub fn resolve_filter(&self, value: &str) -> Result<Status, StatusRejection> {
        let upper = value.to_ascii_uppercase();
        let (partial, base) = match upper.strip_prefix(PARTIAL_PREFIX) {
            Some(_) => (true, &value[PARTIAL_PREFIX.len()..]),
            None => (false, value),
        };
        let known = self
            .known_base(base, |a, b| a.eq_ignore_ascii_case(b))
            .ok_or_else(|| StatusRejection::Unknown(value.to_owned()))?;
        Ok(if partial {
            Status(format!("{PARTIAL_PREFIX}{known}"))
        } else {
            Status(known)
        })
    }

    /// Resolves a status a client chooses directly (a line-item status on an order write):
    /// defaults case-insensitively, custom statuses exactly; derived aggregates are refused.
    pub fn resolve_settable(&self, value: &str) -> Result<Status, StatusRejection> {
        if value.to_ascii_uppercase().starts_with(PARTIAL_PREFIX) {
            return Err(StatusRejection::Derived(value.to_owned()));
        }
        if let Some(d) = DEFAULT_STATUSES
            .iter()
            .find(|d| d.eq_ignore_ascii_case(value))
        {
            return Ok(Status((*d).to_owned()));
        }
        self.custom
            .iter()
            .find(|c| c.as_str() == value)
            .map(|c| Status(c.clone()))
            .ok_or_else(|| StatusRejection::Unknown(value.to_owned()))
    }

    fn known_base(&self, value: &str, eq: impl Fn(&str, &str) -> bool) -> Option<String> {
        DEFAULT_STATUSES
            .iter()
            .map(|d| (*d).to_owned())
            .chain(self.custom.iter().cloned())
            .find(|k| eq(k, value))
    }
}

/// The status of an order with these line-item statuses; `None` without line items (then
/// the order's own status stands). Agreeing items give their common status; disagreeing ones
/// give `PARTIALLY_` plus the most advanced item status.
pub fn derive_order_status(line_items: &[Status]) -> Option<Status> {
    let first = line_items.first()?;
    if line_items.iter().all(|s| s == first) {
        return Some(first.clone());
    }
    let top = line_items
        .iter()
        .max_by(|a, b| a.rank().cmp(&b.rank()).then_with(|| b.0.cmp(&a.0)))?;
    Some(Status(format!("{PARTIAL_PREFIX}{}", top.0)))
}

/// The status-relevant state of one order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderState {
    /// The order's id.
    pub order_id: i64,
    /// The order's business number.
    pub order_number: String,
    /// The order's status (derived when it has line items).
    pub status: Status,
    /// Its line items' statuses, in line-item order.
    pub line_items: Vec<Status>,
}

/// What can happen to an order's status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderEvent {
    /// POST /orders named this existing order again: the status is kept.
    Resubmitted,
    /// Its route was dispatched (route or plan dispatch).
    Dispatched,
    /// It was appended to a route (it stays OPEN until the route is dispatched).
    AddedToRoute,
    /// POST /routes/{id}/remove-orders took it off its route.
    RemovedFromRoute,
    /// DELETE /plans/{id} destroyed the route it was on.
    PlanDeleted {
        /// Whether that route was dispatched.
        route_dispatched: bool,
    },
    /// An order-level status change to a chosen status (applied to every line item too).
    StatusSet(Status),
    /// A line-item-level status change.
    LineItemStatusSet {
        /// Position of the line item on the order.
        index: usize,
        /// The chosen status.
        status: Status,
    },
    /// The order's line items were replaced by a write; these are the new items' statuses.
    LineItemsReplaced(Vec<Status>),
    /// An order write gave the order another `delivery_date`: a failed delivery (UNDELIVERED
    /// in full) is OPEN again, line items included, to be planned on its new date.
    Redated,
}

/// The `orders.status` event: an order's status changed (line-item or order level).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderStatusChanged {
    /// The order's id.
    pub order_id: i64,
    /// The order's business number.
    pub order_number: String,
    /// The order's status after the change.
    pub status: Status,
}

impl OrderStatusChanged {
    /// The event's name on the wire.
    pub const NAME: &'static str = "orders.status";
    /// The event's type id.
    pub const TYPE_ID: i64 = 2;
}

impl From<&OrderStatusChanged> for crate::events::DomainEvent {
    fn from(e: &OrderStatusChanged) -> Self {
        crate::events::DomainEvent::OrderStatus {
            order_id: e.order_id,
            order_number: e.order_number.clone(),
            status: e.status.as_str().to_owned(),
        }
    }
}

/// The result of an accepted transition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    /// The order's state afterwards.
    pub state: OrderState,
    /// The events to emit, written to the outbox in the same transaction as the change.
    pub events: Vec<OrderStatusChanged>,
}

/// The status of a brand-new order: the depot's starting status (OPEN unless configured).
pub fn initial_status(starting: Option<&Status>) -> Status {
    starting.cloned().unwrap_or_else(Status::open)
}

/// The one transition function: every change of an order's status goes through it.
/// Derived aggregates can never be chosen; an accepted change that alters the order's or a
/// line item's status yields one `orders.status` event carrying the order's new status.
pub fn transition(state: &OrderState, event: OrderEvent) -> Result<Transition, StatusRejection> {
    let mut next = state.clone();
    match event {
        OrderEvent::Resubmitted => {}
        // An added order stays OPEN until its route is dispatched.
        OrderEvent::AddedToRoute if state.status.as_str() == OPEN => {}
        OrderEvent::AddedToRoute if state.status.as_str() == ROUTED => {
            return Err(StatusRejection::AlreadyRouted)
        }
        OrderEvent::AddedToRoute if state.status.is_completed() => {
            return Err(StatusRejection::Completed(state.status.clone()))
        }
        OrderEvent::AddedToRoute => return Err(StatusRejection::NotOpen(state.status.clone())),
        OrderEvent::Dispatched if state.status.as_str() == OPEN => set_all(&mut next, ROUTED),
        OrderEvent::Dispatched => return Err(StatusRejection::NotOpen(state.status.clone())),
        OrderEvent::RemovedFromRoute if state.status.is_completed() => {
            return Err(StatusRejection::Completed(state.status.clone()))
        }
        OrderEvent::RemovedFromRoute => set_all(&mut next, OPEN),
        OrderEvent::PlanDeleted {
            route_dispatched: true,
        } if state.status.as_str() == ROUTED => set_all(&mut next, OPEN),
        OrderEvent::PlanDeleted { .. } => {}
        OrderEvent::StatusSet(status) if status.is_derived() => {
            return Err(StatusRejection::Derived(status.0))
        }
        OrderEvent::StatusSet(status) => set_all(&mut next, status.as_str()),
        OrderEvent::LineItemStatusSet { status, .. } if status.is_derived() => {
            return Err(StatusRejection::Derived(status.0))
        }
        OrderEvent::LineItemStatusSet { index, status } => {
            let item = next
                .line_items
                .get_mut(index)
                .ok_or(StatusRejection::NoSuchLineItem(index))?;
            *item = status;
            rederive(&mut next);
        }
        OrderEvent::Redated if state.status.as_str() == UNDELIVERED => set_all(&mut next, OPEN),
        OrderEvent::Redated => {}
        OrderEvent::LineItemsReplaced(items) => {
            if let Some(d) = items.iter().find(|s| s.is_derived()) {
                return Err(StatusRejection::Derived(d.0.clone()));
            }
            next.line_items = items;
            rederive(&mut next);
        }
    }
    let changed = next.status != state.status || next.line_items != state.line_items;
    let events = if changed {
        vec![OrderStatusChanged {
            order_id: next.order_id,
            order_number: next.order_number.clone(),
            status: next.status.clone(),
        }]
    } else {
        Vec::new()
    };
    Ok(Transition {
        state: next,
        events,
    })
}

fn set_all(state: &mut OrderState, status: &str) {
    state.status = Status(status.to_owned());
    for item in &mut state.line_items {
        *item = Status(status.to_owned());
    }
}

fn rederive(state: &mut OrderState) {
    if let Some(derived) = derive_order_status(&state.line_items) {
        state.status = derived;
    } else if state.status.is_derived() {
        // An order whose last line item went away falls back to the base of its aggregate.
        let base = state.status.0[PARTIAL_PREFIX.len()..].to_owned();
        state.status = Status(base);
    }
}

/// What adding and removing a custom status both require of its name: 1 to
/// [`MAX_STATUS_CHARS`] characters, and no default status's name in any case.
fn check_custom_name(name: &str) -> Result<(), StatusRejection> {
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_STATUS_CHARS {
        return Err(StatusRejection::InvalidLength);
    }
    if DEFAULT_STATUSES
        .iter()
        .any(|d| d.eq_ignore_ascii_case(name))
    {
        return Err(StatusRejection::IsDefault(name.to_owned()));
    }
    Ok(())
}

#[cfg(test)]
#[path = "status_tests.rs"]
mod tests;
