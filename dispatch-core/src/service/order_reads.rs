//! Order reads and the smaller order operations: the full order, the filtered list, delete by
//! order number, and attachments.

use super::customers::catalog;
use super::notifications::on_order_deleted;
use super::order_statuses::statuses;
use super::plan_reads::StopView;
use super::route_orders::{retime_route, take_off_routes};
use super::stop_records::{RouteDriverRecords, StopDriverView};
use super::ServiceError;
use crate::model::attachment::{
    display_name, safe_file_name, Attachment, MAX_ATTACHMENTS_PER_ORDER, MAX_ATTACHMENT_BYTES,
};
use crate::model::order::Order;
use crate::model::order_attachment::sniff;
use crate::model::order_fields::{CapacityAmount, Catalog, CustomFieldValue};
use crate::model::organisation::DepotScope;
use crate::model::route::Route;
use crate::model::stop::Stop;
use crate::paging::{Page, PageRequest};
use crate::ports::matrix::TravelMatrix;
use crate::ports::store::{NewAttachment, OrderFilter, OrderSummary, Store, StoreError, StoreTx};
use crate::service::Found;
use crate::time::{Date, Timestamp};

/// A full order with what its read shows besides its own fields.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderDetail {
    /// The order.
    pub order: Order,
    /// Its attachments.
    pub attachments: Vec<Attachment>,
    /// The depot's reference data, to name the capacity types and custom fields the order and
    /// its line items carry (empty when they carry none: nothing else of the read names it).
    pub catalog: Catalog,
    /// The stops serving it on routes its plans show (superseded routes left out), with their
    /// proof of delivery and their routes.
    pub stops: OrderStops,
}

/// GET /orders/{id}: a live order of the depot, else 404.
pub fn get(store: &dyn Store, scope: DepotScope, id: i64) -> Result<OrderDetail, ServiceError> {
    store.read(|tx| {
        let order = tx.get_order(scope, id).found("order")?;
        let attachments = tx.list_attachments(scope, id)?;
        let catalog = catalog_naming(tx, scope, [&order])?;
        let served = order_stops(tx, scope, id)?;
        let stops = stop_views(tx, scope, served, Some(&order))?;
        Ok(OrderDetail {
            order,
            attachments,
            catalog,
            stops,
        })
    })
}

/// The depot's reference data when one of `orders` or their line items carries capacities or
/// custom fields, which a read names from it; else empty, without reading it: its four lists
/// are four statements, half of what a single read runs otherwise.
fn catalog_naming<'o>(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    orders: impl IntoIterator<Item = &'o Order>,
) -> Result<Catalog, StoreError> {
    let carries = |capacities: &[CapacityAmount], fields: &[CustomFieldValue]| {
        !capacities.is_empty() || !fields.is_empty()
    };
    let named = orders.into_iter().any(|o| {
        carries(&o.capacities, &o.custom_fields)
            || o.line_items
                .iter()
                .any(|li| carries(&li.capacities, &li.custom_fields))
    });
    match named {
        true => catalog(tx, scope),
        false => Ok(Catalog::default()),
    }
}

/// A stop serving an order, its route and what the driver recorded on it.
type ServedStop = ((Stop, Route), StopDriverView);

/// The stops serving an order on routes their plans show (a superseded solution's routes are
/// left out), with their routes, by route id.
fn order_stops(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    order_id: i64,
) -> Result<Vec<ServedStop>, StoreError> {
    let mut stops = Vec::new();
    for route in tx.routes_of_order(scope, order_id)? {
        let shown = tx
            .get_plan(scope, route.plan_id)?
            .is_some_and(|p| p.shows_route(&route));
        if shown {
            let records = RouteDriverRecords::read(tx, scope, route.id)?;
            for stop in tx.list_stops(scope, route.id)? {
                if stop.visit.order_ids.contains(&order_id) {
                    let driver = records.of(&stop);
                    stops.push(((stop, route.clone()), driver));
                }
            }
        }
    }
    Ok(stops)
}

