//! The request bodies as the document describes them. The handlers read bodies property by
//! property (`wire::Reader`, so a type error is reported at its path and absent, null and a
//! value stay apart); these types only describe what they read. Every name ends in `Body`:
//! the document leaves these objects open, as unknown properties are ignored unless an
//! endpoint says otherwise (docs/api.md, "Everywhere").
#![allow(dead_code)]

use utoipa::ToSchema;

/// `{ id, capacity }` of a write (on orders `type` may name the capacity type instead of `id`).
#[derive(ToSchema)]
pub struct CapacityBody {
    id: Option<i64>,
    /// Orders only: the capacity type's name.
    #[schema(rename = "type")]
    kind: Option<String>,
    capacity: f64,
}

/// `{ id?, name?, value }` of a custom-field write.
#[derive(ToSchema)]
pub struct CustomFieldBody {
    id: Option<i64>,
    name: Option<String>,
    value: String,
}

/// A time window; `type` (`delivery` or `pickup`) on an order's combined `time_windows`.
#[derive(ToSchema)]
pub struct TimeWindowBody {
    /// `HH:mm`.
    from: String,
    /// `HH:mm` (optional on customer creation).
    to: Option<String>,
    #[schema(rename = "type")]
    side: Option<String>,
}

/// `{ id }`.
#[derive(ToSchema)]
pub struct IdBody {
    id: i64,
}

/// A vehicle write (POST: name, availability, start_location and end_location required; PUT
/// and PATCH: any subset).
#[derive(ToSchema)]
pub struct VehicleBody {
    /// At most 30 characters.
    name: Option<String>,
    active: Option<bool>,
    /// `shift`, `full_day` or `always`.
    availability: Option<String>,
    shift_start: Option<String>,
    shift_end: Option<String>,
    /// `depot`, `other` or `app-location`.
    start_location: Option<String>,
    start_address: Option<String>,
    start_lat: Option<f64>,
    start_lng: Option<f64>,
    /// `depot`, `other` or `none`.
    end_location: Option<String>,
    end_address: Option<String>,
    end_lat: Option<f64>,
    end_lng: Option<f64>,
    #[schema(rename = "break")]
    has_break: Option<bool>,
    break_start: Option<String>,
    break_end: Option<String>,
    /// Minutes.
    break_duration: Option<f64>,
    /// Names; unknown ones are created.
    skills: Option<Vec<String>>,
    capacities: Option<Vec<CapacityBody>>,
}

/// A customer write (no other properties allowed on POST /customers).
#[derive(ToSchema)]
pub struct CustomerBody {
    name: Option<String>,
    /// Required on POST: the create-or-update key.
    account: Option<String>,
    address: Option<String>,
    postcode: Option<String>,
    phone: Option<String>,
    email: Option<String>,
    lat: Option<f64>,
    lng: Option<f64>,
    /// Minutes, 1 to 9999.
    duration: Option<f64>,
    notes: Option<String>,
    capacities: Option<Vec<CapacityBody>>,
    skills: Option<Vec<String>>,
    tags: Option<Vec<String>>,
    time_windows: Option<Vec<TimeWindowBody>>,
    custom_fields: Option<Vec<CustomFieldBody>>,
}

/// The customer of an order write: exactly one of `id` and `account` identifies it.
#[derive(ToSchema)]
pub struct OrderCustomerBody {
    id: Option<i64>,
    account: Option<String>,
    name: Option<String>,
    email: Option<String>,
    phone: Option<String>,
    country_code: Option<String>,
    address: Option<String>,
    postcode: Option<String>,
    lat: Option<f64>,
    lng: Option<f64>,
}

