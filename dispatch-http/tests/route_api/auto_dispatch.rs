//! `settings.auto_dispatch` commits with the job's result: a job is run here as a worker runs
//! it (claimed, solved, saved), with something happening while it solves.

use std::sync::{Arc, Once};

use dispatch_core::model::optimisation::Optimisation;
use dispatch_core::ports::store::{StoreError, StoreTx};
use dispatch_core::service::dispatch::{dispatch_plan, AutoDispatch};
use dispatch_core::service::leases::{claim_job, JobClaim};
use dispatch_core::service::optimisation::{run_job, JobFollowUp, JobOutcome, JobRun};
use dispatch_core::solver;
use serde_json::json;

use super::*;

/// Runs `meanwhile` once, at the first poll of the search: while the job solves.
struct Meanwhile<F: Fn() + Sync> {
    once: Once,
    meanwhile: F,
}

impl<F: Fn() + Sync> solver::Control for Meanwhile<F> {
    fn should_stop(&self) -> bool {
        self.once.call_once(|| (self.meanwhile)());
        false
    }
}

/// Posts an optimisation of [`DAY`] with `auto_dispatch`; its plan's id.
pub async fn optimise_with_auto_dispatch(app: &TestApp) -> i64 {
    let r = app
        .post(
            "/v2/plans/optimise/orders",
            &app.north(),
            json!({"delivery_date": DAY, "settings": {"auto_dispatch": true}}),
        )
        .await;
    r.ok()["plan"]["id"].as_i64().unwrap()
}

/// [`optimise_with_auto_dispatch`], its job claimed as a worker claims it; no worker runs.
async fn claimed_job(app: &TestApp) -> (JobClaim, i64) {
    let plan = optimise_with_auto_dispatch(app).await;
    let at = now(app);
    let job = app
        .with_store(|store| claim_job(store, "test-node", at, at.add_millis(60_000)))
        .unwrap()
        .expect("the queued job");
    (job, plan)
}

fn run(
    app: &TestApp,
    job: &JobClaim,
    control: &dyn solver::Control,
    follow: &dyn JobFollowUp,
) -> Result<JobOutcome, ServiceError> {
    let config = solver::Config {
        seed: 1,
        threads: 1,
        max_iterations: Some(200),
    };
    app.with_store(|store| {
        run_job(
            store,
            &*app.state.routing.matrix,
            &*app.state.clock,
            &JobRun {
                claim: job,
                config: &config,
                control,
                stopping: &|| None,
                search_thread: None,
            },
            follow,
        )
    })
}

fn auto_dispatch(app: &TestApp) -> AutoDispatch {
    AutoDispatch {
        links: Arc::new(dispatch_http::links::Links::of(&app.state)),
    }
}

#[tokio::test]
async fn an_order_routed_elsewhere_while_the_job_solves_is_left_off_the_auto_dispatched_plan() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "A", 3).await;
    let (job, plan) = claimed_job(&app).await;
    // While the job solves, another plan routes o[0] and is dispatched: the job's plan was
    // solved with o[0] on it.
    let links = dispatch_http::links::Links::of(&app.state);
    let control = Meanwhile {
        once: Once::new(),
        meanwhile: || {
            let other = lay_out(&app, &[(Some(v), vec![o[0]])]);
            app.with_store(|store| {
                let matrix = &*app.state.routing.matrix;
                dispatch_plan(
                    store,
                    matrix,
                    &links,
                    north_scope(&app),
                    other.plan,
                    now(&app),
                )
            })
            .unwrap();
        },
    };
    let outcome = run(&app, &job, &control, &auto_dispatch(&app)).unwrap();
    assert!(
        matches!(
            outcome,
            JobOutcome::Succeeded {
                follow_up_error: None,
                ..
            }
        ),
        "{outcome:?}"
    );
    let p = app.get(&format!("/v2/plans/{plan}"), &app.north()).await;
    let p = p.ok()["plan"].clone();
    assert_eq!(p["dispatched"], true, "{p:#}");
    let on_plan: Vec<i64> = p["routes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["stops"].as_array().unwrap().clone())
        .flat_map(|s| s["orders"].as_array().unwrap().clone())
        .map(|o| o["id"].as_i64().unwrap())
        .collect();
    assert!(!on_plan.contains(&o[0]), "{p:#}");
    // o[0] was dispatched once, by the other plan.
    assert_eq!(status_events(&app, o[0]), vec!["ROUTED"]);
    for id in &o[1..] {
        assert!(on_plan.contains(id), "{p:#}");
        assert_eq!(status_of(&app, *id).await, "ROUTED");
    }
}

/// The real follow-up, then a failing store: what a crash after the dispatch's writes is to
/// the transaction.
struct StoreFailsAfter(AutoDispatch);

impl JobFollowUp for StoreFailsAfter {
    fn with_result(
        &self,
        tx: &mut dyn StoreTx,
        job: &Optimisation,
        now: Timestamp,
    ) -> Result<(), ServiceError> {
        self.0.with_result(tx, job, now)?;
        Err(StoreError::Backend("the disk is gone".into()).into())
    }
}

#[tokio::test]
async fn the_result_and_its_auto_dispatch_commit_together_or_not_at_all() {
    let app = TestApp::new();
    vehicle(&app, "Van").await;
    let o = orders(&app, "A", 3).await;
    let (job, plan) = claimed_job(&app).await;
    let quiet = Meanwhile {
        once: Once::new(),
        meanwhile: || {},
    };
    let failed = run(&app, &job, &quiet, &StoreFailsAfter(auto_dispatch(&app)));
    assert!(matches!(failed, Err(ServiceError::Store(_))), "{failed:?}");
    // Nothing of the result nor of the dispatch: the job still runs (its lease will run out
    // and it is tried again), the plan has no solution, the orders are OPEN.
    let p = app.get(&format!("/v2/plans/{plan}"), &app.north()).await;
    let p = p.ok()["plan"].clone();
    assert_eq!(p["solution_id"], json!(null), "{p:#}");
    assert_eq!(p["dispatched"], false);
    assert_eq!(p["optimisation"]["in_progress"], true);
    for id in &o {
        assert_eq!(status_of(&app, *id).await, "OPEN");
    }
    // Run again (as after the lease), the result and the dispatch land at once.
    let outcome = run(&app, &job, &quiet, &auto_dispatch(&app)).unwrap();
    assert!(matches!(
        outcome,
        JobOutcome::Succeeded {
            follow_up_error: None,
            ..
        }
    ));
    let p = app.get(&format!("/v2/plans/{plan}"), &app.north()).await;
    assert_eq!(p.ok()["plan"]["dispatched"], true);
    for id in &o {
        assert_eq!(status_of(&app, *id).await, "ROUTED");
    }
}
