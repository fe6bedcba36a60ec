//! The customer read shapes: the list view, the detail, and the bodies of the writes.

use dispatch_core::model::customer::Customer;
use dispatch_core::model::order_fields::Catalog;
use dispatch_core::service::customers::WrittenCustomer;
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use super::order_json::{field_name, render_capacities};
use super::shapes::{CapacityEntry, ItemError, Num};
use super::wire::ts_text;

/// A customer in a list.
#[derive(Serialize, ToSchema)]
pub struct CustomerSummary {
    id: i64,
    account: String,
    #[schema(required = true)]
    name: Option<String>,
    #[schema(required = true)]
    address: Option<String>,
    #[schema(required = true)]
    postcode: Option<String>,
    #[schema(required = true)]
    lat: Option<Num>,
    #[schema(required = true)]
    lng: Option<Num>,
    #[schema(required = true)]
    phone: Option<String>,
    #[schema(required = true)]
    email: Option<String>,
    /// Visit duration in minutes.
    #[schema(required = true)]
    duration: Option<Num>,
    #[schema(required = true)]
    notes: Option<String>,
    created: String,
    updated: String,
}

/// A customer's custom-field value on the detail read.
#[derive(Serialize, ToSchema)]
pub struct CustomerFieldValue {
    value: String,
    custom_field_type: CustomFieldType,
}

/// The custom field a value belongs to.
#[derive(Serialize, ToSchema)]
pub struct CustomFieldType {
    #[schema(required = true)]
    name: Option<String>,
    /// `TEXT`.
    #[serde(rename = "type")]
    kind: &'static str,
    id: i64,
}

/// A time window as read; `to` may be null on customers.
#[derive(Serialize, ToSchema)]
pub struct CustomerTimeWindow {
    from: String,
    #[schema(required = true)]
    to: Option<String>,
}

/// A customer with everything it holds: the list view's fields, then its sets.
#[derive(Serialize, ToSchema)]
pub struct CustomerDetail {
    #[serde(flatten)]
    #[schema(inline)]
    summary: CustomerSummary,
    capacities: Vec<CapacityEntry>,
    skills: Vec<String>,
    tags: Vec<String>,
    time_windows: Vec<CustomerTimeWindow>,
    custom_fields: Vec<CustomerFieldValue>,
}

/// `{ customers }`.
#[derive(Serialize, ToSchema)]
pub struct Customers {
    /// The page.
    pub customers: Vec<CustomerSummary>,
}

/// `{ customer }`.
#[derive(Serialize, ToSchema)]
pub struct OneCustomer {
    /// The customer.
    pub customer: CustomerDetail,
}

/// `{ customer, errors }`.
#[derive(Serialize, ToSchema)]
pub struct UpdatedCustomer {
    /// The customer as updated.
    pub customer: CustomerDetail,
    /// GEOCODING_FAILED when a changed address could not be geocoded.
    pub errors: Vec<ItemError>,
}

/// `{ id, account }` of a written customer.
#[derive(Serialize, ToSchema)]
pub struct WrittenRef {
    id: i64,
    account: String,
}

/// `{ customers, errors }`.
#[derive(Serialize, ToSchema)]
pub struct WrittenCustomers {
    customers: Vec<WrittenRef>,
    errors: Vec<ItemError>,
}

/// The list view.
pub fn list_view(c: &Customer) -> CustomerSummary {
    CustomerSummary {
        id: c.id,
        account: c.account.clone(),
        name: c.name.clone(),
        address: c.address.clone(),
        postcode: c.postcode.clone(),
        lat: c.lat.map(Num),
        lng: c.lng.map(Num),
        phone: c.phone.clone(),
        email: c.email.clone(),
        duration: c.duration.map(Num),
        notes: c.notes.clone(),
        created: ts_text(c.created),
        updated: ts_text(c.updated),
    }
}

/// The detail read.
pub fn detail(c: &Customer, catalog: &Catalog) -> CustomerDetail {
    CustomerDetail {
        summary: list_view(c),
        capacities: render_capacities(&c.capacities, catalog),
        skills: c.skills.clone(),
        tags: c.tags.clone(),
        time_windows: c
            .time_windows
            .iter()
            .map(|w| CustomerTimeWindow {
                from: w.from.to_string(),
                to: w.to.map(|t| t.to_string()),
            })
            .collect(),
        custom_fields: c
            .custom_fields
            .iter()
            .map(|f| CustomerFieldValue {
                value: f.value.clone(),
                custom_field_type: CustomFieldType {
                    name: field_name(catalog, f.field_id).map(str::to_owned),
                    kind: "TEXT",
                    id: f.field_id,
                },
            })
            .collect(),
    }
}

/// The GEOCODING_FAILED entry of a customer saved without coordinates.
pub fn geocoding_failed(id: i64, account: &str) -> ItemError {
    ItemError {
        name: "GEOCODING_FAILED",
        description:
            "the address could not be geocoded; the customer was saved without coordinates".into(),
        details: json!({"id": id, "account": account}),
    }
}

/// The body of POST /customers.
pub fn written(written: &[WrittenCustomer]) -> WrittenCustomers {
    WrittenCustomers {
        customers: written
            .iter()
            .map(|w| WrittenRef {
                id: w.id,
                account: w.account.clone(),
            })
            .collect(),
        errors: written
            .iter()
            .filter(|w| w.geocoding_failed)
            .map(|w| geocoding_failed(w.id, &w.account))
            .collect(),
    }
}
