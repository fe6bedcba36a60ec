//! The webhook delivery policy (spec: Events, delivery rules), as pure functions the delivery
//! worker follows: how long an attempt may take, when to retry and when to give up, and which
//! lane carries an event so that one entity's events leave in the order they happened.
//!
//! ```
//! use dispatch_core::webhook::{AttemptResult, NextStep, RetryPolicy};
//!
//! let policy = RetryPolicy::SPEC;
//! assert!(!AttemptResult::Answered(503).is_success());
//! assert_eq!(policy.after_failure(1), NextStep::RetryAfterMs(1_000));
//! assert_eq!(policy.after_failure(2), NextStep::RetryAfterMs(2_000));
//! assert_eq!(policy.after_failure(3), NextStep::GiveUp);
//! ```

use std::hash::{Hash, Hasher};

use crate::events::DomainEvent;

/// How long one attempt may take, end to end (spec: 3 seconds).
pub const ATTEMPT_TIMEOUT_MS: u64 = 3_000;

/// When to try again after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in total, the first included (spec: 3).
    pub max_attempts: u32,
    /// Wait before the second attempt.
    pub first_delay_ms: u64,
    /// Each further wait is this many times the previous one.
    pub factor: u64,
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextStep {
    /// Wait this many milliseconds, then attempt again.
    RetryAfterMs(u64),
    /// Mark the delivery ERROR; it is never retried by itself.
    GiveUp,
}

impl RetryPolicy {
    /// The spec's policy: 3 attempts, waiting 1 s and then 2 s between them.
    pub const SPEC: RetryPolicy = RetryPolicy {
        max_attempts: 3,
        first_delay_ms: 1_000,
        factor: 2,
    };

    /// The step after `failed_attempts` attempts have failed (1 after the first).
    pub fn after_failure(&self, failed_attempts: u32) -> NextStep {
        if failed_attempts >= self.max_attempts {
            return NextStep::GiveUp;
        }
        let exponent = failed_attempts.saturating_sub(1);
        let delay = (0..exponent).fold(self.first_delay_ms, |d, _| d.saturating_mul(self.factor));
        NextStep::RetryAfterMs(delay)
    }

    /// The longest one delivery can take: every attempt timing out plus every wait.
    pub fn worst_case_ms(&self, attempt_timeout_ms: u64) -> u64 {
        let waits: u64 = (1..self.max_attempts)
            .map(|n| match self.after_failure(n) {
                NextStep::RetryAfterMs(ms) => ms,
                NextStep::GiveUp => 0,
            })
            .sum();
        attempt_timeout_ms * u64::from(self.max_attempts) + waits
    }
}

/// How one HTTP attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptResult {
    /// The receiver answered with this status code.
    Answered(u16),
    /// No complete answer within [`ATTEMPT_TIMEOUT_MS`].
    TimedOut,
    /// The connection could not be made or broke (the reason, for the record).
    ConnectionFailed(String),
}

impl AttemptResult {
    /// Only a 2xx answer delivers the event; any other answer, a timeout or a connection error
    /// is a failed attempt.
    pub fn is_success(&self) -> bool {
        matches!(self, AttemptResult::Answered(code) if (200..300).contains(code))
    }

    /// A line for the delivery record.
    pub fn describe(&self) -> String {
        match self {
            AttemptResult::Answered(code) => format!("receiver answered HTTP {code}"),
            AttemptResult::TimedOut => {
                format!("no answer within {} ms", ATTEMPT_TIMEOUT_MS)
            }
            AttemptResult::ConnectionFailed(why) => format!("connection failed: {why}"),
        }
    }
}

/// Which of `lanes` delivery lanes carries `event`. Events of one entity always share a lane
/// and a lane delivers one event at a time, oldest first, so they reach the receiver in the
/// order they happened; different entities spread over the lanes and go out in parallel.
pub fn lane(event: &DomainEvent, lanes: usize) -> usize {
    let mut hasher = Fnv(0xcbf2_9ce4_8422_2325);
    event.entity().hash(&mut hasher);
    (hasher.finish() % lanes.max(1) as u64) as usize
}

/// FNV-1a: stable across runs and platforms (std's default hasher is seeded per process).
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(order_id: i64, status: &str) -> DomainEvent {
        DomainEvent::OrderStatus {
            order_id,
            order_number: format!("N{order_id}"),
            status: status.into(),
        }
    }

    #[test]
    fn spec_policy_makes_three_attempts_with_growing_waits_then_gives_up() {
        let p = RetryPolicy::SPEC;
        assert_eq!(p.after_failure(1), NextStep::RetryAfterMs(1_000));
        assert_eq!(p.after_failure(2), NextStep::RetryAfterMs(2_000));
        assert_eq!(p.after_failure(3), NextStep::GiveUp);
        assert_eq!(p.after_failure(9), NextStep::GiveUp);
        assert_eq!(p.worst_case_ms(ATTEMPT_TIMEOUT_MS), 12_000);
    }

    #[test]
    fn a_policy_of_one_attempt_never_retries() {
        let p = RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::SPEC
        };
        assert_eq!(p.after_failure(1), NextStep::GiveUp);
        assert_eq!(p.worst_case_ms(3_000), 3_000);
    }

    #[test]
    fn huge_factors_saturate_instead_of_overflowing() {
        let p = RetryPolicy {
            max_attempts: 200,
            first_delay_ms: u64::MAX / 2,
            factor: 10,
        };
        assert_eq!(p.after_failure(150), NextStep::RetryAfterMs(u64::MAX));
    }

    #[test]
    fn only_2xx_answers_succeed() {
        for code in [200, 201, 204, 299] {
            assert!(AttemptResult::Answered(code).is_success(), "{code}");
        }
        for code in [100, 301, 400, 404, 429, 500, 503] {
            assert!(!AttemptResult::Answered(code).is_success(), "{code}");
        }
        assert!(!AttemptResult::TimedOut.is_success());
        assert!(!AttemptResult::ConnectionFailed("refused".into()).is_success());
        assert_eq!(
            AttemptResult::Answered(418).describe(),
            "receiver answered HTTP 418"
        );
    }

    #[test]
    fn events_of_one_entity_share_a_lane_whatever_their_type() {
        let on_delivery = DomainEvent::OrderOnDelivery {
            order_id: 7,
            order_number: "N7".into(),
            route_id: 3,
            eta: "10:00".into(),
            time_to_arrival: 15,
        };
        assert_eq!(lane(&status(7, "OPEN"), 8), lane(&on_delivery, 8));
        assert_eq!(lane(&status(7, "OPEN"), 8), lane(&status(7, "ROUTED"), 8));
        assert_eq!(
            lane(&DomainEvent::PlanCreated { id: 4 }, 8),
            lane(&DomainEvent::PlanDeleted { id: 4 }, 8)
        );
    }

    #[test]
    fn entities_spread_over_every_lane() {
        let mut used = [false; 8];
        for id in 0..200 {
            used[lane(&status(id, "OPEN"), 8)] = true;
        }
        assert!(used.iter().all(|u| *u), "{used:?}");
        assert_eq!(lane(&status(1, "OPEN"), 0), 0);
    }
}
