//! Tables of requests a test expects refused, each with the envelope it must get.

use serde_json::Value;

use super::Server;

/// The envelope `name` and HTTP status a refusal must carry.
pub type Refusal = (&'static str, u16);

/// An id that names nothing the key can see.
pub const NOT_FOUND: Refusal = ("RESOURCE_NOT_FOUND", 404);
/// Input the spec rejects (also what vehicles answer for an unknown id).
pub const INVALID: Refusal = ("INVALID_INPUT", 400);

impl Server {
    /// Sends each `(method, path, body)` with `key` and asserts the envelope named beside it.
    pub fn assert_refusals(&self, key: &str, cases: &[(&str, &str, Option<&Value>, Refusal)]) {
        for &(method, path, body, (name, status)) in cases {
            self.call(method, path, Some(key), body)
                .assert_envelope(name, status);
        }
    }
}
