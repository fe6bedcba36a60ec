//! A request body read into segments, and read back by the parser a segment at a time: each
//! segment is freed as soon as the parser has taken it, so a large body and its parsed form
//! are never held whole at the same time (which doubled the peak of the largest requests).

use std::collections::VecDeque;
use std::io::Read;

/// Largest segment of a [`BodyBytes`]: above glibc's initial mmap threshold (128 KiB), so in a
/// fresh process each full segment is a mapping of its own that goes back to the system the
/// moment parsing frees it; where the threshold has grown, freed segments are heap chunks that
/// the parsed strings reuse.
const SEGMENT_BYTES: usize = 1024 * 1024;

/// A request body as read: its bytes in segments of at most `SEGMENT_BYTES`, filled in place
/// as chunks arrive (sized by `Content-Length` when sent), so that [`parse`](super::parse) can free each
/// segment once it has read it.
#[derive(Debug, Default)]
pub struct BodyBytes {
    segments: VecDeque<Vec<u8>>,
    len: usize,
    declared: Option<usize>,
}

impl BodyBytes {
    fn push(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            let last = match self.segments.back_mut() {
                Some(last) if last.len() < last.capacity() => last,
                _ => {
                    // The declared rest, or doubling what came so far: no segment is copied
                    // to grow, and a small body takes a small segment.
                    let wanted = match self.declared {
                        Some(total) => total.saturating_sub(self.len),
                        None => self.len.max(4096),
                    };
                    let capacity = wanted.max(data.len()).min(SEGMENT_BYTES);
                    self.segments.push_back(Vec::with_capacity(capacity));
                    self.segments.back_mut().expect("just pushed")
                }
            };
            let n = (last.capacity() - last.len()).min(data.len());
            last.extend_from_slice(&data[..n]);
            self.len += n;
            data = &data[n..];
        }
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// All its bytes as one slice, when they lie in one segment (a body sent with its
    /// `Content-Length` and within a segment's size does).
    pub fn contiguous(&self) -> Option<&[u8]> {
        match self.segments.len() {
            0 => Some(&[]),
            1 => self.segments.front().map(Vec::as_slice),
            _ => None,
        }
    }

    /// Whether it is empty or only whitespace.
    pub fn is_blank(&self) -> bool {
        self.segments
            .iter()
            .all(|s| s.iter().all(u8::is_ascii_whitespace))
    }
}

impl From<&[u8]> for BodyBytes {
    fn from(bytes: &[u8]) -> Self {
        let mut body = BodyBytes {
            declared: Some(bytes.len()),
            ..BodyBytes::default()
        };
        body.push(bytes);
        body
    }
}

/// Reads a whole body of at most `limit` bytes into [`BodyBytes`].
pub async fn read_body(
    headers: &axum::http::HeaderMap,
    mut body: axum::body::Body,
    limit: usize,
) -> Result<BodyBytes, ReadBodyError> {
    use http_body_util::BodyExt;

    let declared = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(ReadBodyError::TooLarge);
    }
    let mut bytes = BodyBytes {
        declared,
        ..BodyBytes::default()
    };
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(ReadBodyError::Unreadable)?;
        if let Ok(data) = frame.into_data() {
            if bytes.len() + data.len() > limit {
                return Err(ReadBodyError::TooLarge);
            }
            bytes.push(&data);
        }
    }
    Ok(bytes)
}

/// Why a body could not be read.
#[derive(Debug)]
pub enum ReadBodyError {
    /// Longer than the limit.
    TooLarge,
    /// The connection failed while reading it.
    Unreadable(axum::Error),
}

impl BodyBytes {
    /// A reader over the segments that frees each once read, handing it to `observe` first; the
    /// segments not read when the reader is dropped go to `observe` then, so `observe` sees
    /// every byte once, in order.
    pub(super) fn drain<'o>(self, observe: &'o mut dyn FnMut(&[u8])) -> Draining<'o> {
        Draining {
            segments: self.segments,
            at: 0,
            observe,
        }
    }

    /// Hands every segment to `observe` and frees them.
    pub(super) fn observe_all(self, observe: &mut dyn FnMut(&[u8])) {
        self.segments.iter().for_each(|s| observe(s));
    }
}

/// Reads segments in order, freeing each once read and handing it to `observe` first; on drop
/// the segments parsing did not finish go to `observe` too.
pub(super) struct Draining<'o> {
    segments: VecDeque<Vec<u8>>,
    at: usize,
    observe: &'o mut dyn FnMut(&[u8]),
}

impl Read for Draining<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some(front) = self.segments.front() {
            if self.at < front.len() {
                let n = (front.len() - self.at).min(buf.len());
                buf[..n].copy_from_slice(&front[self.at..self.at + n]);
                self.at += n;
                return Ok(n);
            }
            (self.observe)(front);
            self.segments.pop_front();
            self.at = 0;
        }
        Ok(0)
    }
}

impl Drop for Draining<'_> {
    fn drop(&mut self) {
        for segment in &self.segments {
            (self.observe)(segment);
        }
    }
}
