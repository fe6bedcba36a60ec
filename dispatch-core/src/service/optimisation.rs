//! Running optimisation jobs: what a worker does with a claimed job, and how jobs whose
//! worker died come back. The worker loop, threads, leases' clock and cancellation flags live
//! in the HTTP crate's runtime; everything that decides lives here.
//!
//! A job runs in three steps: read the day (one read transaction: depot, selected orders,
//! vehicles, capacity types, customers, zones), optimise it with no transaction open, then
//! write the result in one transaction that first checks the job is still this worker's (not
//! cancelled, not re-claimed after an expired lease). The result is a new solution of the plan
//! that becomes its active one; the routes of the previous solution leave the plan's reads
//! unless they were dispatched, and stay readable by id.
//!
//! `settings.auto_dispatch` is carried out by [`JobFollowUp::with_result`] inside the transaction
//! that saves the result, so the two commit together (a crash between them cannot leave a saved
//! plan undispatched); the dispatch use case plugs in there. A refused follow-up never loses the
//! result: it is saved alone, with the refusal on the job's `error` for the reads to show.

use std::collections::HashMap;

use super::plans::select_orders;
use super::ServiceError;
use crate::model::customer::Customer;
use crate::model::optimisation::{JobState, Optimisation, MAX_ATTEMPTS};
use crate::model::order::Order;
use crate::model::organisation::DepotScope;
use crate::model::plan::UnservedOrder;
use crate::model::route::{NewRoute, RouteTiming};
use crate::model::stop::StopVisit;
use crate::optimise::{self, DayPlan, DayRequest, DayTime, PlannedRoute};
use crate::ports::clock::Clock;
use crate::ports::matrix::TravelMatrix;
use crate::ports::store::{Store, StoreError, StoreTx};
use crate::solver;
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

fn scope_of(job: &Optimisation) -> DepotScope {
    DepotScope {
        organisation_id: job.organisation_id,
        depot_id: job.depot_id,
    }
}

