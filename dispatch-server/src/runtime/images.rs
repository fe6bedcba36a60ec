//! Proof-of-delivery images: the codec (decode on upload, WebP re-encoding) and the
//! compression worker. Uploads wake the worker, which compresses what is pending
//! (`dispatch_core::service::pod::compress_pending`); the pending state is a stored row, so a
//! compression interrupted by a crash is simply done again after the restart.

use std::io::Cursor;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dispatch_core::model::pod::{
    ImageFormat, ImageInfo, ImageRejection, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE,
};
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::images::ImageCodec;
use dispatch_core::ports::store::Store;
use dispatch_core::service::pod::compress_pending;
use dispatch_http::signal::JobSignal;
use image::{DynamicImage, ImageReader, Limits};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How often the worker looks at its wake-up counter (no store access).
const TICK: Duration = Duration::from_millis(100);
/// How often the store is asked for pending images without a wake-up.
pub const IDLE_POLL: Duration = Duration::from_secs(60);
/// Images compressed per round at most.
const BATCH: usize = 8;
/// Quality of lossy (photo) WebP copies.
const PHOTO_QUALITY: f32 = 80.0;
/// Memory a single decode may allocate (a 40-megapixel RGBA image is 160 MB).
const MAX_DECODE_ALLOC: u64 = 256 * 1024 * 1024;

/// The codec on the `image` and `webp` crates.
#[derive(Debug, Clone, Copy, Default)]
pub struct Codec;

fn format_of(bytes: &[u8]) -> Result<(ImageFormat, image::ImageFormat), ImageRejection> {
    match image::guess_format(bytes) {
        Ok(image::ImageFormat::Png) => Ok((ImageFormat::Png, image::ImageFormat::Png)),
        Ok(image::ImageFormat::Jpeg) => Ok((ImageFormat::Jpeg, image::ImageFormat::Jpeg)),
        Ok(image::ImageFormat::WebP) => Ok((ImageFormat::Webp, image::ImageFormat::WebP)),
        _ => Err(ImageRejection::UnsupportedType),
    }
}

