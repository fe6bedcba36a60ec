//! Reading the booking request bodies: the date, the candidate order and the vehicles, every
//! problem reported at its path (400 INVALID_INPUT) before any check runs.

use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use dispatch_core::model::order::{Endpoint, OrderType};
use dispatch_core::model::order_fields::CapacityAmount;
use dispatch_core::service::booking::Candidate;
use dispatch_core::time::{Date, TimeOfDay};
use serde_json::{Map, Value};

use super::request_shapes::{
    refuse_undocumented, BookingCapacityBody, BookingOrderBody, BookingVehicleBody,
};
use super::wire::type_name;
use crate::error::ApiError;
use crate::rejection::invalid;

pub(super) struct Issues(pub(super) ValidationErrors);

impl Issues {
    pub(super) fn push(
        &mut self,
        path: Vec<PathSegment>,
        code: IssueCode,
        expected: &str,
        got: &str,
        message: &str,
    ) {
        self.0
            .push(ValidationIssue::new(code, path, expected, got, message));
    }

    pub(super) fn wrong(&mut self, path: Vec<PathSegment>, expected: &str, got: Option<&Value>) {
        let received = got.map_or("undefined", type_name);
        let message = format!(
            "{} must be {expected}",
            path.last().map_or_else(String::new, |p| match p {
                PathSegment::Key(k) => k.clone(),
                PathSegment::Index(i) => i.to_string(),
            })
        );
        self.push(path, IssueCode::InvalidType, expected, received, &message);
    }
}

pub(super) fn key(parent: &[&str], k: &str) -> Vec<PathSegment> {
    parent
        .iter()
        .map(|p| PathSegment::from(*p))
        .chain([PathSegment::from(k)])
        .collect()
}

fn text(o: &Map<String, Value>, parent: &[&str], k: &str, issues: &mut Issues) -> Option<String> {
    match o.get(k) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            issues.wrong(key(parent, k), "string", Some(other));
            None
        }
    }
}

fn number(o: &Map<String, Value>, parent: &[&str], k: &str, issues: &mut Issues) -> Option<f64> {
    match o.get(k) {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64().filter(|f| f.is_finite()),
        Some(other) => {
            issues.wrong(key(parent, k), "number", Some(other));
            None
        }
    }
}

pub(super) fn date(o: &Map<String, Value>, k: &str, issues: &mut Issues) -> Option<Date> {
    match o.get(k) {
        Some(Value::String(s)) => match Date::parse(s) {
            Some(d) => Some(d),
            None => {
                issues.push(
                    key(&[], k),
                    IssueCode::InvalidString,
                    "YYYY-MM-DD",
                    s,
                    &format!("{k} must be a date YYYY-MM-DD"),
                );
                None
            }
        },
        other => {
            issues.wrong(key(&[], k), "date string YYYY-MM-DD", other);
            None
        }
    }
}

pub(super) fn time(
    o: &Map<String, Value>,
    k: &str,
    default: &str,
    issues: &mut Issues,
) -> Option<TimeOfDay> {
    match o.get(k) {
        None | Some(Value::Null) => TimeOfDay::parse(default),
        Some(Value::String(s)) => match TimeOfDay::parse(s) {
            Some(t) => Some(t),
            None => {
                issues.push(
                    key(&[], k),
                    IssueCode::InvalidString,
                    "HH:mm",
                    s,
                    &format!("{k} must be a time of day HH:mm"),
                );
                None
            }
        },
        other => {
            issues.wrong(key(&[], k), "time of day HH:mm", other);
            None
        }
    }
}

fn endpoint(o: &Map<String, Value>, side: &str, issues: &mut Issues) -> Endpoint {
    let p = ["order"];
    Endpoint {
        address: text(o, &p, &format!("{side}_address"), issues),
        country_code: text(o, &p, &format!("{side}_country_code"), issues),
        postcode: text(o, &p, &format!("{side}_postcode"), issues),
        lat: number(o, &p, &format!("{side}_lat"), issues),
        lng: number(o, &p, &format!("{side}_lng"), issues),
        duration: number(o, &p, &format!("{side}_duration"), issues),
        ..Endpoint::default()
    }
}

