//! `POST /routes/{id}/add-orders` and `/remove-orders`: the request
//! `{orders: [{id?, order_number?}] (1-10), settings?: {allow_dispatched?, reoptimize?}}` and
//! the response `{orders: [{id, order_number, stops: [{id, route: {id}}]}], errors: [{name,
//! description, details: {id, order_number}}]}`. A NOT_PLACED entry also carries `reason` and
//! `reason_description` (beside `name` and inside `details`).

use axum::extract::State;
use axum::Json;
use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use dispatch_core::model::route_edit::{EditFailure, MAX_ORDERS_PER_EDIT};
use dispatch_core::service::route_orders::{self, EditOutcome, EditSettings, OrderRef};
use dispatch_core::service::ServiceError;
use serde_json::{json, Map, Value};

use super::registry::ApiRoutes;
use super::request_shapes::{refuse_undocumented, EditSettingsBody, OrderRefBody, RouteEditBody};
use super::shapes::IdRef;
use super::wire::type_name;
use crate::error::ApiError;
use crate::extract::{Caller, IdPath, JsonBody};
use crate::links::Links;
use crate::rejection::invalid;
use crate::AppState;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::routes;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        .routes(routes!(add))
        .routes(routes!(remove))
}

fn issue(
    path: Vec<PathSegment>,
    code: IssueCode,
    expected: &str,
    received: &str,
    message: &str,
) -> ValidationIssue {
    ValidationIssue::new(code, path, expected, received, message)
}

fn read_ref(i: usize, v: &Value, errors: &mut ValidationErrors) -> Option<OrderRef> {
    let at = |key: Option<&str>| {
        let mut p: Vec<PathSegment> = vec!["orders".into(), i.into()];
        if let Some(k) = key {
            p.push(k.into());
        }
        p
    };
    let Some(o) = v.as_object() else {
        errors.push(issue(
            at(None),
            IssueCode::InvalidType,
            "object",
            type_name(v),
            "each order reference is an object",
        ));
        return None;
    };
    let before = errors.0.len();
    refuse_undocumented::<OrderRefBody>(o, &at(None), errors);
    let id = match o.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) if n.as_i64().is_some() => n.as_i64(),
        Some(Value::String(s)) if s.parse::<i64>().is_ok() => s.parse().ok(),
        Some(other) => {
            errors.push(issue(
                at(Some("id")),
                IssueCode::InvalidType,
                "integer",
                type_name(other),
                "id must be an integer",
            ));
            None
        }
    };
    let number = match o.get("order_number") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            errors.push(issue(
                at(Some("order_number")),
                IssueCode::InvalidType,
                "string",
                type_name(other),
                "order_number must be a string",
            ));
            None
        }
    };
    if errors.0.len() > before {
        return None;
    }
    if id.is_none() && number.is_none() {
        errors.push(issue(
            at(None),
            IssueCode::Custom,
            "id or order_number",
            "neither",
            "each order reference needs an id or an order_number",
        ));
        return None;
    }
    Some(OrderRef {
        id,
        order_number: number,
    })
}

fn read_settings(s: Option<&Value>, errors: &mut ValidationErrors) -> EditSettings {
    let mut settings = EditSettings::default();
    let Some(s) = s.filter(|s| !s.is_null()) else {
        return settings;
    };
    let Some(o) = s.as_object() else {
        errors.push(issue(
            vec!["settings".into()],
            IssueCode::InvalidType,
            "object",
            type_name(s),
            "settings must be an object",
        ));
        return settings;
    };
    refuse_undocumented::<EditSettingsBody>(o, &["settings".into()], errors);
    for (key, slot) in [
        ("allow_dispatched", &mut settings.allow_dispatched),
        ("reoptimize", &mut settings.reoptimize),
    ] {
        match o.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) => *slot = *b,
            Some(other) => errors.push(issue(
                vec!["settings".into(), key.into()],
                IssueCode::InvalidType,
                "boolean",
                type_name(other),
                &format!("{key} must be a boolean"),
            )),
        }
    }
    settings
}

/// Reads the request body.
pub fn read_request(body: &Value) -> Result<(Vec<OrderRef>, EditSettings), ApiError> {
    let mut errors = ValidationErrors::default();
    let empty = Map::new();
    let o = match body.as_object() {
        Some(o) => o,
        None => {
            errors.push(issue(
                vec![],
                IssueCode::InvalidType,
                "object",
                type_name(body),
                "the body must be an object",
            ));
            &empty
        }
    };
    refuse_undocumented::<RouteEditBody>(o, &[], &mut errors);
    let mut refs = Vec::new();
    match o.get("orders") {
        Some(Value::Array(list)) if (1..=MAX_ORDERS_PER_EDIT).contains(&list.len()) => {
            for (i, v) in list.iter().enumerate() {
                refs.extend(read_ref(i, v, &mut errors));
            }
        }
        Some(Value::Array(list)) => {
            let code = if list.is_empty() {
                IssueCode::TooSmall
            } else {
                IssueCode::TooBig
            };
            errors.push(issue(
                vec!["orders".into()],
                code,
                "1 to 10 order references",
                &format!("{} references", list.len()),
                "orders takes 1 to 10 order references",
            ));
        }
        Some(other) => errors.push(issue(
            vec!["orders".into()],
            IssueCode::InvalidType,
            "array",
            type_name(other),
            "orders must be an array",
        )),
        None if body.is_object() => errors.push(issue(
            vec!["orders".into()],
            IssueCode::InvalidType,
            "array",
            "undefined",
            "orders is required",
        )),
        None => {}
    }
    let settings = read_settings(o.get("settings"), &mut errors);
    if errors.0.is_empty() {
        Ok((refs, settings))
    } else {
        Err(invalid(&errors))
    }
}