/// Decodes within the pixel and memory limits; dimensions are read (cheaply) first.
fn decode(bytes: &[u8]) -> Result<(ImageFormat, DynamicImage), ImageRejection> {
    let (ours, theirs) = format_of(bytes)?;
    let undecodable = |e: image::ImageError| ImageRejection::Undecodable(e.to_string());
    let (width, height) = ImageReader::with_format(Cursor::new(bytes), theirs)
        .into_dimensions()
        .map_err(undecodable)?;
    if width == 0
        || height == 0
        || width > MAX_IMAGE_SIDE
        || height > MAX_IMAGE_SIDE
        || u64::from(width) * u64::from(height) > MAX_IMAGE_PIXELS
    {
        return Err(ImageRejection::TooManyPixels { width, height });
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    let mut reader = ImageReader::with_format(Cursor::new(bytes), theirs);
    reader.limits(limits);
    let image = reader.decode().map_err(undecodable)?;
    Ok((ours, image))
}

impl ImageCodec for Codec {
    fn inspect(&self, bytes: &[u8]) -> Result<ImageInfo, ImageRejection> {
        let (format, image) = decode(bytes)?;
        Ok(ImageInfo {
            format,
            width: image.width(),
            height: image.height(),
        })
    }

    fn to_webp(&self, bytes: &[u8], lossless: bool, max_side: u32) -> Result<Vec<u8>, String> {
        let (_, mut image) = decode(bytes).map_err(|e| e.to_string())?;
        if !lossless && image.width().max(image.height()) > max_side {
            image = image.resize(max_side, max_side, image::imageops::FilterType::Triangle);
        }
        let rgba = image.to_rgba8();
        let encoder = webp::Encoder::from_rgba(rgba.as_raw(), rgba.width(), rgba.height());
        let encoded = encoder
            .encode_simple(lossless, PHOTO_QUALITY)
            .map_err(|e| format!("WebP encoding failed: {e:?}"))?;
        Ok(encoded.to_vec())
    }
}

/// Whether the store holds images still waiting for compression (left by a crash): asked once
/// at start, before the service listens.
pub fn pending_at_start(store: &dyn Store) -> Result<bool, String> {
    store
        .read(|tx| tx.pending_images(1))
        .map(|p| !p.is_empty())
        .map_err(|e| format!("cannot read pending images: {e}"))
}

/// Starts the compression worker on a thread of its own (image work is CPU-heavy and must not
/// hold the runtime's blocking pool). It touches the store only when an upload woke it
/// (`uploads`, which the upload handlers of this process notify), when
/// `pending` images were left from before the start, and every [`IDLE_POLL`] otherwise. It
/// stops when `stopping` turns true (an image in progress is finished or, when interrupted by
/// a crash, compressed again after the next start).
pub fn spawn(
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    pending: bool,
    uploads: JobSignal,
    mut stopping: watch::Receiver<bool>,
) -> JoinHandle<()> {
    let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
    let worker = std::thread::Builder::new()
        .name("image-compression".into())
        .spawn(move || {
            let mut seen = uploads.current();
            let mut next_round = match pending {
                true => Instant::now(),
                false => Instant::now() + IDLE_POLL,
            };
            loop {
                let count = uploads.current();
                if count != seen || Instant::now() >= next_round {
                    seen = count;
                    let busy = round(&*store, &*clock);
                    next_round = Instant::now() + if busy { Duration::ZERO } else { IDLE_POLL };
                }
                match stop_rx.recv_timeout(TICK) {
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
            }
        });
    tokio::spawn(async move {
        let _ = stopping.wait_for(|s| *s).await;
        let _ = stop_tx.send(());
        if let Ok(worker) = worker {
            let _ = tokio::task::spawn_blocking(move || worker.join()).await;
        }
    })
}

/// One batch; true when the batch was full (more may be waiting).
fn round(store: &dyn Store, clock: &dyn Clock) -> bool {
    match compress_pending(store, &Codec, clock, BATCH) {
        Ok(done) => {
            if done > 0 {
                tracing::debug!(done, "images compressed");
            }
            done == BATCH
        }
        Err(e) => {
            tracing::error!(error = %e, "image compression: store failed; retrying");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let img = image::RgbaImage::from_fn(width, height, |x, y| {
            image::Rgba([(x % 256) as u8, (y % 256) as u8, 90, 255])
        });
        let mut out = Cursor::new(Vec::new());
        DynamicImage::ImageRgba8(img)
            .write_to(&mut out, image::ImageFormat::Png)
            .unwrap();
        out.into_inner()
    }

    #[test]
    fn a_png_is_accepted_and_becomes_a_webp_that_decodes_to_its_size() {
        let bytes = png(64, 32);
        let info = Codec.inspect(&bytes).unwrap();
        assert_eq!(
            (info.format, info.width, info.height),
            (ImageFormat::Png, 64, 32)
        );
        let webp = Codec.to_webp(&bytes, false, 2048).unwrap();
        assert_eq!(&webp[..4], b"RIFF");
        assert_eq!(&webp[8..12], b"WEBP");
        let back = image::load_from_memory(&webp).unwrap();
        assert_eq!((back.width(), back.height()), (64, 32));
    }

    #[test]
    fn large_photos_are_scaled_down_but_signatures_keep_their_size() {
        let bytes = png(300, 100);
        let photo = image::load_from_memory(&Codec.to_webp(&bytes, false, 150).unwrap()).unwrap();
        assert_eq!((photo.width(), photo.height()), (150, 50));
        let sig = image::load_from_memory(&Codec.to_webp(&bytes, true, 150).unwrap()).unwrap();
        assert_eq!((sig.width(), sig.height()), (300, 100));
    }

    #[test]
    fn anything_but_a_whole_png_jpeg_or_webp_is_refused() {
        assert_eq!(
            Codec.inspect(b"<svg xmlns='http://www.w3.org/2000/svg'/>"),
            Err(ImageRejection::UnsupportedType)
        );
        assert_eq!(
            Codec.inspect(b"GIF89a...."),
            Err(ImageRejection::UnsupportedType)
        );
        let mut truncated = png(64, 64);
        truncated.truncate(truncated.len() / 2);
        assert!(matches!(
            Codec.inspect(&truncated),
            Err(ImageRejection::Undecodable(_))
        ));
        // A header claiming a huge canvas is refused before any pixel is decoded.
        let mut bomb = png(1, 1);
        bomb[16..20].copy_from_slice(&60_000u32.to_be_bytes());
        bomb[20..24].copy_from_slice(&60_000u32.to_be_bytes());
        assert!(matches!(
            Codec.inspect(&bomb),
            Err(ImageRejection::TooManyPixels { .. } | ImageRejection::Undecodable(_))
        ));
    }
}
