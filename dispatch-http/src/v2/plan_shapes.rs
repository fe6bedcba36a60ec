//! The typed read shapes of plans, routes and stops (built by `plan_render` and `pod_render`).
//! Units as `plan_render` says: seconds, metres, `HH:mm` in the depot's zone, ISO 8601 UTC.

use serde::Serialize;
use utoipa::ToSchema;

use super::plans::OptimisationWire;
use super::shapes::{CustomFieldEntry, Num};

/// `{ vehicle_id }` of the stop's first order.
#[derive(Serialize, ToSchema)]
pub struct VehicleAssignment {
    /// The vehicle.
    pub vehicle_id: i64,
}

/// A driving instruction (none are computed: the list is empty).
#[derive(Serialize, ToSchema)]
pub struct Direction {
    /// The instruction.
    pub instruction: String,
}

/// Why a visit failed.
#[derive(Serialize, ToSchema)]
pub struct FailedReason {
    /// As the driver gave it.
    pub reason: String,
}

/// `{ email }`.
#[derive(Serialize, ToSchema)]
pub struct EmailEntry {
    /// The address.
    pub email: String,
}

/// A phone call the driver recorded; lat and lng null without a position.
#[derive(Serialize, ToSchema)]
pub struct PhoneCallWire {
    /// When the driver started the call.
    pub initiated_at: String,
    /// When it was recorded.
    pub recorded_at: String,
    /// Where, if known.
    #[schema(required = true)]
    pub lat: Option<f64>,
    /// Where, if known.
    #[schema(required = true)]
    pub lng: Option<f64>,
}

/// The route a stop is on.
#[derive(Serialize, ToSchema)]
pub struct StopRoute {
    /// The route id.
    pub id: i64,
    /// Its date.
    pub date: String,
    /// When the driver started it.
    #[schema(required = true)]
    pub started_ts: Option<String>,
}

/// A proof-of-delivery image on a stop read.
#[derive(Serialize, ToSchema)]
pub struct ImageWire {
    /// The image id.
    pub id: i64,
    /// Absolute URL of its read endpoint.
    pub url: String,
    /// False while it is still being compressed.
    pub is_compressed: bool,
    /// When it was uploaded.
    pub created: String,
    /// The signature's signer (signatures only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signed_by: Option<String>,
}

/// `{type, title}` of a questionnaire.
#[derive(Serialize, ToSchema)]
pub struct QuestionnaireRef {
    /// `ROUTE_VEHICLE_CHECKIN` or `VISIT`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Its title.
    pub title: String,
}

/// `{id, driver_questionnaire: {type, title}}` of a submission.
#[derive(Serialize, ToSchema)]
pub struct SubmissionRefWire {
    /// The submission id.
    pub id: i64,
    /// Its questionnaire.
    pub driver_questionnaire: QuestionnaireRef,
}

/// A line item of an order served by a stop.
#[derive(Serialize, ToSchema)]
pub struct StopLineItem {
    /// The line item.
    pub id: i64,
    /// Product code.
    pub product_code: String,
    /// Product name.
    pub product_name: String,
    /// Ordered quantity, or with partial orders the quantity delivered on this stop.
    pub quantity: i64,
    /// Its status.
    pub status: String,
    /// Its date.
    #[schema(required = true)]
    pub date: Option<String>,
    /// Its custom-field values.
    pub custom_fields: Vec<CustomFieldEntry>,
    /// Once the stop has an outcome: the quantity delivered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivered_quantity: Option<i64>,
    /// Once the stop has an outcome: why items were not delivered (null when all were).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_reason: Option<Option<String>>,
}

/// An order served by a stop.
#[derive(Serialize, ToSchema)]
pub struct StopOrder {
    /// The order id.
    pub id: i64,
    /// Its number.
    pub order_number: String,
    /// `delivery`, `pickup` or `shipment`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Its line items on this stop.
    pub line_items: Vec<StopLineItem>,
}

