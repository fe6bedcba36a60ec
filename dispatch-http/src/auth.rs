//! Who is calling: the access key resolved to its depot and organisation. The auth layer puts a
//! [`Principal`] into the request extensions; everything after it (rate limits, idempotency,
//! handlers) reads it from there.

/// What an access key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// Every endpoint.
    All,
    /// GET endpoints only.
    Read,
}

/// The authenticated caller of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Principal {
    pub access_key_id: i64,
    pub depot_id: i64,
    pub organisation_id: i64,
    pub permission: Permission,
}
