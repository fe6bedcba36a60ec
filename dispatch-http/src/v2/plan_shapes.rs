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
    /// The stop id.
    pub id: i64,
    /// The route it is on.
    pub route_id: i64,
    /// `delivery` or `pickup`.
    #[serde(rename = "type")]
    pub side: &'static str,
    /// Address of the visit.
    #[schema(required = true)]
    pub address: Option<String>,
    /// Postcode of the visit.
    #[schema(required = true)]
    pub postcode: Option<String>,
    /// Contact phone number.
    #[schema(required = true)]
    pub phone: Option<String>,
    /// Latitude of the visit.
    #[schema(required = true)]
    pub lat: Option<f64>,
    /// Longitude of the visit.
    #[schema(required = true)]
    pub lng: Option<f64>,
    /// Metres from the previous point.
    pub planned_distance: i64,
    /// Planned arrival day.
    pub arrival_date: String,
    /// Planned departure day.
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
    /// Where the driver completed it, if known.
    #[schema(required = true)]
    pub actual_completed_lat: Option<f64>,
    /// Where the driver completed it, if known.
    #[schema(required = true)]
    pub actual_completed_lng: Option<f64>,
    /// Seconds from arrival to completion.
    #[schema(required = true)]
    pub actual_duration: Option<i64>,
    /// Notes for the driver.
    #[schema(required = true)]
    pub delivery_notes: Option<String>,
    /// Notes the driver left.
    #[schema(required = true)]
    pub driver_notes: Option<String>,
    /// The vehicle of its first order, if assigned.
    #[schema(required = true)]
    pub vehicle_assignment: Option<VehicleAssignment>,
    /// Driving instructions (none are computed).
    pub directions: Vec<Direction>,
    /// Why the visit failed, if it did.
    #[schema(required = true)]
    pub failed_reason: Option<FailedReason>,
    /// Tags of its first order.
    pub tags: Vec<String>,
    /// Weekdays the visit may take place.
    pub available_days: Vec<&'static str>,
    /// Custom field values of its first order.
    pub custom_fields: Vec<CustomFieldEntry>,
    /// E-mail addresses of its first order.
    pub emails: Vec<EmailEntry>,
    /// Phone calls the driver recorded at this stop.
    pub driver_phone_calls: Vec<PhoneCallWire>,
    /// The route it is on.
    pub route: StopRoute,
    /// Where the signature was taken, if known.
    #[schema(required = true)]
    pub signature_lat: Option<f64>,
    /// Where the signature was taken, if known.
    #[schema(required = true)]
    pub signature_lng: Option<f64>,
    /// Who signed, if anyone.
    #[schema(required = true)]
    pub signed_by: Option<String>,
    /// The signature image, if any.
    #[schema(required = true)]
    pub signature: Option<ImageWire>,
    /// The customer tracking page, once the route is dispatched.
    #[schema(required = true)]
    pub tracking_link: Option<String>,
    /// Null until the stop has a photo; then every photo, those still compressing included.
    #[schema(required = true)]
    pub photos: Option<Vec<ImageWire>>,
    /// Questionnaires the driver submitted here.
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
    /// The vehicle id, as a string.
    pub vehicle_id: String,
    /// The vehicle name.
    pub name: String,
    /// Always null: drivers are credentials of the vehicle.
    #[schema(required = true, value_type = Option<String>)]
    pub driver: Option<String>,
}

/// What every route read shows of a route, whole or summarised.
#[derive(Serialize, ToSchema)]
pub struct RouteHead {
    /// The route id.
    pub id: i64,
    /// The plan it belongs to.
    pub plan_id: i64,
    /// The route name (its vehicle's).
    pub name: String,
    /// Whether it was dispatched to its driver.
    pub dispatched: bool,
    /// Stored, not enforced.
    pub is_locked: bool,
    /// The day it runs.
    pub date: String,
    /// `HH:mm`: departure from the start point.
    pub start_time: String,
    /// When the driver started it, if they did.
    #[schema(required = true)]
    pub started_ts: Option<String>,
    /// `HH:mm`: arrival at the end point.
    pub end_time: String,
    /// When the driver completed it, if they did.
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
    /// When it was created (ISO 8601, UTC).
    pub created: String,
    /// When it last changed (ISO 8601, UTC).
    pub updated: String,
}

/// A full route.
#[derive(Serialize, ToSchema)]
pub struct RouteWire {
    // A doc comment here would become a description that wraps the flattened schema; the
    // fields are documented on `RouteHead`.
    #[allow(missing_docs)]
    #[serde(flatten)]
    #[schema(inline)]
    pub head: RouteHead,
    /// The solution the route belongs to.
    pub solution_id: i64,
    /// Its vehicle.
    #[schema(required = true)]
    pub vehicle: Option<RouteVehicle>,
    /// Absent on `PUT /routes/{id}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stops: Option<Vec<StopWire>>,
    /// Questionnaires submitted on the route.
    pub driver_questionnaire_submissions: Vec<SubmissionRefWire>,
}

