//! Planning data on SQLite across reopening; the shared behaviour is `conformance.rs`.

use dispatch_core::model::plan::NewPlan;
use dispatch_core::ports::store::conformance::plans::{day, job};
use dispatch_core::ports::store::conformance::{at, two_depots};
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_store_sqlite::SqliteStore;

#[test]
fn queued_jobs_and_plans_survive_reopening_the_sqlite_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("reopen.db");
    let (a, plan) = {
        let store = SqliteStore::open(&path).unwrap();
        let (a, _) = two_depots(&store);
        let s: &dyn Store = &store;
        let plan = s
            .transaction(|tx| {
                let plan = tx.insert_plan(a, &NewPlan { date: day() }, at(1))?;
                tx.insert_optimisation(&job("j-1", a, plan.id, 1))?;
                Ok::<_, StoreError>(plan)
            })
            .unwrap();
        (a, plan)
    };
    let store = SqliteStore::open(&path).unwrap();
    let s: &dyn Store = &store;
    assert_eq!(s.read(|tx| tx.get_plan(a, plan.id)).unwrap(), Some(plan));
    let claimed = s
        .transaction(|tx| tx.claim_optimisation(at(2), at(3)))
        .unwrap();
    assert_eq!(claimed.map(|j| j.id), Some("j-1".to_string()));
}