/// A stop (on order, route and plan reads; `orders` on route and plan reads only).
#[derive(Serialize, ToSchema)]
pub struct StopWire {
    pub id: i64,
    pub route_id: i64,
    /// `delivery` or `pickup`.
    #[serde(rename = "type")]
    pub side: &'static str,
    #[schema(required = true)]
    pub address: Option<String>,
    #[schema(required = true)]
    pub postcode: Option<String>,
    #[schema(required = true)]
    pub phone: Option<String>,
    #[schema(required = true)]
    pub lat: Option<f64>,
    #[schema(required = true)]
    pub lng: Option<f64>,
    /// Metres from the previous point.
    pub planned_distance: i64,
    pub arrival_date: String,
    pub departure_date: String,
    /// `HH:mm`.
    pub estimated_arrival_time: String,
    /// `HH:mm`.
    pub estimated_departure_time: String,
    /// The live ETA on a dispatched route, once computed.
    #[schema(required = true)]
    pub eta: Option<String>,
    /// Without milliseconds or zone suffix.
    #[schema(required = true)]
    pub actual_completed_ts: Option<String>,
    /// Without milliseconds or zone suffix.
    #[schema(required = true)]
    pub actual_arrival_time: Option<String>,
    #[schema(required = true)]
    pub actual_completed_lat: Option<f64>,
    #[schema(required = true)]
    pub actual_completed_lng: Option<f64>,
    /// Seconds from arrival to completion.
    #[schema(required = true)]
    pub actual_duration: Option<i64>,
    #[schema(required = true)]
    pub delivery_notes: Option<String>,
    #[schema(required = true)]
    pub driver_notes: Option<String>,
    #[schema(required = true)]
    pub vehicle_assignment: Option<VehicleAssignment>,
    pub directions: Vec<Direction>,
    #[schema(required = true)]
    pub failed_reason: Option<FailedReason>,
    pub tags: Vec<String>,
    pub available_days: Vec<&'static str>,
    pub custom_fields: Vec<CustomFieldEntry>,
    pub emails: Vec<EmailEntry>,
    pub driver_phone_calls: Vec<PhoneCallWire>,
    pub route: StopRoute,
    #[schema(required = true)]
    pub signature_lat: Option<f64>,
    #[schema(required = true)]
    pub signature_lng: Option<f64>,
    #[schema(required = true)]
    pub signed_by: Option<String>,
    #[schema(required = true)]
    pub signature: Option<ImageWire>,
    #[schema(required = true)]
    pub tracking_link: Option<String>,
    /// Null until the stop has a photo; then every photo, those still compressing included.
    #[schema(required = true)]
    pub photos: Option<Vec<ImageWire>>,
    pub driver_questionnaire_submissions: Vec<SubmissionRefWire>,
    /// The served orders (route and plan reads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orders: Option<Vec<StopOrder>>,
    /// The time windows of the stop's end of its orders (`HH:mm`, depot time); on the driver's
    /// reads only, where the driver has no order read to find them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_windows: Option<Vec<crate::v2::order_shapes::TimeWindowWire>>,
}

/// The vehicle of a route (`vehicle_id` as a string, as the spec shows it).
#[derive(Serialize, ToSchema)]
pub struct RouteVehicle {
    pub vehicle_id: String,
    pub name: String,
    /// Always null: drivers are credentials of the vehicle.
    #[schema(required = true, value_type = Option<String>)]
    pub driver: Option<String>,
}

/// What every route read shows of a route, whole or summarised.
#[derive(Serialize, ToSchema)]
pub struct RouteHead {
    pub id: i64,
    pub plan_id: i64,
    pub name: String,
    pub dispatched: bool,
    /// Stored, not enforced.
    pub is_locked: bool,
    pub date: String,
    /// `HH:mm`: departure from the start point.
    pub start_time: String,
    #[schema(required = true)]
    pub started_ts: Option<String>,
    /// `HH:mm`: arrival at the end point.
    pub end_time: String,
    #[schema(required = true)]
    pub completed_ts: Option<String>,
    /// Seconds.
    pub total_time: i64,
    /// Seconds.
    pub travel_time: i64,
    /// Metres.
    pub planned_distance: i64,
    /// Metres driven, from the driver's positions.
    #[schema(required = true)]
    pub actual_distance: Option<i64>,
    pub created: String,
    pub updated: String,
}

