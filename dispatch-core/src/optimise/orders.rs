//! Orders to solver tasks: one job per delivery or pickup, one shipment per shipment order, one
//! job per exchange pair; windows, durations, loads, skills, priority and pinning per order.

use std::collections::HashMap;

use super::exclusions::{coordinates, visited_sides};
use super::to_problem::{demand_load, Locations, SkillIndex};
use super::{UnservedOrder, UnservedReason, Visit};
use crate::model::customer::Customer;
use crate::model::order::{Order, OrderType, Priority, Side};
use crate::solver::problem::{Job, Load, Place, Shipment, Skills, TimeWindow};

/// Seconds in a day.
pub(crate) const DAY_S: i64 = 86_400;

/// What orders turn into, with the maps back to them.
#[derive(Debug, Default)]
pub(crate) struct Tasks {
    pub jobs: Vec<Job>,
    pub job_visits: Vec<Vec<Visit>>,
    pub job_ranks: Vec<usize>,
    pub shipments: Vec<Shipment>,
    pub shipment_orders: Vec<i64>,
    pub shipment_ranks: Vec<usize>,
    pub excluded: Vec<UnservedOrder>,
}

/// Everything an order is resolved against.
pub(crate) struct Resolver<'a> {
    pub customers: HashMap<i64, &'a Customer>,
    pub capacity_types: Vec<i64>,
    pub vehicle_index: &'a HashMap<i64, usize>,
    pub locs: &'a mut Locations,
    pub skills: &'a mut SkillIndex,
}

/// The solver's priority of an order: P1 3, P2 (and none) 2, P3 1.
pub(crate) fn priority(p: Option<Priority>) -> u32 {
    match p {
        Some(Priority::P1) => 3,
        Some(Priority::P2) | None => 2,
        Some(Priority::P3) => 1,
    }
}

/// Minutes (as written) to whole seconds; nothing for absent, negative or non-finite values.
pub(crate) fn minutes_to_s(minutes: Option<f64>) -> i64 {
    match minutes {
        Some(m) if m.is_finite() && m > 0.0 => (m * 60.0).round() as i64,
        _ => 0,
    }
}

/// Sorted, disjoint windows: overlapping or touching ones are merged.
pub(crate) fn normalise(mut w: Vec<TimeWindow>) -> Vec<TimeWindow> {
    w.sort();
    let mut out: Vec<TimeWindow> = Vec::with_capacity(w.len());
    for x in w {
        match out.last_mut() {
            Some(last) if x.start <= last.end => last.end = last.end.max(x.end),
            _ => out.push(x),
        }
    }
    out
}

/// The intersection of two window sets, where an empty set means "any time". `None` when both
/// bind and share no instant.
fn intersect(a: &[TimeWindow], b: &[TimeWindow]) -> Option<Vec<TimeWindow>> {
    if a.is_empty() || b.is_empty() {
        return Some(if a.is_empty() { b.to_vec() } else { a.to_vec() });
    }
    let out: Vec<TimeWindow> = a
        .iter()
        .flat_map(|x| {
            b.iter().filter_map(move |y| {
                let (start, end) = (x.start.max(y.start), x.end.min(y.end));
                (start <= end).then_some(TimeWindow { start, end })
            })
        })
        .collect();
    (!out.is_empty()).then(|| normalise(out))
}

