//! Recognising an order attachment's type from its content (magic bytes), not its name.

/// A recognised attachment type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttachmentKind {
    /// Media type.
    pub mime: &'static str,
    /// Canonical file extension.
    pub ext: &'static str,
}

/// The type of an attachment from its first bytes: pdf, png or jpeg; `None` for anything
/// else (whatever its file name says).
pub fn sniff(content: &[u8]) -> Option<AttachmentKind> {
    if content.starts_with(b"%PDF-") {
        Some(AttachmentKind {
            mime: "application/pdf",
            ext: "pdf",
        })
    } else if content.starts_with(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]) {
        Some(AttachmentKind {
            mime: "image/png",
            ext: "png",
        })
    } else if content.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(AttachmentKind {
            mime: "image/jpeg",
            ext: "jpg",
        })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attachment_type_is_checked_by_content_not_name() {
        assert_eq!(sniff(b"%PDF-1.7\n...").unwrap().ext, "pdf");
        assert_eq!(
            sniff(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0])
                .unwrap()
                .ext,
            "png"
        );
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE0]).unwrap().mime, "image/jpeg");
        assert!(sniff(b"GIF89a").is_none());
        assert!(sniff(b"").is_none());
        assert!(sniff(b"MZ\x90\x00 pretending to be a.pdf").is_none());
    }
}
