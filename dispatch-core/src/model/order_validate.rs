//! The field rules of order writes. [`validate_order`] checks one order as sent and turns it
//! into typed [`OrderChanges`]; [`validate_order_batch`] adds the rules spanning a POST
//! /orders batch: at most 100 orders, no repeated order_number, what each type needs, and
//! `order_exchange.reference` shared by exactly two orders.

use crate::error::{render_path, IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::model::line_item::{check_unique_codes, validate_line_item};
use crate::model::order::{
    missing_locations, Endpoint, OrderTimeWindow, OrderType, Priority, Side,
    MAX_ORDERS_PER_REQUEST, MAX_ORDER_NUMBER_CHARS,
};
use crate::model::order_fields::{
    bad_enum, check_country, check_email, check_len, check_range, custom, key_path, parse_time,
    required, TimeWindowInput, MAX_VISIT_MINUTES,
};
pub use crate::model::order_input::{
    EndpointChanges, EndpointFields, EndpointInput, OrderChanges, OrderCustomerInput, OrderInput,
    OrderWrite,
};
use crate::model::order_rejection::OrderRejection;
use crate::model::order_value::Money;
use crate::status::StatusSet;
use crate::time::{Date, Weekday};

/// Checks every field rule of one order. Paths are relative to the order object. The input is
/// taken by value so its strings move into the changes: a body-sized batch is held once, not
/// twice.
pub fn validate_order(
    mut input: OrderInput,
    write: OrderWrite,
    statuses: &StatusSet,
) -> Result<OrderChanges, ValidationErrors> {
    let mut errs = ValidationErrors::default();
    let mut out = OrderChanges::default();
    // The ends move into their changes below; their window lists are checked after them.
    let windows = [
        input.delivery.time_windows.take(),
        input.pickup.time_windows.take(),
        input.time_windows.take(),
    ];
    match input.order_number {
        Some(Some(n)) => {
            check_len(
                &mut errs,
                || key_path(&["order_number"]),
                &n,
                1,
                MAX_ORDER_NUMBER_CHARS,
            );
            out.order_number = Some(n);
        }
        None if write == OrderWrite::Update => {}
        _ => errs.push(required(key_path(&["order_number"]), "string")),
    }
    match &input.kind {
        Some(Some(k)) => match OrderType::parse(k) {
            Some(t) => out.kind = Some(t),
            None => errs.push(bad_enum(key_path(&["type"]), &OrderType::NAMES, k)),
        },
        None if write == OrderWrite::Update => {}
        _ => errs.push(required(
            key_path(&["type"]),
            "delivery | pickup | shipment",
        )),
    }
    out.priority = input.priority.as_ref().map(|p| {
        p.as_ref().and_then(|p| {
            let parsed = Priority::parse(p);
            if parsed.is_none() {
                errs.push(bad_enum(key_path(&["priority"]), &Priority::NAMES, p));
            }
            parsed
        })
    });
    if let Some(c) = &input.customer {
        check_customer(&mut errs, c);
    }
    out.customer = input.customer;
    out.customer_id = input.customer_id;
    out.delivery = endpoint(&mut errs, "delivery", input.delivery);
    out.pickup = endpoint(&mut errs, "pickup", input.pickup);
    out.delivery_date = input.delivery_date.as_ref().map(|d| {
        d.as_ref().and_then(|d| {
            let parsed = Date::parse(d);
            if parsed.is_none() {
                errs.push(ValidationIssue::new(
                    IssueCode::InvalidString,
                    key_path(&["delivery_date"]),
                    "date YYYY-MM-DD",
                    d.as_str(),
                    "delivery_date must be a date YYYY-MM-DD",
                ));
            }
            parsed
        })
    });
    out.time_windows = time_windows(&mut errs, windows);
    match input.order_exchange {
        Some(Some(r)) => {
            check_len(
                &mut errs,
                || key_path(&["order_exchange", "reference"]),
                &r,
                1,
                usize::MAX,
            );
            out.exchange_reference = Some(r);
        }
        Some(None) => errs.push(required(
            key_path(&["order_exchange", "reference"]),
            "string",
        )),
        None => {}
    }
    if let Some(Some(p)) = input.parts {
        check_range(&mut errs, || key_path(&["parts"]), p, 0.0, 1e9);
    }
    out.parts = input.parts;
    out.vehicle_id = input.vehicle_id;
    out.third_party_id = input.third_party_id;
    if let Some(emails) = &input.emails {
        for (i, e) in emails.iter().enumerate() {
            check_email(
                &mut errs,
                || vec!["emails".into(), i.into(), "email".into()],
                e,
            );
        }
    }
    out.emails = input.emails;
    out.tags = input.tags;
    out.skills = input.skills;
    for (i, cap) in input.capacities.iter().flatten().enumerate() {
        let p = || -> Vec<PathSegment> { vec!["capacities".into(), i.into(), "capacity".into()] };
        match cap.capacity {
            Some(v) => check_range(&mut errs, p, v, 0.0, f64::MAX),
            None => errs.push(required(p(), "number")),
        }
    }
    out.capacities = input.capacities;
    for (i, f) in input.custom_fields.iter().flatten().enumerate() {
        if f.value.is_none() {
            errs.push(required(
                vec!["custom_fields".into(), i.into(), "value".into()],
                "string",
            ));
        }
    }
    out.custom_fields = input.custom_fields;
    out.order_value = input.order_value.map(|v| {
        v.and_then(|v| match Money::parse(v) {
            Ok(m) => Some(m),
            Err(e) => {
                errs.push(custom(
                    key_path(&["order_value"]),
                    "number of at most 10000000 with at most 2 decimal places",
                    &v.to_string(),
                    format!("order_value {e}"),
                ));
                None
            }
        })
    });
    if let Some(items) = &input.line_items {
        for (i, item) in items.iter().enumerate() {
            validate_line_item(&mut errs, &["line_items".into(), i.into()], item, statuses);
        }
        check_unique_codes(&mut errs, &key_path(&["line_items"]), items);
    }
    out.line_items = input.line_items;
    errs.into_result().map(|()| out)
}

/// Checks a POST /orders batch: every order's field rules, then the rules across orders.
/// Paths start with the order's position in the batch.
pub fn validate_order_batch(
    inputs: Vec<OrderInput>,
    statuses: &StatusSet,
) -> Result<Vec<OrderChanges>, ValidationErrors> {
    let mut errs = ValidationErrors::default();
    if inputs.len() > MAX_ORDERS_PER_REQUEST {
        errs.push(ValidationIssue::new(
            IssueCode::TooBig,
            Vec::new(),
            format!("at most {MAX_ORDERS_PER_REQUEST} orders"),
            format!("{} orders", inputs.len()),
            format!("a request carries at most {MAX_ORDERS_PER_REQUEST} orders"),
        ));
        return Err(errs);
    }
    // The rules across orders read the inputs before they move into their changes; their
    // issues still come after every order's own.
    let mut across = ValidationErrors::default();
    for (i, input) in inputs.iter().enumerate() {
        let Some(Some(number)) = &input.order_number else {
            continue;
        };
        if inputs[..i]
            .iter()
            .any(|o| matches!(&o.order_number, Some(Some(n)) if n == number))
        {
            across.push(custom(
                vec![i.into(), "order_number".into()],
                "an order_number not repeated in the request",
                number,
                format!("order_number `{number}` appears more than once in the request"),
            ));
        }
    }
    for (i, input) in inputs.iter().enumerate() {
        let Some(Some(reference)) = &input.order_exchange else {
            continue;
        };
        let sharing = inputs
            .iter()
            .filter(|o| matches!(&o.order_exchange, Some(Some(r)) if r == reference))
            .count();
        if sharing != 2 {
            across.push(custom(
                vec![i.into(), "order_exchange".into(), "reference".into()],
                "a reference shared by exactly two orders of the request",
                reference,
                format!("order_exchange.reference `{reference}` is shared by {sharing} orders, not exactly two"),
            ));
        }
    }
    let mut out = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.into_iter().enumerate() {
        match validate_order(input, OrderWrite::Create, statuses) {
            Ok(changes) => {
                check_type_needs(&mut errs, i, &changes);
                out.push(changes);
            }
            Err(e) => errs.extend(e.0.into_iter().map(|issue| issue.under(i))),
        }
    }
    errs.extend(across.0);
    errs.into_result().map(|()| out)
}

fn check_type_needs(errs: &mut ValidationErrors, i: usize, changes: &OrderChanges) {
    let Some(kind) = changes.kind else { return };
    let (mut delivery, mut pickup) = (Endpoint::default(), Endpoint::default());
    changes.delivery.apply_to(&mut delivery);
    changes.pickup.apply_to(&mut pickup);
    for side in missing_locations(kind, &delivery, &pickup) {
        errs.push(
            OrderRejection::MissingLocation {
                kind,
                side,
                type_changed: false,
            }
            .issue()
            .under(i),
        );
    }
}

fn check_customer(errs: &mut ValidationErrors, c: &OrderCustomerInput) {
    let at = |k: &str| key_path(&["customer", k]);
    if c.id.is_none() && c.account.is_none() {
        errs.push(custom(
            key_path(&["customer"]),
            "customer with id or account",
            "customer without id and account",
            "customer needs an id or an account to identify it",
        ));
    }
    if let Some(a) = &c.account {
        check_len(errs, || at("account"), a, 1, 100);
    }
    for (key, value, max) in [
        ("name", &c.name, 100),
        ("address", &c.address, 255),
        ("postcode", &c.postcode, 20),
        ("phone", &c.phone, 30),
    ] {
        if let Some(v) = value {
            check_len(errs, || at(key), v, 0, max);
        }
    }
    if let Some(e) = &c.email {
        check_email(errs, || at("email"), e);
    }
    if let Some(cc) = &c.country_code {
        check_country(errs, || at("country_code"), cc);
    }
    crate::model::order_fields::check_coordinates(
        errs,
        (|| at("lat"), c.lat),
        (|| at("lng"), c.lng),
    );
}

fn endpoint(errs: &mut ValidationErrors, side: &str, e: EndpointInput) -> EndpointChanges {
    let key = |k: &str| format!("{side}_{k}");
    let at = |k: &str| vec![PathSegment::Key(key(k))];
    let f = &e.fields;
    if let Some(Some(v)) = &f.contact_email {
        check_email(errs, || at("contact_email"), v);
    }
    if let Some(Some(v)) = &f.country_code {
        check_country(errs, || at("country_code"), v);
    }
    crate::model::order_fields::check_coordinates(
        errs,
        (|| at("lat"), f.lat.flatten()),
        (|| at("lng"), f.lng.flatten()),
    );
    if let Some(Some(d)) = f.duration {
        check_range(errs, || at("duration"), d, 0.0, MAX_VISIT_MINUTES);
    }
    let available_days = e.available_days.as_ref().map(|days| {
        days.iter()
            .enumerate()
            .filter_map(|(i, d)| {
                let parsed = Weekday::parse(&d.to_ascii_uppercase());
                if parsed.is_none() {
                    let names: Vec<&str> = Weekday::ALL.iter().map(|w| w.as_str()).collect();
                    errs.push(bad_enum(
                        vec![key("available_days").as_str().into(), i.into()],
                        &names,
                        d,
                    ));
                }
                parsed
            })
            .collect()
    });
    EndpointChanges {
        fields: e.fields,
        available_days,
    }
}

/// Checks the delivery, pickup and combined window lists (in that order) of one order.
fn time_windows(
    errs: &mut ValidationErrors,
    [delivery, pickup, combined]: [Option<Vec<TimeWindowInput>>; 3],
) -> Option<Vec<OrderTimeWindow>> {
    let lists = [
        ("delivery_time_windows", Some(Side::Delivery), delivery),
        ("pickup_time_windows", Some(Side::Pickup), pickup),
        ("time_windows", None, combined),
    ];
    if lists.iter().all(|(_, _, l)| l.is_none()) {
        return None;
    }
    let mut out = Vec::new();
    for (key, fixed_side, list) in lists {
        for (i, w) in list.iter().flatten().enumerate() {
            let at = |k: &str| -> Vec<PathSegment> { vec![key.into(), i.into(), k.into()] };
            let side = match (fixed_side, &w.kind) {
                (Some(s), _) => Some(s),
                (None, Some(k)) => {
                    let parsed = Side::parse(k);
                    if parsed.is_none() {
                        errs.push(bad_enum(at("type"), &Side::NAMES, k));
                    }
                    parsed
                }
                (None, None) => {
                    errs.push(required(at("type"), "pickup | delivery"));
                    None
                }
            };
            let from = time_field(errs, || at("from"), w.from.as_deref());
            let to = time_field(errs, || at("to"), w.to.as_deref());
            if let (Some(side), Some(from), Some(to)) = (side, from, to) {
                if to < from {
                    let path = at("to");
                    let message = format!("{} cannot be before from", render_path(&path));
                    errs.push(custom(
                        path,
                        "a time not before from",
                        &to.to_string(),
                        message,
                    ));
                }
                out.push(OrderTimeWindow { side, from, to });
            }
        }
    }
    Some(out)
}

fn time_field(
    errs: &mut ValidationErrors,
    path: impl FnOnce() -> Vec<PathSegment>,
    value: Option<&str>,
) -> Option<crate::time::TimeOfDay> {
    match value {
        Some(s) => parse_time(errs, path, s),
        None => {
            errs.push(required(path(), "time of day HH:mm"));
            None
        }
    }
}
