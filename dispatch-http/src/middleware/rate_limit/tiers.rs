//! The seven tiers of the spec's Limits table and the one table that puts every endpoint of the
//! interface into a tier.
//!
//! Where the spec names a tier the table follows it. Where it does not ("Tier of each endpoint
//! not named above: not shown"), the endpoint goes where the spec's own description of the tiers
//! puts its kind (`docs/rate-limits.md` lists the same choices for users):
//! - single-resource reads and writes (one order, customer, vehicle, route, plan, optimisation,
//!   questionnaire submission or image, zone lookup, order status) -> Standard;
//! - paginated lists (customers, orders, plans, routes, notification tasks) -> Listing;
//! - unpaged reference lists (third parties, notification templates, order statuses, and the
//!   ones the spec names) -> Reference;
//! - bulk creates (POST /customers, /orders, /depots/{id}/orders, scheduling notifications for
//!   many orders) and heavy deletes (a plan with all its routes and stops) -> Bulk;
//! - route add-orders and remove-orders change at most 10 orders of one route -> Standard.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use axum::http::Method;

use crate::middleware::RouteKey;

/// A rate tier of the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tier {
    /// 60 / min, max 5 / sec.
    Standard,
    /// 30 / min, max 5 / sec.
    Listing,
    /// 60 / min, max 1 / sec.
    Reference,
    /// 30 / min, max 1 per 2 sec.
    Bulk,
    /// 15 / min, max 1 / sec.
    Upload,
    /// 5 / min, max 2 per 15 sec.
    Strict,
    /// 60 / min, max 2 per 2 sec.
    Dispatch,
}

/// At most `limit` requests in any `period_ms` window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Requests allowed in the window.
    pub limit: usize,
    /// Window length in milliseconds.
    pub period_ms: i64,
}

const fn per(limit: usize, period_ms: i64) -> Window {
    Window { limit, period_ms }
}

impl Tier {
    /// Every tier.
    pub const ALL: [Tier; 7] = [
        Tier::Standard,
        Tier::Listing,
        Tier::Reference,
        Tier::Bulk,
        Tier::Upload,
        Tier::Strict,
        Tier::Dispatch,
    ];

    /// The per-minute window and the burst window, both enforced.
    pub fn windows(self) -> [Window; 2] {
        const MINUTE: i64 = 60_000;
        match self {
            Tier::Standard => [per(60, MINUTE), per(5, 1_000)],
            Tier::Listing => [per(30, MINUTE), per(5, 1_000)],
            Tier::Reference => [per(60, MINUTE), per(1, 1_000)],
            Tier::Bulk => [per(30, MINUTE), per(1, 2_000)],
            Tier::Upload => [per(15, MINUTE), per(1, 1_000)],
            Tier::Strict => [per(5, MINUTE), per(2, 15_000)],
            Tier::Dispatch => [per(60, MINUTE), per(2, 2_000)],
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tier::Standard => "standard",
            Tier::Listing => "listing",
            Tier::Reference => "reference",
            Tier::Bulk => "bulk",
            Tier::Upload => "upload",
            Tier::Strict => "strict",
            Tier::Dispatch => "dispatch",
        })
    }
}

