//! A depot's day planned and dispatched inside a Rust program: `dispatch-core`'s use cases over
//! the SQLite store, no server and no HTTP. It creates a depot, four vans and sixty deliveries
//! with the core's typed builders, queues an optimisation, runs it as a worker would, checks the
//! plan against the orders and vans itself (every order on one route at most, service inside
//! the windows, stops one after another inside the shift, each driver's break inside its window
//! and clear of the stops), dispatches it and shows the routes.
//!
//! ```text
//! cargo run --example embed_day [-- DATABASE_FILE]
//! ```
//! Without a file the day is planned in a temporary directory. It exits non-zero when a check
//! fails.

use std::collections::HashMap;
use std::path::PathBuf;

use dispatch_core::model::location::Coordinates;
use dispatch_core::model::optimisation::{OptimiseSettings, OrderSelection};
use dispatch_core::model::order::{Order, Side};
use dispatch_core::model::order_input::OrderInput;
use dispatch_core::model::organisation::{DepotScope, DepotSettings};
use dispatch_core::model::vehicle::{Vehicle, VehiclePatch};
use dispatch_core::ports::clock::{Clock, ManualClock};
use dispatch_core::ports::geocoder::InMemoryGazetteer;
use dispatch_core::ports::matrix::GreatCircle;
use dispatch_core::ports::store::{NewDepot, Store, StoreError};
use dispatch_core::ports::tracking::SequentialLinks;
use dispatch_core::service::dispatch::dispatch_plan;
use dispatch_core::service::leases::claim_job;
use dispatch_core::service::optimisation::{run_job, JobOutcome, JobRun, NoFollowUp};
use dispatch_core::service::plan_reads::{get_plan, PlanView, RouteView};
use dispatch_core::service::plans::{self, OptimiseRequest};
use dispatch_core::service::{orders, vehicles};
use dispatch_core::solver;
use dispatch_core::time::{Date, TimeOfDay, Timestamp};
use dispatch_store_sqlite::SqliteStore;

const DEPOT: Coordinates = Coordinates {
    lat: 51.5072,
    lng: -0.1276,
};

/// Runs every solver iteration it is given: the budget is `Config::max_iterations`.
struct Budget;

impl solver::Control for Budget {
    fn should_stop(&self) -> bool {
        false
    }
}

fn at(text: &str) -> TimeOfDay {
    TimeOfDay::parse(text).expect("a time of day")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scratch = tempfile::tempdir()?;
    let path = std::env::args_os()
        .nth(1)
        .map_or_else(|| scratch.path().join("depot.sqlite"), PathBuf::from);
    let store = SqliteStore::open(&path)?;
    let clock = ManualClock::new(Timestamp::parse("2026-11-29T18:00:00.000Z").expect("a time"));
    let day = Date::from_ymd(2026, 11, 30).expect("a date");

    let scope = depot(&store, clock.now())?;
    let vans = fleet(&store, scope, clock.now())?;
    let written = orders::upsert_batch(
        &store,
        &InMemoryGazetteer::new(),
        scope,
        deliveries(day, 60),
        clock.now(),
        std::sync::Arc::new(()),
    )?;
    println!(
        "{} vans and {} orders in {}",
        vans.len(),
        written.len(),
        path.display()
    );

    // Queue the day's optimisation as POST /v2/plans/optimise/orders does, then run it as a
    // worker does: claim the job, solve, save the plan.
    let request = OptimiseRequest {
        date: Some(day),
        selection: OrderSelection::DueOnDate,
        vehicle_ids: None,
        zone_group_id: None,
        settings: OptimiseSettings::default(),
        plan_id: None,
    };
    let queued = plans::create(
        &store,
        scope,
        &request,
        "embedded-1".into(),
        clock.now(),
        &(),
    )?;
    let lease = clock.now().add_millis(10 * 60 * 1000);
    let claim = claim_job(&store, "embedded", clock.now(), lease)?.ok_or("no queued job")?;
    let matrix = GreatCircle::new(GreatCircle::DEFAULT_SPEED_KMH).ok_or("a speed")?;
    let config = solver::Config {
        seed: 1,
        threads: 1,
        max_iterations: Some(20_000),
    };
    let run = JobRun {
        claim: &claim,
        config: &config,
        control: &Budget,
        stopping: &|| None,
        search_thread: None,
    };
    match run_job(&store, &matrix, &clock, &run, &NoFollowUp)? {
        JobOutcome::Succeeded { .. } => {}
        other => return Err(format!("the optimisation did not succeed: {other:?}").into()),
    }

    let plan = get_plan(&store, scope, queued.plan.id)?;
    let problems = check(&plan, &vans);
    show(&plan);
    if !problems.is_empty() {
        return Err(format!(
            "the plan breaks {} rule(s):\n{}",
            problems.len(),
            problems.join("\n")
        )
        .into());
    }

    let dispatched = dispatch_plan(
        &store,
        &matrix,
        &SequentialLinks::default(),
        scope,
        queued.plan.id,
        clock.now(),
    )?;
    let plan = get_plan(&store, scope, queued.plan.id)?;
    let routed = plan
        .routes
        .iter()
        .flat_map(|r| &r.stops)
        .flat_map(|s| &s.orders)
        .filter(|o| o.status.as_str() == "ROUTED")
        .count();
    println!(
        "dispatched {} routes: {routed} orders ROUTED, {} dropped, {} unserved",
        dispatched.routes.len(),
        dispatched.dropped.len(),
        plan.unserved.len()
    );
    if !dispatched.plan_dispatched || routed + plan.unserved.len() != written.len() {
        return Err("the dispatch left orders neither routed nor unserved".into());
    }
    Ok(())
}

