//! Fixtures for the bridge's tests: a depot on the equator, orders and vehicles along it, a
//! travel matrix where 0.001 degree of longitude is 100 s and 1 000 m, and an independent
//! check of a plan against the orders' and vehicles' rules.

mod planning_start;
mod routes;
mod rules;
mod vehicles;

use super::*;
use crate::model::order::{Endpoint, OrderTimeWindow, OrderType, Priority};
use crate::model::organisation::DepotSettings;
use crate::model::vehicle::{
    Availability, EndLocation, Place as VehiclePlace, StartLocation, VehicleFields,
};
use crate::ports::matrix::{Matrix, MatrixError, Point};
use crate::solver::{Config, Control};
use crate::status::Status;
use crate::time::Timestamp;

/// 0.001 degree of longitude (or latitude) is 100 s and 1 000 m, Manhattan.
pub(super) struct Grid;

impl TravelMatrix for Grid {
    fn matrix(&self, points: &[Point]) -> Result<Matrix, MatrixError> {
        let n = points.len();
        let mut d = Vec::with_capacity(n * n);
        for a in points {
            for b in points {
                d.push((((a.x - b.x).abs() + (a.y - b.y).abs()) * 1000.0).round() as i64);
            }
        }
        let durations = d.iter().map(|v| v * 100).collect();
        let distances = d.iter().map(|v| v * 1000).collect();
        Ok(Matrix::new(n, durations, distances).unwrap())
    }
}

pub(super) struct Never;

impl Control for Never {
    fn should_stop(&self) -> bool {
        false
    }
}

pub(super) fn config() -> Config {
    Config {
        seed: 7,
        threads: 1,
        max_iterations: Some(2_000),
    }
}

/// 2026-11-23, a Monday.
pub(super) fn monday() -> Date {
    Date::from_ymd(2026, 11, 23).unwrap()
}

pub(super) fn depot() -> Depot {
    Depot {
        id: 1,
        organisation_id: 1,
        name: "Depot".into(),
        address: None,
        lat: Some(0.0),
        lng: Some(0.0),
        settings: DepotSettings::default(),
        created: Timestamp::from_millis(0),
        updated: Timestamp::from_millis(0),
    }
}

pub(super) fn t(s: &str) -> TimeOfDay {
    TimeOfDay::parse(s).unwrap()
}

/// A delivery `steps` thousandths of a degree east of the depot.
pub(super) fn delivery(id: i64, steps: i64) -> Order {
    Order {
        id,
        order_number: format!("O{id}"),
        kind: OrderType::Delivery,
        status: Status::open(),
        priority: None,
        customer_id: None,
        delivery: at(steps),
        pickup: Endpoint::default(),
        delivery_date: Some(monday()),
        time_windows: vec![],
        exchange_reference: None,
        parts: None,
        vehicle_id: None,
        emails: vec![],
        third_party_id: None,
        tags: vec![],
        skills: vec![],
        capacities: vec![],
        custom_fields: vec![],
        manual_value: None,
        line_items: vec![],
        created: Timestamp::from_millis(0),
        updated: Timestamp::from_millis(0),
    }
}

/// A pickup `steps` thousandths of a degree east of the depot.
pub(super) fn pickup(id: i64, steps: i64) -> Order {
    Order {
        kind: OrderType::Pickup,
        pickup: at(steps),
        delivery: Endpoint::default(),
        ..delivery(id, 0)
    }
}

pub(super) fn at(steps: i64) -> Endpoint {
    Endpoint {
        lat: Some(0.0),
        lng: Some(steps as f64 / 1000.0),
        ..Endpoint::default()
    }
}

pub(super) fn window(side: Side, from: &str, to: &str) -> OrderTimeWindow {
    OrderTimeWindow {
        side,
        from: t(from),
        to: t(to),
    }
}

pub(super) fn with_priority(mut o: Order, p: Priority) -> Order {
    o.priority = Some(p);
    o
}

/// A vehicle working 08:00-18:00 from and back to the depot, no capacities, no skills.
pub(super) fn vehicle(id: i64) -> Vehicle {
    Vehicle {
        id,
        depot_id: 1,
        fields: VehicleFields {
            name: format!("V{id}"),
            active: true,
            availability: Availability::Shift,
            shift_start: Some(t("08:00")),
            shift_end: Some(t("18:00")),
            start_location: StartLocation::Depot,
            start: VehiclePlace::default(),
            end_location: EndLocation::Depot,
            end: VehiclePlace::default(),
            has_break: false,
            break_start: None,
            break_end: None,
            break_duration: None,
            skills: vec![],
            capacities: vec![],
        },
        created: Timestamp::from_millis(0),
        updated: Timestamp::from_millis(0),
    }
}

pub(super) fn capacity_type(id: i64, name: &str) -> CapacityType {
    CapacityType {
        id,
        name: name.into(),
        default: String::new(),
        created: Timestamp::from_millis(0),
        updated: Timestamp::from_millis(0),
    }
}

