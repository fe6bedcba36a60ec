-- Customers, orders, line items, attachments and the event outbox.
-- The small value sets of a record (capacities, skills, tags, time windows, custom-field
-- values, e-mails, available days, the contact/location data of an order end) are read and
-- written whole with their owner and never queried on their own, so they are JSON arrays or
-- objects in the owner's row: one row write per customer or order keeps bulk writes fast.
-- Line items are rows of their own (they have ids and statuses and are counted on delete).

CREATE TABLE customers (
    id         INTEGER PRIMARY KEY,
    depot_id   INTEGER NOT NULL REFERENCES depots(id),
    account    TEXT NOT NULL,
    name       TEXT,
    address    TEXT,
    postcode   TEXT,
    phone      TEXT,
    email      TEXT,
    lat        REAL,
    lng        REAL,
    duration   INTEGER,
    notes      TEXT,
    capacities    TEXT NOT NULL,
    skills        TEXT NOT NULL,
    tags          TEXT NOT NULL,
    time_windows  TEXT NOT NULL,
    custom_fields TEXT NOT NULL,
    created    INTEGER NOT NULL,
    updated    INTEGER NOT NULL,
    UNIQUE (depot_id, account)
);
CREATE INDEX customers_by_depot_updated ON customers (depot_id, updated DESC, id DESC);

-- Soft deletion: deleted orders keep their row (and number) so a later POST restores them.
CREATE TABLE orders (
    id                 INTEGER PRIMARY KEY,
    depot_id           INTEGER NOT NULL REFERENCES depots(id),
    order_number       TEXT NOT NULL,
    type               TEXT NOT NULL CHECK (type IN ('delivery', 'pickup', 'shipment')),
    status             TEXT NOT NULL,
    priority           TEXT,
    customer_id        INTEGER REFERENCES customers(id),
    delivery           TEXT NOT NULL,
    pickup             TEXT NOT NULL,
    delivery_date      TEXT,
    time_windows       TEXT NOT NULL,
    exchange_id        INTEGER,
    exchange_reference TEXT,
    parts              REAL,
    vehicle_id         INTEGER REFERENCES vehicles(id) ON DELETE SET NULL,
    emails             TEXT NOT NULL,
    third_party_id     INTEGER REFERENCES third_parties(id),
    tags               TEXT NOT NULL,
    skills             TEXT NOT NULL,
    capacities         TEXT NOT NULL,
    custom_fields      TEXT NOT NULL,
    order_value_cents  INTEGER,
    deleted            INTEGER NOT NULL DEFAULT 0,
    created            INTEGER NOT NULL,
    updated            INTEGER NOT NULL,
    UNIQUE (depot_id, order_number)
);
CREATE INDEX orders_by_depot_updated ON orders (depot_id, deleted, updated DESC, id DESC);
CREATE INDEX orders_by_status ON orders (depot_id, status, updated DESC, id DESC);
CREATE INDEX orders_by_customer ON orders (depot_id, customer_id, updated DESC, id DESC);
CREATE INDEX orders_by_date ON orders (depot_id, delivery_date, updated DESC, id DESC);
CREATE INDEX orders_by_exchange ON orders (exchange_id) WHERE exchange_id IS NOT NULL;

CREATE TABLE order_line_items (
    id                   INTEGER PRIMARY KEY,
    order_id             INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
    position             INTEGER NOT NULL,
    product_code         TEXT NOT NULL,
    product_name         TEXT NOT NULL,
    quantity             INTEGER NOT NULL,
    unit_price_micros    INTEGER,
    manual_value_cents   INTEGER,
    quantity_outstanding REAL,
    status               TEXT NOT NULL,
    date                 TEXT,
    capacities           TEXT NOT NULL,
    custom_fields        TEXT NOT NULL
);
CREATE INDEX order_line_items_by_order ON order_line_items (order_id, position);

CREATE TABLE order_attachments (
    id       INTEGER PRIMARY KEY,
    depot_id INTEGER NOT NULL REFERENCES depots(id),
    order_id INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
    name     TEXT NOT NULL,
    mime     TEXT NOT NULL,
    ext      TEXT NOT NULL,
    size     INTEGER NOT NULL,
    content  BLOB NOT NULL,
    created  INTEGER NOT NULL,
    modified INTEGER NOT NULL
);
CREATE INDEX order_attachments_by_order ON order_attachments (depot_id, order_id);

-- Events waiting for webhook delivery, written in the transaction of the change they report.
CREATE TABLE event_outbox (
    id           INTEGER PRIMARY KEY,
    depot_id     INTEGER NOT NULL REFERENCES depots(id),
    name         TEXT NOT NULL,
    type_id      INTEGER NOT NULL,
    payload      TEXT NOT NULL,
    created      INTEGER NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    delivered    INTEGER,
    failed       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX event_outbox_pending ON event_outbox (depot_id, delivered, id);