/// Every endpoint of the interface (spec and operator-interface paths), relative to `/v2`.
/// Endpoints not built yet are listed too, so a new route is limited the day it appears.
pub const ENDPOINT_TIERS: &[(&str, &str, Tier)] = {
    use Tier::*;
    &[
        // Booking (spec: strict)
        ("POST", "/booking/availability", Strict),
        ("POST", "/booking/available-dates", Strict),
        ("POST", "/booking/available-slots", Strict),
        // Reference data (spec: reference for depots, capacities, custom fields, zone groups)
        ("GET", "/depots", Reference),
        // The depot's name, address and position (ours): a single-resource write
        ("GET", "/depots/{id}", Reference),
        ("PUT", "/depots/{id}", Standard),
        ("GET", "/capacities", Reference),
        ("GET", "/custom-fields", Reference),
        ("GET", "/zone-groups", Reference),
        ("POST", "/zone-groups/{id}/bounds/contains", Standard),
        ("GET", "/third-parties", Reference),
        ("GET", "/notifications/templates", Reference),
        // Customers (spec: GET list listing, POST bulk)
        ("GET", "/customers", Listing),
        ("POST", "/customers", Bulk),
        ("GET", "/customers/{id}", Standard),
        ("PUT", "/customers/{id}", Standard),
        // Orders (spec: POSTs bulk, list listing, single read/write standard, upload)
        ("POST", "/orders", Bulk),
        ("POST", "/depots/{id}/orders", Bulk),
        ("GET", "/orders", Listing),
        ("GET", "/orders/{id}", Standard),
        ("PUT", "/orders/{id}", Standard),
        ("POST", "/orders/{id}/attachments", Upload),
        ("DELETE", "/orders/order-number/{order_number}", Standard),
        // Order statuses (organisation-wide reference data and its single writes)
        ("GET", "/order-statuses", Reference),
        ("POST", "/order-statuses", Standard),
        ("DELETE", "/order-statuses/{status}", Standard),
        // Notifications
        ("GET", "/notification-tasks", Listing),
        ("POST", "/notifications/schedule/orders", Bulk),
        // Driver questionnaires and images
        ("GET", "/driver-questionnaire-submission/{id}", Standard),
        ("GET", "/driver-questionnaire-images/{id}", Standard),
        ("GET", "/proof-of-delivery-photos/{id}", Standard),
        ("GET", "/proof-of-delivery-signatures/{id}", Standard),
        // Plans and optimisation (spec: optimise strict, list listing, dispatch dispatch)
        ("POST", "/plans/optimise/orders", Strict),
        ("POST", "/plans/optimise/orders-for-ids", Strict),
        ("GET", "/plans/optimise/{id}", Standard),
        ("GET", "/plans/optimise/{id}/problem", Standard),
        ("GET", "/plans", Listing),
        ("GET", "/plans/{id}", Standard),
        ("DELETE", "/plans/{id}", Bulk),
        ("POST", "/plans/{id}/dispatch", Dispatch),
        // Routes (spec: list listing, reverse strict, dispatch dispatch)
        ("GET", "/routes", Listing),
        ("GET", "/routes/{id}", Standard),
        ("PUT", "/routes/{id}", Standard),
        ("POST", "/routes/{id}/reverse", Strict),
        ("POST", "/routes/{id}/dispatch", Dispatch),
        ("POST", "/routes/{id}/remove-orders", Standard),
        ("POST", "/routes/{id}/add-orders", Standard),
        // Vehicles (spec: reads reference; writes are single-resource writes)
        ("POST", "/vehicles", Standard),
        ("GET", "/vehicles", Reference),
        ("GET", "/vehicles/{id}", Reference),
        ("PUT", "/vehicles/{id}", Standard),
        ("PATCH", "/vehicles/{id}", Standard),
        ("DELETE", "/vehicles/{id}", Standard),
        // Driver credentials of a vehicle (ours): single-resource reads and writes
        ("POST", "/vehicles/{id}/driver-credentials", Standard),
        ("GET", "/vehicles/{id}/driver-credentials", Standard),
        (
            "DELETE",
            "/vehicles/{id}/driver-credentials/{credential_id}",
            Standard,
        ),
        // The driver API (ours, under /driver, limited per driver credential): a driver's
        // single-resource reads and writes are Standard (docs/driver-api.md)
        ("GET", "/driver/me", Standard),
        ("GET", "/driver/day", Standard),
        ("GET", "/driver/routes/{id}", Standard),
        ("POST", "/driver/routes/{id}/start", Standard),
        ("POST", "/driver/routes/{id}/positions", Standard),
        ("POST", "/driver/routes/{id}/complete", Standard),
        ("POST", "/driver/stops/{id}/arrive", Standard),
        ("POST", "/driver/stops/{id}/complete", Standard),
        ("POST", "/driver/stops/{id}/fail", Standard),
        ("PUT", "/driver/stops/{id}/notes", Standard),
        ("POST", "/driver/stops/{id}/phone-calls", Standard),
        ("GET", "/driver/events", Standard),
        ("GET", "/driver/feed", Standard),
        // Proof of delivery: the uploads of images are file uploads, the spec's Upload tier
        // (15 / min, 1 / s: an app sends a stop's signature, photos and questionnaire a second
        // apart, following Retry-After); the questionnaire list is a single read
        ("GET", "/driver/questionnaires", Standard),
        ("POST", "/driver/stops/{id}/signature", Upload),
        ("POST", "/driver/stops/{id}/photos", Upload),
        ("POST", "/driver/questionnaire-submissions", Upload),
        // The VROOM-compatible endpoint (ours, `serve --vroom-api on`): an optimisation
        ("POST", "/vroom", Strict),
    ]
};