/// Everything a test varies; `plan()` runs the bridge over it.
pub(super) struct Day {
    pub depot: Depot,
    pub date: Date,
    pub orders: Vec<Order>,
    pub vehicles: Vec<Vehicle>,
    pub capacity_types: Vec<CapacityType>,
    pub customers: Vec<Customer>,
    pub zones: Option<Vec<Zone>>,
    pub maintain_upload_sequence: bool,
    pub only_active_vehicles: bool,
    pub not_before: Option<DayTime>,
}

impl Day {
    pub(super) fn new(orders: Vec<Order>, vehicles: Vec<Vehicle>) -> Day {
        Day {
            depot: depot(),
            date: monday(),
            orders,
            vehicles,
            capacity_types: vec![],
            customers: vec![],
            zones: None,
            maintain_upload_sequence: false,
            only_active_vehicles: true,
            not_before: None,
        }
    }

    pub(super) fn request(&self) -> DayRequest<'_> {
        DayRequest {
            not_before: self.not_before,
            depot: &self.depot,
            date: self.date,
            orders: &self.orders,
            vehicles: &self.vehicles,
            capacity_types: &self.capacity_types,
            customers: &self.customers,
            zones: self.zones.as_deref(),
            maintain_upload_sequence: self.maintain_upload_sequence,
            only_active_vehicles: self.only_active_vehicles,
        }
    }

    pub(super) fn plan(&self) -> DayPlan {
        let plan = optimise_day(&self.request(), &Grid, &config(), &Never).unwrap();
        check(self, &plan);
        plan
    }
}

/// The reason code of an unserved order, `None` when it is routed.
pub(super) fn reason_of(plan: &DayPlan, order_id: i64) -> Option<&'static str> {
    plan.unserved
        .iter()
        .find(|u| u.order_id == order_id)
        .map(|u| u.reason.code())
}

/// The sentence of an order left out.
pub(super) fn description_of(plan: &DayPlan, order_id: i64) -> String {
    plan.unserved
        .iter()
        .find(|u| u.order_id == order_id)
        .map(|u| u.description.clone())
        .unwrap()
}

/// The route serving an order.
pub(super) fn route_of(plan: &DayPlan, order_id: i64) -> Option<&PlannedRoute> {
    plan.routes
        .iter()
        .find(|r| r.stops.iter().any(|s| s.order_ids.contains(&order_id)))
}

pub(super) fn stop_of(plan: &DayPlan, order_id: i64) -> &PlannedStop {
    plan.routes
        .iter()
        .flat_map(|r| &r.stops)
        .find(|s| s.order_ids.contains(&order_id))
        .unwrap()
}

/// Independent check of a plan from the domain data: every order exactly once (routed or
/// unserved), service starts inside the order's windows, shifts respected, travel and distance
/// sums agree with the grid.
pub(super) fn check(day: &Day, plan: &DayPlan) {
    let mut seen: Vec<i64> = plan.unserved.iter().map(|u| u.order_id).collect();
    for r in &plan.routes {
        let v = day.vehicles.iter().find(|v| v.id == r.vehicle_id).unwrap();
        let f = &v.fields;
        if f.availability == Availability::Shift {
            let start = i64::from(f.shift_start.unwrap().minutes()) * 60;
            let end = i64::from(f.shift_end.unwrap().minutes()) * 60;
            assert!(
                r.start_time.seconds() >= start,
                "route starts before its shift"
            );
            assert!(r.end_time.seconds() <= end, "route ends after its shift");
        }
        let mut distance = r.end_distance_m;
        for s in &r.stops {
            distance += s.planned_distance_m;
            assert!(s.arrival <= s.service_start && s.service_start <= s.departure);
            for (&id, &side) in s.order_ids.iter().zip(&s.sides) {
                seen.push(id);
                let o = day.orders.iter().find(|o| o.id == id).unwrap();
                let windows: Vec<_> = o.time_windows.iter().filter(|w| w.side == side).collect();
                // Orders after the first of a stop start between its service start and end.
                let (start, last) = (s.service_start.seconds(), s.departure.seconds());
                let latest = if id == s.order_ids[0] { start } else { last };
                assert!(
                    windows.is_empty()
                        || windows.iter().any(|w| {
                            i64::from(w.from.minutes()) * 60 <= latest
                                && start <= i64::from(w.to.minutes()) * 60
                        }),
                    "order {id} served at {start} outside its windows"
                );
                let end = o.endpoint(side);
                assert_eq!(
                    (end.lat, end.lng),
                    (Some(s.location.lat), Some(s.location.lng))
                );
            }
        }
        assert_eq!(distance, r.distance_m);
        assert_eq!(
            r.total_time_s,
            r.end_time.seconds() - r.start_time.seconds()
        );
    }
    seen.sort_unstable();
    let mut all: Vec<i64> = day.orders.iter().map(|o| o.id).collect();
    all.sort_unstable();
    // A shipment appears on two stops.
    seen.dedup();
    assert_eq!(seen, all, "every order is routed or unserved, once");
}
