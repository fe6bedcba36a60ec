//! A [`TravelMatrix`] over an OSRM server's `/table` service: road durations (seconds) and
//! distances (metres) in one call per block of points.
//!
//! OSRM refuses tables of more than `--max-table-size` locations (100 by default), so larger
//! point sets are cut into blocks of half that size and each pair of blocks is asked as one
//! request with the first block as `sources` and the second as `destinations`. Values are
//! rounded to whole seconds and metres; a pair OSRM cannot route (`null`) gets [`UNREACHABLE`],
//! which no window or shift can absorb, so the solver never uses it.

use std::time::Duration;

use dispatch_core::ports::matrix::{
    check_geographic, Matrix, MatrixError, Point, TravelMatrix, TravelSource,
};
use serde::Deserialize;

/// Seconds and metres standing for "no route": about 136 years, far below overflow.
pub const UNREACHABLE: i64 = 1 << 32;

/// The longest `/table` answer read: 100 x 100 durations and distances are well under it.
const MAX_ANSWER_BYTES: u64 = 64 << 20;

/// OSRM's default `--max-table-size`.
pub const DEFAULT_MAX_TABLE_SIZE: usize = 100;

/// The `/table` client.
#[derive(Debug, Clone)]
pub struct OsrmMatrix {
    base_url: String,
    profile: String,
    max_table_size: usize,
    client: crate::http::LazyClient,
}

/// Rows of a `/table` answer; `null` where there is no route.
type Table = Vec<Vec<Option<f64>>>;

#[derive(Deserialize)]
struct TableResponse {
    code: String,
    message: Option<String>,
    durations: Option<Table>,
    distances: Option<Table>,
}

impl OsrmMatrix {
    /// A client of the OSRM server at `base_url` (e.g. `http://localhost:5000`), for `profile`
    /// (`driving`), asking at most `max_table_size` locations per request (at least 2), waiting
    /// at most `timeout` per request.
    pub fn new(
        base_url: &str,
        profile: &str,
        max_table_size: usize,
        timeout: Duration,
    ) -> Result<OsrmMatrix, String> {
        let base = base_url.trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!(
                "OSRM URL `{}` must start with http:// or https://",
                crate::redact::url(base_url)
            ));
        }
        if max_table_size < 2 {
            return Err("the OSRM table size must be at least 2".to_owned());
        }
        Ok(OsrmMatrix {
            base_url: base.to_owned(),
            profile: profile.to_owned(),
            max_table_size,
            client: crate::http::LazyClient::new(timeout),
        })
    }

    /// The server's base URL.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    fn unavailable(&self, what: impl std::fmt::Display) -> MatrixError {
        MatrixError::Unavailable(format!(
            "OSRM at {}: {what}",
            crate::redact::url(&self.base_url)
        ))
    }

    /// One `/table` request: rows for `sources`, columns for `destinations` (indices into
    /// `coords`).
    fn table(
        &self,
        coords: &[Point],
        sources: &[usize],
        destinations: &[usize],
    ) -> Result<(Table, Table), MatrixError> {
        let list = |ix: &[usize]| {
            ix.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(";")
        };
        let points = coords
            .iter()
            .map(|p| format!("{},{}", p.x, p.y))
            .collect::<Vec<_>>()
            .join(";");
        let url = format!(
            "{}/table/v1/{}/{points}?annotations=duration,distance&sources={}&destinations={}",
            self.base_url,
            self.profile,
            list(sources),
            list(destinations)
        );
        let body: TableResponse = super::osrm_answer(&self.client, &url, MAX_ANSWER_BYTES)
            .map_err(|e| self.unavailable(e))?;
        if body.code != "Ok" {
            let message = body.message.unwrap_or_default();
            return Err(self.unavailable(format_args!("{} {message}", body.code)));
        }
        let (Some(durations), Some(distances)) = (body.durations, body.distances) else {
            return Err(self.unavailable("the answer lacks durations or distances"));
        };
        let shaped =
            |m: &Table| m.len() == sources.len() && m.iter().all(|r| r.len() == destinations.len());
        if !shaped(&durations) || !shaped(&distances) {
            return Err(self.unavailable("the answer's table has the wrong shape"));
        }
        Ok((durations, distances))
    }
}

fn whole(v: Option<f64>) -> i64 {
    match v {
        Some(x) if x.is_finite() && x >= 0.0 => (x.round() as i64).min(UNREACHABLE),
        _ => UNREACHABLE,
    }
}

impl TravelMatrix for OsrmMatrix {
    fn source(&self) -> TravelSource {
        TravelSource::Osrm
    }

    fn matrix(&self, points: &[Point]) -> Result<Matrix, MatrixError> {
        check_geographic(points)?;
        let n = points.len();
        let mut durations = vec![0; n * n];
        let mut distances = vec![0; n * n];
        if n < 2 {
            return Ok(Matrix::new(n, durations, distances).expect("square"));
        }
        let blocks: Vec<(usize, usize)> = if n <= self.max_table_size {
            vec![(0, n)]
        } else {
            let size = self.max_table_size / 2;
            (0..n)
                .step_by(size)
                .map(|s| (s, (s + size).min(n)))
                .collect()
        };
        for &(a0, a1) in &blocks {
            for &(b0, b1) in &blocks {
                // One request per pair of blocks; a block paired with itself is sent once.
                let mut coords: Vec<Point> = points[a0..a1].to_vec();
                let sources: Vec<usize> = (0..a1 - a0).collect();
                let destinations: Vec<usize> = if a0 == b0 {
                    sources.clone()
                } else {
                    coords.extend_from_slice(&points[b0..b1]);
                    (a1 - a0..a1 - a0 + b1 - b0).collect()
                };
                let (dur, dist) = self.table(&coords, &sources, &destinations)?;
                for (r, i) in (a0..a1).enumerate() {
                    for (c, j) in (b0..b1).enumerate() {
                        if i != j {
                            durations[i * n + j] = whole(dur[r][c]);
                            distances[i * n + j] = whole(dist[r][c]);
                        }
                    }
                }
            }
        }
        Ok(Matrix::new(n, durations, distances).expect("square and non-negative"))
    }
}
