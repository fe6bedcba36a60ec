//! The in-memory planning repositories: plans, solutions, optimisation jobs, routes, stops.

use super::orders::page_of;
use super::State;
use crate::model::optimisation::{JobState, Optimisation, Queue};
use crate::model::organisation::DepotScope;
use crate::model::plan::{NewPlan, Plan, Solution, UnservedOrder};
use crate::model::route::{NewRoute, Route};
use crate::model::stop::{Stop, StopVisit};
use crate::paging::{Page, PageRequest};
use crate::ports::store::{
    OptimisationRepo, OrderFilter, OrderRepo, PlanRepo, RouteRepo, RouteSummary, StoreError,
};
use crate::time::{Date, Timestamp};

/// Plans, solutions, jobs, routes and stops of every depot.
#[derive(Debug, Clone, Default)]
pub(super) struct Planning {
    plans: Vec<Plan>,
    solutions: Vec<(i64, Solution)>,
    jobs: Vec<Optimisation>,
    routes: Vec<Route>,
    stops: Vec<(i64, Stop)>,
}

impl PlanRepo for State {
    fn insert_plan(
        &mut self,
        scope: DepotScope,
        plan: &NewPlan,
        now: Timestamp,
    ) -> Result<Plan, StoreError> {
        let plan = Plan {
            id: self.id(),
            depot_id: scope.depot_id,
            date: plan.date,
            dispatched: false,
            active_solution_id: None,
            created: now,
            updated: now,
        };
        self.planning.plans.push(plan.clone());
        Ok(plan)
    }

    fn get_plan(&mut self, scope: DepotScope, id: i64) -> Result<Option<Plan>, StoreError> {
        Ok(self
            .planning
            .plans
            .iter()
            .find(|p| p.depot_id == scope.depot_id && p.id == id)
            .cloned())
    }

    fn list_plans(
        &mut self,
        scope: DepotScope,
        page: &PageRequest,
    ) -> Result<Page<Plan>, StoreError> {
        let rows = self
            .planning
            .plans
            .iter()
            .filter(|p| p.depot_id == scope.depot_id)
            .map(|p| (p.updated, p.id, p.clone()))
            .collect();
        Ok(page_of(rows, page))
    }

    fn update_plan(&mut self, scope: DepotScope, plan: &Plan) -> Result<bool, StoreError> {
        let Some(slot) = self
            .planning
            .plans
            .iter_mut()
            .find(|p| p.depot_id == scope.depot_id && p.id == plan.id)
        else {
            return Ok(false);
        };
        slot.dispatched = plan.dispatched;
        slot.active_solution_id = plan.active_solution_id;
        slot.updated = plan.updated;
        Ok(true)
    }

    fn delete_plan(&mut self, scope: DepotScope, id: i64) -> Result<bool, StoreError> {
        if self.get_plan(scope, id)?.is_none() {
            return Ok(false);
        }
        let p = &mut self.planning;
        p.plans.retain(|x| x.id != id);
        p.solutions.retain(|(_, s)| s.plan_id != id);
        p.jobs.retain(|j| j.plan_id != id);
        let gone: Vec<i64> = p
            .routes
            .iter()
            .filter(|r| r.plan_id == id)
            .map(|r| r.id)
            .collect();
        p.routes.retain(|r| r.plan_id != id);
        p.stops.retain(|(_, s)| !gone.contains(&s.route_id));
        Ok(true)
    }

    fn insert_solution(
        &mut self,
        scope: DepotScope,
        plan_id: i64,
        optimisation_id: &str,
        unserved: &[UnservedOrder],
        now: Timestamp,
    ) -> Result<Solution, StoreError> {
        let solution = Solution {
            id: self.id(),
            plan_id,
            optimisation_id: optimisation_id.into(),
            unserved: unserved.to_vec(),
            created: now,
        };
        self.planning
            .solutions
            .push((scope.depot_id, solution.clone()));
        Ok(solution)
    }

    fn get_solution(&mut self, scope: DepotScope, id: i64) -> Result<Option<Solution>, StoreError> {
        Ok(self
            .planning
            .solutions
            .iter()
            .find(|(d, s)| *d == scope.depot_id && s.id == id)
            .map(|(_, s)| s.clone()))
    }

