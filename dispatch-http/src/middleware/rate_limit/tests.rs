use dispatch_core::ports::clock::ManualClock;

use super::*;

const T0: Timestamp = Timestamp::from_millis(1_800_000_000_000);

fn limiter() -> (Arc<ManualClock>, RateLimiter) {
    let clock = Arc::new(ManualClock::new(T0));
    (clock.clone(), RateLimiter::new(clock))
}

#[test]
fn every_tier_lets_its_burst_through_at_once_and_rejects_the_next_until_the_burst_window_passes() {
    for tier in Tier::ALL {
        let (clock, limiter) = limiter();
        let [_, burst] = tier.windows();
        for i in 0..burst.limit {
            assert_eq!(limiter.check(1, tier), Ok(()), "{tier} request {i}");
        }
        let rejection = limiter.check(1, tier).unwrap_err();
        assert_eq!(rejection.wait_ms, burst.period_ms, "{tier}");
        assert_eq!(
            rejection.retry_after_seconds(),
            (burst.period_ms + 999) / 1000,
            "{tier}"
        );
        clock.advance_millis(burst.period_ms - 1);
        assert!(limiter.check(1, tier).is_err(), "{tier} one ms early");
        clock.advance_millis(1);
        assert_eq!(limiter.check(1, tier), Ok(()), "{tier} after the wait");
    }
}

/// Sends as fast as the burst window allows and returns how many got through before the
/// first rejection, and that rejection.
fn run_at_burst_rate(
    clock: &ManualClock,
    limiter: &RateLimiter,
    tier: Tier,
) -> (usize, Rejection, i64) {
    let [minute, burst] = tier.windows();
    let start = clock.now().millis();
    let mut accepted = 0;
    loop {
        for _ in 0..burst.limit {
            match limiter.check(1, tier) {
                Ok(()) => accepted += 1,
                Err(rejection) => return (accepted, rejection, clock.now().millis() - start),
            }
        }
        clock.advance_millis(burst.period_ms);
        assert!(
            clock.now().millis() - start <= 10 * minute.period_ms,
            "{tier}: no rejection within ten minutes"
        );
    }
}

#[test]
fn tiers_whose_burst_rate_exceeds_the_minute_limit_stop_at_the_minute_limit() {
    for tier in [Tier::Standard, Tier::Listing, Tier::Upload, Tier::Strict] {
        let (clock, limiter) = limiter();
        let [minute, _] = tier.windows();
        let (accepted, rejection, elapsed) = run_at_burst_rate(&clock, &limiter, tier);
        assert_eq!(accepted, minute.limit, "{tier}");
        assert!(elapsed < minute.period_ms, "{tier}");
        // The first request of the minute must leave the window before the next fits.
        assert_eq!(rejection.wait_ms, minute.period_ms - elapsed, "{tier}");
        clock.advance_millis(rejection.wait_ms - 1);
        assert!(limiter.check(1, tier).is_err(), "{tier} one ms early");
        clock.advance_millis(1);
        assert_eq!(limiter.check(1, tier), Ok(()), "{tier} after the wait");
    }
}

#[test]
fn tiers_whose_burst_rate_equals_the_minute_limit_never_trip_the_minute_window_first() {
    // Reference (1/s = 60/min), Bulk (1 per 2 s = 30/min), Dispatch (2 per 2 s = 60/min): the
    // burst window alone already caps a minute at the minute limit.
    for tier in [Tier::Reference, Tier::Bulk, Tier::Dispatch] {
        let (clock, limiter) = limiter();
        let [minute, burst] = tier.windows();
        let mut accepted_in_first_minute = 0;
        for _ in 0..(3 * minute.period_ms / burst.period_ms) {
            for _ in 0..burst.limit {
                assert_eq!(limiter.check(1, tier), Ok(()), "{tier}");
                if clock.now().millis() - T0.millis() < minute.period_ms {
                    accepted_in_first_minute += 1;
                }
            }
            clock.advance_millis(burst.period_ms);
        }
        assert_eq!(accepted_in_first_minute, minute.limit, "{tier}");
    }
}

