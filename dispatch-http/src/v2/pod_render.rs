//! Proof of delivery on the wire: the stop fields (`signed_by`, `signature_lat/lng`,
//! `signature`, `photos`, `driver_questionnaire_submissions`, `tracking_link`), submission
//! reads, and image reads (raw bytes, base64 JSON, or 202 while compressing).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use base64::Engine;
use dispatch_core::model::pod::{
    ImageKind, ImageMeta, ImageRead, StopProof, Submission, SubmissionRef, RETRY_AFTER_S,
};
use dispatch_core::ports::tracking::TrackingLinks;
use serde_json::{json, Map, Value};

use super::wire::ts;
use crate::links::Links;

/// `{id, driver_questionnaire: {type, title}}` of each submission.
pub fn render_submission_refs(refs: &[SubmissionRef]) -> Value {
    Value::Array(
        refs.iter()
            .map(|r| {
                json!({"id": r.id, "driver_questionnaire": {"type": r.kind.as_str(), "title": r.title}})
            })
            .collect(),
    )
}

fn image(meta: &ImageMeta, links: &Links) -> Value {
    json!({
        "id": meta.id,
        "url": links.image(meta.kind, meta.id),
        "is_compressed": meta.is_ready(),
        "created": ts(meta.created),
    })
}

/// Sets the proof-of-delivery fields of a rendered stop. `photos` is null until the stop has
/// one and then lists every photo, those still compressing included.
pub fn put_stop_proof(m: &mut Map<String, Value>, proof: &StopProof, links: &Links) {
    let sig = proof.signature.as_ref();
    m.insert("signature_lat".into(), json!(sig.and_then(|(s, _)| s.lat)));
    m.insert("signature_lng".into(), json!(sig.and_then(|(s, _)| s.lng)));
    m.insert("signed_by".into(), json!(sig.map(|(s, _)| &s.signed_by)));
    m.insert(
        "signature".into(),
        sig.map_or(Value::Null, |(s, meta)| {
            let mut v = image(meta, links);
            v["signed_by"] = json!(s.signed_by);
            v
        }),
    );
    m.insert(
        "tracking_link".into(),
        json!(proof.tracking_token.as_deref().map(|t| links.link(t))),
    );
    m.insert(
        "photos".into(),
        if proof.photos.is_empty() {
            Value::Null
        } else {
            Value::Array(proof.photos.iter().map(|p| image(p, links)).collect())
        },
    );
    m.insert(
        "driver_questionnaire_submissions".into(),
        render_submission_refs(&proof.submissions),
    );
}

/// `GET /driver-questionnaire-submission/{id}`'s object.
pub fn render_submission(s: &Submission, links: &Links) -> Value {
    json!({
        "id": s.head.id,
        "route_id": s.route_id,
        "visit_id": s.head.stop_id,
        "driver_questionnaire": {"id": s.questionnaire_id, "type": s.head.kind.as_str(), "title": s.head.title},
        "driver_questionnaire_answers": s.answers.iter().map(|a| json!({
            "id": a.id,
            "type": a.kind.as_str(),
            "data": a.data,
            "driver_questionnaire_question": {"type": a.kind.as_str(), "question": a.question},
            "images": a.image_ids.iter().map(|id| links.image(ImageKind::Answer, *id)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "created": ts(s.created),
    })
}

/// An image read: 200 with the bytes (or base64 JSON), 202 with `Retry-After` while the image
/// is still being compressed. Bytes go out only as an image: their own image type and
/// `nosniff`, never rendered inline as anything else.
pub fn image_response(read: ImageRead, base64: bool) -> Response {
    match read {
        ImageRead::Pending { id } => {
            let mut r = (
                StatusCode::ACCEPTED,
                Json(json!({"id": id, "is_compressed": false})),
            )
                .into_response();
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_S));
            r
        }
        ImageRead::Ready { id, image } if base64 => Json(json!({
            "id": id,
            "is_compressed": true,
            "content_type": image.content_type,
            "size": image.bytes.len(),
            "data": base64::engine::general_purpose::STANDARD.encode(&image.bytes),
        }))
        .into_response(),
        ImageRead::Ready { image, .. } => {
            let mut r = image.bytes.into_response();
            let h = r.headers_mut();
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(image.content_type),
            );
            h.insert(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            );
            h.insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static("default-src 'none'; sandbox"),
            );
            h.insert(
                header::CONTENT_DISPOSITION,
                HeaderValue::from_static("inline"),
            );
            h.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("private, max-age=86400"),
            );
            r
        }
    }
}