impl Resolver<'_> {
    fn customer(&self, order: &Order) -> Option<&Customer> {
        order
            .customer_id
            .and_then(|id| self.customers.get(&id).copied())
    }

    /// Whether the customer's defaults apply to this end: the single end of a delivery or
    /// pickup, the delivery end of a shipment.
    fn customer_applies(order: &Order, side: Side) -> bool {
        order.kind != OrderType::Shipment || side == Side::Delivery
    }

    fn windows(&self, order: &Order, side: Side) -> Vec<TimeWindow> {
        visit_windows(order, self.customer(order), side)
    }

    fn place(&mut self, order: &Order, side: Side) -> Place {
        let end = order.endpoint(side);
        let minutes = end.duration.or_else(|| {
            Self::customer_applies(order, side)
                .then(|| self.customer(order).and_then(|c| c.duration))
                .flatten()
        });
        Place {
            location: self
                .locs
                .add(coordinates(end).expect("orders without coordinates are excluded")),
            setup: 0,
            service: minutes_to_s(minutes),
            time_windows: self.windows(order, side),
        }
    }

    /// Demand per capacity type: the order's own amount, else the sum of its line items'.
    fn demand(&self, order: &Order) -> Vec<Load> {
        self.capacity_types
            .iter()
            .map(|&t| {
                let own = order
                    .capacities
                    .iter()
                    .find(|c| c.capacity_type_id == t)
                    .map(|c| c.amount);
                let amount = own.unwrap_or_else(|| {
                    order
                        .line_items
                        .iter()
                        .flat_map(|i| &i.capacities)
                        .filter(|c| c.capacity_type_id == t)
                        .map(|c| c.amount)
                        .filter(|a| a.is_finite())
                        .sum()
                });
                demand_load(amount)
            })
            .collect()
    }

    fn skills(&mut self, orders: &[&Order]) -> Skills {
        let mut indices = Vec::new();
        for o in orders {
            let customer_skills = self.customer(o).map_or(&[][..], |c| &c.skills[..]);
            let names: Vec<String> = o.skills.iter().chain(customer_skills).cloned().collect();
            indices.extend(names.iter().map(|n| self.skills.index(n)));
        }
        Skills::from_indices(indices)
    }

    fn pinned(&self, order: &Order) -> Option<usize> {
        order
            .vehicle_id
            .and_then(|v| self.vehicle_index.get(&v).copied())
    }

    /// The task's skills, plus the pinned vehicle's own skill: pinning is also expressed as a
    /// skill only that vehicle has, so that a pinned-to vehicle never counts as interchangeable
    /// with its twins and the VROOM-style export (which has no pinning) keeps the rule.
    fn task_skills(&mut self, orders: &[&Order], pinned: Option<usize>) -> Skills {
        let mut skills = self.skills(orders);
        if let Some(v) = pinned {
            let own = self.skills.index(&vehicle_skill(v));
            skills = Skills::from_indices(skills.indices().chain([own]));
        }
        skills
    }

    /// Turns the eligible orders (with their rank in the request) into tasks.
    pub(crate) fn tasks(&mut self, orders: &[(usize, &Order)]) -> Tasks {
        let mut partner: HashMap<usize, usize> = HashMap::new();
        let mut by_reference: HashMap<&str, usize> = HashMap::new();
        for (pos, (_, o)) in orders.iter().enumerate() {
            let Some(r) = o.exchange_reference.as_deref() else {
                continue;
            };
            if o.kind == OrderType::Shipment {
                continue;
            }
            match by_reference.get(r) {
                Some(&first) if !partner.contains_key(&first) => {
                    partner.insert(first, pos);
                    partner.insert(pos, first);
                }
                Some(_) => {}
                None => {
                    by_reference.insert(r, pos);
                }
            }
        }
        let mut out = Tasks::default();
        for (pos, &(rank, order)) in orders.iter().enumerate() {
            match partner.get(&pos) {
                Some(&other) if other < pos => continue,
                Some(&other) => self.exchange(&mut out, rank, order, orders[other].1),
                None if order.kind == OrderType::Shipment => {
                    let pickup = self.place(order, Side::Pickup);
                    let delivery = self.place(order, Side::Delivery);
                    let shipment = Shipment {
                        pickup_id: order.id as u64,
                        delivery_id: order.id as u64,
                        pickup,
                        delivery,
                        amount: self.demand(order),
                        skills: self.task_skills(&[order], self.pinned(order)),
                        priority: priority(order.priority),
                        pinned_vehicle: self.pinned(order),
                    };
                    out.shipments.push(shipment);
                    out.shipment_orders.push(order.id);
                    out.shipment_ranks.push(rank);
                }
                None => {
                    let side = visited_sides(order.kind)[0];
                    let demand = self.demand(order);
                    let zero = vec![0; demand.len()];
                    let (delivery, pickup) = match side {
                        Side::Delivery => (demand, zero),
                        Side::Pickup => (zero, demand),
                    };
                    let job = Job {
                        id: order.id as u64,
                        place: self.place(order, side),
                        delivery,
                        pickup,
                        skills: self.task_skills(&[order], self.pinned(order)),
                        priority: priority(order.priority),
                        pinned_vehicle: self.pinned(order),
                    };
                    out.jobs.push(job);
                    out.job_visits.push(vec![Visit {
                        order_id: order.id,
                        side,
                    }]);
                    out.job_ranks.push(rank);
                }
            }
        }
        out
    }

    /// One visit for both halves of an exchange, at the first half's location.
    fn exchange(&mut self, out: &mut Tasks, rank: usize, a: &Order, b: &Order) {
        let (sa, sb) = (visited_sides(a.kind)[0], visited_sides(b.kind)[0]);
        let pa = self.place(a, sa);
        let pb = self.place(b, sb);
        let conflict = |reason: UnservedReason, detail: String| {
            [a, b].map(|o| UnservedOrder {
                order_id: o.id,
                reason,
                description: format!("{}: {detail}", reason.description()),
            })
        };
        let Some(windows) = intersect(&pa.time_windows, &pb.time_windows) else {
            out.excluded.extend(conflict(
                UnservedReason::TimeWindow,
                format!(
                    "the time windows of exchange orders {} and {} do not overlap",
                    a.id, b.id
                ),
            ));
            return;
        };
        let pinned = match (self.pinned(a), self.pinned(b)) {
            (Some(x), Some(y)) if x != y => {
                out.excluded.extend(conflict(
                    UnservedReason::NoVehicle,
                    format!(
                        "exchange orders {} and {} are assigned to different vehicles",
                        a.id, b.id
                    ),
                ));
                return;
            }
            (x, y) => x.or(y),
        };
        let dims = self.capacity_types.len();
        let (mut delivery, mut pickup) = (vec![0; dims], vec![0; dims]);
        for (o, side) in [(a, sa), (b, sb)] {
            let target = match side {
                Side::Delivery => &mut delivery,
                Side::Pickup => &mut pickup,
            };
            for (t, d) in target.iter_mut().zip(self.demand(o)) {
                *t += d;
            }
        }
        out.jobs.push(Job {
            id: a.id as u64,
            place: Place {
                location: pa.location,
                setup: 0,
                service: pa.service + pb.service,
                time_windows: windows,
            },
            delivery,
            pickup,
            skills: self.task_skills(&[a, b], pinned),
            priority: priority(a.priority).max(priority(b.priority)),
            pinned_vehicle: pinned,
        });
        out.job_visits.push(vec![
            Visit {
                order_id: a.id,
                side: sa,
            },
            Visit {
                order_id: b.id,
                side: sb,
            },
        ]);
        out.job_ranks.push(rank);
    }
}

