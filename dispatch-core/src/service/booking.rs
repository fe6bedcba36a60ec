//! Booking availability: would one more order fit on a day? The day is planned from scratch —
//! every live, unfinished order due that date plus the candidate, on the listed (or all
//! active) vehicles — and nothing is created or reserved. The answer is deterministic: a fixed
//! seed and an iteration budget, never the wall clock, so a checkout page asking twice gets the
//! same answer. `available` is true only when every order, old and new, is routed.
//!
//! The search runs in two rounds: a short one that settles easy days, and a longer one only
//! when the short one left an order out. Both are fixed, so the answer still depends only on
//! the question.

use std::collections::HashSet;

use super::route_day::ToBudget;
use super::ServiceError;
use crate::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::model::customer::Customer;
use crate::model::location::Coordinates;
use crate::model::order::{Endpoint, Order, OrderTimeWindow, OrderType, Side};
use crate::model::order_fields::{
    check_coordinates, check_range, CapacityAmount, MAX_VISIT_MINUTES,
};
use crate::model::organisation::{Depot, DepotScope};
use crate::model::reference::CapacityType;
use crate::model::route_edit::is_completed;
use crate::model::vehicle::Vehicle;
use crate::optimise::{self, optimise_day, DayRequest, OptimiseError, UnservedReason};
use crate::ports::geocoder::{GeocodeQuery, Geocoder};
use crate::ports::matrix::TravelMatrix;
use crate::ports::store::Store;
use crate::service::Found;
use crate::solver;
use crate::status::Status;
use crate::time::zone::DepotZone;
use crate::time::{Date, TimeOfDay, Timestamp};

/// Seed of every booking check.
pub const BOOKING_SEED: u64 = 0xb00c_1e57;
/// Iterations of the first, short round.
pub const QUICK_ITERATIONS: u64 = 300;
/// Iterations of the second round, run only when the first left an order out.
pub const FULL_ITERATIONS: u64 = 3_000;
/// Id of the candidate order inside the check (never a stored id).
const CANDIDATE: i64 = -1;

/// The order a customer wants to book.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Candidate {
    /// `delivery` or `pickup`.
    pub kind: Option<OrderType>,
    /// `delivery_*` fields.
    pub delivery: Endpoint,
    /// `pickup_*` fields.
    pub pickup: Endpoint,
    /// `capacities` (`{id, capacity}`); ids not of the depot are ignored.
    pub capacities: Vec<CapacityAmount>,
    /// A time window for the visit (used by the slot search).
    pub window: Option<(TimeOfDay, TimeOfDay)>,
}

impl Candidate {
    /// The field rules an order's ends and capacities follow, applied to the candidate (paths
    /// under `order`): coordinates in range, visit durations 0 to [`MAX_VISIT_MINUTES`],
    /// capacities not negative. A question about an order that could not be created gets the
    /// same 400 the order would, not an answer.
    pub fn validate(&self) -> ValidationErrors {
        let mut errs = ValidationErrors::default();
        let at =
            |field: String| -> Vec<PathSegment> { vec!["order".into(), field.as_str().into()] };
        for (side, end) in [("delivery", &self.delivery), ("pickup", &self.pickup)] {
            check_coordinates(
                &mut errs,
                (|| at(format!("{side}_lat")), end.lat),
                (|| at(format!("{side}_lng")), end.lng),
            );
            if let Some(d) = end.duration {
                check_range(
                    &mut errs,
                    || at(format!("{side}_duration")),
                    d,
                    0.0,
                    MAX_VISIT_MINUTES,
                );
            }
        }
        for (i, c) in self.capacities.iter().enumerate() {
            let path = || {
                vec![
                    "order".into(),
                    "capacities".into(),
                    i.into(),
                    "capacity".into(),
                ]
            };
            check_range(&mut errs, path, c.amount, 0.0, f64::MAX);
        }
        errs
    }

    fn side(&self) -> Side {
        if self.kind == Some(OrderType::Pickup) {
            Side::Pickup
        } else {
            Side::Delivery
        }
    }
}

/// A booking question: a date, the candidate and optionally the vehicles to plan with.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BookingQuestion {
    /// The date.
    pub date: Option<Date>,
    /// The order.
    pub candidate: Candidate,
    /// `vehicles: [{id}]`; ids not of the depot are ignored; `None` for every active vehicle.
    pub vehicle_ids: Option<Vec<i64>>,
}

/// Everything a check reads from the store, once per request (several dates or slots reuse
/// the depot, fleet and reference data).
pub struct BookingDay {
    depot: Depot,
    vehicles: Vec<Vehicle>,
    capacity_types: Vec<CapacityType>,
    orders: Vec<Order>,
    customers: Vec<Customer>,
}

/// Reads the depot, the chosen vehicles and the orders due on `date`.
pub fn read_day(
    store: &dyn Store,
    scope: DepotScope,
    date: Date,
    vehicle_ids: Option<&[i64]>,
) -> Result<BookingDay, ServiceError> {
    store.read(|tx| {
        let depot = tx.get_depot(scope).found("depot")?;
        let fleet = tx.list_vehicles(scope)?;
        let vehicles = match vehicle_ids {
            Some(ids) => {
                let wanted: HashSet<i64> = ids.iter().copied().collect();
                fleet
                    .into_iter()
                    .filter(|v| wanted.contains(&v.id))
                    .collect()
            }
            None => fleet.into_iter().filter(|v| v.fields.active).collect(),
        };
        let mut orders = Vec::new();
        for id in tx.order_ids_due(scope, date)? {
            if let Some(o) = tx.get_order(scope, id)? {
                if !is_completed(&o.status) {
                    orders.push(o);
                }
            }
        }
        let mut customers = Vec::new();
        let mut seen = HashSet::new();
        for id in orders.iter().filter_map(|o| o.customer_id) {
            if seen.insert(id) {
                customers.extend(tx.get_customer(scope, id)?);
            }
        }
        Ok::<_, ServiceError>(BookingDay {
            depot,
            vehicles,
            capacity_types: tx.list_capacity_types(scope)?,
            orders,
            customers,
        })
    })
}

