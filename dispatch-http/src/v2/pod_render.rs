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
use serde::Serialize;
use utoipa::ToSchema;

use super::plan_shapes::{ImageWire, QuestionnaireRef, SubmissionRefWire};
use super::wire::ts_text;
use crate::links::Links;

/// `{id, driver_questionnaire: {type, title}}` of each submission.
pub fn render_submission_refs(refs: &[SubmissionRef]) -> Vec<SubmissionRefWire> {
    refs.iter()
        .map(|r| SubmissionRefWire {
            id: r.id,
            driver_questionnaire: QuestionnaireRef {
                kind: r.kind.as_str(),
                title: r.title.clone(),
            },
        })
        .collect()
}

fn image(meta: &ImageMeta, links: &Links, signed_by: Option<String>) -> ImageWire {
    ImageWire {
        id: meta.id,
        url: links.image(meta.kind, meta.id),
        is_compressed: meta.is_ready(),
        created: ts_text(meta.created),
        signed_by,
    }
}

/// The proof-of-delivery fields of a stop read.
pub struct ProofFields {
    /// Where the signature was taken.
    pub signature_lat: Option<f64>,
    /// Where the signature was taken.
    pub signature_lng: Option<f64>,
    /// The signer.
    pub signed_by: Option<String>,
    /// The signature image.
    pub signature: Option<ImageWire>,
    /// The customer's tracking link.
    pub tracking_link: Option<String>,
    /// Null until the stop has one; then every photo, those still compressing included.
    pub photos: Option<Vec<ImageWire>>,
    /// The stop's questionnaire submissions.
    pub submissions: Vec<SubmissionRefWire>,
}

/// The proof-of-delivery fields of a stop.
pub fn stop_proof(proof: &StopProof, links: &Links) -> ProofFields {
    let sig = proof.signature.as_ref();
    ProofFields {
        signature_lat: sig.and_then(|(s, _)| s.lat),
        signature_lng: sig.and_then(|(s, _)| s.lng),
        signed_by: sig.map(|(s, _)| s.signed_by.clone()),
        signature: sig.map(|(s, meta)| image(meta, links, Some(s.signed_by.clone()))),
        tracking_link: proof.tracking_token.as_deref().map(|t| links.link(t)),
        photos: (!proof.photos.is_empty())
            .then(|| proof.photos.iter().map(|p| image(p, links, None)).collect()),
        submissions: render_submission_refs(&proof.submissions),
    }
}

/// A questionnaire with its id.
#[derive(Serialize, ToSchema)]
pub struct SubmittedQuestionnaire {
    id: i64,
    #[serde(rename = "type")]
    kind: &'static str,
    title: String,
}

/// `{type, question}` of an answered question.
#[derive(Serialize, ToSchema)]
pub struct AnsweredQuestion {
    #[serde(rename = "type")]
    kind: &'static str,
    question: String,
}

/// An answer of a submission.
#[derive(Serialize, ToSchema)]
pub struct AnswerWire {
    id: i64,
    /// CHECKBOX, TEXT, SELECT, MULTI_SELECT, SIGNATURE or PHOTO.
    #[serde(rename = "type")]
    kind: &'static str,
    data: String,
    driver_questionnaire_question: AnsweredQuestion,
    /// Absolute URLs of the answer's images (the image endpoint).
    images: Vec<String>,
}

/// A driver questionnaire submission with its answers.
#[derive(Serialize, ToSchema)]
pub struct SubmissionWire {
    id: i64,
    route_id: i64,
    #[schema(required = true)]
    visit_id: Option<i64>,
    driver_questionnaire: SubmittedQuestionnaire,
    driver_questionnaire_answers: Vec<AnswerWire>,
    created: String,
}

/// `{ driver_questionnaire_submission }`.
#[derive(Serialize, ToSchema)]
pub struct OneSubmission {
    /// The submission.
    pub driver_questionnaire_submission: SubmissionWire,
}

/// `GET /driver-questionnaire-submission/{id}`'s object.
pub fn render_submission(s: &Submission, links: &Links) -> SubmissionWire {
    SubmissionWire {
        id: s.head.id,
        route_id: s.route_id,
        visit_id: s.head.stop_id,
        driver_questionnaire: SubmittedQuestionnaire {
            id: s.questionnaire_id,
            kind: s.head.kind.as_str(),
            title: s.head.title.clone(),
        },
        driver_questionnaire_answers: s
            .answers
            .iter()
            .map(|a| AnswerWire {
                id: a.id,
                kind: a.kind.as_str(),
                data: a.data.clone(),
                driver_questionnaire_question: AnsweredQuestion {
                    kind: a.kind.as_str(),
                    question: a.question.clone(),
                },
                images: a
                    .image_ids
                    .iter()
                    .map(|id| links.image(ImageKind::Answer, *id))
                    .collect(),
            })
            .collect(),
        created: ts_text(s.created),
    }
}

/// An image still being compressed (202).
#[derive(Serialize, ToSchema)]
pub struct ImagePending {
    id: i64,
    /// Always false.
    is_compressed: bool,
}

/// An image read with `encoding=base64`.
#[derive(Serialize, ToSchema)]
pub struct ImageBase64 {
    id: i64,
    /// Always true.
    is_compressed: bool,
    /// For example `image/webp`.
    content_type: &'static str,
    /// Bytes before encoding.
    size: usize,
    /// The image, base64 (standard alphabet, padded).
    data: String,
}

/// An image read: 200 with the bytes (or base64 JSON), 202 with `Retry-After` while the image
/// is still being compressed. Bytes go out only as an image: their own image type and
/// `nosniff`, never rendered inline as anything else.
pub fn image_response(read: ImageRead, base64: bool) -> Response {
    match read {
        ImageRead::Pending { id } => {
            let mut r = (
                StatusCode::ACCEPTED,
                Json(ImagePending {
                    id,
                    is_compressed: false,
                }),
            )
                .into_response();
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_S));
            r
        }
        ImageRead::Ready { id, image } if base64 => Json(ImageBase64 {
            id,
            is_compressed: true,
            content_type: image.content_type,
            size: image.bytes.len(),
            data: base64::engine::general_purpose::STANDARD.encode(&image.bytes),
        })
        .into_response(),
        ImageRead::Ready { image, .. } => {
            let mut r = image.bytes.into_response();
            for (name, value) in [
                (header::CONTENT_TYPE, image.content_type),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
                (
                    header::CONTENT_SECURITY_POLICY,
                    "default-src 'none'; sandbox",
                ),
                (header::CONTENT_DISPOSITION, "inline"),
                (header::CACHE_CONTROL, "private, max-age=86400"),
            ] {
                r.headers_mut()
                    .insert(name, HeaderValue::from_static(value));
            }
            r
        }
    }
}
