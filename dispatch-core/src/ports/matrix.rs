//! Port: travel durations and distances between points.
//!
//! The solver works on a precomputed square [`Matrix`]; a [`TravelMatrix`] produces one for a list
//! of points. Adapters can put a road-network service behind the trait; the implementations here
//! need nothing from outside: [`GreatCircle`] for longitude/latitude, [`Euclidean`] for planar
//! benchmark coordinates and [`Precomputed`] for a matrix the caller already has.

use std::collections::HashMap;

use crate::solver::problem::{Distance, Matrix, Time};

/// Mean Earth radius in metres (IUGG), the usual constant for great-circle distances.
pub const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// A point: longitude and latitude in degrees (`x` = longitude, `y` = latitude, VROOM's
/// `[lon, lat]` order) for geographic matrices, plain coordinates for planar ones.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Longitude, or the planar x coordinate.
    pub x: f64,
    /// Latitude, or the planar y coordinate.
    pub y: f64,
}

impl Point {
    /// The point `(x, y)`.
    pub fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }
}

/// Why a matrix could not be produced.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MatrixError {
    /// A coordinate is not finite or, for geographic points, out of range.
    #[error("point {index} has invalid coordinates ({x}, {y})")]
    InvalidPoint {
        /// Position of the point in the request.
        index: usize,
        /// Its x (longitude) value.
        x: f64,
        /// Its y (latitude) value.
        y: f64,
    },
    /// A [`Precomputed`] matrix does not know the point.
    #[error("point {index} ({x}, {y}) is not in the precomputed matrix")]
    UnknownPoint {
        /// Position of the point in the request.
        index: usize,
        /// Its x (longitude) value.
        x: f64,
        /// Its y (latitude) value.
        y: f64,
    },
    /// A value does not fit the integer units.
    #[error("travel value between points {from} and {to} is out of range")]
    OutOfRange {
        /// Origin position in the request.
        from: usize,
        /// Destination position in the request.
        to: usize,
    },
    /// The source of travel data failed (for adapters over outside services).
    #[error("travel matrix unavailable: {0}")]
    Unavailable(String),
}

/// Produces the durations and distances between every ordered pair of `points`.
pub trait TravelMatrix: Send + Sync {
    /// A `points.len()` square matrix; entry `(i, j)` is the travel from `points[i]` to
    /// `points[j]`.
    fn matrix(&self, points: &[Point]) -> Result<Matrix, MatrixError>;
}

/// Builds a matrix from a per-pair function returning `(duration, distance)` as floats in the
/// target units; non-finite or too large values are an error.
fn build(
    points: &[Point],
    mut pair: impl FnMut(Point, Point) -> (f64, f64),
    round_duration: fn(f64) -> f64,
) -> Result<Matrix, MatrixError> {
    // Leaves head-room so sums along routes of the solver cannot overflow.
    const LIMIT: f64 = (1u64 << 50) as f64;
    let n = points.len();
    let mut durations = Vec::with_capacity(n * n);
    let mut distances = Vec::with_capacity(n * n);
    for (i, &a) in points.iter().enumerate() {
        for (j, &b) in points.iter().enumerate() {
            let (duration, distance) = if i == j { (0.0, 0.0) } else { pair(a, b) };
            let duration = round_duration(duration);
            let distance = distance.round();
            if !(0.0..LIMIT).contains(&duration) || !(0.0..LIMIT).contains(&distance) {
                return Err(MatrixError::OutOfRange { from: i, to: j });
            }
            durations.push(duration as Time);
            distances.push(distance as Distance);
        }
    }
    Ok(Matrix::new(n, durations, distances).expect("square and non-negative by construction"))
}

