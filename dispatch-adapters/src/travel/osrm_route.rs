//! A [`RoadGeometry`] over an OSRM server's `/route` service: the road line through a route's
//! points in visiting order (`overview=full`, GeoJSON coordinates), for the board's map.
//!
//! OSRM refuses more than `--max-viaroute-size` waypoints (500 by default), so a long route is
//! asked in pieces of at most [`MAX_WAYPOINTS`] points that share their end points, and the
//! pieces are joined.

use std::time::Duration;

use dispatch_core::ports::matrix::check_geographic;
use dispatch_core::ports::roads::{Point, RoadError, RoadGeometry};
use serde::Deserialize;

/// Waypoints per `/route` request: well under OSRM's default limit of 500.
pub const MAX_WAYPOINTS: usize = 100;

/// The longest `/route` answer read: a full overview of 100 urban legs is a few megabytes.
const MAX_ANSWER_BYTES: u64 = 32 << 20;

/// The `/route` client.
#[derive(Debug, Clone)]
pub struct OsrmRoads {
    base_url: String,
    profile: String,
    client: crate::http::LazyClient,
}

#[derive(Deserialize)]
struct RouteResponse {
    code: String,
    message: Option<String>,
    routes: Option<Vec<RouteAnswer>>,
}

#[derive(Deserialize)]
struct RouteAnswer {
    geometry: Geometry,
}

#[derive(Deserialize)]
struct Geometry {
    coordinates: Vec<[f64; 2]>,
}

impl OsrmRoads {
    /// A client of the OSRM server at `base_url` for `profile` (`driving`), waiting at most
    /// `timeout` per request.
    pub fn new(base_url: &str, profile: &str, timeout: Duration) -> Result<OsrmRoads, String> {
        let base = base_url.trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!(
                "OSRM URL `{}` must start with http:// or https://",
                crate::redact::url(base_url)
            ));
        }
        Ok(OsrmRoads {
            base_url: base.to_owned(),
            profile: profile.to_owned(),
            client: crate::http::LazyClient::new(timeout),
        })
    }

    fn unavailable(&self, what: impl std::fmt::Display) -> RoadError {
        RoadError::Unavailable(format!(
            "OSRM at {}: {what}",
            crate::redact::url(&self.base_url)
        ))
    }

    /// One `/route` request through `points` (at least two).
    fn piece(&self, points: &[Point]) -> Result<Vec<Point>, RoadError> {
        let coords = points
            .iter()
            .map(|p| format!("{},{}", p.x, p.y))
            .collect::<Vec<_>>()
            .join(";");
        let url = format!(
            "{}/route/v1/{}/{coords}?overview=full&geometries=geojson&steps=false&continue_straight=false",
            self.base_url, self.profile
        );
        let body: RouteResponse = super::osrm_answer(&self.client, &url, MAX_ANSWER_BYTES)
            .map_err(|e| self.unavailable(e))?;
        if body.code != "Ok" {
            let message = body.message.unwrap_or_default();
            return Err(self.unavailable(format_args!("{} {message}", body.code)));
        }
        let line: Vec<Point> = body
            .routes
            .and_then(|r| r.into_iter().next())
            .map(|r| {
                r.geometry
                    .coordinates
                    .into_iter()
                    .map(|[x, y]| Point::new(x, y))
                    .collect()
            })
            .unwrap_or_default();
        if line.len() < 2 || line.iter().any(|p| !(p.x.is_finite() && p.y.is_finite())) {
            return Err(self.unavailable("the answer has no usable route geometry"));
        }
        Ok(line)
    }
}

impl RoadGeometry for OsrmRoads {
    fn path(&self, points: &[Point]) -> Result<Vec<Point>, RoadError> {
        check_geographic(points).map_err(|e| match e {
            dispatch_core::ports::matrix::TravelError::InvalidPoint { index, .. } => {
                RoadError::InvalidPoint { index }
            }
            other => RoadError::Unavailable(other.to_string()),
        })?;
        if points.len() < 2 {
            return Ok(points.to_vec());
        }
        let mut line: Vec<Point> = Vec::new();
        let mut from = 0;
        while from + 1 < points.len() {
            let to = (from + MAX_WAYPOINTS).min(points.len());
            let piece = self.piece(&points[from..to])?;
            // Each piece starts where the last one ended: that point is kept once.
            let skip = usize::from(!line.is_empty());
            line.extend(piece.into_iter().skip(skip));
            from = to - 1;
        }
        Ok(line)
    }
}
