//! The driver API's request bodies as the document describes them. The readers (`wire`,
//! `submission_wire`) take the accepted property names from these schemas
//! (`v2::request_shapes::refuse_undocumented`): every driver body refuses what it does not
//! document, so each is listed in `CLOSED`. `tests/api/request_bodies` walks them on the real
//! router like the `/v2` ones.
#![allow(dead_code)]

use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::ToSchema;

/// The bodies whose `lat` and `lng` go together (both or neither): the document says so with
/// `dependentRequired`.
pub const LAT_LNG_PAIRED: &[&str] = &[
    // The depot's position (`PUT /depots/{id}`).
    "DepotBody",
    "ReportedBody",
    "CompleteStopBody",
    "FailStopBody",
    "PhoneCallBody",
    "SignatureForm",
];

/// `{ time?, lat?, lng? }` of a route or stop action (an empty body is fine). `lat` and `lng`
/// go together.
#[derive(ToSchema)]
pub struct ReportedBody {
    /// When it happened on the device, `YYYY-MM-DDTHH:mm:ss.SSSZ` (default: when received).
    time: Option<String>,
    /// Where the device was.
    lat: Option<f64>,
    /// Where the device was.
    lng: Option<f64>,
}

/// `{ positions }`: 1 to 500 positions of the vehicle.
#[derive(ToSchema)]
pub struct PositionsBody {
    positions: Vec<PositionBody>,
}

/// One reported position.
#[derive(ToSchema)]
pub struct PositionBody {
    lat: f64,
    lng: f64,
    /// `YYYY-MM-DDTHH:mm:ss.SSSZ`.
    time: String,
}

/// Completing a stop, with the outcome of its line items.
#[derive(ToSchema)]
pub struct CompleteStopBody {
    /// `YYYY-MM-DDTHH:mm:ss.SSSZ` (default: when received).
    time: Option<String>,
    lat: Option<f64>,
    lng: Option<f64>,
    notes: Option<String>,
    /// Line items delivered short (the others count as delivered in full).
    line_items: Option<Vec<LineItemOutcomeBody>>,
}

/// What was delivered of one line item.
#[derive(ToSchema)]
pub struct LineItemOutcomeBody {
    /// The line item.
    id: i64,
    delivered_quantity: i64,
    /// Why less was delivered.
    failed_reason: Option<String>,
}

/// Failing a stop.
#[derive(ToSchema)]
pub struct FailStopBody {
    /// Why the visit failed.
    reason: String,
    /// `YYYY-MM-DDTHH:mm:ss.SSSZ` (default: when received).
    time: Option<String>,
    lat: Option<f64>,
    lng: Option<f64>,
    notes: Option<String>,
}

/// `{ notes }`: the stop's notes (empty or null clears them).
#[derive(ToSchema)]
pub struct NotesBody {
    #[schema(required = true)]
    notes: Option<String>,
}

/// A phone call the driver made from the stop.
#[derive(ToSchema)]
pub struct PhoneCallBody {
    /// When the call started, `YYYY-MM-DDTHH:mm:ss.SSSZ` (default: when received).
    initiated_at: Option<String>,
    lat: Option<f64>,
    lng: Option<f64>,
}

/// A filled-in questionnaire, for a stop or a route.
#[derive(ToSchema)]
pub struct SubmissionBody {
    questionnaire_id: i64,
    /// The stop (stop questionnaires).
    stop_id: Option<i64>,
    /// The route (route questionnaires).
    route_id: Option<i64>,
    answers: Vec<AnswerBody>,
}

/// One answer.
#[derive(ToSchema)]
pub struct AnswerBody {
    question_id: u32,
    /// A boolean, a string, or an array of strings (multi-select), as the question's type
    /// asks; null or absent for none.
    #[schema(schema_with = answer_value)]
    value: Option<String>,
    /// Images as base64, optionally as `data:` URLs.
    images: Option<Vec<String>>,
}

/// The value of an answer: boolean, string, array of strings, or null.
fn answer_value() -> impl Into<RefOr<Schema>> {
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Boolean))
        .item(ObjectBuilder::new().schema_type(Type::String))
        .item(ArrayBuilder::new().items(ObjectBuilder::new().schema_type(Type::String)))
        .item(ObjectBuilder::new().schema_type(Type::Null))
}

/// `multipart/form-data` of `POST /driver/stops/{id}/signature`.
#[derive(ToSchema)]
pub struct SignatureForm {
    /// The image (PNG, JPEG or WebP, at most 10 MB).
    #[schema(format = Binary)]
    signature: String,
    /// Who signed: 1 to 255 characters.
    signed_by: String,
    lat: Option<f64>,
    lng: Option<f64>,
}

/// `multipart/form-data` of `POST /driver/stops/{id}/photos`: 1 to 5 fields named `photo`.
#[derive(ToSchema)]
pub struct PhotosForm {
    /// The images (PNG, JPEG or WebP, at most 10 MB each).
    #[schema(format = Binary)]
    photo: Vec<String>,
}
