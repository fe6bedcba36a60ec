//! Files attached to orders (pdf, png, jpg, jpeg; at most 10 MB, two per order).

use crate::time::Timestamp;

/// Largest accepted attachment, in bytes.
pub const MAX_ATTACHMENT_BYTES: u64 = 10 * 1024 * 1024;
/// Most attachments one order may carry.
pub const MAX_ATTACHMENTS_PER_ORDER: usize = 2;
/// Accepted file extensions.
pub const ATTACHMENT_EXTENSIONS: [&str; 4] = ["pdf", "png", "jpg", "jpeg"];

/// A stored file of an order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// Identifier.
    pub id: i64,
    /// The order it belongs to.
    pub order_id: i64,
    /// The order's depot.
    pub depot_id: i64,
    /// Original file name.
    pub name: String,
    /// Media type.
    pub mime: String,
    /// File extension.
    pub ext: String,
    /// Size in bytes.
    pub size: u64,
    /// Whether compression has finished.
    pub is_compressed: bool,
    /// Last change of the file.
    pub modified: Timestamp,
    /// Upload instant.
    pub created: Timestamp,
}