/// An organisation and its depot, as `dispatch seed` would create them.
fn depot(store: &SqliteStore, now: Timestamp) -> Result<DepotScope, StoreError> {
    (store as &dyn Store).transaction(|tx| {
        let org = tx.insert_organisation("Embedded Ltd", now)?;
        let depot = NewDepot {
            name: "Central".into(),
            address: Some("1 Depot Way, London".into()),
            location: Some(DEPOT),
            settings: DepotSettings::default(),
        };
        Ok(tx.insert_depot(org.id, &depot, now)?.scope())
    })
}

fn fleet(
    store: &SqliteStore,
    scope: DepotScope,
    now: Timestamp,
) -> Result<Vec<Vehicle>, Box<dyn std::error::Error>> {
    let mut vans = Vec::new();
    for n in 1..=4 {
        let van = VehiclePatch::named(format!("Van {n}"))
            .shift(at("08:00"), at("17:00"))
            .break_within(at("12:00"), at("14:00"), 30);
        vans.push(vehicles::create(store, scope, &van, now, &())?);
    }
    Ok(vans)
}

/// `count` deliveries within about 8 km of the depot, a third in the morning, a third in the
/// afternoon, a third at any time (a fixed sequence, so every run plans the same day).
fn deliveries(day: Date, count: usize) -> Vec<OrderInput> {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % 10_000) as f64 / 10_000.0
    };
    (0..count)
        .map(|i| {
            let place = Coordinates {
                lat: DEPOT.lat + (next() - 0.5) * 0.14,
                lng: DEPOT.lng + (next() - 0.5) * 0.22,
            };
            let order = OrderInput::delivery(format!("EMB-{:03}", i + 1))
                .due(day)
                .at(
                    Side::Delivery,
                    Some(&format!("{} Example Road", i + 1)),
                    Some(place),
                )
                .minutes_on_site(Side::Delivery, 5);
            match i % 3 {
                0 => order.window(Side::Delivery, at("09:00"), at("12:00")),
                1 => order.window(Side::Delivery, at("13:00"), at("17:00")),
                _ => order,
            }
        })
        .collect()
}

