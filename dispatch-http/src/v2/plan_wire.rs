//! The optimisation request bodies of `POST /plans/optimise/orders` and `/orders-for-ids`.
//!
//! Besides the spec's `delivery_date` / `orders`, `settings` and `zone_group_id`, the body takes
//! the two properties the spec leaves unnamed: `plan` (optional object `{id}`: re-optimise that
//! plan instead of creating one) and `vehicles` (optional array of `{id}` or null: plan with
//! these vehicles; null or absent: the depot's fleet). Other properties are refused, in
//! `settings` and the `{id}` entries too: a misspelt setting must not run a job that does
//! something else than asked.

use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use dispatch_core::model::optimisation::{OptimiseSettings, OrderSelection};
use dispatch_core::patch::Patch;
use dispatch_core::service::plans::{OptimiseRequest, MAX_ORDERS_PER_OPTIMISATION};
use dispatch_core::time::Date;
use serde_json::{Map, Value};

use super::request_shapes::{
    refuse_undocumented, IdItemBody, IdRefBody, OptimiseIdsBody, OptimiseOrdersBody,
    OptimiseSettingsBody,
};
use super::wire::{object, type_name, Reader};

/// Which endpoint the body came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// `POST /plans/optimise/orders`: by `delivery_date`.
    ByDate,
    /// `POST /plans/optimise/orders-for-ids`: by `orders`.
    ByIds,
}

fn required(key: &str, expected: &str) -> ValidationIssue {
    ValidationIssue::new(
        IssueCode::Required,
        vec![key.into()],
        expected,
        "undefined",
        format!("{key} is required"),
    )
}

/// Reads an optimisation request; every problem is reported at its path.
pub fn read_optimise(body: &Value, variant: Variant) -> Result<OptimiseRequest, ValidationErrors> {
    let obj = object(body)?;
    let mut errors = ValidationErrors::default();
    match variant {
        Variant::ByDate => refuse_undocumented::<OptimiseOrdersBody>(obj, &[], &mut errors),
        Variant::ByIds => refuse_undocumented::<OptimiseIdsBody>(obj, &[], &mut errors),
    }
    let date = match variant {
        Variant::ByDate => delivery_date(obj, &mut errors),
        Variant::ByIds => None,
    };
    let settings = settings(obj, &mut errors);
    let mut r = Reader::new(obj, vec![], &mut errors);
    let zone_group_id = r.integer("zone_group_id").into_value();
    let plan_id = match obj.get("plan") {
        None | Some(Value::Null) => None,
        Some(Value::Object(plan)) => id_of(plan, vec!["plan".into()], r.errors),
        Some(other) => {
            r.wrong_type("plan", "an object {id}", other);
            None
        }
    };
    let vehicle_ids = id_list(&mut r, "vehicles", false);
    let selection = match variant {
        Variant::ByDate => OrderSelection::DueOnDate,
        Variant::ByIds => OrderSelection::Ids(id_list(&mut r, "orders", true).unwrap_or_default()),
    };
    errors.into_result()?;
    Ok(OptimiseRequest {
        date,
        selection,
        vehicle_ids,
        zone_group_id,
        settings,
        plan_id,
    })
}

fn delivery_date(obj: &Map<String, Value>, errors: &mut ValidationErrors) -> Option<Date> {
    match obj.get("delivery_date") {
        None | Some(Value::Null) => {
            errors.push(required("delivery_date", "a date YYYY-MM-DD"));
            None
        }
        Some(Value::String(s)) => {
            let date = Date::parse(s);
            if date.is_none() {
                errors.push(ValidationIssue::new(
                    IssueCode::InvalidString,
                    vec!["delivery_date".into()],
                    "a date YYYY-MM-DD",
                    s.as_str(),
                    "delivery_date must be a real date YYYY-MM-DD",
                ));
            }
            date
        }
        Some(other) => {
            errors.push(ValidationIssue::new(
                IssueCode::InvalidType,
                vec!["delivery_date".into()],
                "a date YYYY-MM-DD",
                type_name(other),
                "delivery_date must be a string",
            ));
            None
        }
    }
}

