//! Order statuses of the organisation: `GET`/`POST /order-statuses` and `DELETE
//! /order-statuses/{status}` (paths fixed by the operator interface).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use dispatch_core::service::order_statuses;
use dispatch_core::service::ServiceError;
use serde::Serialize;
use utoipa::ToSchema;

use super::registry::ApiRoutes;
use super::wire::{object, type_name};
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody, PathText};
use crate::AppState;
use utoipa_axum::routes;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        .routes(routes!(list, add))
        .routes(routes!(remove))
}

#[utoipa::path(get, path = "/order-statuses", tag = "order statuses", summary = "Default and custom order statuses of the organisation.", responses((status = 200, description = "`{ order_statuses }`", body = OrderStatuses)))]
async fn list(
    State(state): State<AppState>,
    Caller(p): Caller,
) -> Result<Json<OrderStatuses>, ApiError> {
    let entries = state
        .blocking(move |s| Ok(order_statuses::list(&*s.store, p.organisation_id)?))
        .await?;
    let order_statuses = entries
        .into_iter()
        .map(|e| StatusEntry {
            status: e.status,
            is_custom: e.is_custom,
        })
        .collect();
    Ok(Json(OrderStatuses { order_statuses }))
}

#[utoipa::path(post, path = "/order-statuses", tag = "order statuses", summary = "Add a custom order status.", request_body(content = super::request_shapes::OrderStatusBody, description = "`{ status }`: 1-255 characters, stored exactly as sent."), responses((status = 201, description = "`{ order_status }`", body = AddedStatus), (status = 400, description = "INVALID_INPUT: already present, a default name, or not 1-255 characters.", body = crate::error::Envelope)))]
async fn add(
    State(state): State<AppState>,
    Caller(p): Caller,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let obj = object(&body)?;
    let mut unknown = dispatch_core::error::ValidationErrors::default();
    super::request_shapes::refuse_undocumented::<super::request_shapes::OrderStatusBody>(
        obj,
        &[],
        &mut unknown,
    );
    unknown.into_result()?;
    let status = match obj.get("status") {
        Some(serde_json::Value::String(s)) => s.clone(),
        other => {
            let received = other.map_or("undefined", type_name);
            return Err(ServiceError::invalid(
                vec!["status".into()],
                "a string of 1 to 255 characters",
                received,
                "status must be a string",
            )
            .into());
        }
    };
    let added = state
        .blocking(move |s| {
            Ok(order_statuses::add(
                &*s.store,
                p.organisation_id,
                &status,
                s.clock.now(),
            )?)
        })
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(AddedStatus {
            order_status: StatusEntry {
                status: added,
                is_custom: true,
            },
        }),
    )
        .into_response())
}

#[utoipa::path(delete, path = "/order-statuses/{status}", tag = "order statuses", summary = "Remove a custom order status.", params(("status" = String, Path, description = "The status, exactly as listed (URL-encoded).")), responses((status = 200, description = "`{ deleted: {status} }`", body = DeletedStatus), (status = 400, description = "INVALID_INPUT: a default status.", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: not a custom status of the organisation.", body = crate::error::Envelope)))]
async fn remove(
    State(state): State<AppState>,
    Caller(p): Caller,
    PathText(status): PathText,
) -> Result<Json<DeletedStatus>, ApiError> {
    let name = status.clone();
    state
        .blocking(move |s| Ok(order_statuses::remove(&*s.store, p.organisation_id, &name)?))
        .await?;
    Ok(Json(DeletedStatus {
        deleted: StatusName { status },
    }))
}

/// An order status.
#[derive(Serialize, ToSchema)]
pub struct StatusEntry {
    status: String,
    is_custom: bool,
}

/// `{ order_statuses }`.
#[derive(Serialize, ToSchema)]
pub struct OrderStatuses {
    order_statuses: Vec<StatusEntry>,
}

/// `{ order_status }`.
#[derive(Serialize, ToSchema)]
pub struct AddedStatus {
    order_status: StatusEntry,
}

/// `{ status }`.
#[derive(Serialize, ToSchema)]
pub struct StatusName {
    status: String,
}

/// `{ deleted: { status } }`.
#[derive(Serialize, ToSchema)]
pub struct DeletedStatus {
    deleted: StatusName,
}
