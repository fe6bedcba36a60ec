//! Port: travel durations and distances between points.
//!
//! The solver works on a precomputed square [`Matrix`] of integer seconds and metres; a
//! [`TravelMatrix`] produces one for a list of points. The solver owns the matrix, its units and
//! the coordinate geometry ([`crate::solver::travel`]); this port depends on the solver, never the
//! other way round. Implementations here need nothing from outside: [`GreatCircle`] for
//! longitude/latitude (the service's default, at a configurable speed), [`Euclidean`] for planar
//! benchmark coordinates and [`Precomputed`] for a matrix the caller already has. Road-network
//! adapters (OSRM) live in dispatch-adapters.

use std::collections::HashMap;

pub use crate::model::travel::TravelSource;

pub use crate::solver::problem::Matrix;
pub use crate::solver::travel::{
    check_geographic, haversine_m, Euclidean, GreatCircle, Point, TravelError, EARTH_RADIUS_M,
};

/// Why a matrix could not be produced.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MatrixError {
    /// The points themselves: a coordinate that is not finite or, for geographic points, out
    /// of range, or a value beyond the solver's integer units (the solver's own error, so the
    /// planar and great-circle matrices answer as the solver's geometry does).
    #[error(transparent)]
    Travel(#[from] TravelError),
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
    /// The source of travel data failed (for adapters over outside services).
    #[error("travel matrix unavailable: {0}")]
    Unavailable(String),
}

/// Produces the durations (seconds) and distances (metres) between every ordered pair of
/// `points`; planar implementations use their own scaled units.
pub trait TravelMatrix: Send + Sync {
    /// A `points.len()` square matrix; entry `(i, j)` is the travel from `points[i]` to
    /// `points[j]`.
    fn matrix(&self, points: &[Point]) -> Result<Matrix, MatrixError>;

    /// The matrix and the travel times it actually holds. An implementation that may answer
    /// from another source than its own (a fall-back) overrides this; by default it is
    /// [`TravelMatrix::matrix`] from [`TravelMatrix::source`].
    fn sourced_matrix(&self, points: &[Point]) -> Result<(Matrix, TravelSource), MatrixError> {
        Ok((self.matrix(points)?, self.source()))
    }

    /// The travel times this matrix gives when it answers from its own source.
    fn source(&self) -> TravelSource {
        TravelSource::Given
    }
}

impl TravelMatrix for GreatCircle {
    fn matrix(&self, points: &[Point]) -> Result<Matrix, MatrixError> {
        Ok(GreatCircle::matrix(self, points)?)
    }

    fn source(&self) -> TravelSource {
        TravelSource::GreatCircle
    }
}

impl TravelMatrix for Euclidean {
    fn matrix(&self, points: &[Point]) -> Result<Matrix, MatrixError> {
        Ok(Euclidean::matrix(self, points)?)
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
    fn travel_sources_round_trip_and_only_the_fallback_warns() {
        for t in [
            TravelSource::Osrm,
            TravelSource::GreatCircle,
            TravelSource::GreatCircleFallback,
            TravelSource::Given,
        ] {
            assert_eq!(TravelSource::parse(t.as_str()), Some(t));
            assert_eq!(
                t.warning().is_some(),
                t == TravelSource::GreatCircleFallback
            );
        }
        let gc = GreatCircle::new(50.0).unwrap();
        let (_, source) = gc.sourced_matrix(&[Point::new(0.0, 0.0)]).unwrap();
        assert_eq!(source, TravelSource::GreatCircle);
    }

    #[test]
    fn great_circle_through_the_port_reports_invalid_points_as_matrix_errors() {
        let gc: &dyn TravelMatrix = &GreatCircle::new(50.0).unwrap();
        let err = gc
            .matrix(&[Point::new(0.0, 0.0), Point::new(0.0, 95.0)])
            .unwrap_err();
        assert!(matches!(
            err,
            MatrixError::Travel(TravelError::InvalidPoint { index: 1, .. })
        ));
        let m = gc
            .matrix(&[Point::new(0.0, 0.0), Point::new(0.0, 1.0)])
            .unwrap();
        assert!((8005..=8007).contains(&m.duration(0, 1)));
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
