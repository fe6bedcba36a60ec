//! Travel between coordinates in the solver's integer units: great-circle distances for
//! longitude/latitude points and planar Euclidean distances for the benchmark formats.
//!
//! The solver owns these (and [`Matrix`]) so that its readers need nothing outside the solver;
//! the `TravelMatrix` port (`ports::matrix`) puts them, and road-network services, behind one
//! trait for the rest of the crate.

use super::problem::{Distance, Matrix, Time};

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

/// Why travel between points could not be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TravelError {
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
    /// A value does not fit the integer units.
    #[error("travel value between points {from} and {to} is out of range")]
    OutOfRange {
        /// Origin position in the request.
        from: usize,
        /// Destination position in the request.
        to: usize,
    },
}

/// Largest travel value accepted: leaves head-room so sums along routes cannot overflow.
const LIMIT: f64 = (1u64 << 50) as f64;

/// Builds a matrix from a per-pair function returning `(duration, distance)` as floats in the
/// target units; non-finite or too large values are an error.
fn build(
    points: &[Point],
    mut pair: impl FnMut(Point, Point) -> (f64, f64),
    round_duration: fn(f64) -> f64,
) -> Result<Matrix, TravelError> {
    let n = points.len();
    let mut durations = Vec::with_capacity(n * n);
    let mut distances = Vec::with_capacity(n * n);
    for (i, &a) in points.iter().enumerate() {
        for (j, &b) in points.iter().enumerate() {
            let (duration, distance) = if i == j { (0.0, 0.0) } else { pair(a, b) };
            let duration = round_duration(duration);
            let distance = distance.round();
            if !(0.0..LIMIT).contains(&duration) || !(0.0..LIMIT).contains(&distance) {
                return Err(TravelError::OutOfRange { from: i, to: j });
            }
            durations.push(duration as Time);
            distances.push(distance as Distance);
        }
    }
    Ok(Matrix::new(n, durations, distances).expect("square and non-negative by construction"))
}

/// Every point is a finite longitude in -180..=180 and latitude in -90..=90; else the first
/// that is not.
pub fn check_geographic(points: &[Point]) -> Result<(), TravelError> {
    match points.iter().enumerate().find(|(_, p)| {
        !(p.x.is_finite()
            && p.y.is_finite()
            && (-180.0..=180.0).contains(&p.x)
            && (-90.0..=90.0).contains(&p.y))
    }) {
        Some((index, p)) => Err(TravelError::InvalidPoint {
            index,
            x: p.x,
            y: p.y,
        }),
        None => Ok(()),
    }
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
    /// The speed the service and VROOM-style files assume without a road network, km/h.
    pub const DEFAULT_SPEED_KMH: f64 = 50.0;

    /// Travelling at `km_per_hour`; `None` unless the speed is finite and positive.
    pub fn new(km_per_hour: f64) -> Option<GreatCircle> {
        (km_per_hour.is_finite() && km_per_hour > 0.0).then_some(GreatCircle {
            metres_per_second: km_per_hour / 3.6,
        })
    }

    /// The speed in km/h.
    pub fn speed_kmh(&self) -> f64 {
        self.metres_per_second * 3.6
    }

    /// Seconds and metres between every ordered pair of `points`.
    pub fn matrix(&self, points: &[Point]) -> Result<Matrix, TravelError> {
        check_geographic(points)?;
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

    /// Scaled durations and distances between every ordered pair of `points`.
    pub fn matrix(&self, points: &[Point]) -> Result<Matrix, TravelError> {
        if let Some((index, p)) = points
            .iter()
            .enumerate()
            .find(|(_, p)| !(p.x.is_finite() && p.y.is_finite()))
        {
            return Err(TravelError::InvalidPoint {
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
    fn great_circle_speed_scales_durations_not_distances() {
        let pts = [Point::new(0.0, 0.0), Point::new(0.0, 1.0)];
        let slow = GreatCircle::new(25.0).unwrap().matrix(&pts).unwrap();
        let fast = GreatCircle::new(50.0).unwrap().matrix(&pts).unwrap();
        assert_eq!(slow.distance(0, 1), fast.distance(0, 1));
        assert!((slow.duration(0, 1) - 2 * fast.duration(0, 1)).abs() <= 1);
    }

    #[test]
    fn great_circle_rejects_out_of_range_latitude() {
        let err = GreatCircle::new(50.0)
            .unwrap()
            .matrix(&[Point::new(0.0, 0.0), Point::new(0.0, 95.0)])
            .unwrap_err();
        assert!(matches!(err, TravelError::InvalidPoint { index: 1, .. }));
    }

    #[test]
    fn invalid_speeds_and_scales_are_refused() {
        assert!(GreatCircle::new(0.0).is_none());
        assert!(GreatCircle::new(f64::NAN).is_none());
        assert!(Euclidean::new(0, 1.0).is_none());
        assert!(Euclidean::new(1, -1.0).is_none());
    }
}