#[test]
fn every_minute_window_admits_exactly_its_limit_in_any_sixty_seconds() {
    for tier in Tier::ALL {
        let [minute, _] = tier.windows();
        let mut log = WindowLog::default();
        let step = 100;
        for i in 0..minute.limit {
            let now = i as i64 * step;
            assert_eq!(log.wait_ms(minute, now), 0, "{tier}");
            log.0.push_back(now);
        }
        let now = minute.limit as i64 * step;
        assert_eq!(log.wait_ms(minute, now), minute.period_ms - now, "{tier}");
        assert_eq!(log.wait_ms(minute, minute.period_ms), 0, "{tier}");
    }
}

#[test]
fn a_rejected_request_consumes_nothing() {
    let (clock, limiter) = limiter();
    // Strict: 2 per 15 s. Hammering while rejected must not push the next slot further out.
    limiter.check(1, Tier::Strict).unwrap();
    limiter.check(1, Tier::Strict).unwrap();
    for _ in 0..50 {
        clock.advance_millis(100);
        assert!(limiter.check(1, Tier::Strict).is_err());
    }
    clock.set(T0.add_millis(15_000));
    assert_eq!(limiter.check(1, Tier::Strict), Ok(()));
    assert_eq!(limiter.check(1, Tier::Strict), Ok(()));
    // Four of five used; the fifth fits and the sixth trips the minute window.
    clock.set(T0.add_millis(30_000));
    assert_eq!(limiter.check(1, Tier::Strict), Ok(()));
    assert!(limiter.check(1, Tier::Strict).is_err(), "5 per minute");
}

#[test]
fn a_clock_stepped_back_does_not_lengthen_the_wait() {
    let (clock, limiter) = limiter();
    limiter.check(1, Tier::Reference).unwrap();
    clock.set(T0.add_millis(-3_600_000));
    assert_eq!(limiter.check(1, Tier::Reference).unwrap_err().wait_ms, 1000);
    clock.set(T0.add_millis(1000));
    assert_eq!(limiter.check(1, Tier::Reference), Ok(()));
}

#[test]
fn limits_are_per_access_key_and_per_tier() {
    let (_clock, limiter) = limiter();
    limiter.check(1, Tier::Reference).unwrap();
    assert!(limiter.check(1, Tier::Reference).is_err());
    assert_eq!(limiter.check(2, Tier::Reference), Ok(()));
    assert_eq!(limiter.check(1, Tier::Standard), Ok(()));
}

#[test]
fn retry_after_rounds_up_to_whole_seconds_and_is_at_least_one() {
    assert_eq!(Rejection { wait_ms: 1 }.retry_after_seconds(), 1);
    assert_eq!(Rejection { wait_ms: 1000 }.retry_after_seconds(), 1);
    assert_eq!(Rejection { wait_ms: 1001 }.retry_after_seconds(), 2);
    assert_eq!(Rejection { wait_ms: 14_200 }.retry_after_seconds(), 15);
}

mod properties {
    use proptest::prelude::*;

    use super::*;

    /// Accepted requests in `(t - period, t]`.
    fn in_window(accepted: &[i64], window: Window, t: i64) -> usize {
        accepted
            .iter()
            .filter(|&&a| a > t - window.period_ms && a <= t)
            .count()
    }

    fn has_room(accepted: &[i64], tier: Tier, t: i64) -> bool {
        tier.windows()
            .iter()
            .all(|w| in_window(accepted, *w, t) < w.limit)
    }

    proptest! {
        /// Against a brute-force model of "at most N in any window": the limiter accepts exactly
        /// when both windows have room, and a rejection's wait is the first moment they would.
        #[test]
        fn the_limiter_is_exactly_the_sliding_window_model(
            tier in proptest::sample::select(Tier::ALL.to_vec()),
            gaps in proptest::collection::vec(0i64..4_000, 1..120),
        ) {
            let (clock, limiter) = limiter();
            let mut accepted: Vec<i64> = Vec::new();
            let mut t = 0;
            for gap in gaps {
                t += gap;
                clock.set(T0.add_millis(t));
                let room = has_room(&accepted, tier, t);
                match limiter.check(1, tier) {
                    Ok(()) => {
                        prop_assert!(room, "{tier} accepted at {t} without room");
                        accepted.push(t);
                    }
                    Err(rejection) => {
                        prop_assert!(!room, "{tier} rejected at {t} with room");
                        let retry_at = t + rejection.wait_ms;
                        prop_assert!(has_room(&accepted, tier, retry_at));
                        prop_assert!(!has_room(&accepted, tier, retry_at - 1));
                    }
                }
            }
        }
    }
}
