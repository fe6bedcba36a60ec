//! `POST /orders/{id}/attachments`: one multipart field `attachment` with a pdf, png or jpeg
//! file of at most 10 MB. The route raises axum's body limit for itself only; a declared
//! length over the limit is refused before the body is read, and a body that turns out longer
//! is cut off at the limit while streaming, so no more than the limit is ever held in memory.

use axum::extract::multipart::{Multipart, MultipartError, MultipartRejection};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::Json;
use dispatch_core::model::attachment::MAX_ATTACHMENT_BYTES;
use dispatch_core::service::order_reads;
use dispatch_core::service::ServiceError;

use super::order_render::render_attachment;
use super::order_shapes::AttachmentWire;
use super::registry::ApiRoutes;
use crate::error::ApiError;
use crate::extract::{Caller, PathText};
use crate::AppState;
use utoipa_axum::routes;

/// Multipart framing allowed on top of the file itself.
const MULTIPART_OVERHEAD: u64 = 64 * 1024;
const BODY_LIMIT: u64 = MAX_ATTACHMENT_BYTES + MULTIPART_OVERHEAD;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    {
        let (schemas, paths, upload) = routes!(upload);
        let upload = upload.layer(DefaultBodyLimit::max(BODY_LIMIT as usize));
        ApiRoutes::new().routes((schemas, paths, upload))
    }
}

fn too_large() -> ApiError {
    crate::rejection::body_too_large("10 MB (an attachment)")
}

/// A body that could not be read as multipart: over the body limit, or malformed.
fn unreadable(e: MultipartError) -> ApiError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return too_large();
    }
    bad(
        "a malformed multipart body",
        &format!("unreadable multipart body: {e}"),
    )
}

/// A refused upload; `received` says what came instead of one `attachment` file field.
fn bad(received: &str, message: &str) -> ApiError {
    ServiceError::invalid(
        vec!["attachment".into()],
        "multipart/form-data with one file field `attachment`",
        received,
        message,
    )
    .into()
}

#[utoipa::path(post, path = "/orders/{id}/attachments", tag = "orders", summary = "Attach a file (pdf, png, jpg, jpeg; at most 10 MB; 2 per order).", params(("id" = i64, Path, description = "The order id.")), request_body(content = String, content_type = "multipart/form-data", description = "One binary field `attachment`."), responses((status = 200, description = "The attachment.", body = AttachmentWire), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn upload(
    State(state): State<AppState>,
    Caller(p): Caller,
    PathText(raw): PathText,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Json<AttachmentWire>, ApiError> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > BODY_LIMIT) {
        return Err(too_large());
    }
    let id: i64 = raw.parse().map_err(|_| ApiError::not_found("order"))?;
    let mut multipart = multipart.map_err(|e| {
        let sent = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("a body without Content-Type");
        bad(sent, &format!("the body must be multipart/form-data: {e}"))
    })?;
    let mut file: Option<(String, Vec<u8>)> = None;
    while let Some(mut field) = multipart.next_field().await.map_err(unreadable)? {
        if field.name() != Some("attachment") {
            let sent = field.name().map_or_else(
                || "a field without a name".to_owned(),
                |n| format!("a field `{n}`"),
            );
            return Err(bad(&sent, "the only accepted field is `attachment`"));
        }
        if file.is_some() {
            return Err(bad("a second `attachment` field", "one file per request"));
        }
        let name = field.file_name().unwrap_or("attachment").to_owned();
        let mut content = Vec::new();
        while let Some(chunk) = field.chunk().await.map_err(unreadable)? {
            if (content.len() + chunk.len()) as u64 > MAX_ATTACHMENT_BYTES {
                return Err(too_large());
            }
            content.extend_from_slice(&chunk);
        }
        file = Some((name, content));
    }
    let (name, content) =
        file.ok_or_else(|| bad("undefined", "the field `attachment` is required"))?;
    let attachment = state
        .blocking(move |s| {
            Ok(order_reads::add_attachment(
                &*s.store,
                p.scope(),
                id,
                &name,
                &content,
                s.clock.now(),
            )?)
        })
        .await?;
    Ok(Json(render_attachment(&attachment)))
}
