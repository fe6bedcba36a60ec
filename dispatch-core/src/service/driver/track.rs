//! Position reports: the route's track, and `actual_distance` from it.
//!
//! `actual_distance` is the great-circle length of the track in whole metres: the sum of the
//! haversine distances (earth radius [`EARTH_RADIUS_M`](crate::ports::matrix::EARTH_RADIUS_M)) between consecutive reported positions
//! in time order, recomputed from the whole track on every report so that late or
//! out-of-order batches (a device that was offline) count exactly once and in place.

use super::access::owned_route;
use super::rules::on_the_road;
use crate::error::{IssueCode, ValidationErrors, ValidationIssue};
use crate::model::driver::Driver;
use crate::model::driver_visit::{check_position, check_reported_time, TrackPoint};
use crate::ports::matrix::{haversine_m, Point};
use crate::ports::store::Store;
use crate::service::ServiceError;
use crate::time::Timestamp;

/// Most positions in one report.
pub const MAX_POSITIONS_PER_REPORT: usize = 1000;

/// Most positions one route's track keeps: one a second for almost 14 hours. Every report
/// reads the whole track in its write transaction (to place late batches in time order), so
/// an unbounded track let one device that kept sending full reports make each report, and
/// every writer queued behind it, slower without end.
pub const MAX_TRACK_POSITIONS: usize = 50_000;

/// The great-circle length of a track in time order, in metres.
pub fn track_length_m(track: &[TrackPoint]) -> f64 {
    let point = |p: &TrackPoint| Point::new(p.at.lng, p.at.lat);
    track
        .windows(2)
        .map(|w| haversine_m(point(&w[0]), point(&w[1])))
        .sum()
}

/// What a report left behind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrackSummary {
    /// Positions stored on the route so far.
    pub positions: usize,
    /// The route's `actual_distance`, metres.
    pub actual_distance_m: i64,
    /// The latest position by time.
    pub latest: TrackPoint,
}

/// Checks a batch: 1 to [`MAX_POSITIONS_PER_REPORT`] positions, each in range and reported at
/// a plausible time; 400 at `positions.i.*`.
pub fn check_batch(points: &[TrackPoint], now: Timestamp) -> Result<(), ServiceError> {
    let mut errors = ValidationErrors::default();
    if points.is_empty() || points.len() > MAX_POSITIONS_PER_REPORT {
        errors.push(ValidationIssue::new(
            if points.is_empty() {
                IssueCode::TooSmall
            } else {
                IssueCode::TooBig
            },
            vec!["positions".into()],
            format!("1 to {MAX_POSITIONS_PER_REPORT} positions"),
            format!("{} positions", points.len()),
            format!("a report carries 1 to {MAX_POSITIONS_PER_REPORT} positions"),
        ));
    }
    for (i, p) in points.iter().enumerate() {
        let path = vec!["positions".into(), i.into()];
        check_position(&mut errors, &path, p.at);
        let mut time_path = path.clone();
        time_path.push("time".into());
        check_reported_time(&mut errors, time_path, p.time, now);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.into())
    }
}

/// Appends a batch of positions to the track of a started route and updates its
/// `actual_distance`.
pub fn report_positions(
    store: &dyn Store,
    driver: &Driver,
    route_id: i64,
    points: &[TrackPoint],
    now: Timestamp,
) -> Result<TrackSummary, ServiceError> {
    check_batch(points, now)?;
    store.transaction_in(driver.scope, |tx| {
        let mut route = owned_route(tx, driver, route_id)?;
        on_the_road(&route)?;
        tx.insert_track_points(driver.scope, route_id, points, now)?;
        let track = tx.track(driver.scope, route_id)?;
        if track.len() > MAX_TRACK_POSITIONS {
            // Returning the error rolls the batch back: the track stays as it was.
            return Err(ServiceError::Invalid(ValidationErrors(vec![ValidationIssue::new(
                IssueCode::TooBig,
                vec!["positions".into()],
                format!("at most {MAX_TRACK_POSITIONS} positions on a route's track"),
                format!("{} positions", track.len()),
                format!("a route's track keeps at most {MAX_TRACK_POSITIONS} positions; report less often"),
            )])));
        }
        let distance = track_length_m(&track).round() as i64;
        if route.actual_distance_m != Some(distance) {
            route.actual_distance_m = Some(distance);
            route.updated = now;
            tx.update_route(driver.scope, &route)?;
        }
        let latest = *track.last().expect("the batch was just stored");
        Ok(TrackSummary {
            positions: track.len(),
            actual_distance_m: distance,
            latest,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::driver_visit::LatLng;
    use crate::ports::matrix::EARTH_RADIUS_M;

    fn at(lat: f64, lng: f64, s: i64) -> TrackPoint {
        TrackPoint {
            at: LatLng { lat, lng },
            time: Timestamp::from_millis(s * 1000),
        }
    }

    #[test]
    fn a_track_is_as_long_as_its_great_circle_legs() {
        // One degree of latitude is pi * R / 180 metres.
        let degree = std::f64::consts::PI * EARTH_RADIUS_M / 180.0;
        let track = [
            at(0.0, 0.0, 0),
            at(1.0, 0.0, 10),
            at(1.0, 0.0, 20),
            at(0.0, 0.0, 30),
        ];
        assert!((track_length_m(&track) - 2.0 * degree).abs() < 1e-6);
        assert_eq!(track_length_m(&track[..1]), 0.0);
    }
}
