//! One depot day on the simulated clock (`serve --simulate`), through the real binary and a
//! webhook receiver on loopback: a morning import of a few hundred orders by address (a
//! geocoder on loopback places them), an optimisation, the morning vans' routes dispatched, the
//! drivers driving them (`simulated_drivers.rs`), midday changes — urgent orders added to
//! dispatched routes with `reoptimize` (and one without, whose window breach is reported), a
//! cancellation, a re-dated order, a re-optimisation of the plan's undispatched rest for the
//! afternoon vans and its dispatch — and the evening close. After every step the independent
//! checker (`day_checker.rs`) checks the invariants on what a client sees (`day_observer.rs`).
//! Shared by `tests/e2e/simulated_short_day.rs` (a short day per store) and `examples/simulated_day.rs`.

#![allow(dead_code)] // the test and the example read different parts

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::day_checker::{Checker, Findings};
use crate::day_observer::Observer;
use crate::receiver::Receiver;
use crate::simulated_day_setup::{order, Report, Size, DATE, H, NEXT_DAY};
use crate::simulated_drivers::{clock_now, wait_until, Fleet};
use crate::support::{json_ok, Server};

struct Day<'a> {
    server: &'a Server,
    key: &'a str,
    hooks: &'a Receiver,
    size: Size,
    checker: Checker,
    observer: Observer,
    fleet: Fleet,
    report: Report,
    started: Instant,
}

impl Day<'_> {
    /// Checks every invariant on what a client sees now and notes the step.
    fn step(&mut self, what: String) {
        let seen = self.observer.observe(self.server, self.key, self.hooks);
        let Findings {
            violations,
            breaches,
        } = self.checker.check(&seen);
        let now = clock_now(self.server);
        self.report.checks += 1;
        self.report.steps.push(format!(
            "[{:5.1} s | {:02}:{:02}] {what}: {} routes, {} orders, {} violations, {} breaches reported",
            self.started.elapsed().as_secs_f64(),
            now / H,
            now % H / 60,
            seen.routes.len(),
            seen.orders.len(),
            violations.len(),
            breaches.len()
        ));
        self.report
            .violations
            .extend(violations.iter().map(|v| format!("{what}: {v}")));
        for b in breaches {
            if !self.report.breaches.contains(&b) {
                self.report.breaches.push(b);
            }
        }
    }

    fn optimise(&mut self, plan: Option<i64>) -> i64 {
        let mut body = json!({"delivery_date": DATE, "settings": {}});
        if let Some(id) = plan {
            body["plan"] = json!({"id": id});
        }
        let started = json_ok(
            self.server
                .post("/v2/plans/optimise/orders", self.key, &body),
            "optimise",
        );
        let job = started["optimisation"]["id"].as_str().unwrap().to_owned();
        self.server
            .await_job(self.key, &job, Duration::from_secs(60), "the optimisation");
        let read = json_ok(
            self.server
                .get(&format!("/v2/plans/optimise/{job}"), self.key),
            "job",
        );
        assert_eq!(read["optimisation"]["state"], "succeeded", "{read}");
        started["plan"]["id"].as_i64().unwrap()
    }

    /// Dispatches `route` and gives its van a driver.
    fn dispatch_route(&mut self, route: &Value) {
        let id = route["id"].as_i64().unwrap();
        let vehicle: i64 = route["vehicle"]["vehicle_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        json_ok(
            self.server
                .post(&format!("/v2/routes/{id}/dispatch"), self.key, &json!(null)),
            "dispatch",
        );
        self.observer.dispatched.insert(id);
        self.fleet.add(self.server, self.key, id, vehicle);
        self.report.routes_dispatched += 1;
    }

    fn new_orders(&mut self, orders: Vec<Value>) -> Vec<i64> {
        let mut ids = Vec::new();
        for batch in orders.chunks(100) {
            let made = json_ok(
                self.server.post("/v2/orders", self.key, &json!(batch)),
                "orders",
            );
            self.report.geocoding_failed += made["errors"].as_array().map_or(0, Vec::len);
            for o in made["orders"].as_array().unwrap() {
                let id: i64 = o["id"].as_str().unwrap().parse().unwrap();
                self.observer.orders.insert(id, None);
                ids.push(id);
            }
        }
        ids
    }

    /// Adds `order` to `route` (dispatched); `reoptimize` as given. Whether it was placed.
    fn add_to_route(&mut self, route: i64, order: i64, reoptimize: bool) -> bool {
        let body = json!({"orders": [{"id": order}], "settings": {"allow_dispatched": true, "reoptimize": reoptimize}});
        let added = json_ok(
            self.server
                .post(&format!("/v2/routes/{route}/add-orders"), self.key, &body),
            "add-orders",
        );
        added["errors"].as_array().is_none_or(Vec::is_empty)
    }
}