pub(super) fn candidate(body: &Map<String, Value>, issues: &mut Issues) -> Candidate {
    let Some(o) = body.get("order").and_then(Value::as_object) else {
        issues.wrong(key(&[], "order"), "object", body.get("order"));
        return Candidate::default();
    };
    refuse_undocumented::<BookingOrderBody>(o, &key(&[], "order"), &mut issues.0);
    let kind = match o.get("type") {
        Some(Value::String(s)) if s == "delivery" => Some(OrderType::Delivery),
        Some(Value::String(s)) if s == "pickup" => Some(OrderType::Pickup),
        Some(Value::String(s)) => {
            issues.push(
                key(&["order"], "type"),
                IssueCode::InvalidEnumValue,
                "delivery | pickup",
                s,
                "type must be delivery or pickup",
            );
            None
        }
        other => {
            issues.wrong(key(&["order"], "type"), "delivery | pickup", other);
            None
        }
    };
    let mut capacities = Vec::new();
    match o.get("capacities") {
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) => {
            for (i, c) in list.iter().enumerate() {
                let at = |k: &str| -> Vec<PathSegment> {
                    vec!["order".into(), "capacities".into(), i.into(), k.into()]
                };
                let entry: Vec<PathSegment> = vec!["order".into(), "capacities".into(), i.into()];
                let Some(fields) = c.as_object() else {
                    issues.wrong(entry, "object", Some(c));
                    continue;
                };
                refuse_undocumented::<BookingCapacityBody>(fields, &entry, &mut issues.0);
                let id = c.get("id").and_then(Value::as_i64);
                let amount = c.get("capacity").and_then(Value::as_f64);
                if id.is_none() {
                    issues.wrong(at("id"), "integer", c.get("id"));
                }
                if amount.is_none() {
                    issues.wrong(at("capacity"), "number", c.get("capacity"));
                }
                if let (Some(id), Some(amount)) = (id, amount) {
                    capacities.push(CapacityAmount {
                        capacity_type_id: id,
                        amount,
                    });
                }
            }
        }
        Some(other) => issues.wrong(key(&["order"], "capacities"), "array", Some(other)),
    }
    let candidate = Candidate {
        kind,
        delivery: endpoint(o, "delivery", issues),
        pickup: endpoint(o, "pickup", issues),
        capacities,
        window: None,
    };
    issues.0.extend(candidate.validate().0);
    candidate
}

pub(super) fn vehicles(body: &Map<String, Value>, issues: &mut Issues) -> Option<Vec<i64>> {
    match body.get("vehicles") {
        None | Some(Value::Null) => None,
        Some(Value::Array(list)) => Some(
            list.iter()
                .enumerate()
                .filter_map(|(i, v)| match v.get("id").and_then(Value::as_i64) {
                    Some(id) => {
                        if let Some(fields) = v.as_object() {
                            let at = vec!["vehicles".into(), i.into()];
                            refuse_undocumented::<BookingVehicleBody>(fields, &at, &mut issues.0);
                        }
                        Some(id)
                    }
                    None if !v.is_object() => {
                        issues.wrong(vec!["vehicles".into(), i.into()], "object", Some(v));
                        None
                    }
                    None => {
                        issues.wrong(
                            vec!["vehicles".into(), i.into(), "id".into()],
                            "integer",
                            v.get("id"),
                        );
                        None
                    }
                })
                .collect(),
        ),
        Some(other) => {
            issues.wrong(key(&[], "vehicles"), "array", Some(other));
            None
        }
    }
}

pub(super) fn object(body: &Value) -> Result<&Map<String, Value>, ApiError> {
    body.as_object().ok_or_else(|| {
        let mut issues = Issues(ValidationErrors::default());
        issues.wrong(vec![], "object", Some(body));
        invalid(&issues.0)
    })
}

pub(super) fn done<T>(issues: Issues, value: T) -> Result<T, ApiError> {
    if issues.0 .0.is_empty() {
        Ok(value)
    } else {
        Err(invalid(&issues.0))
    }
}
