//! An independent checker of the invariants a dispatcher relies on through a whole depot day.
//! It sees only what a client sees — route, order and vehicle reads, customer promises, the
//! `orders.status` webhook events — turned into the plain values below, never the service's
//! own bookkeeping, and recomputes every rule from them:
//!
//! - every order is on one active route (dispatched, not completed) at most;
//! - no vehicle is in two places at once (two of its routes of one date overlap in time);
//! - every stop's planned service start is inside one of its orders' time windows (orders
//!   added without re-optimisation may breach: reported, not failed, as the spec allows);
//! - every route respects its vehicle's capacities and skills (a route holding an order added
//!   without re-optimisation may exceed them, as the spec allows: reported, not failed);
//! - every customer promise contains the planned service start;
//! - every status change has exactly one `orders.status` event;
//! - nothing acknowledged is lost (every acknowledged order still reads).

#![allow(dead_code)] // the day and the checker's own tests read different parts

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

/// One stop as a route read shows it: the orders it serves and its planned times (seconds
/// after midnight).
#[derive(Debug, Clone, PartialEq)]
pub struct Stop {
    pub orders: Vec<i64>,
    pub arrival_s: i64,
    pub departure_s: i64,
}

/// One route as `GET /v2/routes/{id}` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    pub id: i64,
    pub vehicle: Option<i64>,
    pub date: String,
    pub dispatched: bool,
    pub completed: bool,
    pub start_s: i64,
    pub end_s: i64,
    pub stops: Vec<Stop>,
}

/// One order as `GET /v2/orders/{id}` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    pub id: i64,
    pub status: String,
    /// Time windows (seconds after midnight); empty: any time.
    pub windows: Vec<(i64, i64)>,
    /// Service duration in seconds.
    pub service_s: i64,
    pub skills: Vec<String>,
    /// Load per capacity type id.
    pub load: Vec<(i64, f64)>,
}

/// One vehicle as `GET /v2/vehicles/{id}` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Vehicle {
    pub id: i64,
    pub skills: Vec<String>,
    /// Capacity per capacity type id (a type not listed is unlimited).
    pub capacity: Vec<(i64, f64)>,
}

/// Everything the checker sees after one step of the day.
#[derive(Debug, Clone, Default)]
pub struct Observation {
    /// Every route the day's plans show and every dispatched route.
    pub routes: Vec<Route>,
    /// Every order the API acknowledged and the day did not delete: its read, `None` when it
    /// no longer reads.
    pub orders: BTreeMap<i64, Option<Order>>,
    pub vehicles: BTreeMap<i64, Vehicle>,
    /// `orders.status` webhook events received so far, in delivery order: (order, status).
    pub status_events: Vec<(i64, String)>,
    /// Customer promises (tracking pages): order -> window (seconds after midnight).
    pub promises: BTreeMap<i64, (i64, i64)>,
    /// Orders added to a route without re-optimisation: their window breaches are reported.
    pub may_breach: BTreeSet<i64>,
}

/// Which rule a violation breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    OneActiveRoute,
    OnePlaceAtATime,
    TimeWindow,
    Capacity,
    Skills,
    Promise,
    StatusEvents,
    Lost,
}

/// A broken rule and what broke it.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub rule: Rule,
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.rule, self.detail)
    }
}

/// What one check found.
#[derive(Debug, Default)]
pub struct Findings {
    pub violations: Vec<Violation>,
    /// Window, capacity and skill breaches of orders added without re-optimisation (allowed,
    /// reported).
    pub breaches: Vec<String>,
}

/// The checker's memory between steps: each order's status at the last check.
#[derive(Debug, Default)]
pub struct Checker {
    last_status: HashMap<i64, String>,
    events_seen: usize,
}

fn active(r: &Route) -> bool {
    r.dispatched && !r.completed
}

fn hhmm(s: i64) -> String {
    format!("{:02}:{:02}", s.div_euclid(3600), s.rem_euclid(3600) / 60)
}

