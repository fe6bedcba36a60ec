//! What a client sees of a depot day, turned into the independent checker's plain values
//! (`day_checker.rs`): route, order and vehicle reads, the tracking pages' promises and the
//! `orders.status` events a webhook receiver got. Nothing here reads the service's own
//! bookkeeping beyond what any client of the API reads.

#![allow(dead_code)] // the test and the example read different parts

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::day_checker::{Observation, Order, Route, Stop, Vehicle};
use crate::receiver::Receiver;
use crate::support::{json_ok, Server};

/// Seconds after midnight of `HH:MM` or `HH:MM:SS`.
pub fn seconds(time: &str) -> Option<i64> {
    let mut parts = time.split(':').map(|p| p.parse::<i64>().ok());
    let h = parts.next()??;
    let m = parts.next()??;
    let s = parts.next().flatten().unwrap_or(0);
    Some(h * 3600 + m * 60 + s)
}

fn list<'a>(v: &'a Value, field: &str) -> impl Iterator<Item = &'a Value> {
    v[field].as_array().into_iter().flatten()
}

fn id(v: &Value) -> i64 {
    v.as_i64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("an id: {v}"))
}

/// A route read as the checker sees it.
pub fn route(read: &Value) -> Route {
    let time = |f: &str| read[f].as_str().and_then(seconds).unwrap_or(0);
    Route {
        id: id(&read["id"]),
        vehicle: read["vehicle"]["vehicle_id"]
            .as_str()
            .map(|v| v.parse().unwrap()),
        date: read["date"].as_str().unwrap_or_default().to_owned(),
        dispatched: read["dispatched"] == true,
        completed: !read["completed_ts"].is_null(),
        start_s: time("start_time"),
        end_s: time("end_time"),
        stops: list(read, "stops")
            .map(|s| Stop {
                orders: list(s, "orders").map(|o| id(&o["id"])).collect(),
                arrival_s: s["estimated_arrival_time"]
                    .as_str()
                    .and_then(seconds)
                    .unwrap_or(0),
                departure_s: s["estimated_departure_time"]
                    .as_str()
                    .and_then(seconds)
                    .unwrap_or(0),
            })
            .collect(),
    }
}

/// An order read (`GET /v2/orders/{id}`) as the checker sees it.
pub fn order(read: &Value) -> Order {
    Order {
        id: id(&read["id"]),
        status: read["status"].as_str().unwrap_or_default().to_owned(),
        windows: list(read, "delivery_time_windows")
            .filter_map(|w| Some((seconds(w["from"].as_str()?)?, seconds(w["to"].as_str()?)?)))
            .collect(),
        service_s: read["delivery_duration"]
            .as_f64()
            .map_or(0, |m| (m * 60.0) as i64),
        skills: list(read, "skills")
            .filter_map(|s| s.as_str().map(str::to_owned))
            .collect(),
        load: list(read, "capacities")
            .map(|c| (id(&c["id"]), c["capacity"].as_f64().unwrap_or(0.0)))
            .collect(),
    }
}

/// A vehicle read as the checker sees it.
pub fn vehicle(read: &Value) -> Vehicle {
    Vehicle {
        id: id(&read["id"]),
        skills: list(read, "skills")
            .filter_map(|s| s.as_str().map(str::to_owned))
            .collect(),
        capacity: list(read, "capacities")
            .map(|c| (id(&c["id"]), c["capacity"].as_f64().unwrap_or(0.0)))
            .collect(),
    }
}

/// The ETA window of a tracking page (`between <time>HH:MM</time> and <time>HH:MM</time>`),
/// while the visit is ahead.
pub fn promise(html: &str) -> Option<(i64, i64)> {
    let rest = &html[html.find("between <time>")? + "between <time>".len()..];
    let from = seconds(&rest[..rest.find('<')?])?;
    let rest = &rest[rest.find("and <time>")? + "and <time>".len()..];
    let to = seconds(&rest[..rest.find('<')?])?;
    Some((from, to))
}

