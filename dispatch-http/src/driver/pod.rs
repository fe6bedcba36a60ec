//! The driver's proof-of-delivery uploads (relative to `/driver`):
//! `GET /questionnaires` (the depot's definitions), `POST /stops/{id}/signature` and
//! `POST /stops/{id}/photos` (multipart), `POST /questionnaire-submissions` (JSON, images as
//! base64). Every image is size- and type-checked and fully decoded before anything is stored
//! (`dispatch_core::service::pod`); stops and routes are the credential vehicle's only.

use axum::extract::multipart::{Field, Multipart, MultipartRejection};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::Json;
use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use dispatch_core::model::driver::Driver;
use dispatch_core::model::pod::{ImageKind, MAX_IMAGE_BYTES, MAX_PHOTOS_PER_UPLOAD};
use dispatch_core::model::questionnaire::Questionnaire;
use dispatch_core::service::pod::{self, SignatureInput};
use dispatch_core::service::ServiceError;
use dispatch_core::time::Timestamp;
use utoipa_axum::routes;

use super::bodies::{PhotosForm, SignatureForm, SubmissionBody};
use super::shapes::{
    DriverQuestionnaires, PhotoWire, PhotosUpload, QuestionWire, QuestionnaireWire,
    SignatureUpload, SignatureWire,
};
use crate::auth::driver::DriverAuth;
use crate::error::ApiError;
use crate::extract::{IdPath, ImageJsonBody};
use crate::links::Links;
use crate::v2::pod_render::{render_submission, OneSubmission};
use crate::v2::registry::ApiRoutes;
use crate::AppState;

/// Multipart framing allowed on top of the files.
const MULTIPART_OVERHEAD: usize = 64 * 1024;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    let one = MAX_IMAGE_BYTES + MULTIPART_OVERHEAD;
    let many = MAX_IMAGE_BYTES * MAX_PHOTOS_PER_UPLOAD + MULTIPART_OVERHEAD;
    let (schemas, paths, signature) = routes!(signature);
    let signature = (schemas, paths, signature.layer(DefaultBodyLimit::max(one)));
    let (schemas, paths, photos) = routes!(photos);
    let photos = (schemas, paths, photos.layer(DefaultBodyLimit::max(many)));
    ApiRoutes::new()
        .routes(routes!(list_questionnaires))
        .routes(signature)
        .routes(photos)
        .routes(routes!(submit))
}

fn render_questionnaire(q: &Questionnaire) -> QuestionnaireWire {
    QuestionnaireWire {
        id: q.id,
        kind: q.def.kind.as_str(),
        title: q.def.title.clone(),
        questions: q
            .def
            .questions
            .iter()
            .map(|x| QuestionWire {
                id: x.id,
                kind: x.kind.as_str(),
                question: x.question.clone(),
                required: x.required,
                options: x.options.clone(),
            })
            .collect(),
    }
}

#[utoipa::path(get, path = "/driver/questionnaires", tag = "driver", summary = "The depot's questionnaires (what a submission answers).", responses((status = 200, description = "`{ questionnaires }`", body = DriverQuestionnaires)))]
async fn list_questionnaires(
    State(state): State<AppState>,
    auth: DriverAuth,
) -> Result<Json<DriverQuestionnaires>, ApiError> {
    let all = state
        .blocking(move |s| Ok(pod::questionnaires(&*s.store, auth.scope())?))
        .await?;
    Ok(Json(DriverQuestionnaires {
        questionnaires: all.iter().map(render_questionnaire).collect(),
    }))
}

/// A refused upload; `received` says what came (a field, a size, a value, "undefined").
fn bad(path: Vec<PathSegment>, expected: &str, received: &str, message: &str) -> ApiError {
    ServiceError::invalid(path, expected, received, message).into()
}

fn multipart_error(e: axum::extract::multipart::MultipartError) -> ApiError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        crate::rejection::body_too_large("the upload limit (10 MB per image)")
    } else {
        bad(
            vec![],
            "multipart/form-data",
            "a malformed multipart body",
            &format!("unreadable multipart body: {e}"),
        )
    }
}

/// Reads a field, refusing more than `limit` bytes while streaming.
async fn read_field(mut field: Field<'_>, name: &str, limit: usize) -> Result<Vec<u8>, ApiError> {
    let mut content = Vec::new();
    while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
        if content.len() + chunk.len() > limit {
            let received = format!("more than {limit} bytes");
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
            let issue = ValidationIssue::new(
                IssueCode::TooBig,
                vec![name.into()],
                expected,
                received,
                message,
            );
            return Err(ServiceError::Invalid(ValidationErrors(vec![issue])).into());
        }
        content.extend_from_slice(&chunk);
    }
    Ok(content)
}

fn text(bytes: Vec<u8>, name: &str) -> Result<String, ApiError> {
    let text = String::from_utf8(bytes).map_err(|e| {
        let received = format!("{} bytes, not UTF-8", e.as_bytes().len());
        bad(vec![name.into()], "UTF-8 text", &received, "not UTF-8 text")
    })?;
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
                raw,
                &format!("{name} must be a number"),
            )
        })
}

