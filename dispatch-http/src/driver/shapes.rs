//! The driver API's answers as typed shapes: the handlers serialise exactly these, and the
//! OpenAPI document describes them from the same types (the contract check of the HTTP suite
//! holds every driver response to them). Routes and stops are the `/v2` read shapes.

use serde::Serialize;
use utoipa::ToSchema;

use crate::v2::plan_shapes::{PhoneCallWire, RouteWire, StopWire};

/// `GET /driver/me`: `{ driver }`.
#[derive(Serialize, ToSchema)]
pub struct DriverMe {
    /// Who the credential is.
    pub driver: DriverIdentity,
}

/// The caller of the driver API.
#[derive(Serialize, ToSchema)]
pub struct DriverIdentity {
    /// The credential used.
    pub credential_id: i64,
    /// The depot of the vehicle.
    pub depot_id: i64,
    /// The vehicle it drives; null if the vehicle was deleted since.
    #[schema(required = true)]
    pub vehicle: Option<DriverVehicle>,
}

/// `{ id, name }` of the credential's vehicle.
#[derive(Serialize, ToSchema)]
pub struct DriverVehicle {
    /// The vehicle.
    pub id: i64,
    /// Its name.
    pub name: String,
}

/// `GET /driver/day`: the day's dispatched routes of the vehicle.
#[derive(Serialize, ToSchema)]
pub struct DriverDay {
    /// `YYYY-MM-DD`: the `date` asked for, or today in the depot's zone.
    pub date: String,
    /// The routes, as `GET /driver/routes/{id}` shows them.
    pub routes: Vec<RouteWire>,
}

/// `{ stop }`: a stop as route reads show it, with its orders.
#[derive(Serialize, ToSchema)]
pub struct OneStop {
    /// The stop.
    pub stop: StopWire,
}

/// `{ driver_phone_call }`.
#[derive(Serialize, ToSchema)]
pub struct OnePhoneCall {
    /// The call as recorded.
    pub driver_phone_call: PhoneCallWire,
}

/// `POST /driver/routes/{id}/positions`: the route's track after the report and the ETAs it
/// moved.
#[derive(Serialize, ToSchema)]
pub struct PositionsReport {
    /// The track so far.
    pub track: TrackWire,
    /// The re-estimated ETAs of the stops ahead (empty when none could be estimated).
    pub etas: Vec<StopEta>,
}

/// The stored track of a route.
#[derive(Serialize, ToSchema)]
pub struct TrackWire {
    /// Positions stored on the route so far.
    pub positions: usize,
    /// Metres driven along them (the route's `actual_distance`).
    pub actual_distance: i64,
    /// The latest position by time.
    pub latest: TrackPointWire,
}

/// A reported position.
#[derive(Serialize, ToSchema)]
pub struct TrackPointWire {
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lng: f64,
    /// When the device was there, ISO 8601 UTC.
    pub time: String,
}

/// The ETA of one stop.
#[derive(Serialize, ToSchema)]
pub struct StopEta {
    /// The stop.
    pub stop_id: i64,
    /// Its new estimated arrival, ISO 8601 UTC.
    pub eta: String,
    /// Its new estimated service start, ISO 8601 UTC: the arrival, or the opening of the
    /// stop's time window when the driver gets there before it (what the customer is told).
    pub service_start: String,
}

/// `GET /driver/feed`: the changes after the cursor asked for.
#[derive(Serialize, ToSchema)]
pub struct FeedPage {
    /// The changes, oldest first (empty when the wait ran out).
    pub messages: Vec<FeedMessage>,
    /// Send as `after` next time.
    pub cursor: i64,
}

/// One change of a route dispatched to the vehicle (also the `data` of each event of
/// `GET /driver/events`).
#[derive(Serialize, ToSchema)]
pub struct FeedMessage {
    /// Its position in the feed (the resume cursor).
    pub id: i64,
    /// `dispatched`, `edited` or `deleted`.
    #[schema(pattern = "^(dispatched|edited|deleted)$")]
    pub kind: &'static str,
    /// The route.
    pub route_id: i64,
    /// When the change committed, ISO 8601 UTC.
    pub created: String,
    /// The route as it is now; null once it is no longer the driver's.
    #[schema(required = true)]
    pub route: Option<RouteWire>,
}

/// `{ cursor }` of the stream's first event, `ready`.
#[derive(Serialize, ToSchema)]
pub struct FeedReady {
    /// The feed position the stream starts after.
    pub cursor: i64,
}

/// `GET /driver/questionnaires`: the depot's questionnaires.
#[derive(Serialize, ToSchema)]
pub struct DriverQuestionnaires {
    /// Every questionnaire of the depot.
    pub questionnaires: Vec<QuestionnaireWire>,
}

/// A questionnaire the driver may fill in.
#[derive(Serialize, ToSchema)]
pub struct QuestionnaireWire {
    /// Its id (`questionnaire_id` of a submission).
    pub id: i64,
    /// When it is filled in.
    #[serde(rename = "type")]
    #[schema(rename = "type")]
    pub kind: &'static str,
    /// Its title.
    pub title: String,
    /// The questions in order.
    pub questions: Vec<QuestionWire>,
}

/// A question of a questionnaire.
#[derive(Serialize, ToSchema)]
pub struct QuestionWire {
    /// Its id within the questionnaire (`question_id` of an answer).
    pub id: u32,
    /// The answer type.
    #[serde(rename = "type")]
    #[schema(rename = "type")]
    pub kind: &'static str,
    /// The question as the driver reads it.
    pub question: String,
    /// Whether a submission must answer it.
    pub required: bool,
    /// The choices of select questions (empty otherwise).
    pub options: Vec<String>,
}

/// `POST /driver/stops/{id}/signature`: `{ signature }`.
#[derive(Serialize, ToSchema)]
pub struct SignatureUpload {
    /// The stored signature.
    pub signature: SignatureWire,
}

/// A stored signature.
#[derive(Serialize, ToSchema)]
pub struct SignatureWire {
    /// The image id.
    pub id: i64,
    /// The stop signed for.
    pub stop_id: i64,
    /// Absolute URL of its read endpoint (`GET /v2/proof-of-delivery-signatures/{id}`).
    pub url: String,
    /// False while it is still being compressed.
    pub is_compressed: bool,
    /// Who signed.
    pub signed_by: String,
    /// Where, if sent.
    #[schema(required = true)]
    pub signature_lat: Option<f64>,
    /// Where, if sent.
    #[schema(required = true)]
    pub signature_lng: Option<f64>,
}

/// `POST /driver/stops/{id}/photos`: `{ photos }`.
#[derive(Serialize, ToSchema)]
pub struct PhotosUpload {
    /// The stored photos, in upload order.
    pub photos: Vec<PhotoWire>,
}

/// A stored photo.
#[derive(Serialize, ToSchema)]
pub struct PhotoWire {
    /// The image id.
    pub id: i64,
    /// Absolute URL of its read endpoint (`GET /v2/proof-of-delivery-photos/{id}`).
    pub url: String,
    /// False while it is still being compressed.
    pub is_compressed: bool,
}