/// A full route.
#[derive(Serialize, ToSchema)]
pub struct RouteWire {
    #[serde(flatten)]
    #[schema(inline)]
    pub head: RouteHead,
    pub solution_id: i64,
    #[schema(required = true)]
    pub vehicle: Option<RouteVehicle>,
    /// Absent on `PUT /routes/{id}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stops: Option<Vec<StopWire>>,
    pub driver_questionnaire_submissions: Vec<SubmissionRefWire>,
}

/// A route in `GET /routes`.
#[derive(Serialize, ToSchema)]
pub struct RouteSummaryWire {
    #[serde(flatten)]
    #[schema(inline)]
    pub head: RouteHead,
    /// The stop count.
    pub stops: u32,
}

/// An order the optimiser could not place, with why.
#[derive(Serialize, ToSchema)]
pub struct UnservedWire {
    /// The order id.
    pub id: i64,
    #[schema(required = true)]
    pub address: Option<String>,
    #[schema(required = true)]
    pub postcode: Option<String>,
    #[schema(required = true)]
    pub phone: Option<String>,
    #[schema(required = true)]
    pub lat: Option<Num>,
    #[schema(required = true)]
    pub lng: Option<Num>,
    #[schema(required = true)]
    pub delivery_notes: Option<String>,
    pub available_days: Vec<&'static str>,
    /// A code, see docs/api.md.
    pub reason: String,
    pub reason_description: String,
}

/// A full plan.
#[derive(Serialize, ToSchema)]
pub struct PlanWire {
    pub id: i64,
    pub dispatched: bool,
    pub date: String,
    /// The active optimisation result.
    #[schema(required = true)]
    pub solution_id: Option<i64>,
    /// The latest optimisation job.
    #[schema(required = true)]
    pub optimisation: Option<OptimisationWire>,
    /// Seconds, over its routes.
    pub total_time: i64,
    pub routes: Vec<RouteWire>,
    pub unserved: Vec<UnservedWire>,
    pub created: String,
    pub updated: String,
    pub driver_questionnaire_submissions: Vec<SubmissionRefWire>,
}

/// A route of a plan summary (durations as strings of seconds).
#[derive(Serialize, ToSchema)]
pub struct PlanRouteSummary {
    pub id: i64,
    pub name: String,
    pub stops: u32,
    pub dispatched: bool,
    pub is_locked: bool,
    #[schema(required = true)]
    pub started_ts: Option<String>,
    #[schema(required = true)]
    pub completed_ts: Option<String>,
    pub total_time: String,
    pub travel_time: String,
    pub operation_time: String,
    pub date: String,
    /// Metres.
    pub distance: i64,
    #[schema(required = true)]
    pub actual_distance: Option<i64>,
    pub created: String,
    pub updated: String,
}

/// A plan in `GET /plans`; one without an optimisation result has only `id`, `total_time` 0 and
/// empty `routes`.
#[derive(Serialize, ToSchema)]
pub struct PlanSummaryWire {
    pub id: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatched: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    pub total_time: i64,
    pub routes: Vec<PlanRouteSummary>,
}

/// `{ plan }`.
#[derive(Serialize, ToSchema)]
pub struct OnePlan {
    pub plan: PlanWire,
}

/// `{ plans }`.
#[derive(Serialize, ToSchema)]
pub struct Plans {
    pub plans: Vec<PlanSummaryWire>,
}

/// `{ route }`.
#[derive(Serialize, ToSchema)]
pub struct OneRoute {
    pub route: RouteWire,
}

/// `{ routes }`.
#[derive(Serialize, ToSchema)]
pub struct Routes {
    pub routes: Vec<RouteSummaryWire>,
}
