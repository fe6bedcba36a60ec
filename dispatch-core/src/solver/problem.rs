//! The input of the solver: locations with a travel matrix, tasks (jobs and shipments) and vehicles.
//!
//! An exchange (drop and collect at one location in one consecutive visit) is a [`Job`] that has
//! both a `delivery` and a `pickup` amount: it is one visit by construction.

/// Time in the problem's integer time unit (seconds for service problems; scaled distance units
/// for the Euclidean benchmark formats).
pub type Time = i64;
/// Distance in the problem's integer distance unit.
pub type Distance = i64;
/// One dimension of a load.
pub type Load = i64;

/// Index of a location in the [`Matrix`].
pub type LocationIndex = usize;

/// Square travel-time and distance matrices over all locations; asymmetric allowed.
///
/// Distances equal to the travel times (a VROOM problem without a distance matrix, the
/// Euclidean benchmark formats) are stored once: at 5 000 orders one matrix is 260 MB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matrix {
    size: usize,
    durations: Vec<Time>,
    /// `None` when every distance equals the travel time (one canonical form, so that equal
    /// matrices compare equal).
    distances: Option<Vec<Distance>>,
}

impl Matrix {
    /// Builds a matrix from row-major `size * size` durations and distances.
    ///
    /// Returns `None` when the lengths do not match `size * size` or a value is negative.
    pub fn new(size: usize, durations: Vec<Time>, distances: Vec<Distance>) -> Option<Matrix> {
        if distances.len() != size * size || distances.iter().any(|&v| v < 0) {
            return None;
        }
        let same = distances == durations;
        let mut m = Matrix::from_durations(size, durations)?;
        if !same {
            m.distances = Some(distances);
        }
        Some(m)
    }

    /// Builds a matrix whose distances are its row-major `size * size` travel times.
    ///
    /// Returns `None` when the length does not match `size * size` or a value is negative.
    pub fn from_durations(size: usize, durations: Vec<Time>) -> Option<Matrix> {
        let ok = durations.len() == size * size && durations.iter().all(|&v| v >= 0);
        ok.then_some(Matrix {
            size,
            durations,
            distances: None,
        })
    }

    /// Number of locations.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Travel time from `from` to `to`.
    #[inline]
    pub fn duration(&self, from: LocationIndex, to: LocationIndex) -> Time {
        self.durations[from * self.size + to]
    }

    /// Travel distance from `from` to `to`.
    #[inline]
    pub fn distance(&self, from: LocationIndex, to: LocationIndex) -> Distance {
        match &self.distances {
            Some(d) => d[from * self.size + to],
            None => self.durations[from * self.size + to],
        }
    }
}

/// A closed interval `[start, end]` in which service may *start*.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TimeWindow {
    /// Earliest start of service.
    pub start: Time,
    /// Latest start of service.
    pub end: Time,
}

impl TimeWindow {
    /// The window that never binds.
    pub const ALWAYS: TimeWindow = TimeWindow {
        start: 0,
        end: Time::MAX / 4,
    };
}

/// A set of skills as a bitset over skill indices assigned by the problem builder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Skills(Vec<u64>);

impl Skills {
    /// The set holding exactly the given skill indices.
    pub fn from_indices(indices: impl IntoIterator<Item = usize>) -> Skills {
        let mut words = Vec::new();
        for i in indices {
            if words.len() <= i / 64 {
                words.resize(i / 64 + 1, 0);
            }
            words[i / 64] |= 1 << (i % 64);
        }
        Skills(words)
    }

    /// The skill indices in the set, ascending.
    pub fn indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            (0..64)
                .filter(move |b| bits & (1 << b) != 0)
                .map(move |b| w * 64 + b)
        })
    }

    /// True when every skill of `self` is also in `other`.
    pub fn is_subset_of(&self, other: &Skills) -> bool {
        self.0
            .iter()
            .enumerate()
            .all(|(i, &w)| w & !other.0.get(i).copied().unwrap_or(0) == 0)
    }
}

/// Where one visit of a task happens and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The location in the matrix.
    pub location: LocationIndex,
    /// Set-up time, spent once when arriving from a different location.
    pub setup: Time,
    /// Service time at the visit.
    pub service: Time,
    /// One or more windows for the start of service, sorted and disjoint; empty means any time.
    pub time_windows: Vec<TimeWindow>,
}