/// The windows bounding the start of service at an order's `side`, in seconds after midnight of
/// the plan date, sorted and disjoint (empty: any time): the order's own windows of that end,
/// else (for the single end of a delivery or pickup and a shipment's delivery end) its
/// customer's. The rule planning uses, shared by whatever re-estimates service starts.
pub fn visit_windows(order: &Order, customer: Option<&Customer>, side: Side) -> Vec<TimeWindow> {
    let own: Vec<TimeWindow> = order
        .time_windows
        .iter()
        .filter(|w| w.side == side)
        .map(|w| window(i64::from(w.from.minutes()), i64::from(w.to.minutes())))
        .collect();
    if !own.is_empty() || !Resolver::customer_applies(order, side) {
        return normalise(own);
    }
    let from_customer = customer.map_or_else(Vec::new, |c| {
        c.time_windows
            .iter()
            .map(|w| {
                let to = w.to.map_or(24 * 60, |t| i64::from(t.minutes()));
                window(i64::from(w.from.minutes()), to)
            })
            .collect()
    });
    normalise(from_customer)
}

/// The name of the skill standing for "pinned to vehicle index `v`"; no skill name of the
/// order book contains a NUL character.
pub(crate) fn vehicle_skill(v: usize) -> String {
    format!("\0vehicle {v}")
}

/// A window from minutes after midnight; one whose end is before its start runs past midnight.
fn window(from_min: i64, to_min: i64) -> TimeWindow {
    let (start, mut end) = (from_min * 60, to_min * 60);
    if end < start {
        end += DAY_S;
    }
    TimeWindow { start, end }
}