/// Plays the day on `server` (from [`serve`]) and returns what happened.
pub fn play(server: &Server, key: &str, weight: i64, hooks: &Receiver, size: Size) -> Report {
    let mut day = Day {
        server,
        key,
        hooks,
        size,
        checker: Checker::default(),
        observer: Observer::default(),
        fleet: Fleet {
            date: DATE.into(),
            depot: (51.50, -0.12),
            drivers: Default::default(),
            fail_order: None,
            proof_order: None,
            visit_questionnaire: None,
            tally: Default::default(),
        },
        report: Report::default(),
        started: Instant::now(),
    };
    // The fleet: morning and afternoon vans, 400 kg each; the first of each shift has a fridge.
    let mut vans = Vec::new();
    for (shift, count) in [
        (("08:00", "17:00"), size.morning_vans),
        (("14:00", "19:00"), size.afternoon_vans),
    ] {
        for n in 0..count {
            let mut van = json!({"name": format!("Van {} {}", shift.0, n + 1), "availability": "shift",
                "shift_start": shift.0, "shift_end": shift.1, "start_location": "depot", "end_location": "depot",
                "capacities": [{"id": weight, "capacity": 400}]});
            if n == 0 {
                van["skills"] = json!(["fridge"]);
            }
            let made = json_ok(server.post("/v2/vehicles", key, &van), "vehicle");
            vans.push((made["vehicle"]["id"].as_i64().unwrap(), shift.0 == "08:00"));
        }
    }
    day.observer.vehicles = vans.iter().map(|(v, _)| *v).collect();

    // Morning: the import, by address.
    let orders: Vec<Value> = (0..size.orders)
        .map(|i| order(i, format!("SIM-{i:04}"), weight))
        .collect();
    let ids = day.new_orders(orders);
    day.report.imported = ids.len();
    day.step(format!("morning import of {} orders by address", ids.len()));

    let plan = day.optimise(None);
    day.observer.plans.insert(plan);
    day.step(format!("plan {plan} optimised"));

    let read = json_ok(server.get(&format!("/v2/plans/{plan}"), key), "plan");
    let morning: Vec<Value> = read["plan"]["routes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            let v: i64 = r["vehicle"]["vehicle_id"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap();
            vans.iter().any(|(id, early)| *id == v && *early)
        })
        .cloned()
        .collect();
    for route in &morning {
        day.dispatch_route(route);
    }
    // The failed visit and the proofs: on the first morning route, its second and third stops.
    let first = json_ok(
        server.get(&format!("/v2/routes/{}", morning[0]["id"]), key),
        "route",
    );
    let stop_order = |n: usize| first["route"]["stops"][n]["orders"][0]["id"].as_i64();
    day.fleet.fail_order = stop_order(1);
    day.fleet.proof_order = stop_order(2);
    if let Some(driver) = day.fleet.drivers.values().next() {
        let (visit, _) = crate::driver_day_pod::questionnaire_ids(server, &driver.credential);
        day.fleet.visit_questionnaire = Some(visit);
    }
    day.step(format!("{} morning routes dispatched", morning.len()));

    // The morning on the road.
    day.fleet.drive_until(server, 10 * H + 30 * 60, size.speed);
    day.step("10:30 on the road".into());

    // Midday: urgent orders onto dispatched routes, re-optimised.
    wait_until(server, 10 * H + 30 * 60, size.speed);
    let urgent: Vec<Value> = (0..size.urgent)
        .map(|n| {
            let mut o = order(size.orders + n, format!("URGENT-{n}"), weight);
            o["delivery_time_windows"] = json!([{"from": "12:00", "to": "16:00"}]);
            o["skills"] = json!([]);
            o
        })
        .collect();
    let urgent_ids = day.new_orders(urgent);
    let dispatched: Vec<i64> = day.observer.dispatched.iter().copied().collect();
    for (n, order) in urgent_ids.iter().enumerate() {
        if day.add_to_route(dispatched[n % dispatched.len()], *order, true) {
            day.report.urgent_added += 1;
        } else {
            day.report.urgent_declined += 1;
        }
    }
    day.fleet.reread();
    day.step(format!(
        "{} urgent orders added with reoptimize ({} declined)",
        day.report.urgent_added, day.report.urgent_declined
    ));

    // One more without re-optimisation: appended last, its 11:00-11:30 window may be missed.
    let mut late = order(size.orders + size.urgent, "URGENT-APPENDED".into(), weight);
    late["delivery_time_windows"] = json!([{"from": "11:00", "to": "11:30"}]);
    late["skills"] = json!([]);
    let late = day.new_orders(vec![late])[0];
    day.observer.may_breach.insert(late);
    day.add_to_route(dispatched[0], late, false);
    day.fleet.reread();
    day.step("an order appended without reoptimize".into());

    // A cancellation: an order still ahead on a dispatched route is taken off and deleted.
    let cancelled = cancel_one_ahead(&mut day);
    day.step(format!("order {cancelled} cancelled"));

    // A re-dated order: one of the afternoon's, to tomorrow.
    let current = json_ok(server.get(&format!("/v2/plans/{plan}"), key), "plan");
    let afternoon_order = current["plan"]["routes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["dispatched"] == false)
        .find_map(|r| r["stops"][0]["orders"][0]["id"].as_i64())
        .expect("an afternoon route with a stop");
    json_ok(
        server.put(
            &format!("/v2/orders/{afternoon_order}"),
            key,
            &json!({"delivery_date": NEXT_DAY}),
        ),
        "re-date",
    );
    day.observer.orders.insert(afternoon_order, None);
    day.step(format!("order {afternoon_order} re-dated to {NEXT_DAY}"));

    day.fleet.drive_until(server, 11 * H + 30 * 60, size.speed);
    // The undispatched rest re-optimised for the afternoon vans, and dispatched.
    day.optimise(Some(plan));
    let read = json_ok(server.get(&format!("/v2/plans/{plan}"), key), "plan");
    let replanned: Vec<Value> = read["plan"]["routes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["dispatched"] == false)
        .cloned()
        .collect();
    assert!(
        replanned.iter().all(|r| r["stops"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["orders"][0]["id"] != afternoon_order)),
        "the re-dated order left the day"
    );
    day.step(format!(
        "the undispatched rest re-optimised: {} routes",
        replanned.len()
    ));
    for route in &replanned {
        day.dispatch_route(route);
    }
    day.step(format!("{} afternoon routes dispatched", replanned.len()));

    // The afternoon and the evening close.
    for until in [14 * H, 16 * H, 24 * H] {
        day.fleet.drive_until(server, until, size.speed);
        let done = day.fleet.done();
        day.step(if done {
            "evening: every route completed".into()
        } else {
            format!("{:02}:00 on the road", until / H)
        });
        if done {
            break;
        }
    }
    crate::day_observer::settle(hooks, Duration::from_secs(5));
    let mut by_type: std::collections::BTreeMap<String, usize> = Default::default();
    for hit in hooks.hits() {
        *by_type
            .entry(hit.body["type"].as_str().unwrap_or("?").to_owned())
            .or_default() += 1;
    }
    day.report.routes_completed_events = by_type.get("routes.completed").copied().unwrap_or(0);
    day.report.events = by_type.into_iter().collect();
    let seen = day.observer.observe(server, key, hooks);
    let mut statuses: std::collections::BTreeMap<String, usize> = Default::default();
    for o in seen.orders.values().flatten() {
        *statuses.entry(o.status.clone()).or_default() += 1;
    }
    day.report.final_statuses = statuses.into_iter().collect();
    day.report.drivers = day.fleet.tally.clone();
    day.report.wall = day.started.elapsed();
    day.report
}

/// Takes an order still ahead on a dispatched route off it and deletes it; its id.
fn cancel_one_ahead(day: &mut Day<'_>) -> i64 {
    let mut chosen = None;
    for d in day.fleet.drivers.values() {
        let read = json_ok(
            day.server.get(&format!("/v2/routes/{}", d.route), day.key),
            "route",
        );
        let read = if read["route"].is_object() {
            read["route"].clone()
        } else {
            read
        };
        let ahead = read["stops"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find_map(|s| {
                let o = s["orders"][0]["id"].as_i64()?;
                let spared = [day.fleet.fail_order, day.fleet.proof_order].contains(&Some(o))
                    || day.observer.may_breach.contains(&o);
                (!d.visited.contains(&o) && !spared && !d.at_orders.contains(&o)).then(|| {
                    (
                        o,
                        s["orders"][0]["order_number"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned(),
                    )
                })
            });
        if let Some((o, number)) = ahead {
            chosen = Some((d.route, o, number));
            break;
        }
    }
    let (route, order, number) = chosen.expect("an order ahead on a dispatched route");
    let body = json!({"orders": [{"id": order}], "settings": {"allow_dispatched": true, "reoptimize": false}});
    json_ok(
        day.server
            .post(&format!("/v2/routes/{route}/remove-orders"), day.key, &body),
        "remove-orders",
    );
    json_ok(
        day.server
            .delete(&format!("/v2/orders/order-number/{number}"), day.key),
        "delete",
    );
    day.observer.deleted.insert(order);
    day.fleet.reread();
    order
}
