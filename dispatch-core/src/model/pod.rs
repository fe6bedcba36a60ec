//! Proof of delivery: images (stop photos, stop signatures, questionnaire answer images),
//! signatures and questionnaire submissions, and the rules an uploaded image must pass.
//!
//! An image is accepted only after the [`crate::ports::images::ImageCodec`] decoded it; it is
//! stored as uploaded and compressed to WebP in the background. Until then reads answer
//! "not compressed yet" with [`RETRY_AFTER_S`].

use crate::model::questionnaire::{AnswerType, QuestionnaireType};
use crate::time::Timestamp;

/// Largest accepted image upload.
pub const MAX_IMAGE_BYTES: usize = 10 * 1024 * 1024;
/// Longest accepted side of an image, in pixels.
pub const MAX_IMAGE_SIDE: u32 = 10_000;
/// Most pixels of an accepted image (width × height): bounds the memory a decode takes.
pub const MAX_IMAGE_PIXELS: u64 = 40_000_000;
/// Most photos per upload request.
pub const MAX_PHOTOS_PER_UPLOAD: usize = 5;
/// Seconds a reader is told to wait for an image still being compressed.
pub const RETRY_AFTER_S: u64 = 2;
/// Longest side of a compressed photo; larger photos are scaled down (signatures never are).
pub const COMPRESSED_PHOTO_SIDE: u32 = 2048;

/// What an image belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    /// A proof-of-delivery photo of a stop.
    Photo,
    /// The signature of a stop.
    Signature,
    /// An image of a SIGNATURE or PHOTO questionnaire answer.
    Answer,
}

impl ImageKind {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ImageKind::Photo => "PHOTO",
            ImageKind::Signature => "SIGNATURE",
            ImageKind::Answer => "ANSWER",
        }
    }

    /// Parses the stored spelling.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "PHOTO" => Some(ImageKind::Photo),
            "SIGNATURE" => Some(ImageKind::Signature),
            "ANSWER" => Some(ImageKind::Answer),
            _ => None,
        }
    }

    /// Whether the compressed copy keeps every pixel (signatures: line art) or may be lossy and
    /// scaled down (photos).
    pub fn lossless(self, answer_type: Option<AnswerType>) -> bool {
        match self {
            ImageKind::Signature => true,
            ImageKind::Photo => false,
            ImageKind::Answer => answer_type == Some(AnswerType::Signature),
        }
    }
}

/// An accepted upload format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// PNG.
    Png,
    /// JPEG.
    Jpeg,
    /// WebP.
    Webp,
}

impl ImageFormat {
    /// Its media type.
    pub fn mime(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Webp => "image/webp",
        }
    }

    /// The format of a media type this module produced.
    pub fn from_mime(mime: &str) -> Option<Self> {
        match mime {
            "image/png" => Some(ImageFormat::Png),
            "image/jpeg" => Some(ImageFormat::Jpeg),
            "image/webp" => Some(ImageFormat::Webp),
            _ => None,
        }
    }
}

/// What decoding an upload found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageInfo {
    /// Format (from the content, never the file name).
    pub format: ImageFormat,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// Why an upload is not an acceptable image.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageRejection {
    /// Empty upload.
    #[error("the image is empty")]
    Empty,
    /// Over [`MAX_IMAGE_BYTES`].
    #[error("the image is larger than 10 MB")]
    TooLarge,
    /// Not PNG, JPEG or WebP by its content.
    #[error("not a PNG, JPEG or WebP image")]
    UnsupportedType,
    /// Over [`MAX_IMAGE_SIDE`] or [`MAX_IMAGE_PIXELS`].
    #[error("the image is {width}x{height} pixels; at most 10000 per side and 40 megapixels are accepted")]
    TooManyPixels {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
    /// The content does not decode.
    #[error("the image does not decode: {0}")]
    Undecodable(String),
}

/// Where an image stands in its compression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compression {
    /// Waiting for the background compressor.
    Pending,
    /// Compressed to WebP.
    Done,
    /// The compressor could not re-encode it: served as uploaded (it decoded at upload).
    Failed(String),
}

/// An image's record (without its bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageMeta {
    /// Identifier.
    pub id: i64,
    /// What it belongs to.
    pub kind: ImageKind,
    /// The route it was taken on.
    pub route_id: i64,
    /// The stop (photos, signatures, answers of a VISIT questionnaire).
    pub stop_id: Option<i64>,
    /// The questionnaire answer (answer images).
    pub answer_id: Option<i64>,
    /// The upload's format.
    pub original: ImageInfo,
    /// Uploaded size in bytes.
    pub size: u64,
    /// Compression state.
    pub compression: Compression,
    /// Upload instant.
    pub created: Timestamp,
}

impl ImageMeta {
    /// Whether reads serve it now (compressed, or kept as uploaded after a failed compression).
    pub fn is_ready(&self) -> bool {
        !matches!(self.compression, Compression::Pending)
    }
}

/// The bytes a read serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageBytes {
    /// Media type of `bytes`.
    pub content_type: &'static str,
    /// The image.
    pub bytes: Vec<u8>,
}

/// An image read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageRead {
    /// Still compressing: retry after [`RETRY_AFTER_S`].
    Pending {
        /// The image id.
        id: i64,
    },
    /// Ready.
    Ready {
        /// The image id.
        id: i64,
        /// Its bytes.
        image: ImageBytes,
    },
}

/// The signature of a stop.
#[derive(Debug, Clone, PartialEq)]
pub struct StopSignature {
    /// The signature image.
    pub image_id: i64,
    /// The stop it was taken at.
    pub stop_id: i64,
    /// Who signed.
    pub signed_by: String,
    /// Where it was signed.
    pub lat: Option<f64>,
    /// Where it was signed.
    pub lng: Option<f64>,
    /// When.
    pub created: Timestamp,
}

/// Longest `signed_by`.
pub const MAX_SIGNED_BY_CHARS: usize = 255;

/// A questionnaire submission in a list: `{id, driver_questionnaire: {type, title}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmissionRef {
    /// Identifier.
    pub id: i64,
    /// Type of the questionnaire.
    pub kind: QuestionnaireType,
    /// Title of the questionnaire.
    pub title: String,
    /// The stop (a VISIT submission), else route-level.
    pub stop_id: Option<i64>,
}

/// A stored answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAnswer {
    /// Identifier.
    pub id: i64,
    /// Answer type (the question's).
    pub kind: AnswerType,
    /// The question's text when answered.
    pub question: String,
    /// The answer (see [`crate::model::questionnaire::CheckedAnswer::data`]).
    pub data: String,
    /// Its images, by id.
    pub image_ids: Vec<i64>,
}

/// A stored submission with its answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// Identity and questionnaire.
    pub head: SubmissionRef,
    /// The questionnaire it answers.
    pub questionnaire_id: i64,
    /// The route.
    pub route_id: i64,
    /// Answers in question order of the request.
    pub answers: Vec<StoredAnswer>,
    /// When.
    pub created: Timestamp,
}

/// Everything a stop read shows of its proof of delivery.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StopProof {
    /// The latest signature.
    pub signature: Option<(StopSignature, ImageMeta)>,
    /// Photos, oldest first (those still compressing included).
    pub photos: Vec<ImageMeta>,
    /// VISIT questionnaire submissions at the stop.
    pub submissions: Vec<SubmissionRef>,
    /// The customer tracking page's token of the stop's (first) order, once dispatched.
    pub tracking_token: Option<String>,
}