/// The response body.
pub fn render(out: &EditOutcome) -> EditResult {
    let orders = out
        .orders
        .iter()
        .map(|o| EditedOrderWire {
            id: o.id,
            order_number: o.order_number.clone(),
            stops: o
                .stops
                .iter()
                .map(|&id| EditedStop {
                    id,
                    route: IdRef { id: out.route_id },
                })
                .collect(),
        })
        .collect();
    let errors = out
        .errors
        .iter()
        .map(|e| {
            let mut details = json!({"id": e.id, "order_number": e.order_number});
            let (reason, reason_description) = match &e.failure {
                EditFailure::NotPlaced {
                    reason,
                    description,
                } => {
                    details["reason"] = json!(reason);
                    details["reason_description"] = json!(description);
                    (Some(reason.clone()), Some(description.clone()))
                }
                _ => (None, None),
            };
            EditErrorWire {
                name: e.failure.name(),
                description: e.failure.description(),
                reason,
                reason_description,
                details,
            }
        })
        .collect();
    EditResult { orders, errors }
}

/// A stop of an edited order.
#[derive(Serialize, ToSchema)]
pub struct EditedStop {
    id: i64,
    route: IdRef,
}

/// An order the call resolved: `stops` lists the stops added (or removed); empty when nothing
/// changed.
#[derive(Serialize, ToSchema)]
pub struct EditedOrderWire {
    id: i64,
    order_number: String,
    stops: Vec<EditedStop>,
}

/// A per-order failure (the names are listed under each endpoint in the spec).
#[derive(Serialize, ToSchema)]
pub struct EditErrorWire {
    name: &'static str,
    description: String,
    /// NOT_PLACED: the optimiser's reason code.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// NOT_PLACED: the reason in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason_description: Option<String>,
    /// `id`, `order_number` (null when unresolved), and for NOT_PLACED the reason again.
    #[schema(value_type = Object)]
    details: Value,
}

/// `{ orders, errors }`.
#[derive(Serialize, ToSchema)]
pub struct EditResult {
    orders: Vec<EditedOrderWire>,
    errors: Vec<EditErrorWire>,
}

/// The add or remove use case, on the state's store and matrix.
type EditCall = Box<
    dyn FnOnce(&AppState, &[OrderRef], EditSettings) -> Result<EditOutcome, ServiceError> + Send,
>;

async fn edit(state: AppState, body: Value, call: EditCall) -> Result<Json<EditResult>, ApiError> {
    let (refs, settings) = read_request(&body)?;
    let out = state
        .blocking(move |s| Ok(call(s, &refs, settings)?))
        .await?;
    Ok(Json(render(&out)))
}

#[utoipa::path(post, path = "/routes/{id}/add-orders", tag = "routes", summary = "Add 1 to 10 orders to a route.", params(("id" = i64, Path, description = "The route id.")), request_body(content = super::request_shapes::RouteEditBody, description = "`{ orders: [{id?, order_number?}], settings: {allow_dispatched, reoptimize} }`."), responses((status = 200, description = "`{ orders: [{id, order_number, stops}], errors }`", body = EditResult), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn add(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<Json<EditResult>, ApiError> {
    let scope = caller.0.scope();
    let call: EditCall = Box::new(move |s, refs, settings| {
        let links = Links::of(s);
        let matrix = &*s.routing.matrix;
        let now = s.clock.now();
        route_orders::add_orders(&*s.store, matrix, &links, scope, id, refs, settings, now)
    });
    edit(state, body, call).await
}

#[utoipa::path(post, path = "/routes/{id}/remove-orders", tag = "routes", summary = "Remove 1 to 10 orders from a route.", params(("id" = i64, Path, description = "The route id.")), request_body(content = super::request_shapes::RouteEditBody, description = "`{ orders: [{id?, order_number?}], settings: {allow_dispatched, reoptimize} }`."), responses((status = 200, description = "`{ orders: [{id, order_number, stops}], errors }`", body = EditResult), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<Json<EditResult>, ApiError> {
    let scope = caller.0.scope();
    let call: EditCall = Box::new(move |s, refs, settings| {
        let now = s.clock.now();
        route_orders::remove_orders(
            &*s.store,
            &*s.routing.matrix,
            scope,
            id,
            refs,
            settings,
            now,
        )
    });
    edit(state, body, call).await
}
