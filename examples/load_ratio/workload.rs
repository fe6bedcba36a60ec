//! The rows both sides write: order `n` of round `round` (0 creates it, 1 rewrites it with
//! another address and quantity), as the service's JSON body and as the column values the
//! service stores for it, which the raw clients write themselves.

use serde_json::{json, Value};

/// Orders per POST and per raw transaction.
pub const BATCH: usize = 100;
/// Rows per page, on both sides.
pub const PAGE: usize = 100;

/// The order number of order `n`.
pub fn number(n: usize) -> String {
    format!("LOAD-{n:07}")
}

fn address(n: usize, round: usize) -> String {
    let street = if round == 0 {
        "Load Street"
    } else {
        "Load Road"
    };
    format!("{} {street}", n % 500)
}

fn position(n: usize) -> (f64, f64) {
    (
        51.0 + (n % 1000) as f64 / 1000.0,
        -0.5 + (n % 777) as f64 / 1000.0,
    )
}

fn quantity(n: usize, round: usize) -> i64 {
    (1 + n % 3 + round) as i64
}

/// The body of one POST /v2/orders: orders `range`.
pub fn post_body(range: std::ops::Range<usize>, round: usize) -> Vec<u8> {
    let orders: Vec<Value> = range
        .map(|n| {
            let (lat, lng) = position(n);
            json!({
                "order_number": number(n),
                "type": "delivery",
                "priority": "P2",
                "delivery_address": address(n, round),
                "delivery_postcode": "AB1 2CD",
                "delivery_lat": lat,
                "delivery_lng": lng,
                "delivery_duration": 5,
                "delivery_date": "2026-12-01",
                "delivery_time_windows": [{"from": "08:00", "to": "12:00"}],
                "line_items": [{"product_code": "SKU-1", "product_name": "Parcel",
                                "product_quantity": quantity(n, round), "product_unit_price": 9.99}],
            })
        })
        .collect();
    Value::Array(orders).to_string().into_bytes()
}

/// The stored columns of one order and its one line item.
pub struct Row {
    /// `orders.order_number`.
    pub number: String,
    /// `orders.delivery` (the end as JSON).
    pub delivery: String,
    /// `orders.pickup`.
    pub pickup: &'static str,
    /// `orders.time_windows`.
    pub windows: &'static str,
    /// `order_line_items.quantity`.
    pub quantity: i64,
}

/// Order `n` of `round` as stored.
pub fn row(n: usize, round: usize) -> Row {
    let (lat, lng) = position(n);
    Row {
        number: number(n),
        delivery: json!({
            "address": address(n, round), "available_days": [], "contact_email": null,
            "contact_name": null, "contact_number": null, "country_code": null,
            "duration": 5.0, "lat": lat, "lng": lng, "notes": null, "postcode": "AB1 2CD",
        })
        .to_string(),
        pickup: r#"{"address":null,"available_days":[],"contact_email":null,"contact_name":null,"contact_number":null,"country_code":null,"duration":null,"lat":null,"lng":null,"notes":null,"postcode":null}"#,
        windows: r#"[{"from":480,"to":720,"type":"delivery"}]"#,
        quantity: quantity(n, round),
    }
}

/// A small deterministic generator of the single reads' order indices (the same on both sides).
pub struct Picks(u64);

impl Picks {
    /// A generator seeded per client.
    pub fn new(client: usize) -> Picks {
        Picks(0x9E37_79B9_7F4A_7C15 ^ (client as u64 + 1))
    }

    /// The next index below `n`.
    pub fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}
