//! The in-memory plan and optimisation repositories (routes and stops: [`super::routes`]).

use super::orders::page_of;
use super::State;
use crate::model::optimisation::{JobState, Optimisation, Queue};
use crate::model::organisation::DepotScope;
use crate::model::plan::{NewPlan, Plan, Solution, UnservedOrder};
use crate::model::route::Route;
use crate::model::stop::Stop;
use crate::paging::{Page, PageRequest};
use crate::ports::store::{
    OptimisationRepo, OrderFilter, OrderRepo, PlanRepo, StoreError, KEPT_PROBLEMS,
};
use crate::time::{Date, Timestamp};

/// Plans, solutions, jobs, routes and stops of every depot.
#[derive(Debug, Clone, Default)]
pub(super) struct Planning {
    plans: Vec<Plan>,
    solutions: Vec<(i64, Solution)>,
    pub(super) jobs: Vec<Optimisation>,
    /// (depot, plan, optimisation id, problem), oldest first.
    problems: Vec<(i64, i64, String, String)>,
    pub(super) routes: Vec<Route>,
    /// (depot, stop).
    pub(super) stops: Vec<(i64, Stop)>,
}

impl PlanRepo for State {
    fn insert_plan(
        &mut self,
        scope: DepotScope,
        plan: &NewPlan,
        now: Timestamp,
    ) -> Result<Plan, StoreError> {
        let plan = plan.stored(self.id(), scope.depot_id, now);
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
        p.problems.retain(|(_, plan, _, _)| *plan != id);
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

    fn plan_scope(&mut self, plan_id: i64) -> Result<Option<DepotScope>, StoreError> {
        let Some(depot) = self
            .planning
            .plans
            .iter()
            .find(|p| p.id == plan_id)
            .map(|p| p.depot_id)
        else {
            return Ok(None);
        };
        Ok(self
            .depots
            .iter()
            .find(|d| d.id == depot)
            .map(|d| d.scope()))
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

    fn optimisation_scope(&mut self, id: &str) -> Result<Option<DepotScope>, StoreError> {
        Ok(self
            .planning
            .jobs
            .iter()
            .find(|j| j.id == id)
            .map(Optimisation::scope))
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

    fn count_optimisations_in_progress(&mut self) -> Result<(u64, u64), StoreError> {
        let count = |state| {
            self.planning
                .jobs
                .iter()
                .filter(|j| j.state == state)
                .count() as u64
        };
        Ok((count(JobState::Queued), count(JobState::Running)))
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
        job.start_attempt(now, lease_until);
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

    fn store_problem(
        &mut self,
        job: &Optimisation,
        problem: &str,
        _now: Timestamp,
    ) -> Result<(), StoreError> {
        let problems = &mut self.planning.problems;
        problems.retain(|(_, _, id, _)| *id != job.id);
        problems.push((
            job.depot_id,
            job.plan_id,
            job.id.clone(),
            problem.to_owned(),
        ));
        let depot = job.depot_id;
        let kept = problems.iter().filter(|(d, ..)| *d == depot).count();
        let mut surplus = kept.saturating_sub(KEPT_PROBLEMS);
        problems.retain(|(d, ..)| {
            let drop = *d == depot && surplus > 0;
            if drop {
                surplus -= 1;
            }
            !drop
        });
        Ok(())
    }

    fn get_problem(
        &mut self,
        scope: DepotScope,
        optimisation_id: &str,
    ) -> Result<Option<String>, StoreError> {
        Ok(self
            .planning
            .problems
            .iter()
            .find(|(d, _, id, _)| *d == scope.depot_id && id == optimisation_id)
            .map(|(.., p)| p.clone()))
    }

    fn latest_problem_of_plan(
        &mut self,
        scope: DepotScope,
        plan_id: i64,
    ) -> Result<Option<(String, String)>, StoreError> {
        Ok(self
            .planning
            .problems
            .iter()
            .rev()
            .find(|(d, plan, ..)| *d == scope.depot_id && *plan == plan_id)
            .map(|(_, _, id, p)| (id.clone(), p.clone())))
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
