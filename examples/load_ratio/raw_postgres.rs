//! PostgreSQL's own limit: the same rows written and read by the simplest client, the
//! synchronous `postgres` crate on the schema the store's migrations made (same columns,
//! indexes and constraints), one transaction per batch of [`BATCH`](crate::workload::BATCH)
//! orders written with multi-row statements (`UNNEST` arrays), each client on its own
//! connection with nothing between the writers but the database itself.

use std::ops::Range;

use postgres::{Client, NoTls};

use crate::timed;
use crate::workload::{row, Picks, PAGE};

/// A database with the store's schema and the seeded depots.
pub struct Raw {
    url: String,
    depots: Vec<i64>,
}

fn connect(url: &str) -> Client {
    Client::connect(url, NoTls).expect("connect to the raw database")
}

const INSERT_ORDERS: &str = "INSERT INTO orders (depot_id, order_number, type, status, priority, \
    delivery, pickup, delivery_date, time_windows, emails, tags, skills, capacities, custom_fields, \
    created, updated) SELECT $1, n, 'delivery', 'OPEN', 'P2', d, $4, '2026-12-01', $5, '[]', '[]', \
    '[]', '[]', '[]', $6, $6 FROM unnest($2::text[], $3::text[]) AS v(n, d) RETURNING id, order_number";
const INSERT_ITEMS: &str = "INSERT INTO order_line_items (order_id, position, product_code, \
    product_name, quantity, unit_price_micros, status, capacities, custom_fields) \
    SELECT o, 0, 'SKU-1', 'Parcel', q, 9990000, 'OPEN', '[]', '[]' \
    FROM unnest($1::bigint[], $2::bigint[]) AS v(o, q)";
const UPDATE_ORDERS: &str = "UPDATE orders o SET delivery = v.d, pickup = $4, time_windows = $5, \
    updated = $6 FROM unnest($2::text[], $3::text[]) AS v(n, d) \
    WHERE o.depot_id = $1 AND o.order_number = v.n";
const UPDATE_ITEMS: &str = "UPDATE order_line_items i SET quantity = v.q \
    FROM unnest($2::text[], $3::bigint[]) AS v(n, q), orders o \
    WHERE o.depot_id = $1 AND o.order_number = v.n AND i.order_id = o.id";
const PAGE_FIRST: &str = "SELECT o.id, o.order_number, o.status, o.type, o.created, o.updated, \
    o.customer_id, (SELECT string_agg(id::text, ',') FROM order_line_items WHERE order_id = o.id) \
    FROM orders o WHERE o.depot_id = $1 AND NOT o.deleted ORDER BY o.updated DESC, o.id DESC LIMIT $2";
const PAGE_NEXT: &str = "SELECT o.id, o.order_number, o.status, o.type, o.created, o.updated, \
    o.customer_id, (SELECT string_agg(id::text, ',') FROM order_line_items WHERE order_id = o.id) \
    FROM orders o WHERE o.depot_id = $1 AND NOT o.deleted AND o.updated <= $3 \
    AND (o.updated < $3 OR o.id < $4) ORDER BY o.updated DESC, o.id DESC LIMIT $2";
const READ_ORDER: &str = "SELECT id, order_number, type, status, priority, customer_id, delivery, \
    pickup, delivery_date, time_windows, exchange_reference, parts, vehicle_id, emails, \
    third_party_id, tags, skills, capacities, custom_fields, order_value_cents, created, updated \
    FROM orders WHERE depot_id = $1 AND id = $2 AND NOT deleted";
const READ_ITEMS: &str = "SELECT id, product_code, product_name, quantity, unit_price_micros, \
    manual_value_cents, quantity_outstanding, status, date, capacities, custom_fields \
    FROM order_line_items WHERE order_id = $1 ORDER BY position";

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl Raw {
    /// Uses the database at `url`, already migrated and seeded by the store.
    pub fn new(url: String) -> Raw {
        let depots = connect(&url)
            .query("SELECT id FROM depots ORDER BY id", &[])
            .expect("the seeded depots")
            .iter()
            .map(|r| r.get(0))
            .collect();
        Raw { url, depots }
    }
}

