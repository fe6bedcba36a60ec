//! Orders: `POST /orders`, `POST /depots/{id}/orders`, `GET /orders`, `GET`/`PUT
//! /orders/{id}` and `DELETE /orders/order-number/{order_number}`.
//!
//! Single reads and updates wrap the order under `order`, as the spec's description says (its
//! sample shows the fields at top level). POST answers 200 (operator interface).

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use dispatch_core::error::ValidationErrors;
use dispatch_core::model::order_input::OrderInput;
use dispatch_core::service::order_reads::{self, OrderDetail, OrderQuery};
use dispatch_core::service::orders::{self, WrittenOrder};
use dispatch_core::service::ServiceError;
use serde_json::{json, Value};

use super::order_batch::PostOrdersBody;
use super::order_json::body_issue;
use super::order_render::{render_order, render_summary};
use super::order_shapes::{
    OneOrder, OrderWire, Orders, UpdatedOrder, WrittenOrderRef, WrittenOrders,
};
use super::order_wire::{read_order, OrderBody};
use super::plan_render::render_stop;
use super::registry::ApiRoutes;
use super::shapes::ItemError;
use super::wire::type_name;
use crate::error::ApiError;
use crate::extract::{Caller, IdPath, JsonBody, PathText, TypedOrValue};
use crate::links::Links;
use crate::middleware::idempotency::IdempotencyClaim;
use crate::paging::PageParams;
use crate::AppState;
use utoipa_axum::routes;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        // The spec's `/orders/` spelling too, documented as its own path.
        .routes_with_alias("/orders/", routes!(list, create))
        .routes(routes!(create_in_depot))
        .routes(routes!(read, update))
        .routes(routes!(delete_by_number))
}

/// Reads a batch; each parsed item is dropped as soon as its input is read, so the batch is
/// never held twice.
fn batch(body: Value, kind: OrderBody) -> Result<Vec<OrderInput>, ApiError> {
    let Value::Array(items) = body else {
        return Err(body_issue(
            "an array of orders",
            type_name(&body),
            "the body must be an array of orders",
        )
        .into());
    };
    let mut errors = ValidationErrors::default();
    let inputs = items
        .into_iter()
        .enumerate()
        .map(|(i, item)| read_order(&item, vec![i.into()], kind, &mut errors))
        .collect();
    errors.into_result()?;
    Ok(inputs)
}

async fn write(
    state: AppState,
    caller: Caller,
    claim: IdempotencyClaim,
    inputs: Vec<OrderInput>,
) -> Result<Response, ApiError> {
    let p = caller.0;
    state
        .blocking(move |s| {
            // Shared: a batch of new orders may commit on the store's writer thread.
            let reply = Arc::new(claim.reply(StatusCode::OK, |w: &Vec<_>| written(w)));
            orders::upsert_batch(
                &*s.store,
                &*s.geocoder,
                p.scope(),
                inputs,
                s.clock.now(),
                reply.clone(),
            )?;
            Ok(reply.response())
        })
        .await
}

/// The body of POST /orders.
fn written(written: &[WrittenOrder]) -> WrittenOrders {
    WrittenOrders {
        orders: written
            .iter()
            .map(|w| WrittenOrderRef {
                id: w.id.to_string(),
                order_number: w.order_number.clone(),
            })
            .collect(),
        errors: written
            .iter()
            .filter(|w| w.geocoding_failed)
            .map(geocoding_failed)
            .collect(),
    }
}

fn geocoding_failed(w: &WrittenOrder) -> ItemError {
    ItemError {
        name: "GEOCODING_FAILED",
        description:
            "an address could not be geocoded; the order was saved without its coordinates".into(),
        details: json!({"id": w.id.to_string(), "order_number": w.order_number, "is_created": w.is_created}),
    }
}

#[utoipa::path(post, path = "/orders", tag = "orders", summary = "Create or update orders by order_number (at most 100).", request_body(content = Vec<super::request_shapes::OrderCreateBody>, description = "An array of at most 100 order objects (required: order_number, type)."), responses((status = 200, description = "`{ orders: [{id, order_number}], errors }`", body = WrittenOrders), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 403, description = "PERMISSION: an order without a customer where the depot requires one; or FORBIDDEN: rate limit.", body = crate::error::Envelope)))]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    claim: IdempotencyClaim,
    PostOrdersBody(body): PostOrdersBody,
) -> Result<Response, ApiError> {
    let inputs = match body {
        TypedOrValue::Typed(inputs) => inputs,
        TypedOrValue::Value(body) => batch(body, OrderBody::Post)?,
    };
    write(state, caller, claim, inputs).await
}

#[utoipa::path(post, path = "/depots/{id}/orders", tag = "orders", summary = "Create or update orders in the caller's depot.", params(("id" = i64, Path, description = "The depot id.")), request_body(content = Vec<super::request_shapes::DepotOrderBody>, description = "An array of order objects with the properties the spec lists for this endpoint."), responses((status = 200, description = "As POST /orders.", body = WrittenOrders), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn create_in_depot(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(depot): IdPath,
    claim: IdempotencyClaim,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    if depot != caller.0.depot_id {
        return Err(ApiError::not_found("depot"));
    }
    let inputs = batch(body, OrderBody::DepotPost)?;
    write(state, caller, claim, inputs).await
}