/// A line item write (product_code, product_name and product_quantity required on creation).
#[derive(ToSchema)]
pub struct LineItemBody {
    /// At most 20 characters; the match key on PUT.
    product_code: Option<String>,
    /// At most 75 characters.
    product_name: Option<String>,
    product_quantity: Option<i64>,
    product_unit_price: Option<f64>,
    product_value: Option<f64>,
    quantity_outstanding: Option<f64>,
    status: Option<String>,
    date: Option<String>,
    capacities: Option<Vec<CapacityBody>>,
    custom_fields: Option<Vec<CustomFieldBody>>,
}

/// An order write (POST: order_number and type required; PUT: any subset). `pickup_*` fields
/// mirror the `delivery_*` ones.
#[derive(ToSchema)]
pub struct OrderWriteBody {
    order_number: Option<String>,
    /// `delivery`, `pickup` or `shipment`.
    #[schema(rename = "type")]
    kind: Option<String>,
    /// `P1`, `P2` or `P3`.
    priority: Option<String>,
    customer: Option<OrderCustomerBody>,
    delivery_contact_name: Option<String>,
    delivery_contact_number: Option<String>,
    delivery_contact_email: Option<String>,
    delivery_address: Option<String>,
    delivery_country_code: Option<String>,
    delivery_postcode: Option<String>,
    delivery_lat: Option<f64>,
    delivery_lng: Option<f64>,
    delivery_duration: Option<f64>,
    delivery_notes: Option<String>,
    delivery_time_windows: Option<Vec<TimeWindowBody>>,
    delivery_date: Option<String>,
    delivery_available_days: Option<Vec<String>>,
    pickup_contact_name: Option<String>,
    pickup_contact_number: Option<String>,
    pickup_contact_email: Option<String>,
    pickup_address: Option<String>,
    pickup_country_code: Option<String>,
    pickup_postcode: Option<String>,
    pickup_lat: Option<f64>,
    pickup_lng: Option<f64>,
    pickup_duration: Option<f64>,
    pickup_notes: Option<String>,
    pickup_time_windows: Option<Vec<TimeWindowBody>>,
    pickup_available_days: Option<Vec<String>>,
    /// Read, and accepted on PUT: replaces every time window of the order.
    time_windows: Option<Vec<TimeWindowBody>>,
    /// `{ reference }` shared by exactly two orders of one POST.
    order_exchange: Option<OrderExchangeBody>,
    parts: Option<f64>,
    vehicle_assignment: Option<VehicleAssignmentBody>,
    emails: Option<Vec<EmailBody>>,
    third_party: Option<IdBody>,
    /// Names that must already exist.
    tags: Option<Vec<String>>,
    skills: Option<Vec<String>>,
    capacities: Option<Vec<CapacityBody>>,
    custom_fields: Option<Vec<CustomFieldBody>>,
    /// At most 10000000, 2 decimals; only without valued line items.
    order_value: Option<f64>,
    line_items: Option<Vec<LineItemBody>>,
}

/// `{ reference }`.
#[derive(ToSchema)]
pub struct OrderExchangeBody {
    reference: String,
}

/// `{ vehicle_id }`.
#[derive(ToSchema)]
pub struct VehicleAssignmentBody {
    vehicle_id: i64,
}

/// `{ email }`.
#[derive(ToSchema)]
pub struct EmailBody {
    email: String,
}

/// The settings of an optimisation request (other fields are ignored).
#[derive(ToSchema)]
pub struct OptimiseSettingsBody {
    active_vehicles: Option<bool>,
    /// Dispatch the plan when the job succeeds.
    auto_dispatch: Option<bool>,
    /// orders-for-ids only: keep the upload order of the orders.
    maintain_upload_sequence: Option<bool>,
}

/// `POST /plans/optimise/orders` (no other top-level properties allowed).
#[derive(ToSchema)]
pub struct OptimiseOrdersBody {
    /// `YYYY-MM-DD`.
    delivery_date: String,
    settings: OptimiseSettingsBody,
    zone_group_id: Option<i64>,
    /// Re-optimise this plan instead of creating one.
    plan: Option<IdBody>,
    /// Plan with these vehicles (null or absent: the depot's fleet).
    vehicles: Option<Vec<IdBody>>,
}