impl crate::Side for Raw {
    /// Writes orders `0..orders` (round 0 inserts, round 1 updates) in transactions of
    /// [`BATCH`](crate::workload::BATCH), batch `b` to depot `b % depots`, spread over
    /// `clients` connections, the rows built before the clock starts; returns the seconds taken.
    fn write(&self, orders: usize, clients: usize, round: usize) -> f64 {
        let rows = |batch: Range<usize>| batch.map(|n| row(n, round)).collect::<Vec<_>>();
        timed::writes(clients, orders, rows, |_, batches| {
            let mut conn = connect(&self.url);
            for (b, rows) in batches {
                let depot = self.depots[b % self.depots.len()];
                let numbers: Vec<&str> = rows.iter().map(|r| r.number.as_str()).collect();
                let deliveries: Vec<&str> = rows.iter().map(|r| r.delivery.as_str()).collect();
                let (pickup, windows) = (rows[0].pickup, rows[0].windows);
                let now = now_millis();
                let mut tx = conn.transaction().expect("begin");
                if round == 0 {
                    let ids = tx
                        .query(
                            INSERT_ORDERS,
                            &[&depot, &numbers, &deliveries, &pickup, &windows, &now],
                        )
                        .expect("insert the orders");
                    let (ids, quantities): (Vec<i64>, Vec<i64>) = ids
                        .iter()
                        .map(|r| {
                            let number: &str = r.get(1);
                            let at = numbers.iter().position(|n| *n == number).unwrap();
                            (r.get::<_, i64>(0), rows[at].quantity)
                        })
                        .unzip();
                    tx.execute(INSERT_ITEMS, &[&ids, &quantities])
                        .expect("insert the line items");
                } else {
                    tx.execute(
                        UPDATE_ORDERS,
                        &[&depot, &numbers, &deliveries, &pickup, &windows, &now],
                    )
                    .expect("update the orders");
                    let quantities: Vec<i64> = rows.iter().map(|r| r.quantity).collect();
                    tx.execute(UPDATE_ITEMS, &[&depot, &numbers, &quantities])
                        .expect("update the line items");
                }
                tx.commit().expect("commit");
            }
        })
    }

    /// Every client pages through the first depot's list (keyset pages of [`PAGE`], the
    /// service's order and columns); returns (rows read, seconds, the ids seen).
    fn page(&self, clients: usize) -> (usize, f64, Vec<i64>) {
        let depot = self.depots[0];
        timed::paging(clients, |c| {
            let mut conn = connect(&self.url);
            let (first, next) = (
                conn.prepare(PAGE_FIRST).expect("prepare"),
                conn.prepare(PAGE_NEXT).expect("prepare"),
            );
            let (mut rows, mut ids, mut after) = (0, Vec::new(), None::<(i64, i64)>);
            loop {
                let limit = PAGE as i64;
                let page = match after {
                    None => conn.query(&first, &[&depot, &limit]),
                    Some((u, id)) => conn.query(&next, &[&depot, &limit, &u, &id]),
                }
                .expect("a page");
                for r in &page {
                    let _: (String, String, String, i64, Option<i64>, Option<String>) =
                        (r.get(1), r.get(2), r.get(3), r.get(4), r.get(6), r.get(7));
                }
                rows += page.len();
                if c == 0 {
                    ids.extend(page.iter().map(|o| o.get::<_, i64>(0)));
                }
                match page.last() {
                    Some(last) if page.len() == PAGE => after = Some((last.get(5), last.get(0))),
                    _ => break,
                }
            }
            (rows, ids)
        })
    }

    /// `reads` single orders (row and line items, one read-only transaction) per client;
    /// returns the seconds.
    fn read(&self, ids: &[i64], clients: usize, reads: usize) -> f64 {
        let depot = self.depots[0];
        timed::clients(clients, |c| {
            let mut conn = connect(&self.url);
            let (order, items) = (
                conn.prepare(READ_ORDER).expect("prepare"),
                conn.prepare(READ_ITEMS).expect("prepare"),
            );
            let mut picks = Picks::new(c);
            for _ in 0..reads {
                let id = ids[picks.next(ids.len())];
                let mut tx = conn
                    .build_transaction()
                    .isolation_level(postgres::IsolationLevel::RepeatableRead)
                    .read_only(true)
                    .start()
                    .expect("begin");
                let row = tx.query_one(&order, &[&depot, &id]).expect("an order");
                let delivery: String = row.get(6);
                let lines = tx.query(&items, &[&id]).expect("its line items");
                assert!(!lines.is_empty() && !delivery.is_empty());
                tx.commit().expect("end the read");
            }
        })
        .1
    }
}
