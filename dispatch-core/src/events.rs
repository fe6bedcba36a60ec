//! The closed set of domain events the service emits as webhooks.

/// One event, with its payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DomainEvent {
    /// `orders.status`: an order's status changed.
    OrderStatus {
        /// The order.
        order_id: i64,
        /// Its number.
        order_number: String,
        /// The new status.
        status: String,
    },
    /// `plans.created`: a plan row was persisted.
    PlanCreated {
        /// The plan.
        id: i64,
    },
    /// `plans.dispatched`: a plan was dispatched.
    PlanDispatched {
        /// The plan.
        id: i64,
    },
    /// `routes.edited`: a dispatched route was edited.
    RouteEdited {
        /// The route.
        id: i64,
    },
    /// `routes.deleted`: a dispatched route was deleted.
    RouteDeleted {
        /// The route.
        id: i64,
    },
    /// `routes.completed`: the driver completed a dispatched route.
    RouteCompleted {
        /// The route.
        id: i64,
    },
    /// `plans.deleted`: a plan row was destroyed.
    PlanDeleted {
        /// The plan.
        id: i64,
    },
    /// `orders.on_delivery`: a stop entered its on-delivery ETA window.
    OrderOnDelivery {
        /// The order.
        order_id: i64,
        /// Its number.
        order_number: String,
        /// The route.
        route_id: i64,
        /// Estimated arrival, `HH:mm`.
        eta: String,
        /// Minutes until arrival.
        time_to_arrival: i64,
    },
}

/// The record an event is about: its events are delivered in the order they happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Entity {
    /// An order (`orders.status`, `orders.on_delivery`).
    Order(i64),
    /// A plan (`plans.*`).
    Plan(i64),
    /// A route (`routes.*`).
    Route(i64),
}

impl DomainEvent {
    /// The record the event is about.
    pub fn entity(&self) -> Entity {
        match self {
            DomainEvent::OrderStatus { order_id, .. }
            | DomainEvent::OrderOnDelivery { order_id, .. } => Entity::Order(*order_id),
            DomainEvent::PlanCreated { id }
            | DomainEvent::PlanDispatched { id }
            | DomainEvent::PlanDeleted { id } => Entity::Plan(*id),
            DomainEvent::RouteEdited { id }
            | DomainEvent::RouteDeleted { id }
            | DomainEvent::RouteCompleted { id } => Entity::Route(*id),
        }
    }

    /// The event name on the wire (`orders.status`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            DomainEvent::OrderStatus { .. } => "orders.status",
            DomainEvent::PlanCreated { .. } => "plans.created",
            DomainEvent::PlanDispatched { .. } => "plans.dispatched",
            DomainEvent::RouteEdited { .. } => "routes.edited",
            DomainEvent::RouteDeleted { .. } => "routes.deleted",
            DomainEvent::RouteCompleted { .. } => "routes.completed",
            DomainEvent::PlanDeleted { .. } => "plans.deleted",
            DomainEvent::OrderOnDelivery { .. } => "orders.on_delivery",
        }
    }

    /// The payload object (the webhook's `data`, and how the outbox stores the event).
    pub fn payload(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            DomainEvent::OrderStatus {
                order_id,
                order_number,
                status,
            } => json!({"order_id": order_id, "order_number": order_number, "status": status}),
            DomainEvent::PlanCreated { id }
            | DomainEvent::PlanDispatched { id }
            | DomainEvent::RouteEdited { id }
            | DomainEvent::RouteDeleted { id }
            | DomainEvent::RouteCompleted { id }
            | DomainEvent::PlanDeleted { id } => json!({ "id": id }),
            DomainEvent::OrderOnDelivery {
                order_id,
                order_number,
                route_id,
                eta,
                time_to_arrival,
            } => json!({
                "order_id": order_id,
                "order_number": order_number,
                "route_id": route_id,
                "eta": eta,
                "time_to_arrival": time_to_arrival,
            }),
        }
    }

    /// The spec's type id of the event.
    pub fn type_id(&self) -> u8 {
        match self {
            DomainEvent::OrderStatus { .. } => 2,
            DomainEvent::PlanCreated { .. } => 4,
            DomainEvent::PlanDispatched { .. } => 5,
            DomainEvent::RouteEdited { .. } => 6,
            DomainEvent::RouteDeleted { .. } => 7,
            DomainEvent::RouteCompleted { .. } => 8,
            DomainEvent::PlanDeleted { .. } => 9,
            DomainEvent::OrderOnDelivery { .. } => 10,
        }
    }
}