fn multipart_body(m: Result<Multipart, MultipartRejection>) -> Result<Multipart, ApiError> {
    m.map_err(|e| {
        bad(
            vec![],
            "multipart/form-data",
            "a body that is not multipart/form-data",
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
    state.uploads.notify();
    Ok(stored)
}

/// `POST /driver/stops/{id}/signature`: fields `signature` (the image), `signed_by`, and
/// optionally `lat` and `lng`.
#[utoipa::path(post, path = "/driver/stops/{id}/signature", tag = "driver", summary = "Upload the signature for a stop.", params(("id" = i64, Path, description = "The stop id.")), request_body(content = SignatureForm, content_type = "multipart/form-data"), responses((status = 200, description = "`{ signature }`", body = SignatureUpload), (status = 400, description = "INVALID_INPUT at the field's path: an unknown field, an image too large, of an unknown type or undecodable (`too_big` over the limits).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: not a stop (or route) of a dispatched route of the credential's vehicle; nothing is stored.", body = crate::error::Envelope)))]
async fn signature(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(stop_id): IdPath,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Json<SignatureUpload>, ApiError> {
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
                    &format!("a field `{name}` (unknown, or sent again)"),
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
                "undefined",
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
        pod::add_signature(&*s.store, &*s.images, driver, stop_id, &input, now)
    })
    .await?;
    Ok(Json(SignatureUpload {
        signature: SignatureWire {
            id: meta.id,
            stop_id: sig.stop_id,
            url: links.image(ImageKind::Signature, meta.id),
            is_compressed: meta.is_ready(),
            signed_by: sig.signed_by,
            signature_lat: sig.lat,
            signature_lng: sig.lng,
        },
    }))
}

/// `POST /driver/stops/{id}/photos`: 1 to 5 files in fields named `photo`.
#[utoipa::path(post, path = "/driver/stops/{id}/photos", tag = "driver", summary = "Upload 1 to 5 photos for a stop.", params(("id" = i64, Path, description = "The stop id.")), request_body(content = PhotosForm, content_type = "multipart/form-data"), responses((status = 200, description = "`{ photos }`", body = PhotosUpload), (status = 400, description = "INVALID_INPUT at the field's path: an unknown field, an image too large, of an unknown type or undecodable (`too_big` over the limits).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: not a stop (or route) of a dispatched route of the credential's vehicle; nothing is stored.", body = crate::error::Envelope)))]
async fn photos(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(stop_id): IdPath,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Json<PhotosUpload>, ApiError> {
    let mut multipart = multipart_body(multipart)?;
    let mut files = Vec::new();
    while let Some(field) = multipart.next_field().await.map_err(multipart_error)? {
        if field.name() != Some("photo") {
            let name = field.name().unwrap_or_default();
            return Err(bad(
                vec![name.into()],
                "fields named photo",
                &format!("a field `{name}`"),
                "the only accepted field is photo",
            ));
        }
        if files.len() == MAX_PHOTOS_PER_UPLOAD {
            return Err(bad(
                vec!["photo".into()],
                "1 to 5 photos",
                "a sixth photo",
                "at most 5 photos per request",
            ));
        }
        files.push(read_field(field, "photo", MAX_IMAGE_BYTES).await?);
    }
    let links = Links::of(&state);
    let metas = store_upload(&state, auth, move |s, driver, now| {
        pod::add_photos(&*s.store, &*s.images, driver, stop_id, &files, now)
    })
    .await?;
    Ok(Json(PhotosUpload {
        photos: metas
            .iter()
            .map(|m| PhotoWire {
                id: m.id,
                url: links.image(ImageKind::Photo, m.id),
                is_compressed: m.is_ready(),
            })
            .collect(),
    }))
}

/// `POST /driver/questionnaire-submissions`.
#[utoipa::path(post, path = "/driver/questionnaire-submissions", tag = "driver", summary = "Submit a filled-in questionnaire for a stop or a route, images as base64.", request_body(content = SubmissionBody), responses((status = 201, description = "`{ driver_questionnaire_submission }`, as the depot reads it.", body = OneSubmission), (status = 400, description = "INVALID_INPUT at the field's path: an unknown field, an image too large, of an unknown type or undecodable (`too_big` over the limits).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: not a stop (or route) of a dispatched route of the credential's vehicle; nothing is stored.", body = crate::error::Envelope)))]
async fn submit(
    State(state): State<AppState>,
    auth: DriverAuth,
    ImageJsonBody(body): ImageJsonBody,
) -> Result<(StatusCode, Json<OneSubmission>), ApiError> {
    let input = super::submission_wire::read_submission(&body)?;
    let links = Links::of(&state);
    let submission = store_upload(&state, auth, move |s, driver, now| {
        pod::submit(&*s.store, &*s.images, driver, &input, now)
    })
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(OneSubmission {
            driver_questionnaire_submission: render_submission(&submission, &links),
        }),
    ))
}
