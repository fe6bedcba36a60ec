//! The planning repositories: plans with their solutions, the durable optimisation queue, and
//! routes with their stops (which the routes use cases edit too).

use std::collections::HashSet;

use super::StoreError;
use crate::model::optimisation::{Optimisation, Queue};
use crate::model::organisation::DepotScope;
use crate::model::plan::{NewPlan, Plan, Solution, UnservedOrder};
use crate::model::route::{NewRoute, Route};
use crate::model::stop::{Stop, StopVisit};
use crate::paging::{Page, PageRequest};
use crate::time::{Date, Timestamp};

/// Plans and their solutions.
pub trait PlanRepo {
    /// Stores a new, undispatched plan without a solution. Its id comes from the sequence that
    /// solution ids come from too.
    fn insert_plan(
        &mut self,
        scope: DepotScope,
        plan: &NewPlan,
        now: Timestamp,
    ) -> Result<Plan, StoreError>;
    /// One plan of the depot.
    fn get_plan(&mut self, scope: DepotScope, id: i64) -> Result<Option<Plan>, StoreError>;
    /// One page of the depot's plans, most recently updated first.
    fn list_plans(
        &mut self,
        scope: DepotScope,
        page: &PageRequest,
    ) -> Result<Page<Plan>, StoreError>;
    /// Overwrites a plan's `dispatched`, `active_solution_id` and `updated`; false when it is
    /// not in the depot.
    fn update_plan(&mut self, scope: DepotScope, plan: &Plan) -> Result<bool, StoreError>;
    /// Destroys a plan with its solutions, optimisations, routes and stops; false when it is
    /// not in the depot.
    fn delete_plan(&mut self, scope: DepotScope, id: i64) -> Result<bool, StoreError>;
    /// Stores the solution of one optimisation of a plan (id from the plan-id sequence).
    fn insert_solution(
        &mut self,
        scope: DepotScope,
        plan_id: i64,
        optimisation_id: &str,
        unserved: &[UnservedOrder],
        now: Timestamp,
    ) -> Result<Solution, StoreError>;
    /// One solution of the depot.
    fn get_solution(&mut self, scope: DepotScope, id: i64) -> Result<Option<Solution>, StoreError>;
    /// The depot of a plan, whatever depot (operator tools such as `dispatch export-problem`).
    fn plan_scope(&mut self, plan_id: i64) -> Result<Option<DepotScope>, StoreError>;
    /// Ids of the depot's live orders due on `date`, ascending.
    fn order_ids_due(&mut self, scope: DepotScope, date: Date) -> Result<Vec<i64>, StoreError>;
}

