//! Image decoding and WebP encoding, done outside the core (dispatch-adapters implements it on
//! the `image` and `webp` crates). The core decides what is accepted and when it is compressed.

use crate::model::pod::{ImageInfo, ImageRejection};

/// Decodes uploads and re-encodes them as WebP.
pub trait ImageCodec: Send + Sync {
    /// Fully decodes `bytes` and reports its format and size; anything that is not a complete,
    /// valid PNG, JPEG or WebP within the pixel limits of [`crate::model::pod`] is rejected.
    fn inspect(&self, bytes: &[u8]) -> Result<ImageInfo, ImageRejection>;

    /// Re-encodes an accepted image as WebP: lossless and at full size when `lossless`, else
    /// lossy and scaled down to at most `max_side` pixels on its longer side.
    fn to_webp(&self, bytes: &[u8], lossless: bool, max_side: u32) -> Result<Vec<u8>, String>;
}
