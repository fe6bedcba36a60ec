//! The `/v2` API: one router per resource, merged here. Wire types live beside their handlers.

pub mod booking;
pub mod booking_input;
pub mod booking_shapes;
pub mod customer_wire;
pub mod customers;
pub mod dispatch;
pub mod driver_credentials;
pub mod notification_wire;
pub mod notifications;
pub mod order_attachments;
pub mod order_batch;
pub mod order_json;
pub mod order_render;
pub mod order_shapes;
pub mod order_statuses;
pub mod order_wire;
pub mod orders;
pub mod plan_render;
pub mod plan_shapes;
pub mod plan_wire;
pub mod plans;
pub mod pod;
pub mod pod_render;
pub mod reference;
pub mod registry;
pub mod request_shapes;
pub mod route_edits;
pub mod route_orders;
pub mod routes;
pub mod shapes;
pub mod vehicles;
pub mod wire;
pub mod zones;

use registry::{ApiRoutes, Parts};

/// Every `/v2` route (without the auth layer, which [`crate::app`] adds), the OpenAPI paths
/// they were registered with and their aliases: each module registers its handlers through
/// [`ApiRoutes`], which takes the path and methods from the handler's `#[utoipa::path]`.
pub fn api() -> Parts {
    ApiRoutes::new()
        .merge(reference::routes())
        .merge(zones::routes())
        .merge(vehicles::routes())
        .merge(customers::routes())
        .merge(orders::routes())
        .merge(order_statuses::routes())
        .merge(order_attachments::routes())
        .merge(notifications::routes())
        .merge(plans::routes())
        .merge(routes::routes())
        .merge(dispatch::routes())
        .merge(route_edits::routes())
        .merge(route_orders::routes())
        .merge(booking::routes())
        .merge(driver_credentials::routes())
        .merge(pod::routes())
        .into_parts()
}
