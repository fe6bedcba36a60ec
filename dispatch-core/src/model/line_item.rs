//! The line-item concept: what an order carries, its field rules and how a sent list of line
//! items is merged into the stored one (matched by `product_code`; stored items missing from
//! the list are removed).

use crate::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::model::order_fields::{
    check_len, check_range, custom, indexed_path, required, CapacityAmount, CapacityInput, Catalog,
    CustomFieldInput, CustomFieldMatch, CustomFieldValue, Sent,
};
use crate::model::order_value::{line_item_value, Money, UnitPrice, ValueSource};
use crate::status::{Status, StatusSet};
use crate::time::Date;

/// Longest `product_code`.
pub const MAX_PRODUCT_CODE_CHARS: usize = 20;
/// Longest `product_name`.
pub const MAX_PRODUCT_NAME_CHARS: usize = 75;

/// A line item as sent, with JSON types already checked by the adapter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineItemInput {
    /// `product_code` (the match key).
    pub product_code: Option<String>,
    /// `product_name`.
    pub product_name: Option<String>,
    /// `product_quantity` (an integer).
    pub product_quantity: Option<f64>,
    /// `product_unit_price`.
    pub product_unit_price: Sent<f64>,
    /// `product_value` (given: MANUAL; null: back to DERIVED).
    pub product_value: Sent<f64>,
    /// `quantity_outstanding`.
    pub quantity_outstanding: Sent<f64>,
    /// `status` (a default or custom status; never a derived one).
    pub status: Option<String>,
    /// `date` (`YYYY-MM-DD`).
    pub date: Sent<String>,
    /// `capacities`.
    pub capacities: Option<Vec<CapacityInput>>,
    /// `custom_fields`.
    pub custom_fields: Option<Vec<CustomFieldInput>>,
}

/// A stored line item.
#[derive(Debug, Clone, PartialEq)]
pub struct LineItem {
    /// The service's id (0 until stored).
    pub id: i64,
    /// Product code, unique within its order.
    pub product_code: String,
    /// Product name.
    pub product_name: String,
    /// Quantity.
    pub quantity: i64,
    /// Unit price.
    pub unit_price: Option<UnitPrice>,
    /// A client-given value (MANUAL); `None` lets the value be derived.
    pub manual_value: Option<Money>,
    /// Quantity still outstanding.
    pub quantity_outstanding: Option<f64>,
    /// Line-item status.
    pub status: Status,
    /// Due date.
    pub date: Option<Date>,
    /// Capacities.
    pub capacities: Vec<CapacityAmount>,
    /// Custom-field values.
    pub custom_fields: Vec<CustomFieldValue>,
}

impl LineItem {
    /// The item's value and its source (`product_value`, `product_value_source`).
    pub fn value(&self) -> Option<(Money, ValueSource)> {
        line_item_value(self.manual_value, self.quantity, self.unit_price)
    }
}

/// Checks the field rules of one sent line item that need no stored state (whether a new
/// item has its name and quantity is decided by [`merge_line_items`]).
pub fn validate_line_item(
    errs: &mut ValidationErrors,
    at: &[PathSegment],
    item: &LineItemInput,
    statuses: &StatusSet,
) {
    let path = |key: &str| {
        let mut p = at.to_vec();
        p.push(key.into());
        p
    };
    match &item.product_code {
        Some(code) => check_len(
            errs,
            || path("product_code"),
            code,
            1,
            MAX_PRODUCT_CODE_CHARS,
        ),
        None => errs.push(required(
            path("product_code"),
            "string of at most 20 characters",
        )),
    }
    if let Some(name) = &item.product_name {
        check_len(
            errs,
            || path("product_name"),
            name,
            0,
            MAX_PRODUCT_NAME_CHARS,
        );
    }
    if let Some(q) = item.product_quantity {
        check_whole(errs, || path("product_quantity"), q);
    }
    if let Some(Some(p)) = item.product_unit_price {
        if let Err(e) = UnitPrice::parse(p) {
            errs.push(money_issue(path("product_unit_price"), p, &e.to_string()));
        }
    }
    if let Some(Some(v)) = item.product_value {
        if let Err(e) = Money::parse(v) {
            errs.push(money_issue(path("product_value"), v, &e.to_string()));
        }
    }
    if let Some(Some(q)) = item.quantity_outstanding {
        check_range(errs, || path("quantity_outstanding"), q, 0.0, f64::MAX);
    }
    if let Some(s) = &item.status {
        if let Err(e) = statuses.resolve_settable(s) {
            errs.push(ValidationIssue::new(
                IssueCode::InvalidEnumValue,
                path("status"),
                "a default or custom order status (not PARTIALLY_*)",
                s.as_str(),
                e.to_string(),
            ));
        }
    }
    if let Some(Some(d)) = &item.date {
        if Date::parse(d).is_none() {
            errs.push(ValidationIssue::new(
                IssueCode::InvalidString,
                path("date"),
                "date YYYY-MM-DD",
                d.as_str(),
                "date must be a date YYYY-MM-DD",
            ));
        }
    }
    for (i, cap) in item.capacities.iter().flatten().enumerate() {
        let p = || {
            let mut p = path("capacities");
            p.push(i.into());
            p.push("capacity".into());
            p
        };
        match cap.capacity {
            Some(v) => check_range(errs, p, v, 0.0, f64::MAX),
            None => errs.push(required(p(), "number")),
        }
    }
    for (i, f) in item.custom_fields.iter().flatten().enumerate() {
        if f.value.is_none() {
            let mut p = path("custom_fields");
            p.push(i.into());
            p.push("value".into());
            errs.push(required(p, "string"));
        }
    }
}

