//! Proof of delivery: what a driver uploads for a stop (signature, photos), questionnaire
//! submissions, their reads, and the background compression of every uploaded image.
//!
//! Uploads are decoded by the [`ImageCodec`] before a transaction opens (a bad image changes
//! nothing) and stored as uploaded; [`compress_pending`] later stores the WebP copy. Reads of
//! an image still pending answer [`ImageRead::Pending`].

use std::collections::HashMap;

use super::driver::{owned_route, owned_stop};
use super::ServiceError;
use crate::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::model::driver::Driver;
use crate::model::organisation::DepotScope;
use crate::model::pod::ImageBytes;
use crate::model::pod::{
    ImageInfo, ImageKind, ImageMeta, ImageRead, ImageRejection, StopProof, StopSignature,
    Submission, COMPRESSED_PHOTO_SIDE, MAX_IMAGE_BYTES, MAX_PHOTOS_PER_UPLOAD, MAX_SIGNED_BY_CHARS,
};
use crate::model::questionnaire::{check_answers, AnswerInput, Questionnaire, QuestionnaireType};
use crate::model::stop::Stop;
use crate::ports::clock::Clock;
use crate::ports::images::ImageCodec;
use crate::ports::store::{NewImage, ProofPlace, Store, StoreError, StoreTx};
use crate::time::Timestamp;

fn place_of(stop: &Stop) -> ProofPlace {
    ProofPlace {
        route_id: stop.route_id,
        stop_id: Some(stop.id),
        order_id: stop.visit.order_ids.first().copied(),
    }
}

