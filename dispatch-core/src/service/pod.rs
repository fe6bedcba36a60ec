//! Proof of delivery: what a driver uploads for a stop (signature, photos; here), questionnaire
//! submissions ([`submissions`]), their reads and the background compression of every
//! uploaded image ([`reads`]), and what stop reads show of it
//! ([`stop_proof`](super::stop_records::stop_proof)).
//!
//! Uploads are decoded by the [`ImageCodec`] before a transaction opens (a bad image changes
//! nothing) and stored as uploaded; [`compress_pending`] later stores the WebP copy. Reads of
//! an image still pending answer `ImageRead::Pending`.

pub mod reads;
pub mod submissions;

pub use reads::{compress_pending, get_submission, read_image};
pub use submissions::{questionnaires, submit, SubmissionInput};

use super::driver::owned_stop;
use super::ServiceError;
use crate::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::model::driver::Driver;
use crate::model::pod::{
    ImageInfo, ImageKind, ImageMeta, ImageRejection, StopSignature, MAX_IMAGE_BYTES,
    MAX_PHOTOS_PER_UPLOAD, MAX_SIGNED_BY_CHARS,
};
use crate::model::stop::Stop;
use crate::ports::images::ImageCodec;
use crate::ports::store::{NewImage, ProofPlace, Store};
use crate::time::Timestamp;

fn place_of(stop: &Stop) -> ProofPlace {
    ProofPlace {
        route_id: stop.route_id,
        stop_id: Some(stop.id),
        order_id: stop.visit.order_ids.first().copied(),
    }
}

/// The refused upload in the envelope; `received` says what came: its size, or its pixels
/// when those refused it.
fn image_issue(path: Vec<PathSegment>, e: &ImageRejection, bytes: usize) -> ValidationIssue {
    let code = match e {
        ImageRejection::TooLarge | ImageRejection::TooManyPixels { .. } => IssueCode::TooBig,
        ImageRejection::Empty => IssueCode::TooSmall,
        _ => IssueCode::Custom,
    };
    let received = match e {
        ImageRejection::TooManyPixels { width, height } => format!("{width}x{height} pixels"),
        _ => format!("{bytes} bytes"),
    };
    ValidationIssue::new(
        code,
        path,
        "a PNG, JPEG or WebP image of at most 10 MB",
        &received,
        e.to_string(),
    )
}

/// Checks one upload: size first, then a full decode.
fn inspect(codec: &dyn ImageCodec, bytes: &[u8]) -> Result<ImageInfo, ImageRejection> {
    if bytes.is_empty() {
        return Err(ImageRejection::Empty);
    }
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(ImageRejection::TooLarge);
    }
    codec.inspect(bytes)
}

fn inspect_at(
    codec: &dyn ImageCodec,
    bytes: &[u8],
    path: Vec<PathSegment>,
    errors: &mut ValidationErrors,
) -> Option<ImageInfo> {
    inspect(codec, bytes)
        .map_err(|e| errors.push(image_issue(path, &e, bytes.len())))
        .ok()
}

/// A signature as uploaded.
#[derive(Debug, Clone, PartialEq)]
pub struct SignatureInput {
    /// Who signed (1 to 255 characters).
    pub signed_by: String,
    /// Where (both or neither).
    pub lat: Option<f64>,
    /// Where.
    pub lng: Option<f64>,
    /// The signature image.
    pub image: Vec<u8>,
}