fn check_whole(errs: &mut ValidationErrors, path: impl FnOnce() -> Vec<PathSegment>, q: f64) {
    if q.fract() != 0.0 || !q.is_finite() {
        errs.push(ValidationIssue::new(
            IssueCode::InvalidType,
            path(),
            "integer",
            q.to_string(),
            "product_quantity must be an integer",
        ));
    } else {
        check_range(errs, path, q, 0.0, 1e12);
    }
}

fn money_issue(path: Vec<PathSegment>, value: f64, why: &str) -> ValidationIssue {
    let message = format!("{} {why}", crate::error::render_path(&path));
    ValidationIssue::new(IssueCode::Custom, path, why, value.to_string(), message)
}

/// Reports product codes repeated within one list (they are the match key).
pub fn check_unique_codes(
    errs: &mut ValidationErrors,
    at: &[PathSegment],
    items: &[LineItemInput],
) {
    for (i, item) in items.iter().enumerate() {
        let Some(code) = &item.product_code else {
            continue;
        };
        if items[..i]
            .iter()
            .any(|o| o.product_code.as_ref() == Some(code))
        {
            let mut p = at.to_vec();
            p.push(i.into());
            p.push("product_code".into());
            errs.push(custom(
                p,
                "a product_code unique within the order",
                code,
                format!("product_code `{code}` appears more than once in the order"),
            ));
        }
    }
}

/// Merges a sent list into the stored items: items are matched by product code; matched
/// items take the sent fields and keep the rest (id, status unless sent); new items need a
/// name and a quantity and start with `new_status`; stored items missing from the list go.
/// Paths of reported problems start with `line_items`.
pub fn merge_line_items(
    stored: &[LineItem],
    sent: &[LineItemInput],
    catalog: &Catalog,
    statuses: &StatusSet,
    new_status: &Status,
) -> Result<Vec<LineItem>, ValidationErrors> {
    let mut errs = ValidationErrors::default();
    let mut out = Vec::with_capacity(sent.len());
    for (i, input) in sent.iter().enumerate() {
        let code = input.product_code.clone().unwrap_or_default();
        let existing = stored.iter().find(|s| s.product_code == code);
        let at = |key: &str| {
            let mut p = indexed_path(&["line_items"], i);
            p.push(key.into());
            p
        };
        let name = input
            .product_name
            .clone()
            .or_else(|| existing.map(|e| e.product_name.clone()));
        let quantity = input
            .product_quantity
            .map(|q| q as i64)
            .or_else(|| existing.map(|e| e.quantity));
        if name.is_none() {
            errs.push(required(
                at("product_name"),
                "string of at most 75 characters",
            ));
        }
        if quantity.is_none() {
            errs.push(required(at("product_quantity"), "integer"));
        }
        let (Some(product_name), Some(quantity)) = (name, quantity) else {
            continue;
        };
        let mut item = existing.cloned().unwrap_or_else(|| LineItem {
            id: 0,
            product_code: code.clone(),
            product_name: product_name.clone(),
            quantity,
            unit_price: None,
            manual_value: None,
            quantity_outstanding: None,
            status: new_status.clone(),
            date: None,
            capacities: Vec::new(),
            custom_fields: Vec::new(),
        });
        item.product_name = product_name;
        item.quantity = quantity;
        if let Some(p) = input.product_unit_price {
            item.unit_price = p.and_then(|p| UnitPrice::parse(p).ok());
        }
        if let Some(v) = input.product_value {
            item.manual_value = v.and_then(|v| Money::parse(v).ok());
        }
        if let Some(q) = input.quantity_outstanding {
            item.quantity_outstanding = q;
        }
        if let Some(s) = &input.status {
            if let Ok(status) = statuses.resolve_settable(s) {
                item.status = status;
            }
        }
        if let Some(d) = &input.date {
            item.date = d.as_deref().and_then(Date::parse);
        }
        if let Some(caps) = &input.capacities {
            item.capacities = catalog.resolve_capacities(caps, true);
        }
        if let Some(fields) = &input.custom_fields {
            item.custom_fields = catalog.resolve_custom_fields(fields, CustomFieldMatch::IdOrName);
        }
        out.push(item);
    }
    errs.into_result().map(|()| out)
}
