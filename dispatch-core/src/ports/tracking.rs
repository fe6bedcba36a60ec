//! Customer tracking links: the token is random (from outside the core, which has no
//! randomness of its own) and the link is absolute, under the service's public address.

/// Issues tracking tokens and turns them into the links customers receive.
pub trait TrackingLinks: Send + Sync {
    /// A fresh unguessable token: URL-safe, at least 128 random bits, never derived from ids.
    fn new_token(&self) -> String;
    /// The public URL of the tracking page of `token`.
    fn link(&self, token: &str) -> String;
}

/// Sequential tokens under a fixed base: for tests and examples only (they are guessable).
#[derive(Debug, Default)]
pub struct SequentialLinks {
    next: std::sync::atomic::AtomicU64,
}

impl TrackingLinks for SequentialLinks {
    fn new_token(&self) -> String {
        let n = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        format!("test-token-{n}")
    }

    fn link(&self, token: &str) -> String {
        format!("http://tracking.test/track/{token}")
    }
}
