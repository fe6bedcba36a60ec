//! Port: the shape of the roads a route drives, for drawing it on a map.
//!
//! A route's legs are planned from a travel matrix; the matrix says how long and how far, not
//! where. A [`RoadGeometry`] gives the line a vehicle follows through a list of points in
//! order (an OSRM server's route service in dispatch-adapters). Without one, a map draws
//! straight lines between the points.

pub use crate::solver::travel::Point;

/// Why the roads could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoadError {
    /// The source of road geometry failed (unreachable, refused, an unreadable answer).
    #[error("road geometry unavailable: {0}")]
    Unavailable(String),
    /// A point is not a valid longitude/latitude pair.
    #[error("point {index} has invalid coordinates")]
    InvalidPoint {
        /// Position of the point in the request.
        index: usize,
    },
}

/// The line along the roads through points visited in order.
pub trait RoadGeometry: Send + Sync {
    /// The line from `points[0]` through each point in turn to the last, as longitude/latitude
    /// points (x is the longitude): starts at the first point's road position and ends at the
    /// last's. Fewer than two points give them back as they are.
    fn path(&self, points: &[Point]) -> Result<Vec<Point>, RoadError>;
}
