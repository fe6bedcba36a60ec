//! Running optimisation jobs: what a worker does with a claimed job, and how jobs whose
//! worker died come back. The worker loop, threads, leases' clock and cancellation flags live
//! in the binary's runtime (dispatch-server); everything that decides lives here.
//!
//! A job runs in three steps: read the day (one read transaction: depot, selected orders,
//! vehicles, capacity types, customers, zones), optimise it with no transaction open, then
//! write the result in one transaction that first checks the job is still this worker's (not
//! cancelled, not re-claimed after an expired lease). The result is a new solution of the plan
//! that becomes its active one; the routes of the previous solution leave the plan's reads
//! unless they were dispatched, and stay readable by id. Vehicles with a dispatched route on
//! the job's date are left out of it.
//!
//! A job belongs to the node that claimed it ([`super::leases`]): every write of its result
//! first locks the job and checks the run is still that node's. A node that stops gracefully
//! hands its running jobs back with their best solution so far ([`JobOutcome::HandedBack`]);
//! the next run, on any node, starts its search from it ([`crate::optimise::checkpoint`]).
//!
//! `settings.auto_dispatch` is carried out by [`JobFollowUp::with_result`] inside the transaction
//! that saves the result, so the two commit together (a crash between them cannot leave a saved
//! plan undispatched); the dispatch use case plugs in there. A refused follow-up never loses the
//! result: it is saved alone, with the refusal on the job's `error` for the reads to show.

use crate::model::travel::TravelSource;
use std::collections::{HashMap, HashSet};

use super::leases::{self, JobClaim};
use super::plans::select_orders;
use super::route_day::{live_visits, timing, visits};
use super::ServiceError;
use crate::model::customer::Customer;
use crate::model::optimisation::{JobState, Optimisation};
use crate::model::order::Order;
use crate::model::plan::UnservedOrder;
use crate::model::route::NewRoute;
use crate::optimise::{self, DayPlan, DayRequest};
use crate::ports::clock::Clock;
use crate::ports::matrix::TravelMatrix;
use crate::ports::store::{JobCheckpoint, Store, StoreError, StoreTx};
use crate::service::Found;
use crate::solver;
use crate::time::zone::DepotZone;
use crate::time::Timestamp;

/// How a job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobOutcome {
    /// The plan shows the new solution.
    Succeeded {
        /// The solution.
        solution_id: i64,
        /// Why the solved problem could not be kept for export, if it could not.
        problem_error: Option<String>,
        /// Why the follow-up (`auto_dispatch`) refused, if it did: the result was saved without
        /// it, and the reason is the job's `error`.
        follow_up_error: Option<String>,
    },
    /// The job failed; the reason is stored on it.
    Failed(String),
    /// The job was cancelled or taken over while it ran; its result was discarded.
    Discarded,
    /// The node is stopping: the job went back to the queue with its best solution so far.
    HandedBack,
}

/// One run of a claimed job, as the node running it drives it.
pub struct JobRun<'a> {
    /// The claim.
    pub claim: &'a JobClaim,
    /// The solver's settings.
    pub config: &'a solver::Config,
    /// Stops the search (budget, cancellation, the node stopping).
    pub control: &'a dyn solver::Control,
    /// Asked when the search has ended: `Some(search milliseconds spent on the job in all its
    /// runs)` when the node is stopping, so the job is handed back rather than finished.
    pub stopping: &'a dyn Fn() -> Option<u64>,
    /// When given, the search runs on a thread of its own that this prepares first (the
    /// threads the search starts inherit what it set), while the calling thread keeps the
    /// job's store work: how a node lowers the search's priority alone, never that of a thread
    /// holding the store's write lock. `None`: the search runs on the calling thread.
    pub search_thread: Option<&'a (dyn Fn() + Sync)>,
}

/// What a succeeded job whose request asked for `settings.auto_dispatch` does with its result.
/// The dispatch use case implements it.
pub trait JobFollowUp: Send + Sync {
    /// Runs inside the transaction that saves the job's result (the plan's active solution is
    /// the new one), so both commit or neither does. A store error rolls everything back and the
    /// job runs again; any other error is a refusal: the result is then saved without the
    /// follow-up and the refusal recorded on the job.
    fn with_result(
        &self,
        tx: &mut dyn StoreTx,
        job: &Optimisation,
        now: Timestamp,
    ) -> Result<(), ServiceError>;
}

/// No follow-up: plans wait for an explicit dispatch.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoFollowUp;

impl JobFollowUp for NoFollowUp {
    fn with_result(
        &self,
        _tx: &mut dyn StoreTx,
        _job: &Optimisation,
        _now: Timestamp,
    ) -> Result<(), ServiceError> {
        Ok(())
    }
}

/// Everything the optimiser reads for one job.
struct Day {
    depot: crate::model::organisation::Depot,
    orders: Vec<Order>,
    excluded: Vec<UnservedOrder>,
    vehicles: Vec<crate::model::vehicle::Vehicle>,
    capacity_types: Vec<crate::model::reference::CapacityType>,
    customers: Vec<Customer>,
    zones: Option<Vec<crate::model::zone::Zone>>,
}

