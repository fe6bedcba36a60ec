//! What the driver side adds to a stop when it is read (route, plan and order reads).

use crate::model::driver_visit::{DriverVisit, PhoneCall};
use crate::model::organisation::DepotScope;
use crate::model::stop::Stop;
use crate::ports::store::{StoreError, StoreTx};
use crate::time::zone::DepotZone;

/// A stop's driver-side record.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StopDriverView {
    /// The visit of the stop's first order (a stop's orders share arrival and outcome).
    pub visit: Option<DriverVisit>,
    /// The visits of all the stop's orders.
    pub visits: Vec<DriverVisit>,
    /// Phone calls made about the stop's orders, oldest first.
    pub phone_calls: Vec<PhoneCall>,
    /// With the depot's `partial_orders` setting, once the stop has an outcome: the line items
    /// delivered on it and their delivered quantities (a stop lists only those).
    pub delivered_only: Option<Vec<(i64, i64)>>,
    /// While the stop is ahead and has an ETA: the estimated arrival and departure (ETA plus
    /// the planned service time) on the depot's clock, `HH:mm`.
    pub eta_clock: Option<(String, String)>,
}

/// The depot's settings that shape the driver-side view of its stops: read once per request
/// (plan reads show many routes).
#[derive(Debug, Clone, Copy)]
pub struct DriverReadSettings {
    partial_orders: bool,
    zone: DepotZone,
}

impl DriverReadSettings {
    /// The depot's `partial_orders` setting and time zone.
    pub fn read(tx: &mut dyn StoreTx, scope: DepotScope) -> Result<DriverReadSettings, StoreError> {
        let depot = tx.get_depot(scope)?;
        Ok(DriverReadSettings {
            partial_orders: depot.as_ref().is_some_and(|d| d.settings.partial_orders),
            zone: DepotZone::named(depot.as_ref().map_or("UTC", |d| &d.settings.timezone)),
        })
    }
}

/// The driver-side records of one route, read once for all its stops.
#[derive(Debug, Clone)]
pub struct RouteDriverRecords {
    visits: Vec<DriverVisit>,
    calls: Vec<PhoneCall>,
    partial_orders: bool,
    zone: DepotZone,
}

impl RouteDriverRecords {
    /// Reads the route's visits and calls, and the depot's settings.
    pub fn read(
        tx: &mut dyn StoreTx,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<RouteDriverRecords, StoreError> {
        let settings = DriverReadSettings::read(tx, scope)?;
        RouteDriverRecords::read_with(tx, scope, route_id, settings)
    }

    /// Reads the route's visits and calls, with the depot's settings already read.
    pub fn read_with(
        tx: &mut dyn StoreTx,
        scope: DepotScope,
        route_id: i64,
        settings: DriverReadSettings,
    ) -> Result<RouteDriverRecords, StoreError> {
        Ok(RouteDriverRecords {
            visits: tx.driver_visits(scope, route_id)?,
            calls: tx.phone_calls(scope, route_id)?,
            partial_orders: settings.partial_orders,
            zone: settings.zone,
        })
    }

    /// The view of one stop of the route.
    pub fn of(&self, stop: &Stop) -> StopDriverView {
        let orders = &stop.visit.order_ids;
        let visit = orders
            .first()
            .and_then(|first| self.visits.iter().find(|v| v.order_id == *first))
            .cloned();
        let delivered_only = match &visit {
            Some(v) if self.partial_orders && v.outcome.is_some() => Some(
                self.visits
                    .iter()
                    .filter(|v| orders.contains(&v.order_id))
                    .flat_map(|v| v.delivered.iter())
                    .filter(|o| o.delivered > 0)
                    .map(|o| (o.line_item_id, o.delivered))
                    .collect(),
            ),
            _ => None,
        };
        let eta_clock = visit
            .as_ref()
            .filter(|v| v.outcome.is_none())
            .and_then(|v| Some((v.eta?, v.start_eta.or(v.eta)?)))
            .map(|(eta, start)| {
                let service_ms = stop.visit.planned_work_s() * 1000;
                (
                    self.zone.clock(eta),
                    self.zone.clock(start.add_millis(service_ms)),
                )
            });
        StopDriverView {
            visits: self
                .visits
                .iter()
                .filter(|v| orders.contains(&v.order_id))
                .cloned()
                .collect(),
            eta_clock,
            visit,
            phone_calls: self
                .calls
                .iter()
                .filter(|c| orders.contains(&c.order_id))
                .cloned()
                .collect(),
            delivered_only,
        }
    }
}