/// Great-circle (haversine) distance in metres between two longitude/latitude points.
pub fn haversine_m(a: Point, b: Point) -> f64 {
    let (lat1, lat2) = (a.y.to_radians(), b.y.to_radians());
    let dlat = lat2 - lat1;
    let dlng = (b.x - a.x).to_radians();
    let h = (dlat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (dlng / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_M * h.sqrt().min(1.0).asin()
}

/// Great-circle distances in metres and durations in seconds at a constant speed, both rounded to
/// the nearest unit. Points are longitude (`x`) and latitude (`y`) in degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GreatCircle {
    metres_per_second: f64,
}

impl GreatCircle {
    /// Travelling at `km_per_hour`; `None` unless the speed is finite and positive.
    pub fn new(km_per_hour: f64) -> Option<GreatCircle> {
        (km_per_hour.is_finite() && km_per_hour > 0.0).then_some(GreatCircle {
            metres_per_second: km_per_hour / 3.6,
        })
    }
}

impl TravelMatrix for GreatCircle {
    fn matrix(&self, points: &[Point]) -> Result<Matrix, MatrixError> {
        for (index, p) in points.iter().enumerate() {
            let valid = p.x.is_finite()
                && p.y.is_finite()
                && (-180.0..=180.0).contains(&p.x)
                && (-90.0..=90.0).contains(&p.y);
            if !valid {
                return Err(MatrixError::InvalidPoint {
                    index,
                    x: p.x,
                    y: p.y,
                });
            }
        }
        let speed = self.metres_per_second;
        build(
            points,
            |a, b| {
                let metres = haversine_m(a, b);
                (metres / speed, metres)
            },
            f64::round,
        )
    }
}

/// Planar Euclidean distances scaled by an integer factor: distances rounded to the nearest unit,
/// durations (distance divided by speed) rounded *up*, so that a schedule that is feasible in the
/// integer units is also feasible with exact travel times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Euclidean {
    scale: f64,
    speed: f64,
}

impl Euclidean {
    /// One coordinate unit becomes `scale` matrix units; travel time is distance / `speed`.
    /// `None` unless `scale` is positive and `speed` finite and positive.
    pub fn new(scale: i64, speed: f64) -> Option<Euclidean> {
        (scale > 0 && speed.is_finite() && speed > 0.0).then_some(Euclidean {
            scale: scale as f64,
            speed,
        })
    }
}

impl TravelMatrix for Euclidean {
    fn matrix(&self, points: &[Point]) -> Result<Matrix, MatrixError> {
        if let Some((index, p)) = points
            .iter()
            .enumerate()
            .find(|(_, p)| !(p.x.is_finite() && p.y.is_finite()))
        {
            return Err(MatrixError::InvalidPoint {
                index,
                x: p.x,
                y: p.y,
            });
        }
        let (scale, speed) = (self.scale, self.speed);
        build(
            points,
            |a, b| {
                let d = (a.x - b.x).hypot(a.y - b.y);
                (d / speed * scale, d * scale)
            },
            f64::ceil,
        )
    }
}

/// A matrix the caller already holds (from a routing service, a file, a cache), answered for any
/// subset of its points in any order. Points are matched by exact coordinates.
#[derive(Debug, Clone)]
pub struct Precomputed {
    index: HashMap<(u64, u64), usize>,
    matrix: Matrix,
}

impl Precomputed {
    /// `matrix` entry `(i, j)` is the travel from `points[i]` to `points[j]`. `None` when the
    /// sizes differ.
    pub fn new(points: &[Point], matrix: Matrix) -> Option<Precomputed> {
        if points.len() != matrix.size() {
            return None;
        }
        let index = points
            .iter()
            .enumerate()
            .map(|(i, p)| ((p.x.to_bits(), p.y.to_bits()), i))
            .collect();
        Some(Precomputed { index, matrix })
    }
}