fn image_issue(path: Vec<PathSegment>, e: &ImageRejection) -> ValidationIssue {
    let code = match e {
        ImageRejection::TooLarge | ImageRejection::TooManyPixels { .. } => IssueCode::TooBig,
        ImageRejection::Empty => IssueCode::TooSmall,
        _ => IssueCode::Custom,
    };
    ValidationIssue::new(
        code,
        path,
        "a PNG, JPEG or WebP image of at most 10 MB",
        "",
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
        .map_err(|e| errors.push(image_issue(path, &e)))
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
            "",
            "signed_by names who signed: 1 to 255 characters",
        ));
    }
    let position_ok = match (input.lat, input.lng) {
        (None, None) => true,
        (Some(lat), Some(lng)) => crate::model::location::Coordinates::new(lat, lng).is_some(),
        _ => false,
    };
    if !position_ok {
        errors.push(ValidationIssue::new(
            IssueCode::Custom,
            vec!["lat".into()],
            "lat and lng together, in range",
            "",
            "lat (-90..90) and lng (-180..180) are given together or not at all",
        ));
    }
    let info = inspect_at(codec, &input.image, vec!["image".into()], &mut errors);
    errors.into_result()?;
    let info = info.ok_or(ServiceError::NotFound("image"))?;
    store.transaction(|tx| {
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
    store.transaction(|tx| {
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

/// A questionnaire submission as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmissionInput {
    /// The questionnaire.
    pub questionnaire_id: i64,
    /// The route (ROUTE_VEHICLE_CHECKIN).
    pub route_id: Option<i64>,
    /// The stop (VISIT).
    pub stop_id: Option<i64>,
    /// The answers.
    pub answers: Vec<AnswerInput>,
}

/// The depot's questionnaires (what a driver app shows).
pub fn questionnaires(
    store: &dyn Store,
    scope: DepotScope,
) -> Result<Vec<Questionnaire>, ServiceError> {
    Ok(store.read(|tx| tx.list_questionnaires(scope))?)
}

fn bad(key: &str, expected: &str, message: &str) -> ServiceError {
    ServiceError::invalid(vec![key.into()], expected, "", message)
}

/// Stores a submission: a VISIT questionnaire names a stop of the driver's route, a
/// ROUTE_VEHICLE_CHECKIN one a route of the driver's vehicle; answers are checked against the
/// definition and every image decoded before anything is stored. Images are decoded before the
/// write transaction opens (the slow part, independent of the definition); the definition is
/// read inside it, so the answers are checked against the definition they are stored under.
pub fn submit(
    store: &dyn Store,
    codec: &dyn ImageCodec,
    driver: &Driver,
    input: &SubmissionInput,
    now: Timestamp,
) -> Result<Submission, ServiceError> {
    let mut image_errors = ValidationErrors::default();
    let mut infos: HashMap<(usize, usize), ImageInfo> = HashMap::new();
    for (i, answer) in input.answers.iter().enumerate() {
        for (j, bytes) in answer.images.iter().enumerate() {
            let path = vec!["answers".into(), i.into(), "images".into(), j.into()];
            if let Some(info) = inspect_at(codec, bytes, path, &mut image_errors) {
                infos.insert((i, j), info);
            }
        }
    }
    let scope = driver.scope;
    store.transaction(|tx| {
        let questionnaire = checked_questionnaire(tx, scope, input)?;
        let checked = match check_answers(&questionnaire.def, &input.answers) {
            Ok(checked) => checked,
            Err(mut errors) => {
                errors.0.extend(image_errors.0.iter().cloned());
                return Err(errors.into());
            }
        };
        image_errors.clone().into_result()?;
        let place = submission_place(tx, driver, input)?;
        let (id, answer_ids) = tx.insert_submission(scope, &questionnaire, place, &checked, now)?;
        if questionnaire.def.kind == QuestionnaireType::RouteVehicleCheckin {
            super::driver::progress::link_checkin(tx, driver, place.route_id, id)?;
        }
        for (a, answer_id) in checked.iter().zip(answer_ids) {
            let lossless = ImageKind::Answer.lossless(Some(a.question.kind));
            for (j, bytes) in input.answers[a.index].images.iter().enumerate() {
                let info = infos[&(a.index, j)];
                tx.insert_image(
                    scope,
                    &NewImage {
                        kind: ImageKind::Answer,
                        place,
                        answer_id: Some(answer_id),
                        lossless,
                        info,
                        bytes,
                    },
                    now,
                )?;
            }
        }
        tx.get_submission(scope, id)?
            .ok_or(ServiceError::NotFound("driver questionnaire submission"))
    })
}

/// The submission's questionnaire, when it is the depot's and the submission names what its
/// type is answered for (a stop for VISIT, a route and no stop for ROUTE_VEHICLE_CHECKIN).
fn checked_questionnaire(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    input: &SubmissionInput,
) -> Result<Questionnaire, ServiceError> {
    let questionnaire = tx
        .list_questionnaires(scope)?
        .into_iter()
        .find(|q| q.id == input.questionnaire_id)
        .ok_or_else(|| {
            bad(
                "questionnaire_id",
                "the id of a questionnaire of the depot",
                "no questionnaire with this id in the depot",
            )
        })?;
    match (questionnaire.def.kind, input.route_id, input.stop_id) {
        (QuestionnaireType::Visit, _, None) => Err(bad(
            "stop_id",
            "a stop id",
            "a VISIT questionnaire is answered at a stop: stop_id is required",
        )),
        (QuestionnaireType::RouteVehicleCheckin, None, _)
        | (QuestionnaireType::RouteVehicleCheckin, _, Some(_)) => Err(bad(
            "route_id",
            "a route id and no stop_id",
            "a ROUTE_VEHICLE_CHECKIN questionnaire is answered for a route: route_id is \
             required and stop_id is not accepted",
        )),
        _ => Ok(questionnaire),
    }
}

/// Where a submission is filed: the stop (of the driver's route) or the driver's route.
fn submission_place(
    tx: &mut dyn StoreTx,
    driver: &Driver,
    input: &SubmissionInput,
) -> Result<ProofPlace, ServiceError> {
    match input.stop_id {
        Some(stop_id) => {
            let (route, stop) = owned_stop(tx, driver, stop_id)?;
            if input.route_id.is_some_and(|r| r != route.id) {
                return Err(bad(
                    "route_id",
                    "the stop's route",
                    "stop_id is not on route_id",
                ));
            }
            Ok(place_of(&stop))
        }
        None => {
            let route_id = input.route_id.ok_or(ServiceError::NotFound("route"))?;
            let route = owned_route(tx, driver, route_id)?;
            Ok(ProofPlace {
                route_id: route.id,
                stop_id: None,
                order_id: None,
            })
        }
    }
}

/// `GET /driver-questionnaire-submission/{id}`.
pub fn get_submission(
    store: &dyn Store,
    scope: DepotScope,
    id: i64,
) -> Result<Submission, ServiceError> {
    store
        .read(|tx| tx.get_submission(scope, id))?
        .ok_or(ServiceError::NotFound("driver questionnaire submission"))
}

/// An image of `kind` in the depot: its bytes once compressed, [`ImageRead::Pending`] before.
/// An image of another kind is "not found" (each endpoint serves its own kind).
pub fn read_image(
    store: &dyn Store,
    scope: DepotScope,
    id: i64,
    kind: ImageKind,
) -> Result<ImageRead, ServiceError> {
    let missing = ServiceError::NotFound(match kind {
        ImageKind::Photo => "photo",
        ImageKind::Signature => "signature",
        ImageKind::Answer => "driver questionnaire image",
    });
    store.read(|tx| {
        let meta = tx.get_image(scope, id)?.filter(|m| m.kind == kind);
        let Some(meta) = meta else {
            return Err(missing);
        };
        if !meta.is_ready() {
            return Ok(ImageRead::Pending { id });
        }
        let (content_type, bytes) = tx.image_bytes(scope, id)?.ok_or(missing)?;
        let content_type = crate::model::pod::ImageFormat::from_mime(&content_type)
            .map_or("image/webp", |f| f.mime());
        Ok(ImageRead::Ready {
            id,
            image: ImageBytes {
                content_type,
                bytes,
            },
        })
    })
}

/// Compresses up to `batch` pending images (any depot) and returns how many it finished.
/// Encoding runs outside any transaction; an image that cannot be re-encoded is marked failed
/// and served as uploaded. Safe to run after a crash: pending rows are simply done again.
pub fn compress_pending(
    store: &dyn Store,
    codec: &dyn ImageCodec,
    clock: &dyn Clock,
    batch: usize,
) -> Result<usize, ServiceError> {
    let pending = store.read(|tx| tx.pending_images(batch))?;
    let mut done = 0;
    for image in pending {
        let webp = codec.to_webp(&image.bytes, image.lossless, COMPRESSED_PHOTO_SIDE);
        let finished = store.transaction(|tx| {
            tx.finish_image(
                image.scope,
                image.id,
                webp.as_deref().map_err(String::as_str),
                clock.now(),
            )
        })?;
        done += usize::from(finished);
    }
    Ok(done)
}

/// What a stop read shows of the stop's proof of delivery.
pub fn stop_proof(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    stop: &Stop,
) -> Result<StopProof, StoreError> {
    let Some(&order) = stop.visit.order_ids.first() else {
        return Ok(StopProof::default());
    };
    let signature = match tx.signature_of_visit(scope, stop.route_id, order)? {
        Some(s) => tx.get_image(scope, s.image_id)?.map(|m| (s, m)),
        None => None,
    };
    Ok(StopProof {
        signature,
        photos: tx.photos_of_visit(scope, stop.route_id, order)?,
        submissions: tx.submissions_of_visit(scope, stop.route_id, order)?,
        tracking_token: tx.tracking_token(scope, order)?,
    })
}

#[cfg(test)]
#[path = "pod_tests.rs"]
mod tests;
