//! Customers: `GET`/`POST /customers` (and `/customers/`), `GET`/`PUT /customers/{id}`.
//!
//! Single reads and updates wrap the customer under `customer`, as the spec's description says
//! (its sample shows the fields at top level).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use dispatch_core::error::{PathSegment, ValidationErrors};
use dispatch_core::model::customer_validate::CustomerInput;
use dispatch_core::model::order_fields::Catalog;
use dispatch_core::paging::PageRequest;
use dispatch_core::service::customers;
use serde_json::Value;
use utoipa::ToSchema;

use super::customer_wire::{
    detail, geocoding_failed, list_view, written, Customers, OneCustomer, UpdatedCustomer,
    WrittenCustomers,
};
use super::order_json::{body_issue, capacities, custom_fields, list, sent, time_windows};
use super::registry::ApiRoutes;
use super::request_shapes::{
    documented_properties, refuse_undocumented, CustomerCreateBody, CustomerFieldsBody,
    CustomerUpdateBody,
};
use super::shapes::to_json;
use super::wire::{type_name, Reader};
use crate::error::ApiError;
use crate::extract::{Caller, IdPath, JsonBody};
use crate::middleware::idempotency::IdempotencyClaim;
use crate::paging::PageParams;
use crate::AppState;
use utoipa_axum::routes;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        // The spec's `/customers/` spelling too, documented as its own path.
        .routes_with_alias("/customers/", routes!(list_customers, create))
        .routes(routes!(read, update))
}

/// The properties of a customer object, as documented (the fuzz test draws its keys from
/// here too).
pub fn properties() -> Vec<&'static str> {
    documented_properties::<CustomerFieldsBody>()
}

/// Reads one customer object; `prefix` is its place in the body.
fn input<Body: ToSchema>(
    body: &Value,
    prefix: Vec<PathSegment>,
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
    refuse_undocumented::<Body>(obj, &prefix, errors);
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
        time_windows: time_windows(&mut r, "time_windows", false),
        custom_fields: custom_fields(&mut r, "custom_fields"),
    }
}

#[utoipa::path(post, path = "/customers", tag = "customers", summary = "Create or update customers by account (at most 100).", request_body(content = Vec<CustomerCreateBody>, description = "An array of at most 100 customer objects."), responses((status = 201, description = "`{ customers: [{id, account}], errors }` in request order (a replay has an empty body).", body = WrittenCustomers), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
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
        .map(|(i, item)| input::<CustomerCreateBody>(&item, vec![i.into()], &mut errors))
        .collect();
    errors.into_result()?;
    state
        .blocking(move |s| {
            let reply = claim.reply(StatusCode::CREATED, |w: &Vec<_>| to_json(written(w)));
            customers::upsert_batch(
                &*s.store,
                &*s.geocoder,
                p.scope(),
                inputs,
                s.clock.now(),
                &reply,
            )?;
            Ok(reply.response())
        })
        .await
}

#[utoipa::path(get, path = "/customers", tag = "customers", summary = "Customers, most recently updated first (paged).", params(crate::paging::PageQuery), responses((status = 200, description = "`{ customers }` and a `Link` header to the next page.", body = Customers), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
async fn list_customers(
    State(state): State<AppState>,
    Caller(p): Caller,
    page: PageParams,
) -> Result<Response, ApiError> {
    let read = move |s: &AppState, r: &PageRequest| customers::list(&*s.store, p.scope(), r);
    page.list(&state, read, |rows| {
        Json(Customers {
            customers: rows.iter().map(list_view).collect(),
        })
    })
    .await
}

#[utoipa::path(get, path = "/customers/{id}", tag = "customers", summary = "One customer.", params(("id" = i64, Path, description = "The customer id.")), responses((status = 200, description = "`{ customer }`", body = OneCustomer), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn read(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<OneCustomer>, ApiError> {
    let (customer, catalog) = state
        .blocking(move |s| {
            let customer = customers::get(&*s.store, p.scope(), id)?;
            let catalog = catalog_of(s, p.scope())?;
            Ok((customer, catalog))
        })
        .await?;
    Ok(Json(OneCustomer {
        customer: detail(&customer, &catalog),
    }))
}

#[utoipa::path(put, path = "/customers/{id}", tag = "customers", summary = "Update a customer (partial).", params(("id" = i64, Path, description = "The customer id.")), request_body(content = CustomerUpdateBody, description = "Customer fields; array fields replace the set."), responses((status = 200, description = "`{ customer, errors }`", body = UpdatedCustomer), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn update(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<Json<UpdatedCustomer>, ApiError> {
    let mut errors = ValidationErrors::default();
    let change = input::<CustomerUpdateBody>(&body, Vec::new(), &mut errors);
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
    let errors = if updated.geocoding_failed {
        vec![geocoding_failed(c.id, &c.account)]
    } else {
        Vec::new()
    };
    Ok(Json(UpdatedCustomer {
        customer: detail(c, &catalog),
        errors,
    }))
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
