//! A job's search on a thread of its own (`JobRun::search_thread`, how `serve` and `worker` put
//! the search alone under Linux's SCHED_IDLE policy): the hook prepares one thread per job, the
//! search runs there and on the threads it starts, never on the job's own thread (which reads
//! the day and writes the result), and the plan is the one the search finds on the job's own
//! thread: same seed, thread count and iterations, same routes.

use std::collections::HashSet;
use std::sync::Mutex;
use std::thread::ThreadId;

use dispatch_core::service::leases::claim_job;
use dispatch_core::service::optimisation::{run_job, JobOutcome, JobRun, NoFollowUp};
use dispatch_core::solver;
use serde_json::json;

use super::common::TestApp;
use super::{delivery, first_order_ids, optimise, post_orders, post_vehicle, DAY};

/// Never stops the search (its iteration budget does); notes the threads that poll it.
#[derive(Default)]
struct Polled(Mutex<HashSet<ThreadId>>);

impl solver::Control for Polled {
    fn should_stop(&self) -> bool {
        self.0.lock().unwrap().insert(std::thread::current().id());
        false
    }
}

/// What one run showed: each route's stops (first order ids), the job's thread and the
/// threads the search ran on.
struct Solved {
    routes: Vec<Vec<i64>>,
    job_thread: ThreadId,
    search_threads: HashSet<ThreadId>,
}

/// A fresh day (two vans, twelve orders) optimised here, as a worker runs a job, on two solver
/// threads to a fixed iteration budget.
async fn solved(search_thread: Option<&(dyn Fn() + Sync)>) -> Solved {
    let app = TestApp::new();
    for van in ["Van 1", "Van 2"] {
        post_vehicle(&app, van).await;
    }
    let orders = (0..12)
        .map(|i| {
            let (row, col) = (f64::from(i % 4), f64::from(i / 4));
            delivery(&format!("S{i}"), 51.49 + 0.006 * row, -0.13 + 0.008 * col)
        })
        .collect();
    post_orders(&app, orders).await;
    let (_, plan) = optimise(
        &app,
        "/v2/plans/optimise/orders",
        json!({"delivery_date": DAY, "settings": {}}),
    )
    .await;
    let config = solver::Config {
        seed: 1,
        threads: 2,
        max_iterations: Some(3_000),
    };
    let polled = Polled::default();
    let job_thread = app.with_store(|store| {
        let at = app.state.clock.now();
        let claim = claim_job(store, "test-node", at, at.add_millis(60_000))
            .unwrap()
            .expect("the queued job");
        let run = JobRun {
            claim: &claim,
            config: &config,
            control: &polled,
            stopping: &|| None,
            search_thread,
        };
        let outcome = run_job(
            store,
            &*app.state.routing.matrix,
            &*app.state.clock,
            &run,
            &NoFollowUp,
        );
        assert!(
            matches!(outcome, Ok(JobOutcome::Succeeded { .. })),
            "{outcome:?}"
        );
        std::thread::current().id()
    });
    let r = app.get(&format!("/v2/plans/{plan}"), &app.north()).await;
    let routes = r.ok()["plan"]["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(first_order_ids)
        .collect();
    Solved {
        routes,
        job_thread,
        search_threads: polled.0.into_inner().unwrap(),
    }
}

#[tokio::test]
async fn the_search_runs_on_a_thread_the_hook_prepared_and_finds_the_plan_it_finds_in_place() {
    let prepared = Mutex::new(Vec::new());
    let hook = || prepared.lock().unwrap().push(std::thread::current().id());
    let own = solved(Some(&hook)).await;
    let in_place = solved(None).await;

    let prepared = prepared.into_inner().unwrap();
    assert_eq!(prepared.len(), 1, "one search thread per job");
    assert!(own.search_threads.contains(&prepared[0]));
    assert!(!own.search_threads.contains(&own.job_thread));
    assert!(in_place.search_threads.contains(&in_place.job_thread));

    assert!(
        own.routes.iter().map(Vec::len).sum::<usize>() == 12,
        "{:?}",
        own.routes
    );
    assert_eq!(own.routes, in_place.routes);
}
