//! SQLite's own limit: the same rows written and read by the simplest client, rusqlite on the
//! same file layout (the store's migrations made the schema: same columns, indexes and
//! constraints), WAL with `synchronous=FULL` and foreign keys on, one transaction per batch of
//! [`BATCH`](crate::workload::BATCH) orders. SQLite admits one writer at a time, so the
//! client's writers queue on a mutex (as the store's do) rather than on the busy handler's
//! sleeps.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{params, Connection};

use crate::timed;
use crate::workload::{row, Picks, PAGE};

/// A database file with the store's schema and the seeded depots.
pub struct Raw {
    path: PathBuf,
    depots: Vec<i64>,
    writers: Mutex<()>,
}

fn connect(path: &Path) -> Connection {
    let conn = Connection::open(path).expect("open the raw database");
    conn.busy_timeout(Duration::from_secs(30))
        .expect("busy timeout");
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;",
    )
    .expect("pragmas");
    conn
}

const INSERT_ORDER: &str = "INSERT INTO orders (depot_id, order_number, type, status, priority, \
    delivery, pickup, delivery_date, time_windows, emails, tags, skills, capacities, custom_fields, \
    created, updated) VALUES (?1, ?2, 'delivery', 'OPEN', 'P2', ?3, ?4, '2026-12-01', ?5, '[]', \
    '[]', '[]', '[]', '[]', ?6, ?6)";
const INSERT_ITEM: &str = "INSERT INTO order_line_items (order_id, position, product_code, \
    product_name, quantity, unit_price_micros, status, capacities, custom_fields) \
    VALUES (?1, 0, 'SKU-1', 'Parcel', ?2, 9990000, 'OPEN', '[]', '[]')";
const UPDATE_ORDER: &str = "UPDATE orders SET delivery = ?3, pickup = ?4, time_windows = ?5, \
    updated = ?6 WHERE depot_id = ?1 AND order_number = ?2";
const UPDATE_ITEM: &str = "UPDATE order_line_items SET quantity = ?2 WHERE order_id = \
    (SELECT id FROM orders WHERE depot_id = ?1 AND order_number = ?3)";
const PAGE_FIRST: &str = "SELECT o.id, o.order_number, o.status, o.type, o.created, o.updated, \
    o.customer_id, (SELECT group_concat(id, ',') FROM order_line_items WHERE order_id = o.id) \
    FROM orders o WHERE o.depot_id = ?1 AND o.deleted = 0 ORDER BY o.updated DESC, o.id DESC LIMIT ?2";
const PAGE_NEXT: &str = "SELECT o.id, o.order_number, o.status, o.type, o.created, o.updated, \
    o.customer_id, (SELECT group_concat(id, ',') FROM order_line_items WHERE order_id = o.id) \
    FROM orders o WHERE o.depot_id = ?1 AND o.deleted = 0 AND o.updated <= ?3 \
    AND (o.updated < ?3 OR o.id < ?4) ORDER BY o.updated DESC, o.id DESC LIMIT ?2";
const READ_ORDER: &str = "SELECT id, order_number, type, status, priority, customer_id, delivery, \
    pickup, delivery_date, time_windows, exchange_reference, parts, vehicle_id, emails, \
    third_party_id, tags, skills, capacities, custom_fields, order_value_cents, created, updated \
    FROM orders WHERE depot_id = ?1 AND id = ?2 AND deleted = 0";
const READ_ITEMS: &str = "SELECT id, product_code, product_name, quantity, unit_price_micros, \
    manual_value_cents, quantity_outstanding, status, date, capacities, custom_fields \
    FROM order_line_items WHERE order_id = ?1 ORDER BY position";

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl Raw {
    /// Uses `path`, already migrated and seeded by the store.
    pub fn new(path: PathBuf) -> Raw {
        let depots = connect(&path)
            .prepare("SELECT id FROM depots ORDER BY id")
            .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
            .expect("the seeded depots");
        Raw {
            path,
            depots,
            writers: Mutex::new(()),
        }
    }
}

