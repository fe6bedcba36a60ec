//! The drivers of a simulated depot day: each drives its dispatched route through the driver
//! API on the service's simulated clock — start, positions along each leg, arrival, completion
//! (one failed stop, proofs at one stop), the route completed at its end — reporting the
//! planned times once the clock has reached them, so every reported time is within the driver
//! API's rules (never ahead of the service's clock, at most 48 hours behind).

#![allow(dead_code)] // the test and the example read different parts

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde_json::{json, Value};

use crate::day_observer::seconds;
use crate::support::{json_ok, Server};

/// The service's clock, as `/healthz` shows it under `serve --simulate`: seconds after midnight
/// of the simulated day `DATE` (past 86400 once the clock ran into the next day).
pub fn clock_now(server: &Server) -> i64 {
    let health = json_ok(server.call("GET", "/healthz", None, None), "healthz");
    let now = health["clock"]["now"].as_str().expect("a simulated clock");
    let day = dispatch_core::time::Date::parse(&now[..10]).unwrap();
    let days = (0..)
        .find(|n| crate::simulated_day_setup::first_day().add_days(*n) >= day)
        .unwrap();
    days * 86_400 + seconds(&now[11..19]).unwrap()
}

/// Waits until the simulated clock has reached `at` (seconds after midnight).
pub fn wait_until(server: &Server, at: i64, speed: f64) {
    loop {
        let now = clock_now(server);
        if now >= at {
            return;
        }
        let wall = ((at - now) as f64 / speed).clamp(0.005, 0.25);
        std::thread::sleep(Duration::from_secs_f64(wall));
    }
}

/// `2026-12-02T08:05:00.000Z` for `at` seconds after midnight of `date` (the depot is on UTC).
pub fn timestamp(date: &str, at: i64) -> String {
    format!(
        "{date}T{:02}:{:02}:{:02}.000Z",
        at / 3600,
        (at % 3600) / 60,
        at % 60
    )
}

/// What a driver does next, and when.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Start,
    Arrive {
        stop: i64,
        orders: Vec<i64>,
        lat: f64,
        lng: f64,
    },
    Leave {
        stop: i64,
        orders: Vec<i64>,
        lat: f64,
        lng: f64,
    },
    Complete,
}

/// One driver and the route they drive.
pub struct Driver {
    pub route: i64,
    pub credential: String,
    pub started: bool,
    pub completed: bool,
    /// Orders whose visit is over.
    pub visited: BTreeSet<i64>,
    /// The stop the driver is at, and its orders.
    pub at: Option<i64>,
    pub at_orders: Vec<i64>,
    /// Where and when the driver last was.
    pub last: (f64, f64, i64),
    /// The route read the driver follows (read again after the depot changes it).
    pub read: Option<Value>,
}

/// Counts of what the drivers reported.
#[derive(Debug, Default, Clone)]
pub struct DriverTally {
    pub starts: usize,
    pub positions: usize,
    pub arrivals: usize,
    pub completions: usize,
    pub failures: usize,
    pub proofs: usize,
    pub routes_completed: usize,
}

/// The fleet on the road.
pub struct Fleet {
    pub date: String,
    pub depot: (f64, f64),
    pub drivers: BTreeMap<i64, Driver>,
    /// The order whose visit fails (nobody home), and the one whose stop gets proofs.
    pub fail_order: Option<i64>,
    pub proof_order: Option<i64>,
    pub visit_questionnaire: Option<i64>,
    pub tally: DriverTally,
}

impl Fleet {
    /// A driver for dispatched route `route` of vehicle `vehicle`, with a new credential.
    pub fn add(&mut self, server: &Server, key: &str, route: i64, vehicle: i64) {
        let made = json_ok(
            server.post(
                &format!("/v2/vehicles/{vehicle}/driver-credentials"),
                key,
                &json!({"name": format!("Driver of van {vehicle}")}),
            ),
            "credential",
        );
        let credential = made["driver_credential"]["credential"]
            .as_str()
            .unwrap()
            .to_owned();
        self.drivers.insert(
            route,
            Driver {
                route,
                credential,
                started: false,
                completed: false,
                visited: BTreeSet::new(),
                at: None,
                at_orders: Vec::new(),
                last: (self.depot.0, self.depot.1, 0),
                read: None,
            },
        );
    }

    /// Forgets every route read: the depot changed routes.
    pub fn reread(&mut self) {
        for d in self.drivers.values_mut() {
            d.read = None;
        }
    }

    /// Whether every driver completed their route.
    pub fn done(&self) -> bool {
        self.drivers.values().all(|d| d.completed)
    }