fn read_day(tx: &mut dyn StoreTx, job: &Optimisation) -> Result<Day, ServiceError> {
    let scope = job.scope();
    let depot = tx.get_depot(scope).found("depot")?;
    let selection = select_orders(tx, scope, job)?;
    let mut vehicles = tx.list_vehicles(scope)?;
    // A vehicle with a dispatched route on the date has its day: it is left out, so it is
    // never given a second route in the same hours (more work for it goes onto the dispatched
    // route with add-orders).
    let busy: HashSet<i64> = tx
        .routes_on_date(scope, job.date)?
        .iter()
        .filter(|r| r.dispatched)
        .filter_map(|r| r.vehicle_id)
        .collect();
    vehicles.retain(|v| !busy.contains(&v.id));
    if let Some(ids) = &job.spec.vehicle_ids {
        // Vehicles in the order the request listed them.
        let mut by_id: HashMap<i64, _> = vehicles.into_iter().map(|v| (v.id, v)).collect();
        vehicles = ids.iter().filter_map(|id| by_id.remove(id)).collect();
    }
    let mut customers = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for id in selection.orders.iter().filter_map(|o| o.customer_id) {
        if seen.insert(id) {
            customers.extend(tx.get_customer(scope, id)?);
        }
    }
    let zones = match job.spec.zone_group_id {
        Some(group) => Some(tx.list_zones(scope, group)?),
        None => None,
    };
    Ok(Day {
        depot,
        orders: selection.orders,
        excluded: selection.excluded,
        vehicles,
        capacity_types: tx.list_capacity_types(scope)?,
        customers,
        zones,
    })
}

/// Runs a claimed job to its end and records the outcome on it (or hands it back when the node
/// stops meanwhile).
pub fn run_job(
    store: &dyn Store,
    matrix: &dyn TravelMatrix,
    clock: &dyn Clock,
    run: &JobRun<'_>,
    follow_up: &dyn JobFollowUp,
) -> Result<JobOutcome, ServiceError> {
    let claim = run.claim;
    let job = &claim.job;
    let day = match store.read(|tx| read_day(tx, job)) {
        Ok(day) => day,
        Err(ServiceError::Store(e)) => return Err(ServiceError::Store(e)),
        Err(e) => return fail(store, claim, &e.to_string(), clock.now()),
    };
    let request = DayRequest {
        depot: &day.depot,
        date: job.date,
        orders: &day.orders,
        vehicles: &day.vehicles,
        capacity_types: &day.capacity_types,
        customers: &day.customers,
        zones: day.zones.as_deref(),
        maintain_upload_sequence: job.spec.settings.maintain_upload_sequence,
        only_active_vehicles: job.spec.settings.active_vehicles,
        // A plan made on its own day starts from the moment it is solved: no stop is planned
        // (and no customer promised) in the past.
        not_before: optimise::planning_start(
            DepotZone::named(&day.depot.settings.timezone),
            job.date,
            clock.now(),
        ),
    };
    let built = match optimise::build_day(&request, matrix) {
        Ok(built) => built,
        Err(e) => return fail(store, claim, &e.to_string(), clock.now()),
    };
    // The problem (large: it holds the matrix) is kept before solving, so it can be exported
    // as soon as the job runs, and whatever its outcome.
    let problem_error = built
        .vroom_json()
        .map_err(|e| e.to_string())
        .and_then(|json| {
            store
                .transaction(|tx| tx.store_problem(job, &json, clock.now()))
                .map_err(|e| e.to_string())
        })
        .err();
    let solution = solve(&built, claim.checkpoint.as_ref(), run);
    if let Some(spent_ms) = (run.stopping)() {
        let checkpoint = JobCheckpoint {
            routes: optimise::checkpoint::encode(&built, &solution),
            spent_ms,
        };
        let released = leases::release_job(store, claim, Some(&checkpoint), clock.now())?;
        return Ok(if released {
            JobOutcome::HandedBack
        } else {
            JobOutcome::Discarded
        });
    }
    let plan = optimise::plan_from_solution(&built, &solution);
    let now = clock.now();
    let follow_up = job.spec.settings.auto_dispatch.then_some(follow_up);
    let (outcome, follow_up_error) = match store
        .transaction(|tx| save(tx, claim, &day, &plan, built.travel, now, follow_up, None))
    {
        Ok(outcome) => (outcome, None),
        Err(ServiceError::Store(e)) => return Err(ServiceError::Store(e)),
        Err(refused) => {
            let reason = format!("auto_dispatch refused: {refused}");
            let outcome = store.transaction(|tx| {
                save(
                    tx,
                    claim,
                    &day,
                    &plan,
                    built.travel,
                    now,
                    None,
                    Some(&reason),
                )
            })?;
            (outcome, Some(reason))
        }
    };
    let JobOutcome::Succeeded { solution_id, .. } = outcome else {
        return Ok(outcome);
    };
    Ok(JobOutcome::Succeeded {
        solution_id,
        problem_error,
        follow_up_error,
    })
}

