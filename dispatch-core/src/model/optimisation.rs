//! Optimisation jobs: the durable queue entry behind `POST /plans/optimise/*`. A job is queued
//! in the plan's creation transaction, claimed by a worker under a lease, and ends succeeded
//! (with a solution), failed (with a reason) or cancelled. A worker that dies leaves a running
//! job whose lease runs out; the next claim re-queues it, at most [`MAX_ATTEMPTS`] times.

use serde::{Deserialize, Serialize};

use crate::model::organisation::DepotScope;
use crate::model::travel::TravelSource;
use crate::time::{Date, Timestamp};

/// How many times a job is started before an interrupted run marks it failed.
pub const MAX_ATTEMPTS: u32 = 3;

/// Where a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    /// Waiting for a worker.
    Queued,
    /// A worker holds it under a lease.
    Running,
    /// Finished with a solution.
    Succeeded,
    /// Stopped without a solution; see [`Optimisation::error`].
    Failed,
    /// Cancelled (its plan was deleted or re-optimised) before it finished.
    Cancelled,
}

impl JobState {
    /// Stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Succeeded => "succeeded",
            JobState::Failed => "failed",
            JobState::Cancelled => "cancelled",
        }
    }

    /// Parses the stored spelling.
    pub fn parse(s: &str) -> Option<JobState> {
        [
            JobState::Queued,
            JobState::Running,
            JobState::Succeeded,
            JobState::Failed,
            JobState::Cancelled,
        ]
        .into_iter()
        .find(|j| j.as_str() == s)
    }

    /// The spec's `in_progress`: queued or running.
    pub fn in_progress(self) -> bool {
        matches!(self, JobState::Queued | JobState::Running)
    }
}

/// The spec's per-depot optimisation queues; each caps how many jobs a depot may have queued or
/// running at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queue {
    /// Day plans of up to [`Queue::LONG_FROM_STOPS`] stops.
    Standard,
    /// Larger day plans.
    Long,
    /// Travel-matrix precomputation (reserved).
    Dist,
    /// Booking checks (one at a time per depot).
    BookingCheck,
}

impl Queue {
    /// Jobs with at least this many orders go to the long queue.
    pub const LONG_FROM_STOPS: usize = 500;

    /// The queue of a day plan of `orders` orders.
    pub fn for_plan(orders: usize) -> Queue {
        if orders >= Queue::LONG_FROM_STOPS {
            Queue::Long
        } else {
            Queue::Standard
        }
    }

    /// The spec's per-depot concurrency: STANDARD 100, LONG 100, DIST 7, BOOKING_CHECK 1.
    pub fn capacity(self) -> u64 {
        match self {
            Queue::Standard | Queue::Long => 100,
            Queue::Dist => 7,
            Queue::BookingCheck => 1,
        }
    }

    /// Stored spelling (the spec's name).
    pub fn as_str(self) -> &'static str {
        match self {
            Queue::Standard => "STANDARD",
            Queue::Long => "LONG",
            Queue::Dist => "DIST",
            Queue::BookingCheck => "BOOKING_CHECK",
        }
    }

    /// Parses the stored spelling.
    pub fn parse(s: &str) -> Option<Queue> {
        [
            Queue::Standard,
            Queue::Long,
            Queue::Dist,
            Queue::BookingCheck,
        ]
        .into_iter()
        .find(|q| q.as_str() == s)
    }
}

/// `settings` of an optimisation request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct OptimiseSettings {
    /// Only vehicles marked active take part (default true).
    pub active_vehicles: bool,
    /// Dispatch the plan when the job succeeds (carried out by the dispatch use case).
    pub auto_dispatch: bool,
    /// Keep the request's order sequence within each route (ids variant).
    pub maintain_upload_sequence: bool,
}

/// Which orders a job optimises.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum OrderSelection {
    /// Every eligible order due on the plan's date (`POST /plans/optimise/orders`).
    DueOnDate,
    /// Exactly these orders, in request order (`POST /plans/optimise/orders-for-ids`).
    Ids(Vec<i64>),
}

/// Everything a worker needs to run a job, fixed when it is queued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSpec {
    /// The orders.
    pub selection: OrderSelection,
    /// The vehicles to plan with; `None` for the depot's fleet.
    pub vehicle_ids: Option<Vec<i64>>,
    /// Only orders located in a zone of this group.
    pub zone_group_id: Option<i64>,
    /// The request's settings.
    pub settings: OptimiseSettings,
}

