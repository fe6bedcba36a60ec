//! Travel matrices for the service: the great-circle default at a configurable speed, or an
//! OSRM server's road network ([`osrm`]) with a fall-back policy for when it is down.
//!
//! Units everywhere: durations in seconds, distances in metres.
//!
//! Fall-back policy (`serve --osrm-fallback`): with `great-circle` (the default) a failed OSRM call
//! (unreachable server, timeout, an error answer) logs a warning naming the server and the
//! error, counts `dispatch_travel_fallbacks_total`, and the job is planned on great-circle
//! travel at `--speed-kmh` instead, marked `great-circle (OSRM unreachable)` with a warning on
//! its optimisation and plan, so a router outage never stops a day from being planned nor
//! passes unseen; with `fail` the optimisation fails with the OSRM error. Invalid coordinates
//! are an error either way.

pub mod osrm;
pub mod osrm_route;

use std::sync::Arc;

use dispatch_core::ports::matrix::{
    GreatCircle, Matrix, MatrixError, Point, TravelMatrix, TravelSource,
};

pub use osrm::OsrmMatrix;
pub use osrm_route::OsrmRoads;

/// What to do when the road network cannot answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FallbackPolicy {
    /// Plan on great-circle travel and log a warning.
    GreatCircle,
    /// Fail the optimisation with the router's error.
    Fail,
}

/// A primary matrix with great-circle travel as the fall-back when it is unavailable.
pub struct WithFallback {
    primary: Arc<dyn TravelMatrix>,
    fallback: GreatCircle,
    policy: FallbackPolicy,
}

impl WithFallback {
    /// `primary` first; on [`MatrixError::Unavailable`], `fallback` when the policy says so.
    pub fn new(
        primary: Arc<dyn TravelMatrix>,
        fallback: GreatCircle,
        policy: FallbackPolicy,
    ) -> WithFallback {
        WithFallback {
            primary,
            fallback,
            policy,
        }
    }
}

impl TravelMatrix for WithFallback {
    fn matrix(&self, points: &[Point]) -> Result<Matrix, MatrixError> {
        self.sourced_matrix(points).map(|(m, _)| m)
    }

    fn source(&self) -> TravelSource {
        self.primary.source()
    }

    fn sourced_matrix(&self, points: &[Point]) -> Result<(Matrix, TravelSource), MatrixError> {
        match self.primary.sourced_matrix(points) {
            Err(MatrixError::Unavailable(why)) if self.policy == FallbackPolicy::GreatCircle => {
                tracing::warn!(
                    error = %why,
                    speed_kmh = self.fallback.speed_kmh(),
                    travel_times = TravelSource::GreatCircleFallback.as_str(),
                    "road network unavailable; planning on great-circle travel"
                );
                metrics::counter!("dispatch_travel_fallbacks_total").increment(1);
                let matrix = TravelMatrix::matrix(&self.fallback, points)?;
                Ok((matrix, TravelSource::GreatCircleFallback))
            }
            other => other,
        }
    }
}

/// GETs `url` from an OSRM server and reads its JSON answer (at most `limit` bytes) whatever the
/// status: OSRM's refusals (4xx) carry their `code` and `message` in JSON. The error says what
/// went wrong without the URL, which reqwest names with any credentials in it.
fn osrm_answer<T: serde::de::DeserializeOwned>(
    client: &crate::http::LazyClient,
    url: &str,
    limit: u64,
) -> Result<T, String> {
    use std::io::Read;
    let response = client
        .get()?
        .get(url)
        .send()
        .map_err(|e| e.without_url().to_string())?;
    let status = response.status();
    let mut text = Vec::new();
    response
        .take(limit)
        .read_to_end(&mut text)
        .map_err(|e| format!("HTTP {status}, unreadable answer: {e}"))?;
    serde_json::from_slice(&text).map_err(|e| format!("HTTP {status}, unreadable answer: {e}"))
}
