//! The output of the solver: one route per used vehicle, and every task it could not serve with
//! the reason why.

use super::problem::Time;

/// One visit on a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// `Problem::jobs[i]`.
    Job(usize),
    /// The pickup of `Problem::shipments[i]`.
    Pickup(usize),
    /// The delivery of `Problem::shipments[i]`.
    Delivery(usize),
    /// `Problem::vehicles[route.vehicle].breaks[i]`.
    Break(usize),
}

/// A scheduled visit: the step and when its service starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScheduledStep {
    /// What is done.
    pub step: Step,
    /// Arrival at the location.
    pub arrival: Time,
    /// Start of service (after waiting, if any).
    pub service_start: Time,
}

/// One vehicle's route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// Index into `Problem::vehicles`.
    pub vehicle: usize,
    /// Departure from the start location (or from the first visit for open starts).
    pub start_time: Time,
    /// Arrival at the end location (or end of service at the last visit for open ends).
    pub end_time: Time,
    /// The visits in order, start and end excluded.
    pub steps: Vec<ScheduledStep>,
}

/// Why a task was left out. The codes are stable and appear on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// No vehicle has the required skills (or the pinned vehicle lacks them).
    Skills,
    /// The demand exceeds every eligible vehicle's capacity.
    Capacity,
    /// No eligible vehicle can reach it inside its time windows.
    TimeWindow,
    /// It cannot be served and returned within any eligible vehicle's shift or duration limits.
    Shift,
    /// It fits no day on which it is available (service-level planning).
    AvailableDays,
    /// There is no vehicle to serve it (empty fleet, or the pinned vehicle does not exist).
    NoVehicle,
    /// Feasible on its own, but no room was found beside the other tasks within the budget.
    NotPlaced,
    /// Feasible only on a route that reaches it through another visit (quicker than the direct
    /// drive, on a matrix that breaks the triangle inequality), and no such route was found.
    /// Its wire code is `NOT_PLACED`, like [`Reason::NotPlaced`]: only the sentence differs.
    NotPlacedThroughAVisit,
}

impl Reason {
    /// The stable wire code, e.g. `TIME_WINDOW`.
    pub fn code(self) -> &'static str {
        match self {
            Reason::Skills => "SKILLS",
            Reason::Capacity => "CAPACITY",
            Reason::TimeWindow => "TIME_WINDOW",
            Reason::Shift => "SHIFT",
            Reason::AvailableDays => "AVAILABLE_DAYS",
            Reason::NoVehicle => "NO_VEHICLE",
            Reason::NotPlaced | Reason::NotPlacedThroughAVisit => "NOT_PLACED",
        }
    }

    /// A sentence for people.
    pub fn description(self) -> &'static str {
        match self {
            Reason::Skills => "no vehicle has all the skills this task requires",
            Reason::Capacity => {
                "the task's load exceeds the capacity of every vehicle that could serve it"
            }
            Reason::TimeWindow => "no vehicle can reach the task within its time windows",
            Reason::Shift => {
                "no vehicle can serve the task and finish within its shift or route limits"
            }
            Reason::AvailableDays => "the task is not available on the planned day",
            Reason::NoVehicle => "there is no vehicle that may serve this task",
            Reason::NotPlaced => {
                "the task fits a vehicle on its own but not beside the other tasks"
            }
            Reason::NotPlacedThroughAVisit => {
                "the task fits a vehicle only on a route that drives to it through another visit, \
                 and no such route was found"
            }
        }
    }
}

/// A task the solution does not serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unassigned {
    /// The task: [`Step::Job`] or [`Step::Pickup`] (standing for the whole shipment).
    pub task: Step,
    /// Why it was left out.
    pub reason: Reason,
}

impl Unassigned {
    /// The visits left out: the job, or the shipment's pickup and then its delivery.
    pub fn visits(&self) -> impl Iterator<Item = Step> {
        let delivery = match self.task {
            Step::Pickup(i) => Some(Step::Delivery(i)),
            _ => None,
        };
        std::iter::once(self.task).chain(delivery)
    }
}

/// A solution: routes of the used vehicles and the tasks left out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Solution {
    /// One route per used vehicle.
    pub routes: Vec<Route>,
    /// Tasks not served, each with its reason.
    pub unassigned: Vec<Unassigned>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unassigned_shipment_leaves_out_its_pickup_then_its_delivery() {
        let left = |task| {
            Unassigned {
                task,
                reason: Reason::Capacity,
            }
            .visits()
            .collect::<Vec<_>>()
        };
        assert_eq!(left(Step::Pickup(3)), [Step::Pickup(3), Step::Delivery(3)]);
        assert_eq!(left(Step::Job(2)), [Step::Job(2)]);
    }
}
