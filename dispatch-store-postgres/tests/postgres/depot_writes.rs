//! Writers of different depots run in parallel on every node; writers of one depot, and
//! writes of the whole store, still run in one serial order.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::plan::NewPlan;
use dispatch_core::model::route::{NewRoute, RouteTiming};
use dispatch_core::ports::store::conformance::{at, plans, reference};
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_store_postgres::PostgresStore;

/// Ten depots of one organisation.
fn depots(store: &dyn Store, n: usize) -> Vec<DepotScope> {
    store
        .transaction(|tx| {
            let org = tx.insert_organisation("Many", at(0))?;
            (0..n)
                .map(|i| {
                    tx.insert_depot(org.id, &reference::depot(&format!("D{i}")), at(0))
                        .map(|d| d.scope())
                })
                .collect::<Result<Vec<_>, StoreError>>()
        })
        .unwrap()
}

/// A depot write that stays open until told to finish, on its own thread.
fn hold_open(store: &'static PostgresStore, scope: DepotScope) -> mpsc::Sender<()> {
    let (entered_tx, entered) = mpsc::channel();
    let (finish, finish_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let store: &dyn Store = store;
        store
            .transaction_in(scope, |tx| {
                tx.upsert_tag(scope, "held", at(1))?;
                entered_tx.send(()).unwrap();
                finish_rx.recv().ok();
                Ok::<_, StoreError>(())
            })
            .unwrap();
    });
    entered.recv().unwrap();
    finish
}

fn leak(store: PostgresStore) -> &'static PostgresStore {
    Box::leak(Box::new(store))
}

/// How long `write` took on its own thread, or `None` when it was still waiting after `limit`.
fn timed(limit: Duration, write: impl FnOnce() + Send + 'static) -> Option<Duration> {
    let (done, finished) = mpsc::channel();
    let started = Instant::now();
    std::thread::spawn(move || {
        write();
        done.send(started.elapsed()).ok();
    });
    finished.recv_timeout(limit).ok()
}

#[test]
fn a_write_to_one_depot_waits_for_no_other_depots_writer_on_any_node() {
    let url = crate::store::cluster().create_database().unwrap();
    let node_a = leak(PostgresStore::open(&url).unwrap());
    let node_b = leak(PostgresStore::open(&url).unwrap());
    let d = depots(node_a, 2);
    let (one, two) = (d[0], d[1]);
    let finish = hold_open(node_a, one);

    // Another depot, another node: commits while the first depot's writer is still open.
    let other = timed(Duration::from_secs(10), move || {
        let s: &dyn Store = node_b;
        s.transaction_in(two, |tx| tx.upsert_tag(two, "free", at(2)))
            .unwrap();
    });
    assert!(other.is_some(), "a writer of another depot waited");

    // The same depot from another node waits for the open writer, and sees its commit.
    let same = timed(Duration::from_millis(500), move || {
        let s: &dyn Store = node_b;
        s.transaction_in(one, |tx| tx.upsert_tag(one, "after", at(3)))
            .unwrap();
    });
    assert!(same.is_none(), "a writer of the same depot did not wait");
    // A write of the whole store (organisation-wide) waits as well.
    let whole = timed(Duration::from_millis(300), move || {
        let s: &dyn Store = node_b;
        s.transaction(|tx| tx.insert_organisation("Later", at(4)))
            .unwrap();
    });
    assert!(whole.is_none(), "a write of the whole store did not wait");
    finish.send(()).unwrap();
    let s: &dyn Store = node_b;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let names: Vec<String> = s
            .read(|tx| tx.list_tags(one))
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect();
        if names.len() == 2 {
            assert!(names.contains(&"held".into()) && names.contains(&"after".into()));
            break;
        }
        assert!(Instant::now() < deadline, "the waiting writer never ran");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A write's BEGIN, with its locks, goes to the server with the write's first statement, one
/// round trip for both; the statement still starts once the locks are held, so it sees the
/// commit of the writer it waited for. A write that runs no statement still waits for them.
#[test]
fn a_writes_first_statement_goes_with_its_begin_and_sees_the_writer_it_waited_for() {
    let url = crate::store::cluster().create_database().unwrap();
    let node_a = leak(PostgresStore::open(&url).unwrap());
    let node_b = leak(PostgresStore::open_with_pool_size(&url, 1).unwrap());
    let node_c = leak(PostgresStore::open(&url).unwrap());
    let one = depots(node_a, 1)[0];
    let b: &dyn Store = node_b;
    // Prepared by the first run, so the counts below are the transactions' own.
    b.transaction_in(one, |tx| tx.list_tags(one)).unwrap();
    let before = node_b.round_trips();
    b.transaction_in(one, |tx| tx.list_tags(one)).unwrap();
    assert_eq!(
        node_b.round_trips() - before,
        2,
        "BEGIN with the statement, COMMIT"
    );
    let before = node_b.round_trips();
    b.transaction_in(one, |_| Ok::<_, StoreError>(())).unwrap();
    assert_eq!(node_b.round_trips() - before, 1, "BEGIN with COMMIT");

    let finish = hold_open(node_a, one);
    let (seen_tx, seen) = mpsc::channel();
    std::thread::spawn(move || {
        let s: &dyn Store = node_b;
        seen_tx
            .send(s.transaction_in(one, |tx| tx.list_tags(one)).unwrap())
            .unwrap();
    });
    let empty = timed(Duration::from_millis(300), move || {
        let s: &dyn Store = node_c;
        s.transaction_in(one, |_| Ok::<_, StoreError>(())).unwrap();
    });
    assert!(empty.is_none(), "a write without statements did not wait");
    assert!(
        seen.try_recv().is_err(),
        "a write's first statement ran before its lock"
    );
    finish.send(()).unwrap();
    let tags = seen.recv_timeout(Duration::from_secs(10)).unwrap();
    let names: Vec<&str> = tags.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["held"],
        "the first statement's snapshot is after the lock"
    );
}