/// The stops of one order, each with its route (the stop's orders hold the order).
pub type OrderStops = Vec<(StopView, Route)>;

/// Views of the stops serving `order` (`None`: it is gone, and the views show no order), each
/// with its proof of delivery.
fn stop_views(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    served: Vec<ServedStop>,
    order: Option<&Order>,
) -> Result<OrderStops, StoreError> {
    served
        .into_iter()
        .map(|((stop, route), driver)| {
            let proof = super::stop_records::stop_proof(tx, scope, &stop)?;
            let orders = order.into_iter().cloned().collect();
            let view = StopView {
                stop,
                orders,
                driver,
                proof,
            };
            Ok((view, route))
        })
        .collect()
}

/// The stops of each listed order (see [`OrderDetail::stops`]), in the order of `ids`, each
/// with its order, and the depot's reference data to render them (see [`catalog_naming`]:
/// nothing else of a list row needs it). One look-up finds the few orders a stop serves; only
/// those are read further.
fn stops_of(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    ids: &[i64],
) -> Result<(Vec<OrderStops>, Catalog), StoreError> {
    let served = tx.orders_with_stops(scope, ids)?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if !served.contains(id) {
            out.push(Vec::new());
            continue;
        }
        let stops = order_stops(tx, scope, *id)?;
        let order = match stops.is_empty() {
            true => None,
            false => tx.get_order(scope, *id)?,
        };
        out.push(stop_views(tx, scope, stops, order.as_ref())?);
    }
    let shown = out.iter().flatten().flat_map(|(view, _)| &view.orders);
    let catalog = catalog_naming(tx, scope, shown)?;
    Ok((out, catalog))
}

/// The order list's filters as sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrderQuery {
    /// `status`, matched case-insensitively; unknown values are 400.
    pub status: Option<String>,
    /// `customer_id`.
    pub customer_id: Option<i64>,
    /// `order_number`, exact.
    pub order_number: Option<String>,
    /// `date` (`YYYY-MM-DD`); another format is 400.
    pub date: Option<String>,
}

/// One page of GET /orders: the summaries, the stops serving each of them (in the same order)
/// and the reference data to render those stops, read in one snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedOrders {
    /// The page of summaries.
    pub page: Page<OrderSummary>,
    /// The stops of each summary, in the page's order.
    pub stops: Vec<OrderStops>,
    /// The depot's reference data, to name the capacity types and custom fields of the orders
    /// at those stops (empty when they carry none).
    pub catalog: Catalog,
}

/// GET /orders: one page of live orders matching every filter, most recently updated first,
/// with the stops serving them.
pub fn list(
    store: &dyn Store,
    scope: DepotScope,
    query: &OrderQuery,
    page: &PageRequest,
) -> Result<ListedOrders, ServiceError> {
    let date = match &query.date {
        Some(d) => Some(Date::parse(d).ok_or_else(|| {
            ServiceError::invalid(
                vec!["date".into()],
                "date YYYY-MM-DD",
                d,
                "date must be a date YYYY-MM-DD",
            )
        })?),
        None => None,
    };
    store.read(|tx| {
        let status = match &query.status {
            Some(s) => Some(statuses(tx, scope)?.resolve_filter(s).map_err(|e| {
                ServiceError::invalid(
                    vec!["status".into()],
                    "a default, custom or PARTIALLY_* status",
                    s,
                    &e.to_string(),
                )
            })?),
            None => None,
        };
        let filter = OrderFilter {
            status,
            customer_id: query.customer_id,
            order_number: query.order_number.clone(),
            date,
        };
        let page = tx.list_orders(scope, &filter, page)?;
        let ids: Vec<i64> = page.items.iter().map(|o| o.id).collect();
        let (stops, catalog) = stops_of(tx, scope, &ids)?;
        Ok(ListedOrders {
            page,
            stops,
            catalog,
        })
    })
}

