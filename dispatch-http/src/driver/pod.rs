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
use base64::Engine;
use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use dispatch_core::model::pod::{ImageKind, MAX_IMAGE_BYTES, MAX_PHOTOS_PER_UPLOAD};
use dispatch_core::model::questionnaire::{AnswerInput, AnswerValue, Questionnaire};
use dispatch_core::service::pod::{self, SignatureInput, SubmissionInput};
use dispatch_core::service::ServiceError;
use serde_json::{json, Value};

use super::auth::DriverAuth;
use crate::error::ApiError;
use crate::extract::{IdPath, JsonBody};
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
            return Err(bad(
                vec![name.into()],
                "at most 10 MB",
                "the image is larger than 10 MB",
            ));
        }
        content.extend_from_slice(&chunk);
    }
    Ok(content)
}

fn text(bytes: Vec<u8>, name: &str) -> Result<String, ApiError> {
    String::from_utf8(bytes).map_err(|_| bad(vec![name.into()], "UTF-8 text", "not UTF-8 text"))
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
            "signed_by" => signed_by = Some(text(read_field(field, &name, 1024).await?, &name)?),
            "lat" => {
                lat = Some(coordinate(
                    &text(read_field(field, &name, 64).await?, &name)?,
                    &name,
                )?)
            }
            "lng" => {
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
    let (sig, meta) = state
        .blocking(move |s| {
            let driver = auth.driver();
            Ok(pod::add_signature(
                &*s.store,
                &Codec,
                &driver,
                stop_id,
                &input,
                s.clock.now(),
            )?)
        })
        .await?;
    images::wake();
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
    let metas = state
        .blocking(move |s| {
            let driver = auth.driver();
            Ok(pod::add_photos(
                &*s.store,
                &Codec,
                &driver,
                stop_id,
                &files,
                s.clock.now(),
            )?)
        })
        .await?;
    images::wake();
    Ok(Json(json!({"photos": metas.iter().map(|m| json!({
        "id": m.id,
        "url": links.image(ImageKind::Photo, m.id),
        "is_compressed": m.is_ready(),
    })).collect::<Vec<_>>()})))
}

/// Records one problem of the body: path, code, what was expected, a sentence.
type Issues<'a> = dyn FnMut(Vec<PathSegment>, IssueCode, &str, &str) + 'a;

/// Reads the submission body; every problem is collected with its path.
fn read_submission(body: &Value) -> Result<SubmissionInput, ApiError> {
    let mut errors = ValidationErrors::default();
    let mut issue = |path: Vec<PathSegment>, code: IssueCode, expected: &str, message: &str| {
        errors.push(ValidationIssue::new(code, path, expected, "", message));
    };
    let Some(obj) = body.as_object() else {
        return Err(bad(vec![], "object", "the body is a JSON object"));
    };
    for key in obj.keys() {
        if !["questionnaire_id", "route_id", "stop_id", "answers"].contains(&key.as_str()) {
            issue(
                vec![key.as_str().into()],
                IssueCode::UnrecognizedKeys,
                "questionnaire_id, route_id, stop_id, answers",
                "unknown property",
            );
        }
    }
    let id = |key: &str, issue: &mut Issues<'_>| -> Option<i64> {
        match obj.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => v.as_i64().or_else(|| {
                issue(
                    vec![key.into()],
                    IssueCode::InvalidType,
                    "integer",
                    &format!("{key} must be an integer"),
                );
                None
            }),
        }
    };
    let questionnaire_id = id("questionnaire_id", &mut issue);
    let route_id = id("route_id", &mut issue);
    let stop_id = id("stop_id", &mut issue);
    if questionnaire_id.is_none() && !matches!(obj.get("questionnaire_id"), Some(v) if !v.is_null())
    {
        issue(
            vec!["questionnaire_id".into()],
            IssueCode::Required,
            "integer",
            "questionnaire_id is required",
        );
    }
    let mut answers = Vec::new();
    match obj.get("answers") {
        Some(Value::Array(items)) => {
            for (i, a) in items.iter().enumerate() {
                if let Some(answer) = read_answer(i, a, &mut issue) {
                    answers.push(answer);
                }
            }
        }
        None => issue(
            vec!["answers".into()],
            IssueCode::Required,
            "array",
            "answers is required",
        ),
        Some(_) => issue(
            vec!["answers".into()],
            IssueCode::InvalidType,
            "array",
            "answers must be an array",
        ),
    }
    errors
        .into_result()
        .map_err(|e| ApiError::from(ServiceError::Invalid(e)))?;
    Ok(SubmissionInput {
        questionnaire_id: questionnaire_id.unwrap_or_default(),
        route_id,
        stop_id,
        answers,
    })
}

fn read_answer(i: usize, a: &Value, issue: &mut Issues<'_>) -> Option<AnswerInput> {
    let at = |key: &str| -> Vec<PathSegment> { vec!["answers".into(), i.into(), key.into()] };
    let Some(obj) = a.as_object() else {
        issue(
            vec!["answers".into(), i.into()],
            IssueCode::InvalidType,
            "object",
            "an answer is an object",
        );
        return None;
    };
    for key in obj.keys() {
        if !["question_id", "value", "images"].contains(&key.as_str()) {
            issue(
                at(key),
                IssueCode::UnrecognizedKeys,
                "question_id, value, images",
                "unknown property",
            );
        }
    }
    let question_id = match obj
        .get("question_id")
        .and_then(Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
    {
        Some(id) => id,
        None => {
            issue(
                at("question_id"),
                IssueCode::InvalidType,
                "integer",
                "question_id is a positive integer",
            );
            return None;
        }
    };
    let value = match obj.get("value") {
        None | Some(Value::Null) => AnswerValue::Absent,
        Some(Value::Bool(b)) => AnswerValue::Bool(*b),
        Some(Value::String(s)) => AnswerValue::Text(s.clone()),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => AnswerValue::List(
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
        ),
        Some(_) => {
            issue(
                at("value"),
                IssueCode::InvalidType,
                "boolean, string or array of strings",
                "value must be a boolean, a string or an array of strings",
            );
            return None;
        }
    };
    let mut images = Vec::new();
    match obj.get("images") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (j, item) in items.iter().enumerate() {
                let decoded = item.as_str().and_then(|s| {
                    let s = s.split_once(";base64,").map_or(s, |(_, data)| data);
                    base64::engine::general_purpose::STANDARD
                        .decode(s.trim())
                        .ok()
                });
                match decoded {
                    Some(bytes) => images.push(bytes),
                    None => issue(
                        vec!["answers".into(), i.into(), "images".into(), j.into()],
                        IssueCode::InvalidString,
                        "base64 image",
                        "an image is a base64 string (optionally a data: URL)",
                    ),
                }
            }
        }
        Some(_) => issue(
            at("images"),
            IssueCode::InvalidType,
            "array",
            "images must be an array of base64 strings",
        ),
    }
    Some(AnswerInput {
        question_id,
        value,
        images,
    })
}

/// `POST /driver/questionnaire-submissions`.
async fn submit(
    State(state): State<AppState>,
    auth: DriverAuth,
    JsonBody(body): JsonBody,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let input = read_submission(&body)?;
    let links = Links::of(&state);
    let submission = state
        .blocking(move |s| {
            let driver = auth.driver();
            Ok(pod::submit(
                &*s.store,
                &Codec,
                &driver,
                &input,
                s.clock.now(),
            )?)
        })
        .await?;
    images::wake();
    Ok((
        StatusCode::CREATED,
        Json(json!({ "driver_questionnaire_submission": render_submission(&submission, &links) })),
    ))
}