/// `POST /plans/optimise/orders-for-ids` (no other top-level properties allowed).
#[derive(ToSchema)]
pub struct OptimiseIdsBody {
    orders: Vec<IdBody>,
    settings: OptimiseSettingsBody,
    zone_group_id: Option<i64>,
    plan: Option<IdBody>,
    vehicles: Option<Vec<IdBody>>,
}

/// An order reference of a route edit: at least one of the two; both must name one order.
#[derive(ToSchema)]
pub struct OrderRefBody {
    id: Option<i64>,
    order_number: Option<String>,
}

/// Route edit settings.
#[derive(ToSchema)]
pub struct EditSettingsBody {
    /// Default false.
    allow_dispatched: Option<bool>,
    /// Default false.
    reoptimize: Option<bool>,
}

/// `POST /routes/{id}/add-orders` and `/remove-orders`.
#[derive(ToSchema)]
pub struct RouteEditBody {
    /// 1 to 10.
    orders: Vec<OrderRefBody>,
    settings: Option<EditSettingsBody>,
}

/// `PUT /routes/{id}`.
#[derive(ToSchema)]
pub struct RouteLockBody {
    is_locked: Option<bool>,
}

/// The location of a zone lookup.
#[derive(ToSchema)]
pub struct LocationBody {
    lat: Option<f64>,
    lng: Option<f64>,
    address: Option<String>,
    postcode: Option<String>,
    country: Option<String>,
}

/// `POST /zone-groups/{id}/bounds/contains`.
#[derive(ToSchema)]
pub struct ZoneLookupBody {
    location: LocationBody,
}

/// `POST /order-statuses`.
#[derive(ToSchema)]
pub struct OrderStatusBody {
    /// 1 to 255 characters, stored exactly as sent.
    status: String,
}

/// `POST /notifications/schedule/orders`.
#[derive(ToSchema)]
pub struct ScheduleBody {
    /// Order ids.
    orders: Vec<i64>,
    /// Template ids, at most 2.
    templates: Vec<i64>,
    /// UTC timestamp; default now.
    send_time_utc: Option<String>,
}

/// The order a booking check places.
#[derive(ToSchema)]
pub struct BookingOrderBody {
    /// `delivery` or `pickup`.
    #[schema(rename = "type")]
    kind: String,
    delivery_address: Option<String>,
    delivery_country_code: Option<String>,
    delivery_postcode: Option<String>,
    delivery_lat: Option<f64>,
    delivery_lng: Option<f64>,
    delivery_duration: Option<f64>,
    pickup_address: Option<String>,
    pickup_country_code: Option<String>,
    pickup_postcode: Option<String>,
    pickup_lat: Option<f64>,
    pickup_lng: Option<f64>,
    pickup_duration: Option<f64>,
    capacities: Option<Vec<CapacityBody>>,
}

/// `POST /booking/availability`.
#[derive(ToSchema)]
pub struct AvailabilityBody {
    date: String,
    order: BookingOrderBody,
    /// Absent: every active vehicle.
    vehicles: Option<Vec<IdBody>>,
}

/// `POST /booking/available-dates`.
#[derive(ToSchema)]
pub struct AvailableDatesBody {
    from: String,
    to: String,
    order: BookingOrderBody,
    vehicles: Option<Vec<IdBody>>,
}

/// `POST /booking/available-slots` (default 08:00 to 18:00 in 120-minute slots).
#[derive(ToSchema)]
pub struct AvailableSlotsBody {
    date: String,
    order: BookingOrderBody,
    vehicles: Option<Vec<IdBody>>,
    /// `HH:mm`.
    from: Option<String>,
    /// `HH:mm`.
    to: Option<String>,
    slot_minutes: Option<i64>,
}

/// `POST /vehicles/{id}/driver-credentials` (optional body).
#[derive(ToSchema)]
pub struct CredentialBody {
    name: Option<String>,
}
