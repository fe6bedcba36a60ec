//! Proof-of-delivery reads with a depot key: questionnaire submissions
//! (`GET /driver-questionnaire-submission/{id}`), questionnaire images
//! (`GET /driver-questionnaire-images/{id}`), and our photo and signature endpoints
//! (`GET /proof-of-delivery-photos/{id}`, `GET /proof-of-delivery-signatures/{id}`). Images
//! answer raw WebP by default, JSON with `content_type` and base64 `data` with
//! `?encoding=base64`, and 202 `{id, is_compressed: false}` with `Retry-After` until compressed.

use axum::extract::{Query, State};
use axum::response::Response;
use axum::routing::get;
use axum::{Json, Router};
use dispatch_core::model::pod::ImageKind;
use dispatch_core::service::pod;
use dispatch_core::service::ServiceError;
use serde_json::{json, Value};
use std::collections::HashMap;

use super::pod_render::{image_response, render_submission};
use crate::error::ApiError;
use crate::extract::{Caller, IdPath};
use crate::links::{image_path, Links};
use crate::AppState;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    let mut router = Router::new().route(
        "/driver-questionnaire-submission/{id}",
        get(read_submission),
    );
    for kind in [ImageKind::Answer, ImageKind::Photo, ImageKind::Signature] {
        let path = format!("/{}/{{id}}", image_path(kind));
        router = router.route(
            &path,
            get(
                move |state: State<AppState>,
                      caller: Caller,
                      id: IdPath,
                      query: Query<HashMap<String, String>>| {
                    read_image(state, caller, id, query, kind)
                },
            ),
        );
    }
    router
}

async fn read_submission(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<Value>, ApiError> {
    let links = Links::of(&state);
    let submission = state
        .blocking(move |s| Ok(pod::get_submission(&*s.store, p.scope(), id)?))
        .await?;
    Ok(Json(json!({
        "driver_questionnaire_submission": render_submission(&submission, &links)
    })))
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
