//! Travel matrices for the service: the great-circle default at a configurable speed, or an
//! OSRM server's road network ([`osrm`]) with a fall-back policy for when it is down.
//!
//! Units everywhere: durations in seconds, distances in metres.
//!
//! Fall-back policy (`--osrm-fallback`): with `great-circle` (the default) a failed OSRM call
//! (unreachable server, timeout, an error answer) logs a warning naming the server and the
//! error, counts `dispatch_travel_fallbacks_total`, and the job is planned on great-circle
//! travel at `--speed-kmh` instead, marked `great-circle (OSRM unreachable)` with a warning on
//! its optimisation and plan, so a router outage never stops a day from being planned nor
//! passes unseen; with `fail` the optimisation fails with the OSRM error. Invalid coordinates
//! are an error either way.

pub mod osrm;

use std::sync::Arc;
use std::time::Duration;

use dispatch_core::ports::matrix::{
    GreatCircle, Matrix, MatrixError, Point, TravelMatrix, TravelSource,
};

pub use osrm::OsrmMatrix;

/// What to do when the road network cannot answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
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

/// `serve` flags choosing the travel matrix.
#[derive(Debug, Clone, clap::Args)]
pub struct TravelArgs {
    /// Base URL of an OSRM server (e.g. http://localhost:5000) whose `/table` service gives
    /// road durations and distances; without it travel is great-circle at --speed-kmh.
    #[arg(long)]
    pub osrm_url: Option<String>,
    /// OSRM profile segment of the URL.
    #[arg(long, default_value = "driving")]
    pub osrm_profile: String,
    /// Most locations per OSRM table request (the server's --max-table-size).
    #[arg(long, default_value_t = osrm::DEFAULT_MAX_TABLE_SIZE)]
    pub osrm_max_table_size: usize,
    /// Seconds to wait for one OSRM request.
    #[arg(long, default_value_t = 30)]
    pub osrm_timeout: u64,
    /// When OSRM is down: plan on great-circle travel with a warning, or fail the job.
    #[arg(long, value_enum, default_value_t = FallbackPolicy::GreatCircle)]
    pub osrm_fallback: FallbackPolicy,
    /// Speed of great-circle travel, km/h (the default matrix, and OSRM's fall-back).
    #[arg(long, default_value_t = GreatCircle::DEFAULT_SPEED_KMH)]
    pub speed_kmh: f64,
}

impl TravelArgs {
    /// The matrix these flags describe.
    pub fn matrix(&self) -> Result<Arc<dyn TravelMatrix>, String> {
        let great_circle = GreatCircle::new(self.speed_kmh).ok_or_else(|| {
            format!(
                "--speed-kmh must be a positive number, got {}",
                self.speed_kmh
            )
        })?;
        let Some(url) = &self.osrm_url else {
            return Ok(Arc::new(great_circle));
        };
        let osrm = OsrmMatrix::new(
            url,
            &self.osrm_profile,
            self.osrm_max_table_size,
            Duration::from_secs(self.osrm_timeout.max(1)),
        )?;
        Ok(Arc::new(WithFallback::new(
            Arc::new(osrm),
            great_circle,
            self.osrm_fallback,
        )))
    }
}
