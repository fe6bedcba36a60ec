//! Rate-limit windows kept where every node of a service counts in them. A single process
//! counts in its own memory (the HTTP layer's limiter); several API nodes on one database
//! count in the database, so a key's quota is the same whichever node a request reaches.

use crate::ports::store::StoreError;
use crate::time::Timestamp;

/// One window of a tier: at most `limit` requests in any `period_ms` milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateWindow {
    /// Requests allowed in the window.
    pub limit: u32,
    /// The window's length in milliseconds (positive, at most [`MAX_RATE_PERIOD_MS`]).
    pub period_ms: i64,
}

/// The longest window a shared counter keeps requests for; a counter idle for longer holds
/// nothing and may be dropped.
pub const MAX_RATE_PERIOD_MS: i64 = 3_600_000;

/// Who is counted: access keys and driver credentials have ids of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateCaller {
    /// An access key (`/v2`), by id.
    AccessKey(i64),
    /// A driver credential (`/driver`), by id.
    DriverCredential(i64),
}

/// Request counters shared by every process on one store.
pub trait SharedRateLimits: Send + Sync {
    /// Lets one request of `caller` on the tier named `tier` through at `now` when every
    /// window has room for it, and counts it; a refused request counts nothing. Returns 0 when
    /// let through, else the milliseconds until it would be (at least 1). Concurrent calls for
    /// one caller and tier, from any process, are counted one after the other.
    fn admit(
        &self,
        caller: RateCaller,
        tier: &str,
        windows: &[RateWindow],
        now: Timestamp,
    ) -> Result<i64, StoreError>;
}