/// The search, from the checkpoint an earlier run handed back when there is one that fits the
/// problem (else from scratch); on a thread of its own when the run asks for one. The same
/// search either way: the thread changes its scheduling, not its results.
fn solve(
    built: &optimise::BuiltDay,
    checkpoint: Option<&JobCheckpoint>,
    run: &JobRun<'_>,
) -> solver::solution::Solution {
    let (config, control) = (run.config, run.control);
    let search = move || {
        let start = checkpoint.and_then(|c| optimise::checkpoint::decode(built, &c.routes));
        if let Some(start) = start {
            if let Ok(warm) = solver::solve_from(&built.problem, &start, config, control) {
                return warm.solution;
            }
        }
        solver::solve(&built.problem, config, control)
    };
    let Some(prepare) = run.search_thread else {
        return search();
    };
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("search".into())
            .spawn_scoped(scope, move || {
                prepare();
                search()
            });
        match thread {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread to be had: the search runs where it would without the hook.
            Err(_) => search(),
        }
    })
}

fn fail(
    store: &dyn Store,
    claim: &JobClaim,
    reason: &str,
    now: Timestamp,
) -> Result<JobOutcome, ServiceError> {
    Ok(store.transaction(|tx| {
        let Some(mut done) = leases::holds(tx, claim)? else {
            return Ok::<_, StoreError>(JobOutcome::Discarded);
        };
        done.state = JobState::Failed;
        done.error = Some(reason.to_owned());
        done.lease_until = None;
        done.updated = now;
        tx.update_optimisation(&done)?;
        tx.set_optimisation_checkpoint(&done.id, None)?;
        Ok(JobOutcome::Failed(reason.to_owned()))
    })?)
}

/// Saves the result as the plan's active solution and the job as succeeded (with the travel
/// times it planned on), then runs `follow_up` in the same transaction; `refusal` is a
/// follow-up's earlier refusal, recorded on the job.
#[allow(clippy::too_many_arguments)]
fn save(
    tx: &mut dyn StoreTx,
    claim: &JobClaim,
    day: &Day,
    result: &DayPlan,
    travel: TravelSource,
    now: Timestamp,
    follow_up: Option<&dyn JobFollowUp>,
    refusal: Option<&str>,
) -> Result<JobOutcome, ServiceError> {
    let job = &claim.job;
    let scope = job.scope();
    let Some(mut done) = leases::holds(tx, claim)? else {
        return Ok(JobOutcome::Discarded);
    };
    let Some(mut plan) = tx.get_plan(scope, job.plan_id)? else {
        return Ok(JobOutcome::Discarded);
    };
    let mut unserved = day.excluded.clone();
    unserved.extend(result.unserved.iter().map(|u| UnservedOrder {
        order_id: u.order_id,
        reason: u.reason.code().to_owned(),
        description: u.description.clone(),
    }));
    let solution = tx.insert_solution(scope, plan.id, &job.id, &unserved, now)?;
    let orders: HashMap<i64, &Order> = day.orders.iter().map(|o| (o.id, o)).collect();
    let names: HashMap<i64, &str> = day
        .vehicles
        .iter()
        .map(|v| (v.id, v.fields.name.as_str()))
        .collect();
    let planned_ids: Vec<i64> = result
        .routes
        .iter()
        .flat_map(|r| r.stops.iter().flat_map(|s| s.order_ids.iter().copied()))
        .collect();
    let live = tx.live_order_ids(scope, &planned_ids)?;
    for (n, planned) in result.routes.iter().enumerate() {
        let visits = live_visits(visits(planned, job.date, &orders), &live, &orders);
        if visits.is_empty() {
            continue;
        }
        let name = names
            .get(&planned.vehicle_id)
            .map_or_else(|| format!("Route {}", n + 1), |s| (*s).to_owned());
        let route = tx.insert_route(
            scope,
            &NewRoute {
                plan_id: plan.id,
                solution_id: solution.id,
                name,
                date: job.date,
                vehicle_id: Some(planned.vehicle_id),
                timing: timing(planned),
            },
            now,
        )?;
        tx.replace_stops(scope, route.id, &visits, now)?;
    }
    plan.active_solution_id = Some(solution.id);
    plan.updated = now;
    tx.update_plan(scope, &plan)?;
    done.state = JobState::Succeeded;
    done.travel = Some(travel);
    done.solution_id = Some(solution.id);
    done.error = refusal.map(str::to_owned);
    done.lease_until = None;
    done.updated = now;
    tx.update_optimisation(&done)?;
    tx.set_optimisation_checkpoint(&done.id, None)?;
    if let Some(follow_up) = follow_up {
        follow_up.with_result(tx, &done, now)?;
    }
    Ok(JobOutcome::Succeeded {
        solution_id: solution.id,
        problem_error: None,
        follow_up_error: None,
    })
}
