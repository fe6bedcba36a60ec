//! Proof-of-delivery reads with a depot key: questionnaire submissions
//! (`GET /driver-questionnaire-submission/{id}`), questionnaire images
//! (`GET /driver-questionnaire-images/{id}`), and our photo and signature endpoints
//! (`GET /proof-of-delivery-photos/{id}`, `GET /proof-of-delivery-signatures/{id}`). Images
//! answer raw WebP by default, JSON with `content_type` and base64 `data` with
//! `?encoding=base64`, and 202 `{id, is_compressed: false}` with `Retry-After` until compressed.

use axum::extract::{Query, State};
use axum::response::Response;
use axum::Json;
use dispatch_core::model::pod::ImageKind;
use dispatch_core::service::pod;
use dispatch_core::service::ServiceError;
use std::collections::HashMap;

use super::pod_render::{
    image_response, render_submission, ImageBase64, ImagePending, OneSubmission,
};
use super::registry::ApiRoutes;
use crate::error::ApiError;
use crate::extract::{Caller, IdPath};
use crate::links::Links;
use crate::AppState;
use utoipa_axum::routes;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        .routes(routes!(read_submission))
        .routes(routes!(read_answer_image))
        .routes(routes!(read_photo))
        .routes(routes!(read_signature))
}

#[utoipa::path(get, path = "/driver-questionnaire-submission/{id}", tag = "proof of delivery", summary = "One driver questionnaire submission with its answers.", params(("id" = i64, Path, description = "The submission id.")), responses((status = 200, description = "`{ driver_questionnaire_submission }`", body = OneSubmission), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn read_submission(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<OneSubmission>, ApiError> {
    let links = Links::of(&state);
    let submission = state
        .blocking(move |s| Ok(pod::get_submission(&*s.store, p.scope(), id)?))
        .await?;
    Ok(Json(OneSubmission {
        driver_questionnaire_submission: render_submission(&submission, &links),
    }))
}

/// `encoding`: absent (raw bytes) or `base64`; anything else is 400 at `encoding`.
fn wants_base64(query: &HashMap<String, String>) -> Result<bool, ApiError> {
    match query.get("encoding").map(String::as_str) {
        None => Ok(false),
        Some("base64") => Ok(true),
        Some(other) => Err(ServiceError::invalid(
            vec!["encoding".into()],
            "base64",
            other,
            "encoding takes the single value base64 (omit it for the raw image)",
        )
        .into()),
    }
}

/// The image answers and proofs: raw WebP by default, JSON with `encoding=base64`; 202 with
/// `Retry-After` while compression has not finished.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct ImageQuery {
    /// Only `base64`: a JSON body instead of the raw image.
    encoding: Option<String>,
}

/// One image endpoint per kind: `#[utoipa::path]` takes its path as a literal, so the three
/// documented handlers (the same read) are stamped out here.
macro_rules! image_endpoint {
    ($name:ident, $path:literal, $summary:literal, $kind:expr) => {
        #[utoipa::path(get, path = $path, tag = "proof of delivery", summary = $summary, params(("id" = i64, Path, description = "The image id."), ImageQuery), responses((status = 200, description = "The image (`image/webp`), or with `encoding=base64` a JSON body.", content((Vec<u8> = "image/webp"), (ImageBase64 = "application/json"))), (status = 202, description = "Still compressing: `{ id, is_compressed: false }`; retry after `Retry-After`.", body = ImagePending, headers(("retry-after" = u64, description = "Seconds."))), (status = 400, description = "INVALID_INPUT: an `encoding` other than base64, or a non-numeric id.", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
        async fn $name(
            state: State<AppState>,
            caller: Caller,
            id: IdPath,
            query: Query<HashMap<String, String>>,
        ) -> Result<Response, ApiError> {
            read_image(state, caller, id, query, $kind).await
        }
    };
}

image_endpoint!(
    read_answer_image,
    "/driver-questionnaire-images/{id}",
    "An image answer of a driver questionnaire.",
    ImageKind::Answer
);
image_endpoint!(
    read_photo,
    "/proof-of-delivery-photos/{id}",
    "A proof-of-delivery photo.",
    ImageKind::Photo
);
image_endpoint!(
    read_signature,
    "/proof-of-delivery-signatures/{id}",
    "A proof-of-delivery signature.",
    ImageKind::Signature
);

async fn read_image(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
    Query(query): Query<HashMap<String, String>>,
    kind: ImageKind,
) -> Result<Response, ApiError> {
    let base64 = wants_base64(&query)?;
    let read = state
        .blocking(move |s| Ok(pod::read_image(&*s.store, p.scope(), id, kind)?))
        .await?;
    Ok(image_response(read, base64))
}