/// A route in `GET /routes`.
#[derive(Serialize, ToSchema)]
pub struct RouteSummaryWire {
    // A doc comment here would become a description that wraps the flattened schema; the
    // fields are documented on `RouteHead`.
    #[allow(missing_docs)]
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
    /// Address of the order.
    #[schema(required = true)]
    pub address: Option<String>,
    /// Postcode of the order.
    #[schema(required = true)]
    pub postcode: Option<String>,
    /// Contact phone number.
    #[schema(required = true)]
    pub phone: Option<String>,
    /// Latitude of the order.
    #[schema(required = true)]
    pub lat: Option<Num>,
    /// Longitude of the order.
    #[schema(required = true)]
    pub lng: Option<Num>,
    /// Notes of the order.
    #[schema(required = true)]
    pub delivery_notes: Option<String>,
    /// Weekdays the order may be served.
    pub available_days: Vec<&'static str>,
    /// A code, see docs/api.md.
    pub reason: String,
    /// The reason in a sentence.
    pub reason_description: String,
}

/// A full plan.
#[derive(Serialize, ToSchema)]
pub struct PlanWire {
    /// The plan id.
    pub id: i64,
    /// Whether every route of the plan was dispatched.
    pub dispatched: bool,
    /// The day the plan is for.
    pub date: String,
    /// The active optimisation result.
    #[schema(required = true)]
    pub solution_id: Option<i64>,
    /// The latest optimisation job.
    #[schema(required = true)]
    pub optimisation: Option<OptimisationWire>,
    /// Seconds, over its routes.
    pub total_time: i64,
    /// Its routes with their stops.
    pub routes: Vec<RouteWire>,
    /// Orders the optimiser could not place, with the reason.
    pub unserved: Vec<UnservedWire>,
    /// When it was created (ISO 8601, UTC).
    pub created: String,
    /// When it last changed (ISO 8601, UTC).
    pub updated: String,
    /// Questionnaires submitted on its routes.
    pub driver_questionnaire_submissions: Vec<SubmissionRefWire>,
}

/// A route of a plan summary (durations as strings of seconds).
#[derive(Serialize, ToSchema)]
pub struct PlanRouteSummary {
    /// The route id.
    pub id: i64,
    /// The route name.
    pub name: String,
    /// How many stops it has.
    pub stops: u32,
    /// Whether it was dispatched.
    pub dispatched: bool,
    /// Whether re-optimisation leaves it as it is.
    pub is_locked: bool,
    /// When the driver started it, if they did.
    #[schema(required = true)]
    pub started_ts: Option<String>,
    /// When the driver completed it, if they did.
    #[schema(required = true)]
    pub completed_ts: Option<String>,
    /// Total time in seconds, as a string.
    pub total_time: String,
    /// Driving time in seconds, as a string.
    pub travel_time: String,
    /// Service time in seconds, as a string.
    pub operation_time: String,
    /// The day it runs.
    pub date: String,
    /// Metres.
    pub distance: i64,
    /// Metres the driver drove, once known.
    #[schema(required = true)]
    pub actual_distance: Option<i64>,
    /// When it was created (ISO 8601, UTC).
    pub created: String,
    /// When it last changed (ISO 8601, UTC).
    pub updated: String,
}

/// A plan in `GET /plans`; one without an optimisation result has only `id`, `total_time` 0 and
/// empty `routes`.
#[derive(Serialize, ToSchema)]
pub struct PlanSummaryWire {
    /// The plan id.
    pub id: i64,
    /// Whether every route of the plan was dispatched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatched: Option<bool>,
    /// When it was created (ISO 8601, UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// When it last changed (ISO 8601, UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// Total time of its routes in seconds.
    pub total_time: i64,
    /// Its routes, summarised.
    pub routes: Vec<PlanRouteSummary>,
}

/// `{ plan }`.
#[derive(Serialize, ToSchema)]
pub struct OnePlan {
    /// The plan.
    pub plan: PlanWire,
}

/// `{ plans }`.
#[derive(Serialize, ToSchema)]
pub struct Plans {
    /// One page of plans, most recently updated first.
    pub plans: Vec<PlanSummaryWire>,
}

/// `{ route }`.
#[derive(Serialize, ToSchema)]
pub struct OneRoute {
    /// The route.
    pub route: RouteWire,
}

/// `{ routes }`.
#[derive(Serialize, ToSchema)]
pub struct Routes {
    /// One page of routes, most recently updated first.
    pub routes: Vec<RouteSummaryWire>,
}