    fn order_ids_due(&mut self, scope: DepotScope, date: Date) -> Result<Vec<i64>, StoreError> {
        let filter = OrderFilter {
            date: Some(date),
            ..OrderFilter::default()
        };
        let mut request = PageRequest {
            after: None,
            limit: 100,
            updated_at_min: None,
        };
        let mut ids = Vec::new();
        loop {
            let page = self.list_orders(scope, &filter, &request)?;
            ids.extend(page.items.iter().map(|o| o.id));
            match page.next {
                Some(next) => request.after = Some(next),
                None => break,
            }
        }
        ids.sort_unstable();
        Ok(ids)
    }
}

impl OptimisationRepo for State {
    fn insert_optimisation(&mut self, job: &Optimisation) -> Result<(), StoreError> {
        if self.planning.jobs.iter().any(|j| j.id == job.id) {
            return Err(StoreError::Conflict(format!("optimisation {}", job.id)));
        }
        self.planning.jobs.push(job.clone());
        Ok(())
    }

    fn get_optimisation(
        &mut self,
        scope: DepotScope,
        id: &str,
    ) -> Result<Option<Optimisation>, StoreError> {
        Ok(self
            .planning
            .jobs
            .iter()
            .find(|j| j.depot_id == scope.depot_id && j.id == id)
            .cloned())
    }

    fn latest_optimisation_of_plan(
        &mut self,
        scope: DepotScope,
        plan_id: i64,
    ) -> Result<Option<Optimisation>, StoreError> {
        Ok(self
            .planning
            .jobs
            .iter()
            .rev()
            .find(|j| j.depot_id == scope.depot_id && j.plan_id == plan_id)
            .cloned())
    }

    fn count_active_optimisations(
        &mut self,
        scope: DepotScope,
        queue: Queue,
    ) -> Result<u64, StoreError> {
        Ok(self
            .planning
            .jobs
            .iter()
            .filter(|j| j.depot_id == scope.depot_id && j.queue == queue && j.in_progress())
            .count() as u64)
    }

