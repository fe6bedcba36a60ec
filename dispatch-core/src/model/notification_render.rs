//! Template rendering: `{placeholder}` names in a template body are replaced by the order's
//! data. Known placeholders with no value render as an empty string; unknown ones are left as
//! written, so a typo shows in the message instead of vanishing.
//!
//! | placeholder | value |
//! |---|---|
//! | `{order_number}` | the order number |
//! | `{customer_name}` | the customer's name, else the delivery contact name |
//! | `{contact_name}` | the delivery contact name, else the customer's name |
//! | `{delivery_address}` | the delivery address |
//! | `{delivery_postcode}` | the delivery postcode |
//! | `{delivery_date}` | `YYYY-MM-DD` |
//! | `{delivery_window}` | the first delivery time window, `HH:mm-HH:mm` |
//! | `{eta}` | estimated arrival `HH:mm` (known once the order is on a dispatched route) |
//! | `{tracking_link}` | the customer's tracking page (once dispatched) |
//! | `{depot_name}` | the depot's name |
//!
//! ```
//! use dispatch_core::model::notification_render::{render, RenderContext};
//!
//! let ctx = RenderContext {
//!     order_number: "A-1".into(),
//!     customer_name: Some("Ann".into()),
//!     ..Default::default()
//! };
//! assert_eq!(render("Hi {customer_name}, order {order_number} {eta}{oops}", &ctx),
//!            "Hi Ann, order A-1 {oops}");
//! ```

/// The values a template can use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderContext {
    /// Order number.
    pub order_number: String,
    /// Customer name.
    pub customer_name: Option<String>,
    /// Delivery contact name.
    pub contact_name: Option<String>,
    /// Delivery address.
    pub delivery_address: Option<String>,
    /// Delivery postcode.
    pub delivery_postcode: Option<String>,
    /// Delivery date, `YYYY-MM-DD`.
    pub delivery_date: Option<String>,
    /// First delivery window, `HH:mm-HH:mm`.
    pub delivery_window: Option<String>,
    /// Estimated arrival, `HH:mm`.
    pub eta: Option<String>,
    /// Tracking page.
    pub tracking_link: Option<String>,
    /// Depot name.
    pub depot_name: Option<String>,
}

impl RenderContext {
    fn value(&self, name: &str) -> Option<Option<&str>> {
        fn v(o: &Option<String>) -> Option<&str> {
            o.as_deref()
        }
        Some(match name {
            "order_number" => Some(self.order_number.as_str()),
            "customer_name" => v(&self.customer_name).or(v(&self.contact_name)),
            "contact_name" => v(&self.contact_name).or(v(&self.customer_name)),
            "delivery_address" => v(&self.delivery_address),
            "delivery_postcode" => v(&self.delivery_postcode),
            "delivery_date" => v(&self.delivery_date),
            "delivery_window" => v(&self.delivery_window),
            "eta" => v(&self.eta),
            "tracking_link" => v(&self.tracking_link),
            "depot_name" => v(&self.depot_name),
            _ => return None,
        })
    }
}

/// Renders `body` with `ctx`.
pub fn render(body: &str, ctx: &RenderContext) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if is_name(&after[..close]) => match ctx.value(&after[..close]) {
                Some(value) => {
                    out.push_str(value.unwrap_or(""));
                    rest = &after[close + 1..];
                }
                None => {
                    out.push_str(&rest[open..open + close + 2]);
                    rest = &after[close + 1..];
                }
            },
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> RenderContext {
        RenderContext {
            order_number: "A-1".into(),
            customer_name: None,
            contact_name: Some("Bob".into()),
            delivery_address: Some("1 High St".into()),
            delivery_window: Some("09:00-12:00".into()),
            depot_name: Some("North".into()),
            ..Default::default()
        }
    }

    #[test]
    fn every_known_placeholder_is_replaced_and_missing_values_are_empty() {
        let text = render(
            "{order_number}|{customer_name}|{contact_name}|{delivery_address}|{delivery_postcode}|{delivery_date}|{delivery_window}|{eta}|{tracking_link}|{depot_name}",
            &ctx(),
        );
        assert_eq!(text, "A-1|Bob|Bob|1 High St|||09:00-12:00|||North");
    }

    #[test]
    fn unknown_placeholders_and_stray_braces_stay_as_written() {
        assert_eq!(render("{nope} {order_number}", &ctx()), "{nope} A-1");
        assert_eq!(
            render("a { b } {order_number", &ctx()),
            "a { b } {order_number"
        );
        assert_eq!(render("{{order_number}}", &ctx()), "{A-1}");
        assert_eq!(render("", &ctx()), "");
        assert_eq!(render("ünï {order_number} ✓", &ctx()), "ünï A-1 ✓");
    }
}
