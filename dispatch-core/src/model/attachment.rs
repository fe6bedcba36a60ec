//! Files attached to orders (pdf, png, jpg, jpeg; at most 10 MB, two per order).
//!
//! An uploaded file name is the sender's text. It is kept (bounded) for display as JSON data
//! only; the file is stored and served under [`safe_file_name`], which cannot name another
//! directory, break out of a header or an HTML attribute, or hide its type.

use crate::model::order_attachment::AttachmentKind;
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
    /// The file name as uploaded (at most [`MAX_DISPLAY_NAME_CHARS`] characters), for display
    /// only: JSON data, to be escaped in any other context, never used to name a file.
    pub name: String,
    /// The sanitised name the file is stored and served under ([`safe_file_name`]).
    pub file_name: String,
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

/// Longest uploaded name kept for display, in characters; a longer one is cut.
pub const MAX_DISPLAY_NAME_CHARS: usize = 255;
/// Longest stem of a [`safe_file_name`], in bytes (the extension comes on top).
pub const MAX_FILE_STEM_BYTES: usize = 100;

/// The uploaded name as kept for display: at most [`MAX_DISPLAY_NAME_CHARS`] characters.
pub fn display_name(uploaded: &str) -> String {
    uploaded.chars().take(MAX_DISPLAY_NAME_CHARS).collect()
}

/// The name a file of type `kind` is stored and served under, from the `uploaded` name: its
/// last path component (after `/` or `\\`); letters, digits, space, `-`, `_`, `(`, `)`, `+`
/// and `,` kept and everything else (dots, control and bidirectional characters, `<>&"'`,
/// `%`, `;` ...) replaced by `_` (runs collapsed, trimmed); at most
/// [`MAX_FILE_STEM_BYTES`] bytes; `attachment` when nothing is left. The extension is the
/// uploaded one when it is allowed and matches the content (`photo.JPEG` stays `.jpeg`),
/// otherwise the content's own: `../../x.png` becomes `x.png`, `scan.png` with pdf content
/// `scan.pdf`, `report.exe` with pdf content `report_exe.pdf`.
pub fn safe_file_name(uploaded: &str, kind: AttachmentKind) -> String {
    let base = uploaded.rsplit(['/', '\\']).next().unwrap_or_default();
    let (stem, ext) = match base.rsplit_once('.') {
        Some((stem, ext)) if ATTACHMENT_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()) => {
            let ext = ext.to_ascii_lowercase();
            let same_type = ext == kind.ext || (kind.ext == "jpg" && ext == "jpeg");
            (stem, if same_type { ext } else { kind.ext.to_owned() })
        }
        _ => (base, kind.ext.to_owned()),
    };
    let mut safe = String::new();
    for c in stem.chars() {
        let c = if c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '(' | ')' | '+' | ',') {
            c
        } else {
            '_'
        };
        if c == '_' && safe.ends_with('_') {
            continue;
        }
        if safe.len() + c.len_utf8() > MAX_FILE_STEM_BYTES {
            break;
        }
        safe.push(c);
    }
    let safe = safe.trim_matches(['_', ' ']);
    let stem = if safe.is_empty() { "attachment" } else { safe };
    format!("{stem}.{ext}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::order_attachment::sniff;

    fn png() -> AttachmentKind {
        sniff(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]).unwrap()
    }

    fn jpeg() -> AttachmentKind {
        sniff(&[0xFF, 0xD8, 0xFF]).unwrap()
    }

    #[test]
    fn a_safe_file_name_has_no_path_no_dots_and_no_markup() {
        for (uploaded, safe) in [
            ("../../x.png", "x.png"),
            ("..\\..\\windows\\x.png", "x.png"),
            ("/etc/passwd", "passwd.png"),
            ("..", "attachment.png"),
            ("", "attachment.png"),
            (".png", "attachment.png"),
            ("<img onerror=alert(1)>.png", "img onerror_alert(1).png"),
            ("a\"b'c&d.png", "a_b_c_d.png"),
            ("nul\0byte\r\n.png", "nul_byte.png"),
            ("rtl\u{202e}gnp.exe", "rtl_gnp_exe.png"),
            ("report.v2.final.PNG", "report_v2_final.png"),
            ("100%;x.png", "100_x.png"),
            ("Liefer schein ä.png", "Liefer schein ä.png"),
            ("photo.gif", "photo_gif.png"),
        ] {
            assert_eq!(safe_file_name(uploaded, png()), safe, "{uploaded:?}");
        }
    }

    #[test]
    fn the_extension_is_kept_only_when_it_matches_the_content() {
        assert_eq!(safe_file_name("photo.JPEG", jpeg()), "photo.jpeg");
        assert_eq!(safe_file_name("photo.jpg", jpeg()), "photo.jpg");
        assert_eq!(safe_file_name("photo.png", jpeg()), "photo.jpg");
        assert_eq!(safe_file_name("photo.pdf", png()), "photo.png");
    }

    #[test]
    fn long_names_are_bounded_at_a_character_boundary() {
        let safe = safe_file_name(&format!("{}.png", "é".repeat(10_000)), png());
        assert_eq!(safe, format!("{}.png", "é".repeat(MAX_FILE_STEM_BYTES / 2)));
        let safe = safe_file_name(&"a".repeat(100_000), png());
        assert_eq!(safe.len(), MAX_FILE_STEM_BYTES + ".png".len());
        assert_eq!(display_name(&"x".repeat(1000)).chars().count(), 255);
        assert_eq!(display_name("../../x.png"), "../../x.png");
    }
}
