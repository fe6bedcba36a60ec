//! The field rules of a customer write: [`validate_customer`] turns what a client sent
//! ([`CustomerInput`]) into checked [`CustomerChanges`], collecting every violation with its
//! field path.

use crate::error::ValidationErrors;
use crate::error::{IssueCode, ValidationIssue};
use crate::model::customer::{
    CustomerChanges, CustomerTimeWindow, CustomerWrite, MAX_CUSTOMER_TIME_WINDOWS,
};
use crate::model::order_fields::{
    check_coordinates, check_email, check_len, check_range, indexed_path, key_path, parse_time,
    required, CapacityInput, CustomFieldInput, Sent, TimeWindowInput,
};

/// A customer write as sent, with JSON types already checked by the adapter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CustomerInput {
    /// `account`.
    pub account: Sent<String>,
    /// `name`.
    pub name: Sent<String>,
    /// `address`.
    pub address: Sent<String>,
    /// `postcode`.
    pub postcode: Sent<String>,
    /// `phone`.
    pub phone: Sent<String>,
    /// `email`.
    pub email: Sent<String>,
    /// `lat`.
    pub lat: Sent<f64>,
    /// `lng`.
    pub lng: Sent<f64>,
    /// `duration` in minutes.
    pub duration: Sent<f64>,
    /// `notes`.
    pub notes: Sent<String>,
    /// `capacities`.
    pub capacities: Option<Vec<CapacityInput>>,
    /// `skills`.
    pub skills: Option<Vec<String>>,
    /// `tags`.
    pub tags: Option<Vec<String>>,
    /// `time_windows`.
    pub time_windows: Option<Vec<TimeWindowInput>>,
    /// `custom_fields`.
    pub custom_fields: Option<Vec<CustomFieldInput>>,
}

/// Checks every field rule of one customer write. Paths are relative to the customer
/// object; put batch positions in front with [`ValidationIssue::under`]. The input is
/// consumed: its strings move into the changes (a batch of long notes is not held twice).
pub fn validate_customer(
    input: CustomerInput,
    write: CustomerWrite,
) -> Result<CustomerChanges, ValidationErrors> {
    let mut errs = ValidationErrors::default();
    let mut out = CustomerChanges::default();
    match (input.account, write) {
        (Some(Some(account)), _) => {
            check_len(&mut errs, || key_path(&["account"]), &account, 1, 100);
            out.account = Some(account);
        }
        (None, CustomerWrite::Update) => {}
        _ => errs.push(required(
            key_path(&["account"]),
            "string of at most 100 characters",
        )),
    }
    out.name = text(&mut errs, "name", input.name, 100);
    out.address = text(&mut errs, "address", input.address, 255);
    out.postcode = text(&mut errs, "postcode", input.postcode, 20);
    out.phone = text(&mut errs, "phone", input.phone, 30);
    out.notes = text(&mut errs, "notes", input.notes, 40_000);
    if let Some(Some(email)) = &input.email {
        check_email(&mut errs, || key_path(&["email"]), email);
    }
    out.email = input.email;
    check_coordinates(
        &mut errs,
        (|| key_path(&["lat"]), input.lat.flatten()),
        (|| key_path(&["lng"]), input.lng.flatten()),
    );
    out.lat = input.lat;
    out.lng = input.lng;
    // Minutes as a `number` (the spec's type), so fractions are allowed.
    if let Some(Some(minutes)) = input.duration {
        check_range(&mut errs, || key_path(&["duration"]), minutes, 1.0, 9999.0);
    }
    out.duration = input.duration;
    if let Some(caps) = &input.capacities {
        for (i, cap) in caps.iter().enumerate() {
            match cap.capacity {
                Some(v) => check_range(&mut errs, || cap_path(i), v, 0.0, f64::MAX),
                None => errs.push(required(cap_path(i), "number")),
            }
        }
    }
    out.capacities = input.capacities;
    out.skills = input.skills;
    out.tags = input.tags;
    if let Some(fields) = &input.custom_fields {
        for (i, f) in fields.iter().enumerate() {
            if f.value.is_none() {
                let mut p = indexed_path(&["custom_fields"], i);
                p.push("value".into());
                errs.push(required(p, "string"));
            }
        }
    }
    out.custom_fields = input.custom_fields;
    if let Some(windows) = &input.time_windows {
        out.time_windows = Some(time_windows(&mut errs, windows, write));
    }
    errs.into_result().map(|()| out)
}

fn cap_path(i: usize) -> Vec<crate::error::PathSegment> {
    let mut p = indexed_path(&["capacities"], i);
    p.push("capacity".into());
    p
}

fn text(errs: &mut ValidationErrors, key: &str, value: Sent<String>, max: usize) -> Sent<String> {
    if let Some(Some(v)) = &value {
        check_len(errs, || key_path(&[key]), v, 0, max);
    }
    value
}

fn time_windows(
    errs: &mut ValidationErrors,
    windows: &[TimeWindowInput],
    write: CustomerWrite,
) -> Vec<CustomerTimeWindow> {
    if windows.len() > MAX_CUSTOMER_TIME_WINDOWS {
        errs.push(ValidationIssue::new(
            IssueCode::TooBig,
            key_path(&["time_windows"]),
            format!("at most {MAX_CUSTOMER_TIME_WINDOWS} time windows"),
            format!("{} time windows", windows.len()),
            format!("a customer has at most {MAX_CUSTOMER_TIME_WINDOWS} time windows"),
        ));
    }
    let mut out = Vec::new();
    for (i, w) in windows.iter().enumerate() {
        let at = |key: &str| {
            let mut p = indexed_path(&["time_windows"], i);
            p.push(key.into());
            p
        };
        let from = match &w.from {
            Some(s) => parse_time(errs, || at("from"), s),
            None => {
                errs.push(required(at("from"), "time of day HH:mm"));
                None
            }
        };
        let to = match (&w.to, write) {
            (Some(s), _) => parse_time(errs, || at("to"), s),
            (None, CustomerWrite::Upsert) => None,
            (None, CustomerWrite::Update) => {
                errs.push(required(at("to"), "time of day HH:mm"));
                None
            }
        };
        if let (Some(f), Some(t)) = (from, to) {
            if t < f {
                errs.push(crate::model::order_fields::custom(
                    at("to"),
                    "a time not before from",
                    &t.to_string(),
                    "a time window cannot end before it starts",
                ));
            }
        }
        if let Some(from) = from {
            out.push(CustomerTimeWindow { from, to });
        }
    }
    out
}
