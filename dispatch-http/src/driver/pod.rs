//! The driver's proof-of-delivery uploads (relative to `/driver`):
//! `GET /questionnaires` (the depot's definitions), `POST /stops/{id}/signature` and
//! `POST /stops/{id}/photos` (multipart), `POST /questionnaire-submissions` (JSON, images as
//! base64). Every image is size- and type-checked and fully decoded before anything is stored
//! (`dispatch_core::service::pod`); stops and routes are the credential vehicle's only.

use axum::extract::multipart::{Field, Multipart, MultipartRejection};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use dispatch_core::model::driver::Driver;
use dispatch_core::model::pod::{ImageKind, MAX_IMAGE_BYTES, MAX_PHOTOS_PER_UPLOAD};
use dispatch_core::model::questionnaire::Questionnaire;
use dispatch_core::service::pod::{self, SignatureInput};
use dispatch_core::service::ServiceError;
use dispatch_core::time::Timestamp;
use serde_json::{json, Value};

use super::auth::DriverAuth;
use crate::error::ApiError;
use crate::extract::{IdPath, ImageJsonBody};
use crate::links::Links;
use crate::runtime::images::{self, Codec};
use crate::v2::pod_render::render_submission;
use crate::AppState;

/// Multipart framing allowed on top of the files.
const MULTIPART_OVERHEAD: usize = 64 * 1024;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    let one = MAX_IMAGE_BYTES + MULTIPART_OVERHEAD;
    let many = MAX_IMAGE_BYTES * MAX_PHOTOS_PER_UPLOAD + MULTIPART_OVERHEAD;
    Router::new()
        .route("/questionnaires", get(list_questionnaires))
        .route(
            "/stops/{id}/signature",
            post(signature).layer(DefaultBodyLimit::max(one)),
        )
        .route(
            "/stops/{id}/photos",
            post(photos).layer(DefaultBodyLimit::max(many)),
        )
        .route("/questionnaire-submissions", post(submit))
}

fn render_questionnaire(q: &Questionnaire) -> Value {
    json!({
        "id": q.id,
        "type": q.def.kind.as_str(),
        "title": q.def.title,
        "questions": q.def.questions.iter().map(|x| json!({
            "id": x.id, "type": x.kind.as_str(), "question": x.question,
            "required": x.required, "options": x.options,
        })).collect::<Vec<_>>(),
    })
}

async fn list_questionnaires(
    State(state): State<AppState>,
    auth: DriverAuth,
) -> Result<Json<Value>, ApiError> {
    let all = state
        .blocking(move |s| Ok(pod::questionnaires(&*s.store, auth.scope())?))
        .await?;
    Ok(Json(
        json!({ "questionnaires": all.iter().map(render_questionnaire).collect::<Vec<_>>() }),
    ))
}

fn bad(path: Vec<PathSegment>, expected: &str, message: &str) -> ApiError {
    ServiceError::invalid(path, expected, "", message).into()
}

fn multipart_error(e: axum::extract::multipart::MultipartError) -> ApiError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        crate::rejection::body_too_large("the upload limit (10 MB per image)")
    } else {
        bad(
            vec![],
            "multipart/form-data",
            &format!("unreadable multipart body: {e}"),
        )
    }
}

/// Reads a field, refusing more than `limit` bytes while streaming.
async fn read_field(mut field: Field<'_>, name: &str, limit: usize) -> Result<Vec<u8>, ApiError> {
    let mut content = Vec::new();
    while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
        if content.len() + chunk.len() > limit {
            let (expected, message) = if limit == MAX_IMAGE_BYTES {
                (
                    "at most 10 MB".to_owned(),
                    "the image is larger than 10 MB".to_owned(),
                )
            } else {
                (
                    format!("at most {limit} bytes"),
                    format!("the field {name} is longer than {limit} bytes"),
                )
            };
            return Err(bad(vec![name.into()], &expected, &message));
        }
        content.extend_from_slice(&chunk);
    }
    Ok(content)
}

fn text(bytes: Vec<u8>, name: &str) -> Result<String, ApiError> {
    let text = String::from_utf8(bytes)
        .map_err(|_| bad(vec![name.into()], "UTF-8 text", "not UTF-8 text"))?;
    if text.contains('\0') {
        return Err(crate::extract::no_nul::refused(vec![name.into()]));
    }
    Ok(text)
}

fn coordinate(raw: &str, name: &str) -> Result<f64, ApiError> {
    raw.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            bad(
                vec![name.into()],
                "a number",
                &format!("{name} must be a number"),
            )
        })
}

fn multipart_body(m: Result<Multipart, MultipartRejection>) -> Result<Multipart, ApiError> {
    m.map_err(|e| {
        bad(
            vec![],
            "multipart/form-data",
            &format!("the body must be multipart/form-data: {e}"),
        )
    })
}