    fn claim_optimisation(
        &mut self,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<Optimisation>, StoreError> {
        let Some(job) = self
            .planning
            .jobs
            .iter_mut()
            .find(|j| j.state == JobState::Queued)
        else {
            return Ok(None);
        };
        job.state = JobState::Running;
        job.attempts += 1;
        job.lease_until = Some(lease_until);
        job.updated = now;
        Ok(Some(job.clone()))
    }

    fn expired_optimisations(&mut self, now: Timestamp) -> Result<Vec<Optimisation>, StoreError> {
        Ok(self
            .planning
            .jobs
            .iter()
            .filter(|j| j.state == JobState::Running && j.lease_until.is_none_or(|l| l < now))
            .cloned()
            .collect())
    }

    fn renew_optimisation_lease(
        &mut self,
        id: &str,
        lease_until: Timestamp,
    ) -> Result<bool, StoreError> {
        match self
            .planning
            .jobs
            .iter_mut()
            .find(|j| j.id == id && j.state == JobState::Running)
        {
            Some(job) => {
                job.lease_until = Some(lease_until);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn update_optimisation(&mut self, job: &Optimisation) -> Result<(), StoreError> {
        match self.planning.jobs.iter_mut().find(|j| j.id == job.id) {
            Some(slot) => {
                *slot = job.clone();
                Ok(())
            }
            None => Err(StoreError::Backend(format!(
                "optimisation {} is gone",
                job.id
            ))),
        }
    }
}

impl RouteRepo for State {
    fn insert_route(
        &mut self,
        scope: DepotScope,
        route: &NewRoute,
        now: Timestamp,
    ) -> Result<Route, StoreError> {
        let route = Route {
            id: self.id(),
            depot_id: scope.depot_id,
            plan_id: route.plan_id,
            solution_id: route.solution_id,
            name: route.name.clone(),
            dispatched: false,
            is_locked: false,
            date: route.date,
            vehicle_id: route.vehicle_id,
            timing: route.timing,
            started_ts: None,
            completed_ts: None,
            actual_distance_m: None,
            created: now,
            updated: now,
        };
        self.planning.routes.push(route.clone());
        Ok(route)
    }

    fn get_route(&mut self, scope: DepotScope, id: i64) -> Result<Option<Route>, StoreError> {
        Ok(self
            .planning
            .routes
            .iter()
            .find(|r| r.depot_id == scope.depot_id && r.id == id)
            .cloned())
    }

    fn update_route(&mut self, scope: DepotScope, route: &Route) -> Result<bool, StoreError> {
        match self
            .planning
            .routes
            .iter_mut()
            .find(|r| r.depot_id == scope.depot_id && r.id == route.id)
        {
            Some(slot) => {
                *slot = Route {
                    depot_id: slot.depot_id,
                    plan_id: slot.plan_id,
                    solution_id: slot.solution_id,
                    date: slot.date,
                    created: slot.created,
                    ..route.clone()
                };
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn list_routes(
        &mut self,
        scope: DepotScope,
        page: &PageRequest,
    ) -> Result<Page<RouteSummary>, StoreError> {
        let planning = &self.planning;
        let rows = planning
            .routes
            .iter()
            .filter(|r| r.depot_id == scope.depot_id)
            .map(|r| {
                let stops = planning
                    .stops
                    .iter()
                    .filter(|(_, s)| s.route_id == r.id)
                    .count() as u32;
                (
                    r.updated,
                    r.id,
                    RouteSummary {
                        route: r.clone(),
                        stops,
                    },
                )
            })
            .collect();
        Ok(page_of(rows, page))
    }

    fn routes_of_plan(
        &mut self,
        scope: DepotScope,
        plan_id: i64,
    ) -> Result<Vec<Route>, StoreError> {
        Ok(self
            .planning
            .routes
            .iter()
            .filter(|r| r.depot_id == scope.depot_id && r.plan_id == plan_id)
            .cloned()
            .collect())
    }

    fn routes_of_order(
        &mut self,
        scope: DepotScope,
        order_id: i64,
    ) -> Result<Vec<Route>, StoreError> {
        let planning = &self.planning;
        Ok(planning
            .routes
            .iter()
            .filter(|r| {
                r.depot_id == scope.depot_id
                    && planning
                        .stops
                        .iter()
                        .any(|(_, s)| s.route_id == r.id && s.visit.order_ids.contains(&order_id))
            })
            .cloned()
            .collect())
    }

    fn list_stops(&mut self, scope: DepotScope, route_id: i64) -> Result<Vec<Stop>, StoreError> {
        let mut stops: Vec<Stop> = self
            .planning
            .stops
            .iter()
            .filter(|(d, s)| *d == scope.depot_id && s.route_id == route_id)
            .map(|(_, s)| s.clone())
            .collect();
        stops.sort_by_key(|s| s.sequence);
        Ok(stops)
    }

    fn replace_stops(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        visits: &[StopVisit],
        now: Timestamp,
    ) -> Result<Vec<Stop>, StoreError> {
        if self.get_route(scope, route_id)?.is_none() {
            return Err(StoreError::Backend(format!(
                "route {route_id} is not in the depot"
            )));
        }
        self.planning.stops.retain(|(_, s)| s.route_id != route_id);
        let mut out = Vec::with_capacity(visits.len());
        for (sequence, visit) in visits.iter().enumerate() {
            let stop = Stop {
                id: self.id(),
                route_id,
                sequence: sequence as u32,
                visit: visit.clone(),
                actual_completed_ts: None,
                created: now,
            };
            self.planning.stops.push((scope.depot_id, stop.clone()));
            out.push(stop);
        }
        Ok(out)
    }
}

impl Planning {
    /// A deleted vehicle leaves the routes it served (they keep their stops).
    pub(super) fn forget_vehicle(&mut self, scope: DepotScope, vehicle_id: i64) {
        for r in self
            .routes
            .iter_mut()
            .filter(|r| r.depot_id == scope.depot_id && r.vehicle_id == Some(vehicle_id))
        {
            r.vehicle_id = None;
        }
    }
}