/// The durable optimisation queue. Claiming and lease handling span depots (workers serve
/// every depot); everything else is depot-scoped.
pub trait OptimisationRepo {
    /// Queues a job (its id, depot and plan are set by the caller).
    fn insert_optimisation(&mut self, job: &Optimisation) -> Result<(), StoreError>;
    /// One job of the depot.
    fn get_optimisation(
        &mut self,
        scope: DepotScope,
        id: &str,
    ) -> Result<Option<Optimisation>, StoreError>;
    /// The depot of a job, whatever depot (operator tools).
    fn optimisation_scope(&mut self, id: &str) -> Result<Option<DepotScope>, StoreError>;
    /// The plan's most recently created job.
    fn latest_optimisation_of_plan(
        &mut self,
        scope: DepotScope,
        plan_id: i64,
    ) -> Result<Option<Optimisation>, StoreError>;
    /// How many jobs of every depot are queued and how many running (the metrics' gauges).
    fn count_optimisations_in_progress(&mut self) -> Result<(u64, u64), StoreError>;
    /// How many of the depot's jobs in `queue` are queued or running.
    fn count_active_optimisations(
        &mut self,
        scope: DepotScope,
        queue: Queue,
    ) -> Result<u64, StoreError>;
    /// Takes the oldest queued job of any depot: it becomes running, its attempts grow by one
    /// and it is leased until `lease_until`.
    fn claim_optimisation(
        &mut self,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<Optimisation>, StoreError>;
    /// Running jobs whose lease ended before `now` (their worker died), any depot.
    fn expired_optimisations(&mut self, now: Timestamp) -> Result<Vec<Optimisation>, StoreError>;
    /// Extends a running job's lease; false when the job is no longer running.
    fn renew_optimisation_lease(
        &mut self,
        id: &str,
        lease_until: Timestamp,
    ) -> Result<bool, StoreError>;
    /// Overwrites a job's state, attempts, solution, error, lease and `updated`.
    fn update_optimisation(&mut self, job: &Optimisation) -> Result<(), StoreError>;
    /// Keeps the problem (VROOM-style JSON) a job solved; only the depot's
    /// [`KEPT_PROBLEMS`] newest problems stay.
    fn store_problem(
        &mut self,
        job: &Optimisation,
        problem: &str,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// The problem a job of the depot solved, if still kept.
    fn get_problem(
        &mut self,
        scope: DepotScope,
        optimisation_id: &str,
    ) -> Result<Option<String>, StoreError>;
    /// The newest kept problem of a plan: the optimisation id and the problem.
    fn latest_problem_of_plan(
        &mut self,
        scope: DepotScope,
        plan_id: i64,
    ) -> Result<Option<(String, String)>, StoreError>;
}

/// How many solved problems a depot keeps for export (the newest).
pub const KEPT_PROBLEMS: usize = 20;

/// A route in a list: the route and how many stops it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteSummary {
    /// The route.
    pub route: Route,
    /// Its stop count.
    pub stops: u32,
}

/// Routes and their stops.
pub trait RouteRepo {
    /// Stores a route (no stops yet).
    fn insert_route(
        &mut self,
        scope: DepotScope,
        route: &NewRoute,
        now: Timestamp,
    ) -> Result<Route, StoreError>;
    /// One route of the depot, whatever plan or solution it came from.
    fn get_route(&mut self, scope: DepotScope, id: i64) -> Result<Option<Route>, StoreError>;
    /// Overwrites a route's name, flags, vehicle, timing, driver times, actual distance and
    /// `updated`; false when it is not in the depot.
    fn update_route(&mut self, scope: DepotScope, route: &Route) -> Result<bool, StoreError>;
    /// One page of every route of the depot (superseded ones included), most recently updated
    /// first.
    fn list_routes(
        &mut self,
        scope: DepotScope,
        page: &PageRequest,
    ) -> Result<Page<RouteSummary>, StoreError>;
    /// Every route ever made for the plan (all solutions), by id.
    fn routes_of_plan(&mut self, scope: DepotScope, plan_id: i64)
        -> Result<Vec<Route>, StoreError>;
    /// Every route of the depot on `date` (all plans, all solutions), by id.
    fn routes_on_date(&mut self, scope: DepotScope, date: Date) -> Result<Vec<Route>, StoreError>;
    /// Every route with a stop serving the order, by id.
    fn routes_of_order(
        &mut self,
        scope: DepotScope,
        order_id: i64,
    ) -> Result<Vec<Route>, StoreError>;
    /// Which of `order_ids` a stop serves on a route of the depot: the orders whose
    /// [`routes_of_order`](Self::routes_of_order) is not empty, found at once for a page of
    /// orders (most of which no stop serves).
    fn orders_with_stops(
        &mut self,
        scope: DepotScope,
        order_ids: &[i64],
    ) -> Result<HashSet<i64>, StoreError> {
        let mut served = HashSet::new();
        for &id in order_ids {
            if !self.routes_of_order(scope, id)?.is_empty() {
                served.insert(id);
            }
        }
        Ok(served)
    }
    /// The route's stops in sequence.
    fn list_stops(&mut self, scope: DepotScope, route_id: i64) -> Result<Vec<Stop>, StoreError>;
    /// Replaces the route's stops by `visits` in this order (new stop ids) and returns them.
    fn replace_stops(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        visits: &[StopVisit],
        now: Timestamp,
    ) -> Result<Vec<Stop>, StoreError>;
}