/// The tier every routed request falls back to when its route is missing from
/// [`ENDPOINT_TIERS`]: a new endpoint is never unlimited.
pub const FALLBACK_TIER: Tier = Tier::Standard;

fn table() -> &'static HashMap<RouteKey, Tier> {
    static TABLE: OnceLock<HashMap<RouteKey, Tier>> = OnceLock::new();
    TABLE.get_or_init(|| {
        ENDPOINT_TIERS
            .iter()
            .map(|(method, path, tier)| {
                let method = Method::from_bytes(method.as_bytes()).expect("a valid method");
                (RouteKey::new(method, path), *tier)
            })
            .collect()
    })
}

/// The tier of a routed endpoint; `None` when the table does not list it.
pub fn tier_of(route: &RouteKey) -> Option<Tier> {
    table().get(route).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tier(method: Method, path: &str) -> Option<Tier> {
        tier_of(&RouteKey::new(method, path))
    }

    #[test]
    fn every_endpoint_appears_once() {
        assert_eq!(table().len(), ENDPOINT_TIERS.len());
    }

    #[test]
    fn the_tiers_the_spec_names_are_the_ones_the_table_gives() {
        assert_eq!(tier(Method::GET, "/v2/orders/{id}"), Some(Tier::Standard));
        assert_eq!(
            tier(Method::PUT, "/orders/{order_id}"),
            Some(Tier::Standard)
        );
        for list in ["/customers", "/plans", "/routes", "/orders"] {
            assert_eq!(tier(Method::GET, list), Some(Tier::Listing), "{list}");
        }
        for reference in [
            "/depots",
            "/capacities",
            "/custom-fields",
            "/vehicles",
            "/zone-groups",
        ] {
            assert_eq!(
                tier(Method::GET, reference),
                Some(Tier::Reference),
                "{reference}"
            );
        }
        assert_eq!(tier(Method::GET, "/vehicles/{id}"), Some(Tier::Reference));
        assert_eq!(tier(Method::POST, "/customers/"), Some(Tier::Bulk));
        assert_eq!(tier(Method::POST, "/orders"), Some(Tier::Bulk));
        assert_eq!(tier(Method::POST, "/depots/{id}/orders"), Some(Tier::Bulk));
        assert_eq!(
            tier(Method::POST, "/orders/{id}/attachments"),
            Some(Tier::Upload)
        );
        for strict in [
            "/plans/optimise/orders",
            "/plans/optimise/orders-for-ids",
            "/booking/availability",
            "/booking/available-dates",
            "/booking/available-slots",
            "/routes/{id}/reverse",
        ] {
            assert_eq!(tier(Method::POST, strict), Some(Tier::Strict), "{strict}");
        }
        assert_eq!(
            tier(Method::POST, "/routes/{id}/dispatch"),
            Some(Tier::Dispatch)
        );
        assert_eq!(
            tier(Method::POST, "/plans/{id}/dispatch"),
            Some(Tier::Dispatch)
        );
        assert_eq!(tier(Method::GET, "/healthz"), None);
    }
}
