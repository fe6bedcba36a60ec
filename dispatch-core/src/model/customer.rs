//! The customer concept: a depot's customer record, the checked changes a write carries
//! ([`CustomerChanges`], built by [`super::customer_validate`]) and the pure
//! create-or-update merge. Omitted fields are kept, sent fields overwrite, a sent array
//! replaces the whole set (an empty one clears it).

use crate::error::{ValidationErrors, ValidationIssue};
use crate::model::order_fields::{
    custom, key_path, CapacityAmount, CapacityInput, Catalog, CustomFieldInput, CustomFieldMatch,
    CustomFieldValue,
};
use crate::time::{TimeOfDay, Timestamp};

/// Most customers one depot holds.
pub const MAX_CUSTOMERS_PER_DEPOT: u64 = 300_000;
/// Most customers one POST /customers carries.
pub const MAX_CUSTOMERS_PER_REQUEST: usize = 100;
/// Most time windows a customer has on create.
pub const MAX_CUSTOMER_TIME_WINDOWS: usize = 2;

/// A customer's time window; `to` may be open on creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CustomerTimeWindow {
    /// Start of the window.
    pub from: TimeOfDay,
    /// End of the window, if given.
    pub to: Option<TimeOfDay>,
}

/// A stored customer.
#[derive(Debug, Clone, PartialEq)]
pub struct Customer {
    /// The service's id (0 until stored).
    pub id: i64,
    /// The depot's unique key for the customer.
    pub account: String,
    /// Name.
    pub name: Option<String>,
    /// Street address.
    pub address: Option<String>,
    /// Postcode.
    pub postcode: Option<String>,
    /// Phone number.
    pub phone: Option<String>,
    /// E-mail address.
    pub email: Option<String>,
    /// Latitude.
    pub lat: Option<f64>,
    /// Longitude.
    pub lng: Option<f64>,
    /// Visit duration in minutes.
    pub duration: Option<f64>,
    /// Free notes.
    pub notes: Option<String>,
    /// Capacities, resolved to the depot's capacity types.
    pub capacities: Vec<CapacityAmount>,
    /// Skill names in their stored spelling.
    pub skills: Vec<String>,
    /// Tag names in their stored spelling.
    pub tags: Vec<String>,
    /// Time windows.
    pub time_windows: Vec<CustomerTimeWindow>,
    /// Custom-field values.
    pub custom_fields: Vec<CustomFieldValue>,
    /// When it was created.
    pub created: Timestamp,
    /// When it was last written.
    pub updated: Timestamp,
}

impl Customer {
    /// A customer not yet stored (id 0) with only its account, created and written at `now`.
    pub fn new(account: String, now: Timestamp) -> Customer {
        Customer {
            id: 0,
            account,
            name: None,
            address: None,
            postcode: None,
            phone: None,
            email: None,
            lat: None,
            lng: None,
            duration: None,
            notes: None,
            capacities: Vec::new(),
            skills: Vec::new(),
            tags: Vec::new(),
            time_windows: Vec::new(),
            custom_fields: Vec::new(),
            created: now,
            updated: now,
        }
    }
}

/// The checked content of one customer write. Scalars: `None` omitted, `Some(None)` cleared
/// (sent as null), `Some(Some(v))` set. Arrays: `None` omitted, `Some(v)` replaces the set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CustomerChanges {
    /// `account` (required on create).
    pub account: Option<String>,
    /// `name`.
    pub name: Option<Option<String>>,
    /// `address`.
    pub address: Option<Option<String>>,
    /// `postcode`.
    pub postcode: Option<Option<String>>,
    /// `phone`.
    pub phone: Option<Option<String>>,
    /// `email`.
    pub email: Option<Option<String>>,
    /// `lat`.
    pub lat: Option<Option<f64>>,
    /// `lng`.
    pub lng: Option<Option<f64>>,
    /// `duration`.
    pub duration: Option<Option<f64>>,
    /// `notes`.
    pub notes: Option<Option<String>>,
    /// `capacities` as sent (resolved during the merge).
    pub capacities: Option<Vec<CapacityInput>>,
    /// `skills` as sent.
    pub skills: Option<Vec<String>>,
    /// `tags` as sent.
    pub tags: Option<Vec<String>>,
    /// `time_windows`.
    pub time_windows: Option<Vec<CustomerTimeWindow>>,
    /// `custom_fields` as sent.
    pub custom_fields: Option<Vec<CustomFieldInput>>,
}

