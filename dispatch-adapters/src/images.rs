//! The proof-of-delivery image codec (the core's `ImageCodec` port): every upload is fully
//! decoded within pixel and memory limits before it is accepted, and re-encoded as WebP for
//! storage.

use std::io::Cursor;

use dispatch_core::model::pod::{
    ImageFormat, ImageInfo, ImageRejection, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE,
};
use dispatch_core::ports::images::ImageCodec;
use image::{DynamicImage, ImageReader, Limits};

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