impl TravelMatrix for Precomputed {
    fn matrix(&self, points: &[Point]) -> Result<Matrix, MatrixError> {
        let rows = points
            .iter()
            .enumerate()
            .map(|(index, p)| {
                self.index
                    .get(&(p.x.to_bits(), p.y.to_bits()))
                    .copied()
                    .ok_or(MatrixError::UnknownPoint {
                        index,
                        x: p.x,
                        y: p.y,
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let n = rows.len();
        let mut durations = Vec::with_capacity(n * n);
        let mut distances = Vec::with_capacity(n * n);
        for &i in &rows {
            for &j in &rows {
                durations.push(self.matrix.duration(i, j));
                distances.push(self.matrix.distance(i, j));
            }
        }
        Ok(Matrix::new(n, durations, distances).expect("a sub-matrix of a valid matrix"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn euclidean_rounds_durations_up_and_distances_to_nearest() {
        let m = Euclidean::new(10, 1.0)
            .unwrap()
            .matrix(&[Point::new(0.0, 0.0), Point::new(1.0, 1.0)])
            .unwrap();
        // sqrt(2) * 10 = 14.142...
        assert_eq!(m.duration(0, 1), 15);
        assert_eq!(m.distance(0, 1), 14);
        assert_eq!(m.duration(1, 1), 0);
    }

    #[test]
    fn euclidean_exact_distances_are_not_rounded_up() {
        let m = Euclidean::new(10_000, 1.0)
            .unwrap()
            .matrix(&[Point::new(0.0, 0.0), Point::new(3.0, 4.0)])
            .unwrap();
        assert_eq!(m.duration(0, 1), 50_000);
        assert_eq!(m.distance(1, 0), 50_000);
    }

    #[test]
    fn euclidean_speed_divides_travel_time_only() {
        let m = Euclidean::new(1, 2.0)
            .unwrap()
            .matrix(&[Point::new(0.0, 0.0), Point::new(3.0, 4.0)])
            .unwrap();
        assert_eq!((m.duration(0, 1), m.distance(0, 1)), (3, 5));
    }

    #[test]
    fn great_circle_one_degree_of_latitude_at_50_kmh() {
        let m = GreatCircle::new(50.0)
            .unwrap()
            .matrix(&[Point::new(0.0, 0.0), Point::new(0.0, 1.0)])
            .unwrap();
        // One degree of latitude is about 111.2 km; at 50 km/h that is about 8006 s.
        assert!((111_190..=111_200).contains(&m.distance(0, 1)));
        assert!((8005..=8007).contains(&m.duration(0, 1)));
        assert_eq!(m.duration(1, 0), m.duration(0, 1));
    }

    #[test]
    fn great_circle_rejects_out_of_range_latitude() {
        let err = GreatCircle::new(50.0)
            .unwrap()
            .matrix(&[Point::new(0.0, 0.0), Point::new(0.0, 95.0)])
            .unwrap_err();
        assert!(matches!(err, MatrixError::InvalidPoint { index: 1, .. }));
    }

    #[test]
    fn invalid_speeds_and_scales_are_refused() {
        assert!(GreatCircle::new(0.0).is_none());
        assert!(GreatCircle::new(f64::NAN).is_none());
        assert!(Euclidean::new(0, 1.0).is_none());
        assert!(Euclidean::new(1, -1.0).is_none());
    }

    #[test]
    fn precomputed_answers_subsets_in_any_order_and_asymmetric() {
        let pts = [
            Point::new(0.0, 0.0),
            Point::new(1.0, 0.0),
            Point::new(2.0, 0.0),
        ];
        let full = Matrix::new(
            3,
            vec![0, 1, 2, 10, 0, 3, 20, 30, 0],
            vec![0, 5, 6, 50, 0, 7, 60, 70, 0],
        )
        .unwrap();
        let pre = Precomputed::new(&pts, full).unwrap();
        let m = pre.matrix(&[pts[2], pts[0]]).unwrap();
        assert_eq!((m.duration(0, 1), m.duration(1, 0)), (20, 2));
        assert_eq!((m.distance(0, 1), m.distance(1, 0)), (60, 6));
        let err = pre.matrix(&[Point::new(9.0, 9.0)]).unwrap_err();
        assert!(matches!(err, MatrixError::UnknownPoint { index: 0, .. }));
    }
}
