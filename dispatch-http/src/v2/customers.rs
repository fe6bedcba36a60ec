//! Customers: `GET`/`POST /customers` (and `/customers/`), `GET`/`PUT /customers/{id}`.
//!
//! Single reads and updates wrap the customer under `customer`, as the spec's description says
//! (its sample shows the fields at top level).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::{Json, Router};
use dispatch_core::error::{PathSegment, ValidationErrors};
use dispatch_core::model::customer::Customer;
use dispatch_core::model::customer_validate::CustomerInput;
use dispatch_core::model::order_fields::Catalog;
use dispatch_core::service::customers::{self, WrittenCustomer};
use serde_json::{json, Value};

use super::order_json::{
    body_issue, capacities, custom_fields, field_name, list, render_capacities, sent, time_windows,
    unknown_properties,
};
use super::wire::{opt_num, opt_time, ts, type_name, Reader};
use crate::error::ApiError;
use crate::extract::{Caller, IdPath, JsonBody};
use crate::middleware::idempotency::IdempotencyClaim;
use crate::paging::PageParams;
use crate::AppState;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    let collection = get(list_customers).post(create);
    Router::new()
        .route("/customers", collection.clone())
        .route("/customers/", collection)
        .route("/customers/{id}", get(read).put(update))
}

/// The properties of a customer object (the fuzz test draws its keys from here too).
pub const PROPERTIES: [&str; 15] = [
    "name",
    "account",
    "address",
    "postcode",
    "phone",
    "email",
    "lat",
    "lng",
    "duration",
    "notes",
    "capacities",
    "skills",
    "tags",
    "time_windows",
    "custom_fields",
];

/// Reads one customer object; `prefix` is its place in the body.
fn input(
    body: &Value,
    prefix: Vec<PathSegment>,
    read_only: &[&str],
    errors: &mut ValidationErrors,
) -> CustomerInput {
    let Some(obj) = body.as_object() else {
        errors.push(dispatch_core::error::ValidationIssue::new(
            dispatch_core::error::IssueCode::InvalidType,
            prefix,
            "object",
            type_name(body),
            "a customer must be an object",
        ));
        return CustomerInput::default();
    };
    unknown_properties(obj, &PROPERTIES, read_only, &prefix, errors);
    let mut r = Reader::new(obj, prefix, errors);
    CustomerInput {
        account: sent(r.string("account")),
        name: sent(r.string("name")),
        address: sent(r.string("address")),
        postcode: sent(r.string("postcode")),
        phone: sent(r.string("phone")),
        email: sent(r.string("email")),
        lat: sent(r.number("lat")),
        lng: sent(r.number("lng")),
        duration: sent(r.number("duration")),
        notes: sent(r.string("notes")),
        capacities: capacities(&mut r, "capacities"),
        skills: list(r.strings("skills")),
        tags: list(r.strings("tags")),
        time_windows: time_windows(&mut r, "time_windows"),
        custom_fields: custom_fields(&mut r, "custom_fields"),
    }
}

fn list_view(c: &Customer) -> Value {
    json!({
        "id": c.id,
        "account": c.account,
        "name": c.name,
        "address": c.address,
        "postcode": c.postcode,
        "lat": opt_num(c.lat),
        "lng": opt_num(c.lng),
        "phone": c.phone,
        "email": c.email,
        "duration": opt_num(c.duration),
        "notes": c.notes,
        "created": ts(c.created),
        "updated": ts(c.updated),
    })
}

fn detail(c: &Customer, catalog: &Catalog) -> Value {
    let mut v = list_view(c);
    let fields: Vec<Value> = c
        .custom_fields
        .iter()
        .map(|f| {
            json!({
                "value": f.value,
                "custom_field_type": {"name": field_name(catalog, f.field_id), "type": "TEXT", "id": f.field_id},
            })
        })
        .collect();
    let windows: Vec<Value> = c
        .time_windows
        .iter()
        .map(|w| json!({"from": w.from.to_string(), "to": opt_time(w.to)}))
        .collect();
    let extra = json!({
        "capacities": render_capacities(&c.capacities, catalog),
        "skills": c.skills,
        "tags": c.tags,
        "time_windows": windows,
        "custom_fields": fields,
    });
    if let (Some(m), Value::Object(e)) = (v.as_object_mut(), extra) {
        m.extend(e);
    }
    v
}

