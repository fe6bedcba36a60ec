//! Absolute links the service hands out (image URLs in reads, customer tracking links), always
//! under the configured public address of the service, never one taken from a request's
//! `Host` header (which a client controls).

use dispatch_core::model::pod::ImageKind;
use dispatch_core::ports::tracking::TrackingLinks;

use crate::public_url::PublicUrl;
use crate::AppState;

/// The paths the service links to, under its public address ([`PublicUrl`], which builds
/// every absolute URL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Links {
    base: PublicUrl,
}

/// The path segment under `/v2` of each image kind's read endpoint.
pub fn image_path(kind: ImageKind) -> &'static str {
    match kind {
        ImageKind::Photo => "proof-of-delivery-photos",
        ImageKind::Signature => "proof-of-delivery-signatures",
        ImageKind::Answer => "driver-questionnaire-images",
    }
}

impl Links {
    /// Links under `base`.
    pub fn new(base: PublicUrl) -> Links {
        Links { base }
    }

    /// The links of the running service, under its `--public-url`.
    pub fn of(state: &AppState) -> Links {
        Links::new(state.public_url.clone())
    }

    /// The absolute URL of an image's read endpoint.
    pub fn image(&self, kind: ImageKind, id: i64) -> String {
        self.base
            .absolute_url(&format!("/v2/{}/{id}", image_path(kind)))
    }
}

impl TrackingLinks for Links {
    /// 128 bits from the operating system's CSPRNG, as 32 hex digits.
    fn new_token(&self) -> String {
        let mut bytes = [0u8; 16];
        // The OS random source failing is not recoverable for a security token; it never
        // happens on supported platforms.
        getrandom::fill(&mut bytes).expect("the operating system's random source failed");
        hex::encode(bytes)
    }

    fn link(&self, token: &str) -> String {
        self.base.absolute_url(&format!("/track/{token}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_absolute_under_the_public_address() {
        let links = Links::new(PublicUrl::parse("https://d.example.com/").unwrap());
        assert_eq!(
            links.image(ImageKind::Answer, 7),
            "https://d.example.com/v2/driver-questionnaire-images/7"
        );
        assert_eq!(links.link("ab"), "https://d.example.com/track/ab");
    }

    #[test]
    fn tokens_are_random_hex_of_128_bits() {
        let links = Links::new(PublicUrl::default());
        let (a, b) = (links.new_token(), links.new_token());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