/// Counts of a delete by order number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeletedOrders {
    /// Orders deleted (the exchange partner included).
    pub orders_count: u64,
    /// Their line items.
    pub line_items_count: u64,
}

/// Deletes the live order with exactly this number and its exchange partner, taking them off
/// every undispatched route first (`take_off_routes`) and cancelling their scheduled
/// notifications ([`on_order_deleted`]); an unknown number deletes nothing and still succeeds.
/// Once the deletion committed, every route it changed is re-timed (`retime_route`): its
/// totals and stop times then match the stops it keeps.
pub fn delete_by_number(
    store: &dyn Store,
    matrix: &dyn TravelMatrix,
    scope: DepotScope,
    order_number: &str,
    now: Timestamp,
) -> Result<DeletedOrders, ServiceError> {
    let (counts, mut changed) = store.transaction_in(scope, |tx| {
        let mut counts = DeletedOrders::default();
        let mut changed = Vec::new();
        let Some(found) = tx
            .find_order_by_number(scope, order_number)?
            .filter(|n| !n.deleted)
        else {
            return Ok((counts, changed));
        };
        let partner = tx.exchange_partner(scope, found.order.id)?;
        for id in std::iter::once(found.order.id).chain(partner) {
            changed.extend(take_off_routes(tx, scope, id, now)?);
            on_order_deleted(tx, scope, id, now)?;
            if let Some(items) = tx.delete_order(scope, id)? {
                counts.orders_count += 1;
                counts.line_items_count += items;
            }
        }
        Ok::<_, ServiceError>((counts, changed))
    })?;
    changed.sort_unstable();
    changed.dedup();
    for route in changed {
        match retime_route(store, matrix, scope, route, now) {
            // The route kept changing: each of those edits timed it itself.
            Ok(()) | Err(ServiceError::Unavailable { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(counts)
}

/// POST /orders/{id}/attachments: a pdf, png or jpeg file (recognised by its content) of at
/// most 10 MB, at most two per order. `name` (the uploaded file name) is kept for display only,
/// cut to [`crate::model::attachment::MAX_DISPLAY_NAME_CHARS`]; the file is stored under
/// [`safe_file_name`].
pub fn add_attachment(
    store: &dyn Store,
    scope: DepotScope,
    order_id: i64,
    name: &str,
    content: &[u8],
    now: Timestamp,
) -> Result<Attachment, ServiceError> {
    let name = display_name(name);
    if content.len() as u64 > MAX_ATTACHMENT_BYTES {
        return Err(ServiceError::invalid(
            vec!["attachment".into()],
            "a file of at most 10 MB",
            &format!("{} bytes", content.len()),
            "an attachment is at most 10 MB",
        ));
    }
    let kind = sniff(content).ok_or_else(|| {
        ServiceError::invalid(
            vec!["attachment".into()],
            "a pdf, png, jpg or jpeg file",
            &name,
            "only pdf, png, jpg and jpeg files can be attached",
        )
    })?;
    let file_name = safe_file_name(&name, kind);
    store.transaction_in(scope, |tx| {
        tx.get_order(scope, order_id).found("order")?;
        if tx.list_attachments(scope, order_id)?.len() >= MAX_ATTACHMENTS_PER_ORDER {
            return Err(ServiceError::invalid(
                vec!["attachment".into()],
                "at most 2 attachments per order",
                "a third attachment",
                "an order has at most 2 attachments",
            ));
        }
        let file = NewAttachment {
            order_id,
            name: &name,
            file_name: &file_name,
            mime: kind.mime,
            // The stored name's own extension: `photo.jpeg` reports `jpeg`, not the content's
            // canonical `jpg`.
            ext: file_name.rsplit_once('.').map_or(kind.ext, |(_, ext)| ext),
            content,
        };
        Ok(tx.insert_attachment(scope, &file, now)?)
    })
}