    /// The earliest next action of any driver: (when, route, action).
    pub fn next(&mut self, server: &Server) -> Option<(i64, i64, Action)> {
        let mut best: Option<(i64, i64, Action)> = None;
        for d in self.drivers.values_mut().filter(|d| !d.completed) {
            if d.read.is_none() {
                let read = json_ok(
                    server.get(&format!("/driver/routes/{}", d.route), &d.credential),
                    "route",
                );
                d.read = Some(read["route"].clone());
            }
            let read = d.read.as_ref().unwrap();
            let time = |v: &Value| v.as_str().and_then(seconds);
            let due = if !d.started {
                (time(&read["start_time"]).unwrap_or(0), Action::Start)
            } else if let Some(stop) = d.at {
                // A re-sequenced route may give the stop a new id: it is the one serving the
                // same orders.
                let stops = read["stops"].as_array().unwrap();
                let s = stops.iter().find(|s| s["id"] == stop).or_else(|| {
                    stops
                        .iter()
                        .find(|s| orders(s).iter().any(|o| d.at_orders.contains(o)))
                });
                let s = s.expect("the stop the driver is at");
                (
                    time(&s["estimated_departure_time"]).unwrap_or(d.last.2),
                    Action::Leave {
                        stop: s["id"].as_i64().unwrap(),
                        orders: orders(s),
                        lat: s["lat"].as_f64().unwrap_or(d.last.0),
                        lng: s["lng"].as_f64().unwrap_or(d.last.1),
                    },
                )
            } else {
                let ahead = read["stops"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|s| orders(s).iter().any(|o| !d.visited.contains(o)));
                match ahead {
                    Some(s) => (
                        time(&s["estimated_arrival_time"]).unwrap_or(d.last.2),
                        Action::Arrive {
                            stop: s["id"].as_i64().unwrap(),
                            orders: orders(s),
                            lat: s["lat"].as_f64().unwrap_or(d.last.0),
                            lng: s["lng"].as_f64().unwrap_or(d.last.1),
                        },
                    ),
                    None => (
                        time(&read["end_time"]).unwrap_or(d.last.2),
                        Action::Complete,
                    ),
                }
            };
            // Never before what the driver already reported (a re-timed route may show an
            // earlier plan for what is left).
            let when = due.0.max(d.last.2);
            if best.as_ref().is_none_or(|(t, _, _)| when < *t) {
                best = Some((when, d.route, due.1));
            }
        }
        best
    }

    /// Does `action` of route `route`'s driver at `at` (the clock has reached it).
    pub fn act(&mut self, server: &Server, at: i64, route: i64, action: Action) {
        let date = self.date.clone();
        let (fail_order, proof_order, questionnaire) =
            (self.fail_order, self.proof_order, self.visit_questionnaire);
        let d = self.drivers.get_mut(&route).unwrap();
        let time = timestamp(&date, at);
        let driver = d.credential.clone();
        let post = |path: String, body: Value, what: &str| {
            json_ok(server.post(&path, &driver, &body), what)
        };
        match action {
            Action::Start => {
                post(
                    format!("/driver/routes/{route}/start"),
                    json!({"time": time, "lat": d.last.0, "lng": d.last.1}),
                    "start",
                );
                d.started = true;
                d.last.2 = at;
                self.tally.starts += 1;
            }
            Action::Arrive {
                stop,
                orders,
                lat,
                lng,
            } => {
                // Halfway along the leg, then at the door.
                let (from_lat, from_lng, from_t) = d.last;
                let mid = timestamp(&date, (from_t + at) / 2);
                post(
                    format!("/driver/routes/{route}/positions"),
                    json!({"positions": [
                        {"lat": (from_lat + lat) / 2.0, "lng": (from_lng + lng) / 2.0, "time": mid},
                        {"lat": lat, "lng": lng, "time": time}
                    ]}),
                    "positions",
                );
                post(
                    format!("/driver/stops/{stop}/arrive"),
                    json!({"time": time, "lat": lat, "lng": lng}),
                    "arrive",
                );
                self.tally.positions += 2;
                self.tally.arrivals += 1;
                d.at = Some(stop);
                d.at_orders = orders;
                d.last = (lat, lng, at);
            }
            Action::Leave {
                stop,
                orders,
                lat,
                lng,
            } => {
                if let (Some(p), Some(q)) = (proof_order, questionnaire) {
                    if orders.contains(&p) {
                        crate::driver_day_pod::at_stop(server, &driver, q, stop);
                        self.tally.proofs += 1;
                    }
                }
                if fail_order.is_some_and(|f| orders.contains(&f)) {
                    post(
                        format!("/driver/stops/{stop}/fail"),
                        json!({"reason": "nobody home", "time": time, "lat": lat, "lng": lng}),
                        "fail",
                    );
                    self.tally.failures += 1;
                } else {
                    post(
                        format!("/driver/stops/{stop}/complete"),
                        json!({"time": time, "lat": lat, "lng": lng}),
                        "complete",
                    );
                    self.tally.completions += 1;
                }
                d.visited.extend(orders);
                d.at = None;
                d.last = (lat, lng, at);
            }
            Action::Complete => {
                post(
                    format!("/driver/routes/{route}/complete"),
                    json!({"time": time}),
                    "complete route",
                );
                d.completed = true;
                d.last.2 = at;
                self.tally.routes_completed += 1;
            }
        }
    }

    /// Drives until the clock reaches `until` (seconds after midnight) or every route is done.
    pub fn drive_until(&mut self, server: &Server, until: i64, speed: f64) {
        while let Some((at, route, action)) = self.next(server) {
            if at > until {
                return;
            }
            wait_until(server, at, speed);
            self.act(server, at, route, action);
        }
    }
}

fn orders(stop: &Value) -> Vec<i64> {
    stop["orders"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["id"].as_i64())
        .collect()
}
