//! Handing the app to a driver: the link that carries a credential in its fragment (never sent
//! to a server, so it reaches no request line or log) and that link as a QR code — an SVG
//! image for pages and a block-character drawing for terminals.
//!
//! QR codes come from `qrcodegen` (Project Nayuki's reference-quality encoder: no dependencies,
//! every version and error-correction level, mask selection as the standard specifies);
//! drawing its modules is all that is done here.

use qrcodegen::{QrCode, QrCodeEcc};

use crate::public_url::PublicUrl;

/// Modules of light margin around the code, as the standard asks.
const QUIET_ZONE: i32 = 4;

/// The app's link for `credential` under the service's public address.
pub fn app_link(public: &PublicUrl, credential: &str) -> String {
    public.absolute_url(&format!("{}#credential={credential}", super::APP_PATH))
}

/// The code of `text` (medium error correction: a link scans from a screen or a print-out).
fn code(text: &str) -> QrCode {
    // A link of a few hundred characters fits version 40 many times over.
    QrCode::encode_text(text, QrCodeEcc::Medium).expect("a link fits in a QR code")
}

/// `text` as a QR code in an SVG image (one unit per module, crisp at any size).
pub fn svg(text: &str) -> String {
    let qr = code(text);
    let side = qr.size() + 2 * QUIET_ZONE;
    let mut path = String::new();
    for y in 0..qr.size() {
        for x in 0..qr.size() {
            if qr.get_module(x, y) {
                path.push_str(&format!("M{},{}h1v1h-1z", x + QUIET_ZONE, y + QUIET_ZONE));
            }
        }
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {side} {side}\" \
         shape-rendering=\"crispEdges\" role=\"img\" aria-label=\"QR code of the driver's app link\">\
         <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/><path d=\"{path}\" fill=\"#000\"/></svg>"
    )
}

/// `text` as a QR code for a terminal: two modules per character (upper and lower half
/// blocks), light modules drawn, dark ones left blank — a code for a dark-background terminal,
/// as `qrencode -t UTF8` draws it.
pub fn terminal(text: &str) -> String {
    let qr = code(text);
    let light = |x: i32, y: i32| !qr.get_module(x, y);
    let (from, to) = (-QUIET_ZONE, qr.size() + QUIET_ZONE);
    let mut out = String::new();
    let mut y = from;
    while y < to {
        for x in from..to {
            let top = light(x, y);
            let bottom = y + 1 >= to || light(x, y + 1);
            out.push(match (top, bottom) {
                (true, true) => '█',
                (true, false) => '▀',
                (false, true) => '▄',
                (false, false) => ' ',
            });
        }
        out.push('\n');
        y += 2;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_carries_the_credential_in_its_fragment_only() {
        let public = PublicUrl::parse("https://dispatch.example.com/base").unwrap();
        let link = app_link(&public, "drv_abc");
        assert_eq!(
            link,
            "https://dispatch.example.com/base/driver-app/#credential=drv_abc"
        );
        let (before, _) = link.split_once('#').unwrap();
        assert!(!before.contains("drv_"), "{link}");
    }

    #[test]
    fn the_svg_and_the_terminal_drawing_show_the_same_modules() {
        let text = "https://dispatch.example.com/driver-app/#credential=drv_0123";
        let qr = code(text);
        let svg = svg(text);
        let drawn = svg.matches('z').count() as i32;
        let dark = (0..qr.size())
            .flat_map(|y| (0..qr.size()).map(move |x| (x, y)))
            .filter(|&(x, y)| qr.get_module(x, y))
            .count() as i32;
        assert_eq!(drawn, dark);
        let drawing = terminal(text);
        let lines: Vec<&str> = drawing.lines().collect();
        let side = qr.size() + 2 * QUIET_ZONE;
        assert_eq!(lines.len() as i32, (side + 1) / 2);
        // The quiet zone is light: the first line is all full blocks.
        assert!(lines[0].chars().all(|c| c == '█'), "{}", lines[0]);
    }
}