/// Waits until the receiver has had nothing new for a moment (events of the last step are
/// delivered), at most `within`.
pub fn settle(hooks: &Receiver, within: Duration) {
    let deadline = Instant::now() + within;
    let mut seen = hooks.count();
    let mut quiet_since = Instant::now();
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        let now = hooks.count();
        if now != seen {
            seen = now;
            quiet_since = Instant::now();
        } else if quiet_since.elapsed() >= Duration::from_millis(400) {
            return;
        }
    }
}

/// What the observer keeps between steps: full order reads (their windows, loads and skills
/// change only when the day changes them) and the orders acknowledged or deleted.
#[derive(Default)]
pub struct Observer {
    /// Full reads by order id; `None`: to be read again.
    pub orders: BTreeMap<i64, Option<Value>>,
    /// Orders the day deleted (a cancellation): not counted as lost.
    pub deleted: BTreeSet<i64>,
    /// Orders added without re-optimisation: their window breaches are reported.
    pub may_breach: BTreeSet<i64>,
    /// The current plans of the day (their undispatched routes are live proposals).
    pub plans: BTreeSet<i64>,
    /// Every route dispatched so far.
    pub dispatched: BTreeSet<i64>,
    pub vehicles: Vec<i64>,
}

impl Observer {
    /// Everything a client sees now.
    pub fn observe(&mut self, server: &Server, key: &str, hooks: &Receiver) -> Observation {
        settle(hooks, Duration::from_secs(5));
        let mut seen = Observation {
            may_breach: self.may_breach.clone(),
            ..Observation::default()
        };
        let mut route_ids: BTreeSet<i64> = self.dispatched.clone();
        for plan in &self.plans {
            let read = json_ok(server.get(&format!("/v2/plans/{plan}"), key), "plan");
            route_ids.extend(list(&read["plan"], "routes").map(|r| id(&r["id"])));
        }
        let mut links = Vec::new();
        for r in &route_ids {
            let read = json_ok(server.get(&format!("/v2/routes/{r}"), key), "route");
            let read = if read["route"].is_object() {
                &read["route"]
            } else {
                &read
            };
            let route = route(read);
            if route.dispatched && !route.completed {
                for s in list(read, "stops") {
                    if let Some(link) = s["tracking_link"].as_str() {
                        links.extend(list(s, "orders").map(|o| (id(&o["id"]), link.to_owned())));
                    }
                }
            }
            seen.routes.push(route);
        }
        // Statuses from the listing (every date), full reads only for orders not read yet.
        let mut statuses: BTreeMap<i64, String> = BTreeMap::new();
        let mut next = Some("/v2/orders?limit=100".to_owned());
        while let Some(path) = next {
            let reply = server.get(&path, key);
            next = reply.next_link();
            let page = json_ok(reply, "orders");
            for o in list(&page, "orders") {
                statuses.insert(
                    id(&o["id"]),
                    o["status"].as_str().unwrap_or_default().into(),
                );
            }
        }
        for (order_id, cached) in self.orders.iter_mut() {
            if self.deleted.contains(order_id) {
                continue;
            }
            let Some(status) = statuses.get(order_id) else {
                seen.orders.insert(*order_id, None);
                continue;
            };
            if cached.is_none() {
                let read = json_ok(server.get(&format!("/v2/orders/{order_id}"), key), "order");
                *cached = Some(if read["order"].is_object() {
                    read["order"].clone()
                } else {
                    read
                });
            }
            let mut o = order(cached.as_ref().unwrap());
            o.status = status.clone();
            seen.orders.insert(*order_id, Some(o));
        }
        for v in &self.vehicles {
            let read = json_ok(server.get(&format!("/v2/vehicles/{v}"), key), "vehicle");
            seen.vehicles.insert(*v, vehicle(&read["vehicle"]));
        }
        for (order_id, link) in links {
            if seen
                .orders
                .get(&order_id)
                .and_then(Option::as_ref)
                .is_some_and(|o| o.status == "ROUTED")
            {
                let page = server.call("GET", &link, None, None);
                if let Some(window) = promise(&page.text()) {
                    seen.promises.insert(order_id, window);
                }
            }
        }
        seen.status_events = hooks
            .hits()
            .iter()
            .filter(|h| h.body["type"] == "orders.status")
            .map(|h| {
                (
                    id(&h.body["data"]["order_id"]),
                    h.body["data"]["status"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                )
            })
            .collect();
        seen
    }
}
