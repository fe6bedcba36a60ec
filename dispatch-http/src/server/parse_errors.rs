//! hyper answers a request head it cannot parse by itself, before any service sees the
//! request: `400 Bad Request`, `414 URI Too Long` or `431 Request Header Fields Too Large`
//! with an empty body, and closes the connection. hyper offers no hook for that answer, so
//! the connection's writer recognises it and writes the spec's envelope in its place: 400
//! INVALID_INPUT (the spec's status for invalid input, as for a body over its limit) with one
//! validation issue saying what was wrong.
//!
//! The answer is recognised by its exact shape: one write holding a complete response head
//! with one of those statuses and no header but `content-length: 0`, `date` and
//! `connection`. Every response of the router carries `content-type` and `x-request-id`, so
//! none of them has that shape.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use dispatch_core::error::{IssueCode, ValidationErrors, ValidationIssue};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::rejection::invalid;

/// Most header fields in a request head (hyper's `max_headers`).
pub const MAX_HEADERS: usize = 100;
/// Most bytes of a request head (hyper's `max_buf_size`, at hyper's default: 400 KiB of
/// header fields plus 8 KiB).
pub const MAX_HEAD_BYTES: usize = 8192 + 4096 * 100;
/// Longest request target hyper reads (its fixed limit).
pub const MAX_TARGET_BYTES: usize = u16::MAX as usize - 1;

/// A connection whose automatic parse-error answers from hyper are replaced by the envelope.
pub struct EnvelopeParseErrors<S> {
    inner: S,
    /// The replacement still to write, and how much of it is written.
    pending: Option<(Vec<u8>, usize)>,
}

impl<S> EnvelopeParseErrors<S> {
    /// Wraps `inner`.
    pub fn new(inner: S) -> Self {
        EnvelopeParseErrors {
            inner,
            pending: None,
        }
    }
}

impl<S: AsyncWrite + Unpin> EnvelopeParseErrors<S> {
    /// Writes what is left of the replacement; `Ready(Ok)` once all of it is written.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.pending {
            if *written == bytes.len() {
                self.pending = None;
                break;
            }
            match Pin::new(&mut self.inner).poll_write(cx, &bytes[*written..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => *written += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }

    /// Takes `buf` as written when it is hyper's automatic answer, queueing the envelope.
    fn replaced(&mut self, buf: &[u8]) -> bool {
        match envelope_for(buf) {
            Some(replacement) => {
                self.pending = Some((replacement, 0));
                true
            }
            None => false,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for EnvelopeParseErrors<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for EnvelopeParseErrors<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        if this.replaced(buf) {
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        let mut filled = bufs.iter().filter(|b| !b.is_empty());
        if let (Some(only), None) = (filled.next(), filled.next()) {
            if this.replaced(only) {
                return Poll::Ready(Ok(only.len()));
            }
        }
        Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

/// The envelope response replacing `written` when it is hyper's automatic parse-error answer.
fn envelope_for(written: &[u8]) -> Option<Vec<u8>> {
    let mut headers = [httparse::EMPTY_HEADER; 4];
    let mut head = httparse::Response::new(&mut headers);
    match head.parse(written) {
        Ok(httparse::Status::Complete(n)) if n == written.len() => {}
        _ => return None,
    }
    let mut date = None;
    let mut empty = false;
    for h in head.headers.iter() {
        if h.name.eq_ignore_ascii_case("date") {
            date = Some(h.value);
        } else if h.name.eq_ignore_ascii_case("content-length") && h.value == b"0" {
            empty = true;
        } else if !h.name.eq_ignore_ascii_case("connection") {
            return None;
        }
    }
    if !empty {
        return None;
    }
    let issue = match head.code? {
        400 => ValidationIssue::new(
            IssueCode::Custom,
            vec![],
            "an HTTP/1.1 request head: `METHOD target HTTP/1.1`, then valid header fields",
            "a malformed request head",
            "the request is not valid HTTP/1.1: check the method, the request target, the \
             version and every header field (names, values, Content-Length, Transfer-Encoding)",
        ),
        414 => ValidationIssue::new(
            IssueCode::TooBig,
            vec![],
            format!("a request target of at most {MAX_TARGET_BYTES} bytes"),
            "a longer request target",
            format!("the request target (path and query) is longer than {MAX_TARGET_BYTES} bytes"),
        ),
        431 => ValidationIssue::new(
            IssueCode::TooBig,
            vec![],
            format!("at most {MAX_HEADERS} header fields in a request head of at most {MAX_HEAD_BYTES} bytes"),
            "a larger request head",
            format!(
                "the request head has more than {MAX_HEADERS} header fields or more than \
                 {MAX_HEAD_BYTES} bytes"
            ),
        ),
        _ => return None,
    };
    let error = invalid(&ValidationErrors(vec![issue]));
    let body = error.body().to_string();
    let mut out = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        error.status.as_u16(),
        error.status.canonical_reason().unwrap_or(""),
        body.len()
    )
    .into_bytes();
    if let Some(date) = date {
        out.extend_from_slice(b"date: ");
        out.extend_from_slice(date);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body.as_bytes());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hypers_automatic_answers_become_the_envelope_and_others_pass_untouched() {
        for (status, code) in [
            ("400 Bad Request", "custom"),
            ("414 URI Too Long", "too_big"),
        ] {
            let auto = format!(
                "HTTP/1.1 {status}\r\ncontent-length: 0\r\ndate: Tue, 24 Nov 2026 16:00:00 GMT\r\n\r\n"
            );
            let out = envelope_for(auto.as_bytes()).expect("replaced");
            let text = String::from_utf8(out).unwrap();
            let (head, body) = text.split_once("\r\n\r\n").unwrap();
            assert!(head.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{head}");
            assert!(head.contains("content-type: application/json"), "{head}");
            assert!(
                head.contains("date: Tue, 24 Nov 2026 16:00:00 GMT"),
                "{head}"
            );
            let body: serde_json::Value = serde_json::from_str(body).unwrap();
            assert_eq!(body["name"], "INVALID_INPUT");
            assert_eq!(body["statusCode"], 400);
            assert_eq!(body["details"]["validationErrors"][0]["code"], code);
        }
        let app = "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n\
                   x-request-id: 1\r\ncontent-length: 0\r\n\r\n";
        assert!(envelope_for(app.as_bytes()).is_none());
        let not_only_the_head = "HTTP/1.1 431 Request Header Fields Too Large\r\n\
                                 content-length: 0\r\n\r\nmore";
        assert!(envelope_for(not_only_the_head.as_bytes()).is_none());
        let ok = "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        assert!(envelope_for(ok.as_bytes()).is_none());
        assert!(envelope_for(b"{\"a\":1}").is_none());
    }
}