impl crate::Side for Raw {
    /// Writes orders `0..orders` (round 0 inserts, round 1 updates) in transactions of
    /// [`BATCH`](crate::workload::BATCH), batch `b` to depot `b % depots`, spread over
    /// `clients` connections, the rows built before the clock starts; returns the seconds taken.
    fn write(&self, orders: usize, clients: usize, round: usize) -> f64 {
        let rows = |batch: Range<usize>| batch.map(|n| row(n, round)).collect::<Vec<_>>();
        timed::writes(clients, orders, rows, |_, batches| {
            let mut conn = connect(&self.path);
            for (b, rows) in batches {
                let depot = self.depots[b % self.depots.len()];
                let _writer = self.writers.lock().unwrap_or_else(|e| e.into_inner());
                let tx = conn
                    .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                    .expect("begin");
                let now = now_millis();
                for r in rows {
                    if round == 0 {
                        tx.prepare_cached(INSERT_ORDER)
                            .and_then(|mut st| {
                                st.execute(params![
                                    depot, r.number, r.delivery, r.pickup, r.windows, now
                                ])
                            })
                            .expect("insert an order");
                        let id = tx.last_insert_rowid();
                        tx.prepare_cached(INSERT_ITEM)
                            .and_then(|mut st| st.execute(params![id, r.quantity]))
                            .expect("insert a line item");
                    } else {
                        tx.prepare_cached(UPDATE_ORDER)
                            .and_then(|mut st| {
                                st.execute(params![
                                    depot, r.number, r.delivery, r.pickup, r.windows, now
                                ])
                            })
                            .expect("update an order");
                        tx.prepare_cached(UPDATE_ITEM)
                            .and_then(|mut st| st.execute(params![depot, r.quantity, r.number]))
                            .expect("update a line item");
                    }
                }
                tx.commit().expect("commit");
            }
        })
    }

    /// Every client pages through the first depot's list (keyset pages of [`PAGE`], the service's
    /// order and columns); returns (rows read, seconds, the ids seen).
    fn page(&self, clients: usize) -> (usize, f64, Vec<i64>) {
        type Summary = (
            i64,
            String,
            String,
            String,
            i64,
            i64,
            Option<i64>,
            Option<String>,
        );
        timed::paging(clients, |c| {
            let conn = connect(&self.path);
            let (mut rows, mut ids, mut after) = (0, Vec::new(), None);
            loop {
                let read = |r: &rusqlite::Row<'_>| -> rusqlite::Result<Summary> {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                    ))
                };
                let page: Vec<Summary> = match after {
                    None => conn.prepare_cached(PAGE_FIRST).and_then(|mut st| {
                        st.query_map(params![self.depots[0], PAGE], read)?.collect()
                    }),
                    Some((u, id)) => conn.prepare_cached(PAGE_NEXT).and_then(|mut st| {
                        st.query_map(params![self.depots[0], PAGE, u, id], read)?
                            .collect()
                    }),
                }
                .expect("a page");
                rows += page.len();
                if c == 0 {
                    ids.extend(page.iter().map(|o| o.0));
                }
                match page.last() {
                    Some(last) if page.len() == PAGE => after = Some((last.5, last.0)),
                    _ => break,
                }
            }
            (rows, ids)
        })
    }

    /// `reads` single orders (row and line items) per client; returns the seconds.
    fn read(&self, ids: &[i64], clients: usize, reads: usize) -> f64 {
        timed::clients(clients, |c| {
            let conn = connect(&self.path);
            let mut picks = Picks::new(c);
            for _ in 0..reads {
                let id = ids[picks.next(ids.len())];
                let tx = conn.unchecked_transaction().expect("begin");
                let order: (i64, String, String) = tx
                    .prepare_cached(READ_ORDER)
                    .and_then(|mut st| {
                        st.query_row(params![self.depots[0], id], |r| {
                            Ok((r.get(0)?, r.get(6)?, r.get(9)?))
                        })
                    })
                    .expect("an order");
                let items: Vec<(i64, String, i64)> = tx
                    .prepare_cached(READ_ITEMS)
                    .and_then(|mut st| {
                        st.query_map([order.0], |r| Ok((r.get(0)?, r.get(1)?, r.get(3)?)))?
                            .collect()
                    })
                    .expect("its line items");
                assert!(!items.is_empty() && !order.1.is_empty());
                tx.finish().expect("end the read");
            }
        })
        .1
    }
}