/// Which write the changes came from; it decides how custom fields are matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CustomerWrite {
    /// POST /customers (create-or-update by account): custom fields by id or name.
    Upsert,
    /// PUT /customers/{id}: custom fields by id only.
    Update,
}

/// The merged customer and what the caller still has to do for it.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomerMerge {
    /// The customer to store.
    pub customer: Customer,
    /// Geocode this customer's address/postcode: it has one but no coordinates, and the
    /// address changed (or the customer is new) without coordinates being sent.
    pub needs_geocoding: bool,
}

/// Merges checked changes into the existing customer (or a new one) as of `now`.
/// Fails when the result would have neither an address nor both coordinates, or only one
/// coordinate.
pub fn merge_customer(
    existing: Option<&Customer>,
    changes: &CustomerChanges,
    catalog: &Catalog,
    write: CustomerWrite,
    now: Timestamp,
) -> Result<CustomerMerge, ValidationErrors> {
    let mut c = existing
        .cloned()
        .unwrap_or_else(|| Customer::new(String::new(), now));
    if let Some(account) = &changes.account {
        c.account = account.clone();
    }
    let old_address = c.address.clone();
    set(&mut c.name, &changes.name);
    set(&mut c.address, &changes.address);
    set(&mut c.postcode, &changes.postcode);
    set(&mut c.phone, &changes.phone);
    set(&mut c.email, &changes.email);
    set(&mut c.notes, &changes.notes);
    set(&mut c.duration, &changes.duration);
    let coordinates_sent = changes.lat.is_some() || changes.lng.is_some();
    let address_changed = existing.is_none() || c.address != old_address;
    if address_changed && !coordinates_sent && existing.is_some() {
        // A moved customer must not keep the coordinates of its old address.
        c.lat = None;
        c.lng = None;
    }
    set(&mut c.lat, &changes.lat);
    set(&mut c.lng, &changes.lng);
    if let Some(caps) = &changes.capacities {
        c.capacities = catalog.resolve_capacities(caps, false);
    }
    if let Some(skills) = &changes.skills {
        c.skills = Catalog::resolve_names(&catalog.skills, skills, false);
    }
    if let Some(tags) = &changes.tags {
        c.tags = Catalog::resolve_names(&catalog.tags, tags, false);
    }
    if let Some(windows) = &changes.time_windows {
        c.time_windows = windows.clone();
    }
    if let Some(fields) = &changes.custom_fields {
        let mode = match write {
            CustomerWrite::Upsert => CustomFieldMatch::IdOrName,
            CustomerWrite::Update => CustomFieldMatch::IdOnly,
        };
        c.custom_fields = catalog.resolve_custom_fields(fields, mode);
    }
    c.updated = now;
    check_location(&c)?;
    let has_coordinates = c.lat.is_some() && c.lng.is_some();
    let needs_geocoding = !has_coordinates && c.address.is_some() && address_changed;
    Ok(CustomerMerge {
        customer: c,
        needs_geocoding,
    })
}

fn set<T: Clone>(field: &mut Option<T>, change: &Option<Option<T>>) {
    if let Some(v) = change {
        *field = v.clone();
    }
}

fn check_location(c: &Customer) -> Result<(), ValidationErrors> {
    let mut errs = ValidationErrors::default();
    match (c.lat, c.lng) {
        (Some(_), None) => errs.push(missing("lng", "lng is required together with lat")),
        (None, Some(_)) => errs.push(missing("lat", "lat is required together with lng")),
        (None, None) if c.address.is_none() => errs.push(missing(
            "address",
            "a customer needs an address, or both lat and lng",
        )),
        _ => {}
    }
    errs.into_result()
}

fn missing(field: &str, message: &str) -> ValidationIssue {
    custom(
        key_path(&[field]),
        "address, or both lat and lng",
        "undefined",
        message,
    )
}

#[cfg(test)]
#[path = "customer_tests.rs"]
mod tests;