/// A single-visit task. `delivery` is loaded at the route start and dropped here; `pickup` is
/// collected here and carried to the route end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The caller's identifier, echoed in the solution.
    pub id: u64,
    /// Where and when it is served.
    pub place: Place,
    /// Amount dropped, one entry per capacity dimension.
    pub delivery: Vec<Load>,
    /// Amount collected, one entry per capacity dimension.
    pub pickup: Vec<Load>,
    /// Skills a vehicle needs to serve it.
    pub skills: Skills,
    /// Higher is more important; served jobs' priorities are maximised before cost is minimised.
    pub priority: u32,
    /// When set, only this vehicle (index into [`Problem::vehicles`]) may serve it.
    pub pinned_vehicle: Option<usize>,
}

/// A paired task: collected at `pickup`, carried, dropped at `delivery` by the same vehicle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shipment {
    /// The caller's identifier of the pickup visit.
    pub pickup_id: u64,
    /// The caller's identifier of the delivery visit.
    pub delivery_id: u64,
    /// Where and when the goods are collected.
    pub pickup: Place,
    /// Where and when the goods are dropped.
    pub delivery: Place,
    /// The amount carried between the two visits.
    pub amount: Vec<Load>,
    /// Skills a vehicle needs to serve it.
    pub skills: Skills,
    /// As [`Job::priority`].
    pub priority: u32,
    /// As [`Job::pinned_vehicle`].
    pub pinned_vehicle: Option<usize>,
}

/// A driver break: taken once, for `service` time, starting inside one of its windows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    /// The caller's identifier.
    pub id: u64,
    /// Windows for the start of the break; empty means any time during the shift.
    pub time_windows: Vec<TimeWindow>,
    /// Length of the break.
    pub service: Time,
}

/// A vehicle and its driver's shift.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vehicle {
    /// The caller's identifier.
    pub id: u64,
    /// Where the route starts; `None` starts at the first visit.
    pub start: Option<LocationIndex>,
    /// Where the route ends; `None` ends at the last visit.
    pub end: Option<LocationIndex>,
    /// Capacity, one entry per dimension.
    pub capacity: Vec<Load>,
    /// Skills the vehicle offers.
    pub skills: Skills,
    /// The route must leave its start no earlier than `shift.start` and reach its end no later
    /// than `shift.end`.
    pub shift: TimeWindow,
    /// Breaks the driver must take.
    pub breaks: Vec<Break>,
    /// Upper bound on the route's total duration (end time minus start time).
    pub max_duration: Option<Time>,
    /// Upper bound on the route's total travel time.
    pub max_travel_time: Option<Time>,
    /// Upper bound on the number of task visits.
    pub max_tasks: Option<usize>,
}

/// What the search minimises after serving as many (and as important) tasks as possible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Objective {
    /// Least total travel distance.
    Distance,
    /// Fewest vehicles, then least total travel distance.
    VehiclesThenDistance,
    /// Least total travel time (the VROOM convention).
    Duration,
    /// Fewest vehicles, then least total travel time.
    VehiclesThenDuration,
}

/// A complete routing instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Instance name, echoed in outputs.
    pub name: String,
    /// Travel times and distances between every pair of locations.
    pub matrix: Matrix,
    /// Single-visit tasks.
    pub jobs: Vec<Job>,
    /// Paired tasks.
    pub shipments: Vec<Shipment>,
    /// The fleet; each vehicle drives at most one route.
    pub vehicles: Vec<Vehicle>,
    /// Number of load dimensions (the length of every amount and capacity vector).
    pub dimensions: usize,
    /// What to minimise.
    pub objective: Objective,
}

#[cfg(test)]
mod tests {
    use super::Matrix;

    #[test]
    fn distances_equal_to_the_travel_times_are_stored_once_and_read_back() {
        let d = vec![0, 3, 4, 0];
        let same = Matrix::new(2, d.clone(), d.clone()).unwrap();
        assert_eq!(same, Matrix::from_durations(2, d.clone()).unwrap());
        assert!(same.distances.is_none());
        assert_eq!((same.duration(0, 1), same.distance(0, 1)), (3, 3));
        assert_eq!(same.distance(1, 0), 4);

        let own = Matrix::new(2, d.clone(), vec![0, 30, 40, 0]).unwrap();
        assert_ne!(own, same);
        assert_eq!((own.duration(1, 0), own.distance(1, 0)), (4, 40));
    }

    #[test]
    fn malformed_matrices_are_refused() {
        assert!(Matrix::new(2, vec![0, 1, 1, 0], vec![0, 1, 1]).is_none());
        assert!(Matrix::new(2, vec![0, 1, 1, 0], vec![0, -1, 1, 0]).is_none());
        assert!(Matrix::new(2, vec![0, -1, 1, 0], vec![0, 1, 1, 0]).is_none());
        assert!(Matrix::from_durations(2, vec![0, 1, 1]).is_none());
        assert!(Matrix::from_durations(1, vec![-2]).is_none());
    }
}