impl Checker {
    /// Checks every rule on `seen`.
    pub fn check(&mut self, seen: &Observation) -> Findings {
        let mut out = Findings::default();
        let mut fail = |rule: Rule, detail: String| out.violations.push(Violation { rule, detail });
        // One active route per order.
        let mut on: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
        for r in seen.routes.iter().filter(|r| active(r)) {
            for o in r.stops.iter().flat_map(|s| &s.orders) {
                on.entry(*o).or_default().insert(r.id);
            }
        }
        for (order, routes) in &on {
            if routes.len() > 1 {
                fail(
                    Rule::OneActiveRoute,
                    format!("order {order} on active routes {routes:?}"),
                );
            }
        }
        // One place at a time: the live routes (dispatched, or of a current plan) of a vehicle
        // on one date never overlap.
        let mut by_vehicle: BTreeMap<(i64, &str), Vec<&Route>> = BTreeMap::new();
        for r in &seen.routes {
            if let Some(v) = r.vehicle {
                by_vehicle.entry((v, r.date.as_str())).or_default().push(r);
            }
        }
        for ((v, date), routes) in &by_vehicle {
            for (i, a) in routes.iter().enumerate() {
                for b in &routes[i + 1..] {
                    if a.start_s < b.end_s && b.start_s < a.end_s {
                        fail(
                            Rule::OnePlaceAtATime,
                            format!(
                                "vehicle {v} on {date}: route {} {}-{} and route {} {}-{}",
                                a.id,
                                hhmm(a.start_s),
                                hhmm(a.end_s),
                                b.id,
                                hhmm(b.start_s),
                                hhmm(b.end_s)
                            ),
                        );
                    }
                }
            }
        }
        let order = |id: &i64| seen.orders.get(id).and_then(Option::as_ref);
        for r in &seen.routes {
            let vehicle = r.vehicle.and_then(|v| seen.vehicles.get(&v));
            // Added without a solve or a feasibility check: the spec lets such a route exceed
            // its van.
            let unchecked = r
                .stops
                .iter()
                .flat_map(|s| &s.orders)
                .any(|o| seen.may_breach.contains(o));
            let mut load: BTreeMap<i64, f64> = BTreeMap::new();
            for s in &r.stops {
                let served: Vec<&Order> = s.orders.iter().filter_map(&order).collect();
                let start = s.departure_s - served.iter().map(|o| o.service_s).sum::<i64>();
                for o in &served {
                    let inside = o.windows.is_empty()
                        || o.windows.iter().any(|(a, b)| *a <= start && start <= *b);
                    if !inside {
                        let what = format!(
                            "order {} on route {} served at {} outside {:?}",
                            o.id,
                            r.id,
                            hhmm(start),
                            o.windows
                                .iter()
                                .map(|(a, b)| format!("{}-{}", hhmm(*a), hhmm(*b)))
                                .collect::<Vec<_>>()
                        );
                        if seen.may_breach.contains(&o.id) {
                            out.breaches.push(what);
                        } else {
                            fail(Rule::TimeWindow, what);
                        }
                    }
                    if let Some((a, b)) = seen.promises.get(&o.id) {
                        if !(*a <= start && start <= *b) {
                            fail(
                                Rule::Promise,
                                format!(
                                    "order {} promised {}-{}, planned service start {}",
                                    o.id,
                                    hhmm(*a),
                                    hhmm(*b),
                                    hhmm(start)
                                ),
                            );
                        }
                    }
                    for (t, amount) in &o.load {
                        *load.entry(*t).or_default() += amount;
                    }
                    if let Some(v) = vehicle {
                        for skill in &o.skills {
                            if !v.skills.contains(skill) {
                                let what = format!(
                                    "order {} needs {skill}; vehicle {} on route {} lacks it",
                                    o.id, v.id, r.id
                                );
                                if seen.may_breach.contains(&o.id) {
                                    out.breaches.push(what);
                                } else {
                                    fail(Rule::Skills, what);
                                }
                            }
                        }
                    }
                }
            }
            if let Some(v) = vehicle {
                for (t, total) in &load {
                    if let Some((_, cap)) = v.capacity.iter().find(|(id, _)| id == t) {
                        if total > cap {
                            let what = format!(
                                "route {} carries {total} of type {t}; vehicle {} holds {cap}",
                                r.id, v.id
                            );
                            if unchecked {
                                out.breaches.push(what);
                            } else {
                                fail(Rule::Capacity, what);
                            }
                        }
                    }
                }
            }
        }
        // Status events: one per change. A repeated status in a row is an event without a
        // change; a status changed since the last check with no new event, or an order whose
        // last event is not its status, is a change without its event.
        let mut last_event: HashMap<i64, &str> = HashMap::new();
        for (o, status) in &seen.status_events {
            if last_event.get(o) == Some(&status.as_str()) {
                fail(
                    Rule::StatusEvents,
                    format!("order {o}: two events in a row say {status}"),
                );
            }
            last_event.insert(*o, status);
        }
        let new_events = &seen.status_events[self.events_seen.min(seen.status_events.len())..];
        for (id, read) in &seen.orders {
            let Some(read) = read else {
                fail(
                    Rule::Lost,
                    format!("order {id} was acknowledged and no longer reads"),
                );
                continue;
            };
            let before = self
                .last_status
                .get(id)
                .map(String::as_str)
                .unwrap_or("OPEN");
            if read.status != before && !new_events.iter().any(|(o, _)| o == id) {
                fail(
                    Rule::StatusEvents,
                    format!(
                        "order {id}: {before} -> {} without an orders.status event",
                        read.status
                    ),
                );
            }
            if let Some(last) = last_event.get(id) {
                if *last != read.status {
                    fail(
                        Rule::StatusEvents,
                        format!(
                            "order {id} reads {} but its last event says {last}",
                            read.status
                        ),
                    );
                }
            }
            self.last_status.insert(*id, read.status.clone());
        }
        self.events_seen = seen.status_events.len();
        out
    }
}