impl JobSpec {
    /// Every order due on the plan's date with the depot's whole fleet, no zone group and the
    /// default settings (`POST /plans/optimise/orders` with an empty body).
    pub fn due_on_date() -> JobSpec {
        JobSpec {
            selection: OrderSelection::DueOnDate,
            vehicle_ids: None,
            zone_group_id: None,
            settings: OptimiseSettings::default(),
        }
    }
}

/// One optimisation job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Optimisation {
    /// UUID string.
    pub id: String,
    /// The depot.
    pub depot_id: i64,
    /// The depot's organisation.
    pub organisation_id: i64,
    /// The plan it fills.
    pub plan_id: i64,
    /// The plan's date.
    pub date: Date,
    /// Where it stands.
    pub state: JobState,
    /// Its queue.
    pub queue: Queue,
    /// What to run.
    pub spec: JobSpec,
    /// How many times a worker started it.
    pub attempts: u32,
    /// The solution it produced.
    pub solution_id: Option<i64>,
    /// Why it failed or was cancelled.
    pub error: Option<String>,
    /// The travel times its run planned on (set when the run built its problem).
    pub travel: Option<TravelSource>,
    /// Until when the running worker holds it.
    pub lease_until: Option<Timestamp>,
    /// Creation instant.
    pub created: Timestamp,
    /// Last state change.
    pub updated: Timestamp,
}

impl Optimisation {
    /// The depot the job belongs to.
    pub fn scope(&self) -> DepotScope {
        DepotScope {
            organisation_id: self.organisation_id,
            depot_id: self.depot_id,
        }
    }

    /// A job just queued for `plan_id` of `scope`'s depot on `date`: no attempt, result or
    /// lease yet, created and updated `now`.
    pub fn queued(
        id: String,
        scope: DepotScope,
        plan_id: i64,
        date: Date,
        queue: Queue,
        spec: JobSpec,
        now: Timestamp,
    ) -> Optimisation {
        Optimisation {
            id,
            depot_id: scope.depot_id,
            organisation_id: scope.organisation_id,
            plan_id,
            date,
            state: JobState::Queued,
            queue,
            spec,
            attempts: 0,
            solution_id: None,
            error: None,
            travel: None,
            lease_until: None,
            created: now,
            updated: now,
        }
    }

    /// A worker takes the job: it runs, one more attempt is counted, and the worker holds it
    /// until `lease_until`. Every store's claim and the claim use case make this one change, so
    /// the attempt count that fails a job after [`MAX_ATTEMPTS`] starts means the same
    /// everywhere.
    pub fn start_attempt(&mut self, now: Timestamp, lease_until: Timestamp) {
        self.state = JobState::Running;
        self.attempts += 1;
        self.lease_until = Some(lease_until);
        self.updated = now;
    }

    /// The spec's `in_progress`.
    pub fn in_progress(&self) -> bool {
        self.state.in_progress()
    }
}

/// The wall-clock budget of a job of `stops` orders, in milliseconds: one second plus ten
/// milliseconds per order, within `[min_ms, max_ms]`. The spec's typical jobs take 5-30 s.
pub fn time_budget_ms(stops: usize, min_ms: u64, max_ms: u64) -> u64 {
    let scaled = 1_000u64.saturating_add(10u64.saturating_mul(stops as u64));
    scaled.clamp(min_ms.min(max_ms), max_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_budget_grows_with_the_order_count_within_its_bounds() {
        assert_eq!(time_budget_ms(0, 500, 30_000), 1_000);
        assert_eq!(time_budget_ms(100, 500, 30_000), 2_000);
        assert_eq!(time_budget_ms(1_000, 500, 30_000), 11_000);
        assert_eq!(time_budget_ms(10_000, 500, 30_000), 30_000);
        assert_eq!(time_budget_ms(0, 3_000, 30_000), 3_000);
    }

    #[test]
    fn large_plans_go_to_the_long_queue_and_queues_have_the_spec_capacities() {
        assert_eq!(Queue::for_plan(10), Queue::Standard);
        assert_eq!(Queue::for_plan(500), Queue::Long);
        assert_eq!(Queue::Standard.capacity(), 100);
        assert_eq!(Queue::Dist.capacity(), 7);
        assert_eq!(Queue::BookingCheck.capacity(), 1);
        for q in [
            Queue::Standard,
            Queue::Long,
            Queue::Dist,
            Queue::BookingCheck,
        ] {
            assert_eq!(Queue::parse(q.as_str()), Some(q));
        }
    }

    #[test]
    fn only_queued_and_running_jobs_are_in_progress() {
        assert!(JobState::Queued.in_progress());
        assert!(JobState::Running.in_progress());
        assert!(!JobState::Succeeded.in_progress());
        assert!(!JobState::Failed.in_progress());
        assert!(!JobState::Cancelled.in_progress());
    }
}