/// Gives the candidate's visited end coordinates, geocoding its address and postcode when it
/// lacks lat or lng; failure is GEOCODING_FAILED.
pub fn locate(
    geocoder: &dyn Geocoder,
    scope: DepotScope,
    candidate: &mut Candidate,
) -> Result<Coordinates, ServiceError> {
    let side = candidate.side();
    let end = match side {
        Side::Pickup => &mut candidate.pickup,
        Side::Delivery => &mut candidate.delivery,
    };
    if let (Some(lat), Some(lng)) = (end.lat, end.lng) {
        return Ok(Coordinates { lat, lng });
    }
    if end.address.is_none() && end.postcode.is_none() {
        return Err(ServiceError::GeocodingFailed(format!(
            "the order has neither {0}_lat and {0}_lng nor a {0}_address or {0}_postcode",
            side.as_str()
        )));
    }
    let found = geocoder
        .geocode(&GeocodeQuery {
            scope,
            address: end.address.as_deref(),
            postcode: end.postcode.as_deref(),
            country: end.country_code.as_deref(),
        })
        .map_err(|e| ServiceError::GeocodingFailed(e.to_string()))?;
    end.lat = Some(found.lat);
    end.lng = Some(found.lng);
    Ok(found)
}

fn candidate_order(day: &BookingDay, c: &Candidate, date: Date, now: Timestamp) -> Order {
    let known: HashSet<i64> = day.capacity_types.iter().map(|t| t.id).collect();
    let side = c.side();
    Order {
        id: CANDIDATE,
        order_number: "booking-candidate".into(),
        kind: c.kind.unwrap_or(OrderType::Delivery),
        status: Status::open(),
        priority: None,
        customer_id: None,
        delivery: c.delivery.clone(),
        pickup: c.pickup.clone(),
        delivery_date: Some(date),
        time_windows: c
            .window
            .map(|(from, to)| OrderTimeWindow { side, from, to })
            .into_iter()
            .collect(),
        exchange_reference: None,
        parts: None,
        vehicle_id: None,
        emails: Vec::new(),
        third_party_id: None,
        tags: Vec::new(),
        skills: Vec::new(),
        capacities: c
            .capacities
            .iter()
            .filter(|a| known.contains(&a.capacity_type_id))
            .cloned()
            .collect(),
        custom_fields: Vec::new(),
        manual_value: None,
        line_items: Vec::new(),
        created: now,
        updated: now,
    }
}

/// Whether the day's orders plus the candidate all fit on the day's vehicles.
pub fn fits(
    day: &BookingDay,
    matrix: &dyn TravelMatrix,
    candidate: &Candidate,
    date: Date,
    now: Timestamp,
) -> Result<bool, ServiceError> {
    if day.vehicles.is_empty() {
        return Ok(false);
    }
    let mut orders = day.orders.clone();
    orders.push(candidate_order(day, candidate, date, now));
    let req = DayRequest {
        depot: &day.depot,
        date,
        orders: &orders,
        vehicles: &day.vehicles,
        capacity_types: &day.capacity_types,
        customers: &day.customers,
        zones: None,
        maintain_upload_sequence: false,
        only_active_vehicles: false,
        // A slot asked for today is planned from now on, as an optimisation made now would.
        not_before: optimise::planning_start(
            DepotZone::named(&day.depot.settings.timezone),
            date,
            now,
        ),
    };
    for iterations in [QUICK_ITERATIONS, FULL_ITERATIONS] {
        let config = solver::Config {
            seed: BOOKING_SEED,
            threads: 1,
            max_iterations: Some(iterations),
        };
        let plan = optimise_day(&req, matrix, &config, &ToBudget).map_err(unplannable)?;
        if plan.unserved.is_empty() {
            return Ok(true);
        }
        // An order no vehicle can serve at all will not be placed by a longer search.
        if plan
            .unserved
            .iter()
            .any(|u| u.reason != UnservedReason::NotPlaced)
        {
            return Ok(false);
        }
    }
    Ok(false)
}

/// A day that cannot be planned: a depot without coordinates is the depot's set-up to fix (400,
/// no retry would help); travel times that could not be had may come back (503, retry).
fn unplannable(e: OptimiseError) -> ServiceError {
    match e {
        OptimiseError::DepotWithoutLocation { .. } => ValidationErrors(vec![ValidationIssue::new(
            IssueCode::Custom,
            vec![],
            "a depot with coordinates",
            "a depot without coordinates",
            e.to_string(),
        )])
        .into(),
        e => ServiceError::Unavailable {
            message: format!("the day cannot be planned: {e}"),
            retry_after_s: 5,
        },
    }
}

/// `POST /booking/availability`.
pub fn availability(
    store: &dyn Store,
    geocoder: &dyn Geocoder,
    matrix: &dyn TravelMatrix,
    scope: DepotScope,
    question: &BookingQuestion,
    date: Date,
    now: Timestamp,
) -> Result<bool, ServiceError> {
    let mut candidate = question.candidate.clone();
    locate(geocoder, scope, &mut candidate)?;
    let day = read_day(store, scope, date, question.vehicle_ids.as_deref())?;
    fits(&day, matrix, &candidate, date, now)
}