#[utoipa::path(get, path = "/orders", tag = "orders", summary = "Order summaries, most recently updated first (paged).", params(crate::paging::OrderQuery), responses((status = 200, description = "`{ orders }` and a `Link` header to the next page.", body = Orders), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
async fn list(
    State(state): State<AppState>,
    Caller(p): Caller,
    page: PageParams,
) -> Result<Response, ApiError> {
    let customer_id = match page.filter("customer_id") {
        Some(raw) => Some(raw.trim().parse::<i64>().map_err(|_| {
            ApiError::from(ServiceError::invalid(
                vec!["customer_id".into()],
                "integer",
                raw,
                "customer_id must be an integer",
            ))
        })?),
        None => None,
    };
    let query = OrderQuery {
        status: page.filter("status").map(str::to_owned),
        customer_id,
        order_number: page.filter("order_number").map(str::to_owned),
        date: page.filter("date").map(str::to_owned),
    };
    let request = page.request;
    let links = Links::of(&state);
    let listed = state
        .quick(move |s| Ok(order_reads::list(&*s.store, p.scope(), &query, &request)?))
        .await?;
    let orders = listed
        .page
        .items
        .iter()
        .zip(&listed.stops)
        .map(|(o, on)| {
            let mut summary = render_summary(o);
            summary.stops = on
                .iter()
                .map(|(view, route)| render_stop(view, route, &listed.catalog, &links, false))
                .collect();
            summary
        })
        .collect();
    Ok(page.respond(listed.page.next, Json(Orders { orders })))
}

/// The `{id}` of an order: a string on the wire; one that names no order is 404.
fn order_id(raw: &str) -> Result<i64, ApiError> {
    raw.parse::<i64>().map_err(|_| ApiError::not_found("order"))
}

#[utoipa::path(get, path = "/orders/{id}", tag = "orders", summary = "One order.", params(("id" = i64, Path, description = "The order id.")), responses((status = 200, description = "`{ order }`", body = OneOrder), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn read(
    State(state): State<AppState>,
    Caller(p): Caller,
    PathText(raw): PathText,
) -> Result<Json<OneOrder>, ApiError> {
    let id = order_id(&raw)?;
    let detail = state
        .quick(move |s| Ok(order_reads::get(&*s.store, p.scope(), id)?))
        .await?;
    Ok(Json(OneOrder {
        order: full_order(&detail, &Links::of(&state)),
    }))
}

#[utoipa::path(put, path = "/orders/{id}", tag = "orders", summary = "Update an order (partial).", params(("id" = i64, Path, description = "The order id.")), request_body(content = super::request_shapes::OrderWriteBody, description = "Order fields; lists replace the stored list."), responses((status = 200, description = "`{ order, errors }`", body = UpdatedOrder), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn update(
    State(state): State<AppState>,
    Caller(p): Caller,
    PathText(raw): PathText,
    JsonBody(body): JsonBody,
) -> Result<Json<UpdatedOrder>, ApiError> {
    let id = order_id(&raw)?;
    let mut errors = ValidationErrors::default();
    let input = read_order(&body, Vec::new(), OrderBody::Put, &mut errors);
    drop(body);
    errors.into_result()?;
    let (updated, detail) = state
        .blocking(move |s| {
            let updated =
                orders::update(&*s.store, &*s.geocoder, p.scope(), id, input, s.clock.now())?;
            let detail = order_reads::get(&*s.store, p.scope(), id)?;
            Ok((updated, detail))
        })
        .await?;
    let errors = if updated.geocoding_failed {
        vec![geocoding_failed(&WrittenOrder {
            id,
            order_number: updated.order.order_number.clone(),
            is_created: false,
            geocoding_failed: true,
        })]
    } else {
        Vec::new()
    };
    Ok(Json(UpdatedOrder {
        order: full_order(&detail, &Links::of(&state)),
        errors,
    }))
}

/// The full order with the stops serving it.
fn full_order(detail: &OrderDetail, links: &Links) -> OrderWire {
    let mut order = render_order(&detail.order, &detail.attachments, &detail.catalog);
    order.stops = detail
        .stops
        .iter()
        .map(|(view, route)| render_stop(view, route, &detail.catalog, links, false))
        .collect();
    order
}

#[utoipa::path(delete, path = "/orders/order-number/{order_number}", tag = "orders", summary = "Delete an order by its order number.", params(("order_number" = String, Path, description = "The order number, exactly, URL-encoded.")), responses((status = 200, description = "`{ deleted: { orders_count, line_items_count } }` (0 for an unknown number).", body = DeletedOrders)))]
async fn delete_by_number(
    State(state): State<AppState>,
    Caller(p): Caller,
    PathText(number): PathText,
) -> Result<Json<DeletedOrders>, ApiError> {
    let counts = state
        .blocking(move |s| {
            Ok(order_reads::delete_by_number(
                &*s.store,
                &*s.routing.matrix,
                p.scope(),
                &number,
                s.clock.now(),
            )?)
        })
        .await?;
    Ok(Json(DeletedOrders {
        deleted: OrdersCount {
            orders_count: counts.orders_count,
            line_items_count: counts.line_items_count,
        },
    }))
}

/// `{ orders_count, line_items_count }`.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct OrdersCount {
    orders_count: u64,
    line_items_count: u64,
}

/// `{ deleted: { orders_count, line_items_count } }`.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct DeletedOrders {
    deleted: OrdersCount,
}