fn geocoding_failed(id: i64, account: &str) -> Value {
    json!({
        "name": "GEOCODING_FAILED",
        "description": "the address could not be geocoded; the customer was saved without coordinates",
        "details": {"id": id, "account": account},
    })
}

async fn create(
    State(state): State<AppState>,
    Caller(p): Caller,
    claim: IdempotencyClaim,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let Value::Array(items) = body else {
        return Err(body_issue(
            "an array of customers",
            type_name(&body),
            "the body must be an array of customers",
        )
        .into());
    };
    let mut errors = ValidationErrors::default();
    // Each parsed item is dropped as soon as its input is read: the batch is never held twice.
    let inputs: Vec<CustomerInput> = items
        .into_iter()
        .enumerate()
        .map(|(i, item)| input(&item, vec![i.into()], &[], &mut errors))
        .collect();
    errors.into_result()?;
    state
        .blocking(move |s| {
            let reply = claim.reply(StatusCode::CREATED, |w: &Vec<_>| written(w));
            customers::upsert_batch(
                &*s.store,
                &*s.geocoder,
                p.scope(),
                inputs,
                s.clock.now(),
                &reply,
            )?;
            Ok(reply.into_response())
        })
        .await
}

/// The body of POST /customers.
fn written(written: &[WrittenCustomer]) -> Value {
    let customers: Vec<Value> = written
        .iter()
        .map(|w| json!({"id": w.id, "account": w.account}))
        .collect();
    let errors: Vec<Value> = written
        .iter()
        .filter(|w| w.geocoding_failed)
        .map(|w| geocoding_failed(w.id, &w.account))
        .collect();
    json!({"customers": customers, "errors": errors})
}

async fn list_customers(
    State(state): State<AppState>,
    Caller(p): Caller,
    page: PageParams,
) -> Result<Response, ApiError> {
    let request = page.request;
    let rows = state
        .blocking(move |s| Ok(customers::list(&*s.store, p.scope(), &request)?))
        .await?;
    let items: Vec<Value> = rows.items.iter().map(list_view).collect();
    Ok(page.respond(rows.next, Json(json!({ "customers": items }))))
}

async fn read(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<Value>, ApiError> {
    let (customer, catalog) = state
        .blocking(move |s| {
            let customer = customers::get(&*s.store, p.scope(), id)?;
            let catalog = catalog_of(s, p.scope())?;
            Ok((customer, catalog))
        })
        .await?;
    Ok(Json(json!({ "customer": detail(&customer, &catalog) })))
}

async fn update(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>, ApiError> {
    let mut errors = ValidationErrors::default();
    let change = input(
        &body,
        Vec::new(),
        &["id", "created", "updated"],
        &mut errors,
    );
    drop(body);
    errors.into_result()?;
    let (updated, catalog) = state
        .blocking(move |s| {
            let updated = customers::update(
                &*s.store,
                &*s.geocoder,
                p.scope(),
                id,
                change,
                s.clock.now(),
            )?;
            Ok((updated, catalog_of(s, p.scope())?))
        })
        .await?;
    let c = &updated.customer;
    let errors: Vec<Value> = if updated.geocoding_failed {
        vec![geocoding_failed(c.id, &c.account)]
    } else {
        Vec::new()
    };
    Ok(Json(
        json!({ "customer": detail(c, &catalog), "errors": errors }),
    ))
}

fn catalog_of(
    s: &AppState,
    scope: dispatch_core::model::organisation::DepotScope,
) -> Result<Catalog, ApiError> {
    let catalog = s
        .store
        .read(|tx| customers::catalog(tx, scope))
        .map_err(ApiError::internal)?;
    Ok(catalog)
}