/// The rules a dispatcher relies on, checked from the plan as read back and the orders' and
/// vans' own data (not the solver's bookkeeping).
fn check(plan: &PlanView, vans: &[Vehicle]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut routes_of: HashMap<i64, usize> = HashMap::new();
    for route in &plan.routes {
        let name = &route.route.name;
        let van = route
            .route
            .vehicle_id
            .and_then(|id| vans.iter().find(|v| v.id == id));
        let (shift_start, shift_end) = van
            .and_then(|v| Some((v.fields.shift_start?, v.fields.shift_end?)))
            .map_or((0, 86_400), |(s, e)| {
                (i64::from(s.minutes()) * 60, i64::from(e.minutes()) * 60)
            });
        check_breaks(route, van, &mut problems);
        let mut free_at = shift_start;
        for stop in &route.stops {
            let visit = &stop.stop.visit;
            let start = visit.arrival_s + visit.wait_s;
            if visit.arrival_s < free_at {
                problems.push(format!(
                    "{name}: stop {} arrives before the van is free",
                    stop.stop.sequence
                ));
            }
            if visit.departure_s > shift_end {
                problems.push(format!(
                    "{name}: stop {} ends after the shift",
                    stop.stop.sequence
                ));
            }
            free_at = visit.departure_s;
            for order in &stop.orders {
                *routes_of.entry(order.id).or_default() += 1;
                if !inside_windows(order, start) {
                    problems.push(format!(
                        "{name}: {} served at {} outside its window",
                        order.order_number,
                        clock_text(start)
                    ));
                }
            }
        }
    }
    for (id, n) in routes_of {
        if n > 1 {
            problems.push(format!("order {id} is on {n} stops"));
        }
    }
    problems
}

/// The van's break, where the plan takes it: once, inside its window, as long as asked, and
/// not while a stop is served.
fn check_breaks(route: &RouteView, van: Option<&Vehicle>, problems: &mut Vec<String>) {
    let name = &route.route.name;
    let breaks = &route.route.timing.breaks;
    let Some(f) = van.map(|v| &v.fields).filter(|f| f.has_break) else {
        return;
    };
    let (Some(from), Some(until), Some(minutes)) = (f.break_start, f.break_end, f.break_duration)
    else {
        return;
    };
    if route.stops.is_empty() {
        return;
    }
    if breaks.len() != 1 {
        problems.push(format!("{name}: {} breaks planned, 1 asked", breaks.len()));
        return;
    }
    let taken = breaks[0];
    let (from, until) = (
        i64::from(from.minutes()) * 60,
        i64::from(until.minutes()) * 60,
    );
    if taken.start_s < from
        || taken.end_s > until
        || taken.end_s - taken.start_s < (minutes * 60.0) as i64
    {
        problems.push(format!(
            "{name}: break {}-{} outside {}-{} or shorter than {minutes} min",
            clock_text(taken.start_s),
            clock_text(taken.end_s),
            clock_text(from),
            clock_text(until)
        ));
    }
    for stop in &route.stops {
        let visit = &stop.stop.visit;
        let serving = visit.arrival_s + visit.wait_s..visit.departure_s;
        if serving.start < taken.end_s && taken.start_s < serving.end {
            problems.push(format!(
                "{name}: stop {} served during the break",
                stop.stop.sequence
            ));
        }
    }
}

fn inside_windows(order: &Order, start_s: i64) -> bool {
    let windows: Vec<_> = order
        .time_windows
        .iter()
        .filter(|w| w.side == Side::Delivery)
        .collect();
    windows.is_empty()
        || windows.iter().any(|w| {
            (i64::from(w.from.minutes()) * 60..=i64::from(w.to.minutes()) * 60).contains(&start_s)
        })
}

fn clock_text(seconds: i64) -> String {
    format!("{:02}:{:02}", seconds / 3600, seconds % 3600 / 60)
}

fn show(plan: &PlanView) {
    for route in &plan.routes {
        let stops = &route.stops;
        let (first, last) = match (stops.first(), stops.last()) {
            (Some(f), Some(l)) => (f.stop.visit.arrival_s, l.stop.visit.departure_s),
            _ => continue,
        };
        let breaks: Vec<String> = route
            .route
            .timing
            .breaks
            .iter()
            .map(|b| format!("{}-{}", clock_text(b.start_s), clock_text(b.end_s)))
            .collect();
        println!(
            "{:<8} {:>2} stops  {}-{}  break {}",
            route.route.name,
            stops.len(),
            clock_text(first),
            clock_text(last),
            breaks.join(", ")
        );
    }
}