/// Signs a stop of the driver's route; a later signature replaces the earlier one.
pub fn add_signature(
    store: &dyn Store,
    codec: &dyn ImageCodec,
    driver: &Driver,
    stop_id: i64,
    input: &SignatureInput,
    now: Timestamp,
) -> Result<(StopSignature, ImageMeta), ServiceError> {
    let mut errors = ValidationErrors::default();
    let name = input.signed_by.trim();
    if name.is_empty() || name.chars().count() > MAX_SIGNED_BY_CHARS {
        errors.push(ValidationIssue::new(
            IssueCode::InvalidString,
            vec!["signed_by".into()],
            "1 to 255 characters",
            format!("{} characters", name.chars().count()),
            "signed_by names who signed: 1 to 255 characters",
        ));
    }
    // The issue names the field to fix: the one missing of the pair, or the one out of range.
    let wrong = match (input.lat, input.lng) {
        (None, None) => None,
        (Some(_), None) => Some("lng"),
        (None, Some(_)) => Some("lat"),
        (Some(lat), Some(lng)) => match crate::model::location::Coordinates::new(lat, lng) {
            Some(_) => None,
            None if crate::model::location::valid_lat(lat) => Some("lng"),
            None => Some("lat"),
        },
    };
    if let Some(field) = wrong {
        let sent = if field == "lat" { input.lat } else { input.lng };
        errors.push(ValidationIssue::new(
            IssueCode::Custom,
            vec![field.into()],
            "lat and lng together, in range",
            sent.map_or_else(|| "undefined".to_owned(), |v| v.to_string()),
            "lat (-90..90) and lng (-180..180) are given together or not at all",
        ));
    }
    // At the multipart field that carries it.
    let info = inspect_at(codec, &input.image, vec!["signature".into()], &mut errors);
    errors.into_result()?;
    let info = info.ok_or(ServiceError::NotFound("image"))?;
    store.transaction_in(driver.scope, |tx| {
        let (_, stop) = owned_stop(tx, driver, stop_id)?;
        let place = place_of(&stop);
        let meta = tx.insert_image(
            driver.scope,
            &NewImage {
                kind: ImageKind::Signature,
                place,
                answer_id: None,
                lossless: true,
                info,
                bytes: &input.image,
            },
            now,
        )?;
        let signature = StopSignature {
            image_id: meta.id,
            stop_id: stop.id,
            signed_by: name.to_owned(),
            lat: input.lat,
            lng: input.lng,
            created: now,
        };
        if let Some(order) = place.order_id {
            tx.put_signature(driver.scope, stop.route_id, order, &signature)?;
        }
        Ok((signature, meta))
    })
}

/// Adds 1 to [`MAX_PHOTOS_PER_UPLOAD`] photos to a stop of the driver's route.
pub fn add_photos(
    store: &dyn Store,
    codec: &dyn ImageCodec,
    driver: &Driver,
    stop_id: i64,
    photos: &[Vec<u8>],
    now: Timestamp,
) -> Result<Vec<ImageMeta>, ServiceError> {
    let mut errors = ValidationErrors::default();
    if photos.is_empty() || photos.len() > MAX_PHOTOS_PER_UPLOAD {
        errors.push(ValidationIssue::new(
            IssueCode::TooBig,
            vec!["photo".into()],
            "1 to 5 files in fields named photo",
            photos.len().to_string(),
            "send 1 to 5 photos per request, each in a field named photo",
        ));
    }
    let infos: Vec<Option<ImageInfo>> = photos
        .iter()
        .enumerate()
        .map(|(i, p)| inspect_at(codec, p, vec!["photo".into(), i.into()], &mut errors))
        .collect();
    errors.into_result()?;
    store.transaction_in(driver.scope, |tx| {
        let (_, stop) = owned_stop(tx, driver, stop_id)?;
        let mut out = Vec::new();
        for (bytes, info) in photos.iter().zip(infos) {
            let info = info.ok_or(ServiceError::NotFound("image"))?;
            out.push(tx.insert_image(
                driver.scope,
                &NewImage {
                    kind: ImageKind::Photo,
                    place: place_of(&stop),
                    answer_id: None,
                    lossless: false,
                    info,
                    bytes,
                },
                now,
            )?);
        }
        Ok(out)
    })
}

#[cfg(test)]
#[path = "pod_tests.rs"]
mod tests;