fn settings(obj: &Map<String, Value>, errors: &mut ValidationErrors) -> OptimiseSettings {
    let defaults = OptimiseSettings {
        active_vehicles: true,
        auto_dispatch: false,
        maintain_upload_sequence: false,
    };
    match obj.get("settings") {
        None | Some(Value::Null) => {
            errors.push(required("settings", "an object"));
            defaults
        }
        Some(Value::Object(s)) => {
            let mut r = Reader::new(s, vec!["settings".into()], errors);
            r.refuse_undocumented::<OptimiseSettingsBody>();
            let flag = |r: &mut Reader<'_>, key: &str, default: bool| match r.boolean(key) {
                Patch::Value(v) => v,
                Patch::Absent | Patch::Null => default,
            };
            OptimiseSettings {
                active_vehicles: flag(&mut r, "active_vehicles", defaults.active_vehicles),
                auto_dispatch: flag(&mut r, "auto_dispatch", defaults.auto_dispatch),
                maintain_upload_sequence: flag(
                    &mut r,
                    "maintain_upload_sequence",
                    defaults.maintain_upload_sequence,
                ),
            }
        }
        Some(other) => {
            errors.push(ValidationIssue::new(
                IssueCode::InvalidType,
                vec!["settings".into()],
                "an object",
                type_name(other),
                "settings must be an object",
            ));
            defaults
        }
    }
}

/// The integer `id` of one `{id}` object at `path`.
fn id_of(
    obj: &Map<String, Value>,
    path: Vec<PathSegment>,
    errors: &mut ValidationErrors,
) -> Option<i64> {
    refuse_undocumented::<IdRefBody>(obj, &path, errors);
    let mut r = Reader::new(obj, path.clone(), errors);
    match r.integer("id") {
        Patch::Value(id) => Some(id),
        Patch::Absent | Patch::Null => {
            let mut p = path;
            p.push("id".into());
            errors.push(ValidationIssue::new(
                IssueCode::Required,
                p,
                "an integer",
                "undefined",
                "id is required",
            ));
            None
        }
    }
}

/// An array of `{id}` objects: `None` when absent or null (an error when `required_key`); an
/// empty array is refused, and so is one longer than the request limit.
fn id_list(r: &mut Reader<'_>, key: &str, required_key: bool) -> Option<Vec<i64>> {
    // Entries as sent: one that is not an object is reported at its place and left out of
    // what `objects` returns, but it still makes the list non-empty.
    let listed = r.raw(key).and_then(Value::as_array).map_or(0, Vec::len);
    let mut index = 0;
    let ids = r.objects(key, |item| {
        let at = index;
        index += 1;
        item.refuse_undocumented::<IdItemBody>();
        match item.integer("id") {
            Patch::Value(id) => Some(id),
            Patch::Null | Patch::Absent => {
                if item_has_no_id(item) {
                    item.errors.push(ValidationIssue::new(
                        IssueCode::Required,
                        vec![key.into(), at.into(), "id".into()],
                        "an integer",
                        "undefined",
                        "id is required",
                    ));
                }
                None
            }
        }
    });
    let ids = match ids {
        Patch::Value(ids) => ids,
        Patch::Absent | Patch::Null => {
            if required_key {
                r.errors.push(required(key, "an array of {id}"));
            }
            return None;
        }
    };
    let out: Vec<i64> = ids.into_iter().flatten().collect();
    if listed == 0 {
        r.errors.push(ValidationIssue::new(
            IssueCode::TooSmall,
            vec![key.into()],
            "at least one entry",
            "an empty array",
            format!("{key} must list at least one id"),
        ));
    }
    if listed > MAX_ORDERS_PER_OPTIMISATION {
        r.errors.push(ValidationIssue::new(
            IssueCode::TooBig,
            vec![key.into()],
            format!("at most {MAX_ORDERS_PER_OPTIMISATION} entries"),
            listed.to_string(),
            format!("{key} lists too many ids"),
        ));
    }
    Some(out)
}

/// True when the item's `id` is absent or null (a wrong type was already reported).
fn item_has_no_id(item: &Reader<'_>) -> bool {
    matches!(item.raw("id"), None | Some(Value::Null))
}