/// Runs an upload use case of the driver on a blocking thread, then wakes the compression
/// worker for the images it stored.
async fn store_upload<T: Send + 'static>(
    state: &AppState,
    auth: DriverAuth,
    upload: impl FnOnce(&AppState, &Driver, Timestamp) -> Result<T, ServiceError> + Send + 'static,
) -> Result<T, ApiError> {
    let driver = auth.driver();
    let stored = state
        .blocking(move |s| Ok(upload(s, &driver, s.clock.now())?))
        .await?;
    images::wake();
    Ok(stored)
}

/// `POST /driver/stops/{id}/signature`: fields `signature` (the image), `signed_by`, and
/// optionally `lat` and `lng`.
async fn signature(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(stop_id): IdPath,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Json<Value>, ApiError> {
    let mut multipart = multipart_body(multipart)?;
    let (mut image, mut signed_by, mut lat, mut lng) = (None, None, None, None);
    while let Some(field) = multipart.next_field().await.map_err(multipart_error)? {
        let name = field.name().unwrap_or_default().to_owned();
        match name.as_str() {
            "signature" if image.is_none() => {
                image = Some(read_field(field, "signature", MAX_IMAGE_BYTES).await?)
            }
            "signed_by" if signed_by.is_none() => {
                signed_by = Some(text(read_field(field, &name, 1024).await?, &name)?)
            }
            "lat" if lat.is_none() => {
                lat = Some(coordinate(
                    &text(read_field(field, &name, 64).await?, &name)?,
                    &name,
                )?)
            }
            "lng" if lng.is_none() => {
                lng = Some(coordinate(
                    &text(read_field(field, &name, 64).await?, &name)?,
                    &name,
                )?)
            }
            _ => {
                return Err(bad(
                    vec![name.as_str().into()],
                    "the fields signature, signed_by, lat, lng",
                    "unknown or repeated field",
                ))
            }
        }
    }
    let image = image.ok_or_else(|| {
        ApiError::from(ServiceError::Invalid(ValidationErrors(vec![
            ValidationIssue::new(
                IssueCode::Required,
                vec!["signature".into()],
                "an image file",
                "",
                "the field signature (the signature image) is required",
            ),
        ])))
    })?;
    let input = SignatureInput {
        signed_by: signed_by.unwrap_or_default(),
        lat,
        lng,
        image,
    };
    let links = Links::of(&state);
    let (sig, meta) = store_upload(&state, auth, move |s, driver, now| {
        pod::add_signature(&*s.store, &Codec, driver, stop_id, &input, now)
    })
    .await?;
    Ok(Json(json!({"signature": {
        "id": meta.id,
        "stop_id": sig.stop_id,
        "url": links.image(ImageKind::Signature, meta.id),
        "is_compressed": meta.is_ready(),
        "signed_by": sig.signed_by,
        "signature_lat": sig.lat,
        "signature_lng": sig.lng,
    }})))
}

/// `POST /driver/stops/{id}/photos`: 1 to 5 files in fields named `photo`.
async fn photos(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(stop_id): IdPath,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Json<Value>, ApiError> {
    let mut multipart = multipart_body(multipart)?;
    let mut files = Vec::new();
    while let Some(field) = multipart.next_field().await.map_err(multipart_error)? {
        if field.name() != Some("photo") {
            return Err(bad(
                vec!["photo".into()],
                "fields named photo",
                "the only accepted field is photo",
            ));
        }
        if files.len() == MAX_PHOTOS_PER_UPLOAD {
            return Err(bad(
                vec!["photo".into()],
                "1 to 5 photos",
                "at most 5 photos per request",
            ));
        }
        files.push(read_field(field, "photo", MAX_IMAGE_BYTES).await?);
    }
    let links = Links::of(&state);
    let metas = store_upload(&state, auth, move |s, driver, now| {
        pod::add_photos(&*s.store, &Codec, driver, stop_id, &files, now)
    })
    .await?;
    Ok(Json(json!({"photos": metas.iter().map(|m| json!({
        "id": m.id,
        "url": links.image(ImageKind::Photo, m.id),
        "is_compressed": m.is_ready(),
    })).collect::<Vec<_>>()})))
}

/// `POST /driver/questionnaire-submissions`.
async fn submit(
    State(state): State<AppState>,
    auth: DriverAuth,
    ImageJsonBody(body): ImageJsonBody,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let input = super::submission_wire::read_submission(&body)?;
    let links = Links::of(&state);
    let submission = store_upload(&state, auth, move |s, driver, now| {
        pod::submit(&*s.store, &Codec, driver, &input, now)
    })
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "driver_questionnaire_submission": render_submission(&submission, &links) })),
    ))
}
