//! `serve` and `worker` flags choosing the travel matrix (the matrices themselves are
//! `dispatch_adapters::travel`'s).

use std::sync::Arc;
use std::time::Duration;

use dispatch_adapters::travel::{osrm, FallbackPolicy, OsrmMatrix, OsrmRoads, WithFallback};
use dispatch_core::ports::matrix::{GreatCircle, TravelMatrix};
use dispatch_core::ports::roads::RoadGeometry;

/// `--osrm-fallback`: what to do when the road network cannot answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Fallback {
    /// Plan on great-circle travel and log a warning.
    GreatCircle,
    /// Fail the optimisation with the router's error.
    Fail,
}

impl From<Fallback> for FallbackPolicy {
    fn from(flag: Fallback) -> FallbackPolicy {
        match flag {
            Fallback::GreatCircle => FallbackPolicy::GreatCircle,
            Fallback::Fail => FallbackPolicy::Fail,
        }
    }
}

/// `serve` flags choosing the travel matrix.
#[derive(Debug, Clone, clap::Args)]
pub struct TravelArgs {
    /// Base URL of an OSRM server (e.g. http://localhost:5000) whose `/table` service gives
    /// road durations and distances, and whose `/route` service the board's map draws routes
    /// along; without it travel is great-circle at --speed-kmh and routes are straight lines.
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
    #[arg(long, value_enum, default_value_t = Fallback::GreatCircle)]
    pub osrm_fallback: Fallback,
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
            self.osrm_fallback.into(),
        )))
    }
}

impl TravelArgs {
    /// The roads the board's map draws routes along: OSRM's route service with `--osrm-url`.
    pub fn roads(&self) -> Result<Option<Arc<dyn RoadGeometry>>, String> {
        let Some(url) = &self.osrm_url else {
            return Ok(None);
        };
        let roads = OsrmRoads::new(
            url,
            &self.osrm_profile,
            Duration::from_secs(self.osrm_timeout.max(1)),
        )?;
        Ok(Some(Arc::new(roads)))
    }
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;

    use dispatch_core::ports::matrix::{MatrixError, Point};

    use super::*;

    fn args(url: Option<&str>, speed: f64, fallback: Fallback) -> TravelArgs {
        TravelArgs {
            osrm_url: url.map(str::to_owned),
            osrm_profile: "driving".into(),
            osrm_max_table_size: 100,
            osrm_timeout: 5,
            osrm_fallback: fallback,
            speed_kmh: speed,
        }
    }

    /// A loopback address nothing listens on.
    fn closed_port() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        drop(listener);
        url
    }

    #[test]
    fn serve_flags_choose_great_circle_or_osrm_and_refuse_bad_values() {
        let pts = [Point::new(-0.1, 51.5), Point::new(-0.2, 51.6)];
        let at = |kmh| TravelMatrix::matrix(&GreatCircle::new(kmh).unwrap(), &pts).unwrap();
        let gc = args(None, 36.0, Fallback::Fail).matrix().unwrap();
        assert_eq!(gc.matrix(&pts).unwrap(), at(36.0));
        // With a URL the road network is asked: a router that is down fails the matrix under
        // `fail` and falls back to great-circle travel at --speed-kmh under `great-circle`.
        let url = closed_port();
        let strict = args(Some(&url), 50.0, Fallback::Fail).matrix().unwrap();
        assert!(matches!(
            strict.matrix(&pts),
            Err(MatrixError::Unavailable(why)) if why.contains("OSRM")
        ));
        let lenient = args(Some(&url), 50.0, Fallback::GreatCircle)
            .matrix()
            .unwrap();
        assert_eq!(lenient.matrix(&pts).unwrap(), at(50.0));
        assert!(args(None, 0.0, Fallback::Fail).matrix().is_err());
        assert!(args(Some("localhost:5000"), 50.0, Fallback::Fail)
            .matrix()
            .is_err());
    }
}