fn read_day(tx: &mut dyn StoreTx, job: &Optimisation) -> Result<Day, ServiceError> {
    let scope = scope_of(job);
    let depot = tx
        .get_depot(scope)?
        .ok_or(ServiceError::NotFound("depot"))?;
    let selection = select_orders(tx, scope, job)?;
    let mut vehicles = tx.list_vehicles(scope)?;
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

/// Runs a claimed job to its end and records the outcome on it.
pub fn run_job(
    store: &dyn Store,
    matrix: &dyn TravelMatrix,
    clock: &dyn Clock,
    job: &Optimisation,
    config: &solver::Config,
    control: &dyn solver::Control,
    follow_up: &dyn JobFollowUp,
) -> Result<JobOutcome, ServiceError> {
    let day = match store.read(|tx| read_day(tx, job)) {
        Ok(day) => day,
        Err(ServiceError::Store(e)) => return Err(ServiceError::Store(e)),
        Err(e) => return fail(store, job, &e.to_string(), clock.now()),
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
    };
    let built = match optimise::build_day(&request, matrix) {
        Ok(built) => built,
        Err(e) => return fail(store, job, &e.to_string(), clock.now()),
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
    let solution = solver::solve(&built.problem, config, control);
    let plan = optimise::plan_from_solution(&built, &solution);
    let now = clock.now();
    let follow_up = job.spec.settings.auto_dispatch.then_some(follow_up);
    let (outcome, follow_up_error) =
        match store.transaction(|tx| save(tx, job, &day, &plan, now, follow_up, None)) {
            Ok(outcome) => (outcome, None),
            Err(ServiceError::Store(e)) => return Err(ServiceError::Store(e)),
            Err(refused) => {
                let reason = format!("auto_dispatch refused: {refused}");
                let outcome =
                    store.transaction(|tx| save(tx, job, &day, &plan, now, None, Some(&reason)))?;
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

/// Whether the stored job is still the run this worker claimed.
fn still_ours(tx: &mut dyn StoreTx, job: &Optimisation) -> Result<bool, StoreError> {
    Ok(tx
        .get_optimisation(scope_of(job), &job.id)?
        .is_some_and(|j| j.state == JobState::Running && j.attempts == job.attempts))
}

fn fail(
    store: &dyn Store,
    job: &Optimisation,
    reason: &str,
    now: Timestamp,
) -> Result<JobOutcome, ServiceError> {
    Ok(store.transaction(|tx| {
        if !still_ours(tx, job)? {
            return Ok::<_, StoreError>(JobOutcome::Discarded);
        }
        let mut done = job.clone();
        done.state = JobState::Failed;
        done.error = Some(reason.to_owned());
        done.lease_until = None;
        done.updated = now;
        tx.update_optimisation(&done)?;
        Ok(JobOutcome::Failed(reason.to_owned()))
    })?)
}

/// Saves the result as the plan's active solution and the job as succeeded, then runs
/// `follow_up` in the same transaction; `refusal` is a follow-up's earlier refusal, recorded on
/// the job.
fn save(
    tx: &mut dyn StoreTx,
    job: &Optimisation,
    day: &Day,
    result: &DayPlan,
    now: Timestamp,
    follow_up: Option<&dyn JobFollowUp>,
    refusal: Option<&str>,
) -> Result<JobOutcome, ServiceError> {
    let scope = scope_of(job);
    if !still_ours(tx, job)? {
        return Ok(JobOutcome::Discarded);
    }
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
    for (n, planned) in result.routes.iter().enumerate() {
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
        let visits = visits(planned, job.date, &orders);
        tx.replace_stops(scope, route.id, &visits, now)?;
    }
    plan.active_solution_id = Some(solution.id);
    plan.updated = now;
    tx.update_plan(scope, &plan)?;
    let mut done = job.clone();
    done.state = JobState::Succeeded;
    done.solution_id = Some(solution.id);
    done.error = refusal.map(str::to_owned);
    done.lease_until = None;
    done.updated = now;
    tx.update_optimisation(&done)?;
    if let Some(follow_up) = follow_up {
        follow_up.with_result(tx, &done, now)?;
    }
    Ok(JobOutcome::Succeeded {
        solution_id: solution.id,
        problem_error: None,
        follow_up_error: None,
    })
}

pub(crate) fn timing(r: &PlannedRoute) -> RouteTiming {
    RouteTiming {
        start_time_s: r.start_time.seconds(),
        end_time_s: r.end_time.seconds(),
        total_time_s: r.total_time_s,
        travel_time_s: r.travel_time_s,
        operation_time_s: r.operation_time_s(),
        distance_m: r.distance_m,
    }
}

pub(crate) fn visits(
    r: &PlannedRoute,
    date: crate::time::Date,
    orders: &HashMap<i64, &Order>,
) -> Vec<StopVisit> {
    let clock = |t: DayTime| (t.date(date), t.seconds().rem_euclid(86_400));
    r.stops
        .iter()
        .map(|s| {
            let side = s
                .sides
                .first()
                .copied()
                .unwrap_or(crate::model::order::Side::Delivery);
            let end = s
                .order_ids
                .first()
                .and_then(|id| orders.get(id))
                .map(|o| o.endpoint(side));
            let (arrival_date, arrival_s) = clock(s.arrival);
            let (departure_date, departure_s) = clock(s.departure);
            StopVisit {
                order_ids: s.order_ids.clone(),
                side,
                lat: Some(s.location.lat),
                lng: Some(s.location.lng),
                address: end.and_then(|e| e.address.clone()),
                postcode: end.and_then(|e| e.postcode.clone()),
                phone: end.and_then(|e| e.contact_number.clone()),
                arrival_date,
                arrival_s,
                departure_date,
                departure_s,
                planned_distance_m: s.planned_distance_m,
            }
        })
        .collect()
}

/// Hands back jobs whose worker died (lease ended before `now`): re-queued, or failed once
/// they were started [`MAX_ATTEMPTS`] times. Returns the jobs with their new state.
pub fn recover_expired(
    store: &dyn Store,
    now: Timestamp,
) -> Result<Vec<Optimisation>, ServiceError> {
    Ok(store.transaction(|tx| {
        let mut out = Vec::new();
        for mut job in tx.expired_optimisations(now)? {
            if job.attempts >= MAX_ATTEMPTS {
                job.state = JobState::Failed;
                job.error = Some(format!(
                    "the worker running it stopped {} times",
                    job.attempts
                ));
            } else {
                job.state = JobState::Queued;
            }
            job.lease_until = None;
            job.updated = now;
            tx.update_optimisation(&job)?;
            out.push(job);
        }
        Ok::<_, StoreError>(out)
    })?)
}

/// Whether the job was cancelled (or otherwise taken from this worker) since it was claimed.
pub fn is_cancelled(store: &dyn Store, job: &Optimisation) -> Result<bool, ServiceError> {
    Ok(!store.read(|tx| still_ours(tx, job))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::optimisation::{JobSpec, OptimiseSettings, OrderSelection, Queue};
    use crate::model::organisation::DepotSettings;
    use crate::model::plan::NewPlan;
    use crate::ports::store::{InMemoryStore, NewDepot};
    use crate::time::Date;

    fn at(ms: i64) -> Timestamp {
        Timestamp::from_millis(ms)
    }

    /// A store with one queued job per entry of `attempts`, each claimed and left running
    /// with a lease that ended at 100 after that many starts.
    fn crashed(attempts: &[u32]) -> InMemoryStore {
        let store = InMemoryStore::new();
        let s: &dyn Store = &store;
        s.transaction(|tx| {
            let org = tx.insert_organisation("Acme", at(0))?;
            let depot = NewDepot {
                name: "A".into(),
                address: None,
                location: None,
                settings: DepotSettings::default(),
            };
            let scope = tx.insert_depot(org.id, &depot, at(0))?.scope();
            for (n, tried) in attempts.iter().enumerate() {
                let date = Date::parse("2026-12-01").unwrap();
                let plan = tx.insert_plan(scope, &NewPlan { date }, at(0))?;
                tx.insert_optimisation(&Optimisation {
                    id: format!("job-{n}"),
                    depot_id: scope.depot_id,
                    organisation_id: scope.organisation_id,
                    plan_id: plan.id,
                    date,
                    state: JobState::Running,
                    queue: Queue::Standard,
                    spec: JobSpec {
                        selection: OrderSelection::DueOnDate,
                        vehicle_ids: None,
                        zone_group_id: None,
                        settings: OptimiseSettings::default(),
                    },
                    attempts: *tried,
                    solution_id: None,
                    error: None,
                    lease_until: Some(at(100)),
                    created: at(0),
                    updated: at(0),
                })?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
        store
    }

    #[test]
    fn a_job_whose_worker_died_is_queued_again_once_its_lease_ends() {
        let store = crashed(&[1]);
        assert!(recover_expired(&store, at(100)).unwrap().is_empty());
        let recovered = recover_expired(&store, at(101)).unwrap();
        assert_eq!(recovered.len(), 1);
        assert_eq!(recovered[0].state, JobState::Queued);
        assert_eq!(recovered[0].lease_until, None);
        let s: &dyn Store = &store;
        let claimed = s
            .transaction(|tx| tx.claim_optimisation(at(102), at(200)))
            .unwrap()
            .unwrap();
        assert_eq!((claimed.id.as_str(), claimed.attempts), ("job-0", 2));
    }

    #[test]
    fn a_job_that_lost_its_worker_on_every_attempt_fails_with_a_reason() {
        let store = crashed(&[MAX_ATTEMPTS, MAX_ATTEMPTS - 1]);
        let recovered = recover_expired(&store, at(500)).unwrap();
        let states: Vec<(String, JobState)> =
            recovered.iter().map(|j| (j.id.clone(), j.state)).collect();
        assert_eq!(
            states,
            vec![
                ("job-0".to_owned(), JobState::Failed),
                ("job-1".to_owned(), JobState::Queued)
            ]
        );
        assert!(recovered[0].error.as_deref().unwrap().contains("stopped"));
        assert!(!recovered[0].in_progress());
    }

    #[test]
    fn a_result_is_discarded_once_the_job_is_no_longer_this_workers() {
        let store = crashed(&[1]);
        let s: &dyn Store = &store;
        let job = s
            .read(|tx| {
                let scope = DepotScope {
                    organisation_id: 1,
                    depot_id: 2,
                };
                tx.get_optimisation(scope, "job-0")
            })
            .unwrap()
            .unwrap();
        assert!(!is_cancelled(&store, &job).unwrap());
        recover_expired(&store, at(101)).unwrap();
        s.transaction(|tx| tx.claim_optimisation(at(102), at(200)))
            .unwrap();
        assert!(is_cancelled(&store, &job).unwrap());
        let outcome = fail(&store, &job, "too late", at(103)).unwrap();
        assert_eq!(outcome, JobOutcome::Discarded);
    }
}
