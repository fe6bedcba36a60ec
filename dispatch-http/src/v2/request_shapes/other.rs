//! Optimisation, route edits, booking, zones, statuses, notifications and credentials.

use utoipa::ToSchema;

/// `{ id }` naming the plan of an optimisation request (no other properties allowed).
#[derive(ToSchema)]
pub struct IdRefBody {
    id: i64,
}

/// `{ id }` of an entry of an optimisation request's `orders` or `vehicles` (no other
/// properties allowed).
#[derive(ToSchema)]
pub struct IdItemBody {
    id: i64,
}

/// The settings of an optimisation request (no other properties allowed).
#[derive(ToSchema)]
pub struct OptimiseSettingsBody {
    active_vehicles: Option<bool>,
    /// Dispatch the plan when the job succeeds.
    auto_dispatch: Option<bool>,
    /// orders-for-ids only: keep the upload order of the orders.
    maintain_upload_sequence: Option<bool>,
}

/// `POST /plans/optimise/orders` (no other properties allowed).
#[derive(ToSchema)]
pub struct OptimiseOrdersBody {
    /// `YYYY-MM-DD`.
    delivery_date: String,
    settings: OptimiseSettingsBody,
    zone_group_id: Option<i64>,
    /// Re-optimise this plan instead of creating one.
    plan: Option<IdRefBody>,
    /// Plan with these vehicles (null or absent: the depot's fleet).
    vehicles: Option<Vec<IdItemBody>>,
}

/// `POST /plans/optimise/orders-for-ids` (no other properties allowed).
#[derive(ToSchema)]
pub struct OptimiseIdsBody {
    orders: Vec<IdItemBody>,
    settings: OptimiseSettingsBody,
    zone_group_id: Option<i64>,
    plan: Option<IdRefBody>,
    vehicles: Option<Vec<IdItemBody>>,
}

/// An order reference of a route edit: at least one of the two; both must name one order
/// (no other properties allowed).
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

/// `PUT /routes/{id}` (no other properties allowed).
#[derive(ToSchema)]
pub struct RouteLockBody {
    /// Absent: unchanged (a partial update).
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

/// `{ id, capacity }` of a booking check's order.
#[derive(ToSchema)]
pub struct BookingCapacityBody {
    /// The capacity type.
    id: i64,
    capacity: f64,
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
    capacities: Option<Vec<BookingCapacityBody>>,
}

/// A vehicle of a booking check.
#[derive(ToSchema)]
pub struct BookingVehicleBody {
    id: i64,
}

/// `POST /booking/availability`.
#[derive(ToSchema)]
pub struct AvailabilityBody {
    date: String,
    order: BookingOrderBody,
    /// Absent: every active vehicle.
    vehicles: Option<Vec<BookingVehicleBody>>,
}

/// `POST /booking/available-dates`.
#[derive(ToSchema)]
pub struct AvailableDatesBody {
    from: String,
    to: String,
    order: BookingOrderBody,
    vehicles: Option<Vec<BookingVehicleBody>>,
}

/// `POST /booking/available-slots` (default 08:00 to 18:00 in 120-minute slots).
#[derive(ToSchema)]
pub struct AvailableSlotsBody {
    date: String,
    order: BookingOrderBody,
    vehicles: Option<Vec<BookingVehicleBody>>,
    /// `HH:mm`.
    from: Option<String>,
    /// `HH:mm`.
    to: Option<String>,
    slot_minutes: Option<i64>,
}

/// `POST /vehicles/{id}/driver-credentials` (optional body; no other properties allowed).
#[derive(ToSchema)]
pub struct CredentialBody {
    name: Option<String>,
}

/// `PUT /depots/{id}`: the depot's name, address and position (absent keeps; no other
/// properties allowed).
#[derive(ToSchema)]
pub struct DepotBody {
    /// 1 to 100 characters, unique within the organisation.
    name: Option<String>,
    /// At most 255 characters. Sent without `lat` and `lng`, it is geocoded and sets the
    /// position (400 GEOCODING_FAILED when it cannot be).
    address: Option<String>,
    /// -90 to 90; sent together with `lng` (both null clear the position).
    lat: Option<f64>,
    /// -180 to 180; sent together with `lat`.
    lng: Option<f64>,
}