/// Many writers on three nodes, to one depot and spread over ten, each reading and then
/// writing (a name from a count, an order by number unless it exists, the same order put on a
/// route and dispatched from two writers): every rule holds, nothing fails.
#[test]
fn concurrent_writers_to_one_depot_and_to_many_keep_every_rule() {
    let url = crate::store::cluster().create_database().unwrap();
    let nodes: Vec<PostgresStore> = (0..3).map(|_| PostgresStore::open(&url).unwrap()).collect();
    let all = depots(&nodes[0], 10);
    for (spread, writers) in [(&all[..1], 12usize), (&all[..], 12)] {
        std::thread::scope(|s| {
            for w in 0..writers {
                let node: &dyn Store = &nodes[w % nodes.len()];
                let scope = spread[w % spread.len()];
                s.spawn(move || {
                    for i in 0..8 {
                        // A name from what was read: repeats if two writers read the same count.
                        node.transaction_in(scope, |tx| {
                            let n = tx.list_vehicles(scope)?.len();
                            tx.insert_vehicle(
                                scope,
                                &reference::fields(&format!("V{n}"), &[], vec![]),
                                at(1),
                            )
                        })
                        .unwrap();
                        // Find an order by number, insert it if missing: every writer asks for
                        // the same few numbers.
                        let number = format!("N-{}", (w + i) % 5);
                        node.transaction_in(scope, |tx| {
                            if tx.find_order_by_number(scope, &number)?.is_none() {
                                tx.insert_order(scope, &plans::order(&number, Some(plans::day())))?;
                            }
                            Ok::<_, StoreError>(())
                        })
                        .unwrap();
                    }
                });
            }
        });
        for &scope in spread {
            let s: &dyn Store = &nodes[1];
            let mut names: Vec<String> = s
                .read(|tx| tx.list_vehicles(scope))
                .unwrap()
                .into_iter()
                .map(|v| v.fields.name)
                .collect();
            let count = names.len();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), count, "a vehicle name repeated in {scope:?}");
            let orders = s
                .read(|tx| tx.list_orders(scope, &Default::default(), &plans::page(100)))
                .unwrap();
            assert_eq!(orders.items.len(), 5, "one order per number in {scope:?}");
        }
    }
    one_order_on_one_active_route(&nodes, all[3]);
}

/// Writers on several nodes dispatch routes sharing one order at once: one commits.
fn one_order_on_one_active_route(nodes: &[PostgresStore], scope: DepotScope) {
    let s: &dyn Store = &nodes[0];
    let (order, plan) = s
        .transaction_in(scope, |tx| {
            let order = tx.insert_order(scope, &plans::order("SHARED", Some(plans::day())))?;
            let plan = tx.insert_plan(scope, &NewPlan { date: plans::day() }, at(1))?;
            Ok::<_, StoreError>((order, plan.id))
        })
        .unwrap();
    let routes: Vec<_> = (0..6)
        .map(|i| {
            s.transaction_in(scope, |tx| {
                let route = tx.insert_route(
                    scope,
                    &NewRoute {
                        plan_id: plan,
                        solution_id: plan,
                        name: format!("R{i}"),
                        date: plans::day(),
                        vehicle_id: None,
                        timing: RouteTiming::default(),
                    },
                    at(2),
                )?;
                tx.replace_stops(scope, route.id, &[plans::visit(vec![order], 36_000)], at(2))?;
                Ok::<_, StoreError>(route)
            })
            .unwrap()
        })
        .collect();
    let dispatched: usize = std::thread::scope(|t| {
        let handles: Vec<_> = routes
            .iter()
            .enumerate()
            .map(|(i, route)| {
                let node: &dyn Store = &nodes[i % nodes.len()];
                t.spawn(move || {
                    let mut r = route.clone();
                    r.dispatched = true;
                    match node.transaction_in(scope, |tx| tx.update_route(scope, &r)) {
                        Ok(_) => 1,
                        Err(StoreError::Conflict(_)) => 0,
                        Err(e) => panic!("{e}"),
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(
        dispatched, 1,
        "the order went out on {dispatched} active routes"
    );
}
