//! The depot's reads of proof of delivery (a submission, an image of each kind) and the
//! background compression of uploaded images.

use crate::model::organisation::DepotScope;
use crate::model::pod::{ImageBytes, ImageKind, ImageRead, Submission, COMPRESSED_PHOTO_SIDE};
use crate::ports::clock::Clock;
use crate::ports::images::ImageCodec;
use crate::ports::store::Store;
use crate::service::ServiceError;

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
        let finished = store.transaction_in(image.scope, |tx| {
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
