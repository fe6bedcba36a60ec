-- The driver side (issue 11): credentials per vehicle, what drivers report on their routes,
-- their position tracks, phone calls, and the feed of route changes pushed to drivers.

-- A driver credential identifies one vehicle of one depot. Only the SHA-256 digest is kept
-- (looked up by an 8-byte prefix like access keys). Revoked credentials stay (revoked set) so
-- their ids are never reused and the depot sees when they were revoked.
CREATE TABLE driver_credentials (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    depot_id   INTEGER NOT NULL REFERENCES depots(id),
    vehicle_id INTEGER NOT NULL REFERENCES vehicles(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    key_lookup INTEGER NOT NULL,
    key_hash   BLOB NOT NULL CHECK (length(key_hash) = 32),
    created    INTEGER NOT NULL,
    revoked    INTEGER
);
CREATE INDEX driver_credentials_by_lookup ON driver_credentials (key_lookup);
CREATE INDEX driver_credentials_by_vehicle ON driver_credentials (depot_id, vehicle_id, id);

-- Per started route: where it was started and the check-in questionnaire submission, if any.
CREATE TABLE driver_routes (
    route_id              INTEGER PRIMARY KEY REFERENCES routes(id) ON DELETE CASCADE,
    depot_id              INTEGER NOT NULL REFERENCES depots(id),
    started_lat           REAL,
    started_lng           REAL,
    checkin_submission_id INTEGER,
    completed_lat         REAL,
    completed_lng         REAL
);

-- What the driver reported for one order served on a route. Keyed by (route, order) rather
-- than by stop: route edits rebuild stops under new ids, and what happened on the road must
-- survive them. `delivered`: JSON array of [line_item_id, quantity] delivered on this visit.
CREATE TABLE driver_visits (
    route_id       INTEGER NOT NULL REFERENCES routes(id) ON DELETE CASCADE,
    order_id       INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
    depot_id       INTEGER NOT NULL REFERENCES depots(id),
    arrived_ts     INTEGER,
    completed_ts   INTEGER,
    outcome        TEXT CHECK (outcome IN ('completed', 'failed')),
    completed_lat  REAL,
    completed_lng  REAL,
    failed_reason  TEXT,
    driver_notes   TEXT,
    delivered      TEXT,
    eta_ts         INTEGER,
    on_delivery_ts INTEGER,
    updated        INTEGER NOT NULL,
    PRIMARY KEY (route_id, order_id)
);
CREATE INDEX driver_visits_by_order ON driver_visits (order_id);

CREATE TABLE driver_phone_calls (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    route_id     INTEGER NOT NULL REFERENCES routes(id) ON DELETE CASCADE,
    order_id     INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
    depot_id     INTEGER NOT NULL REFERENCES depots(id),
    initiated_at INTEGER NOT NULL,
    recorded_at  INTEGER NOT NULL,
    lat          REAL,
    lng          REAL
);
CREATE INDEX driver_phone_calls_by_route ON driver_phone_calls (route_id, order_id, id);

-- The reported track of a route: one row per position, in report time order.
CREATE TABLE route_positions (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    route_id INTEGER NOT NULL REFERENCES routes(id) ON DELETE CASCADE,
    depot_id INTEGER NOT NULL REFERENCES depots(id),
    lat      REAL NOT NULL,
    lng      REAL NOT NULL,
    at       INTEGER NOT NULL,
    received INTEGER NOT NULL
);
CREATE INDEX route_positions_by_route ON route_positions (route_id, at, id);

-- What drivers are told: one row per change of a vehicle's dispatched routes (dispatched,
-- edited, deleted), written in the change's transaction. No foreign key on the route: the
-- message about a deleted route outlives it. Subscribers resume after the last id they saw.
CREATE TABLE driver_feed (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    depot_id   INTEGER NOT NULL REFERENCES depots(id),
    vehicle_id INTEGER NOT NULL,
    route_id   INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    created    INTEGER NOT NULL
);
CREATE INDEX driver_feed_by_vehicle ON driver_feed (depot_id, vehicle_id, id);
