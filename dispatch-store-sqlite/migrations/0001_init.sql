-- Organisations, depots, access keys, reference data, zones, gazetteer and vehicles.
-- Timestamps are milliseconds since the Unix epoch (UTC). Every depot-scoped table carries
-- depot_id and every organisation-wide one organisation_id; list indexes lead with that column.

CREATE TABLE installation_secrets (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
);

CREATE TABLE organisations (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL
);

CREATE TABLE depots (
    id                            INTEGER PRIMARY KEY,
    organisation_id               INTEGER NOT NULL REFERENCES organisations(id),
    name                          TEXT NOT NULL,
    address                       TEXT,
    lat                           REAL,
    lng                           REAL,
    allow_orders_without_customer INTEGER NOT NULL,
    starting_status               TEXT NOT NULL,
    partial_orders                INTEGER NOT NULL,
    timezone                      TEXT NOT NULL,
    webhook_url                   TEXT,
    webhook_username              TEXT,
    webhook_password              TEXT,
    created                       INTEGER NOT NULL,
    updated                       INTEGER NOT NULL,
    UNIQUE (organisation_id, name)
);

CREATE TABLE access_keys (
    id         INTEGER PRIMARY KEY,
    depot_id   INTEGER NOT NULL REFERENCES depots(id),
    name       TEXT NOT NULL,
    permission TEXT NOT NULL CHECK (permission IN ('all', 'read')),
    key_lookup INTEGER NOT NULL,
    key_hash   BLOB NOT NULL CHECK (length(key_hash) = 32),
    created    INTEGER NOT NULL,
    UNIQUE (depot_id, name)
);
CREATE INDEX access_keys_by_lookup ON access_keys (key_lookup);

CREATE TABLE third_parties (
    id              INTEGER PRIMARY KEY,
    organisation_id INTEGER NOT NULL REFERENCES organisations(id),
    name            TEXT NOT NULL,
    created         INTEGER NOT NULL,
    UNIQUE (organisation_id, name)
);

CREATE TABLE custom_order_statuses (
    id              INTEGER PRIMARY KEY,
    organisation_id INTEGER NOT NULL REFERENCES organisations(id),
    status          TEXT NOT NULL,
    created         INTEGER NOT NULL,
    UNIQUE (organisation_id, status)
);

CREATE TABLE capacity_types (
    id            INTEGER PRIMARY KEY,
    depot_id      INTEGER NOT NULL REFERENCES depots(id),
    name          TEXT NOT NULL,
    default_value TEXT NOT NULL,
    created       INTEGER NOT NULL,
    updated       INTEGER NOT NULL,
    UNIQUE (depot_id, name)
);

CREATE TABLE custom_fields (
    id       INTEGER PRIMARY KEY,
    depot_id INTEGER NOT NULL REFERENCES depots(id),
    name     TEXT NOT NULL,
    created  INTEGER NOT NULL,
    updated  INTEGER NOT NULL,
    UNIQUE (depot_id, name)
);

CREATE TABLE tags (
    id       INTEGER PRIMARY KEY,
    depot_id INTEGER NOT NULL REFERENCES depots(id),
    name     TEXT NOT NULL,
    created  INTEGER NOT NULL,
    UNIQUE (depot_id, name)
);

-- Skill names are case-sensitive (BINARY collation).
CREATE TABLE skills (
    id       INTEGER PRIMARY KEY,
    depot_id INTEGER NOT NULL REFERENCES depots(id),
    name     TEXT NOT NULL,
    created  INTEGER NOT NULL,
    UNIQUE (depot_id, name)
);

CREATE TABLE zone_groups (
    id       INTEGER PRIMARY KEY,
    depot_id INTEGER NOT NULL REFERENCES depots(id),
    name     TEXT NOT NULL,
    created  INTEGER NOT NULL,
    updated  INTEGER NOT NULL,
    UNIQUE (depot_id, name)
);

-- polygon: JSON array of [lat, lng] pairs, implicitly closed.
CREATE TABLE zones (
    id            INTEGER PRIMARY KEY,
    depot_id      INTEGER NOT NULL REFERENCES depots(id),
    zone_group_id INTEGER NOT NULL REFERENCES zone_groups(id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    polygon       TEXT NOT NULL,
    created       INTEGER NOT NULL,
    updated       INTEGER NOT NULL,
    UNIQUE (zone_group_id, name)
);
CREATE INDEX zones_by_group ON zones (depot_id, zone_group_id);

CREATE TABLE notification_templates (
    id       INTEGER PRIMARY KEY,
    depot_id INTEGER NOT NULL REFERENCES depots(id),
    channel  TEXT NOT NULL CHECK (channel IN ('SMS', 'EMAIL')),
    name     TEXT NOT NULL,
    body     TEXT NOT NULL,
    created  INTEGER NOT NULL,
    updated  INTEGER NOT NULL,
    UNIQUE (depot_id, name)
);

-- Absent address or postcode is stored as '' so the pair can be unique.
CREATE TABLE gazetteer (
    id       INTEGER PRIMARY KEY,
    depot_id INTEGER NOT NULL REFERENCES depots(id),
    address  TEXT NOT NULL,
    postcode TEXT NOT NULL,
    lat      REAL NOT NULL,
    lng      REAL NOT NULL,
    UNIQUE (depot_id, address, postcode)
);

-- Vehicles are deleted for real: their skills and capacities cascade, and every column that
-- assigns a vehicle (orders, customers, plan visits) must be declared
-- `REFERENCES vehicles(id) ON DELETE SET NULL` so deletion removes the assignments.
CREATE TABLE vehicles (
    id             INTEGER PRIMARY KEY,
    depot_id       INTEGER NOT NULL REFERENCES depots(id),
    name           TEXT NOT NULL,
    active         INTEGER NOT NULL,
    availability   TEXT NOT NULL,
    shift_start    INTEGER,
    shift_end      INTEGER,
    start_location TEXT NOT NULL,
    start_address  TEXT,
    start_lat      REAL,
    start_lng      REAL,
    end_location   TEXT NOT NULL,
    end_address    TEXT,
    end_lat        REAL,
    end_lng        REAL,
    has_break      INTEGER NOT NULL,
    break_start    INTEGER,
    break_end      INTEGER,
    break_duration REAL,
    created        INTEGER NOT NULL,
    updated        INTEGER NOT NULL
);
CREATE INDEX vehicles_by_depot_updated ON vehicles (depot_id, updated DESC, id DESC);

CREATE TABLE vehicle_skills (
    vehicle_id INTEGER NOT NULL REFERENCES vehicles(id) ON DELETE CASCADE,
    skill_id   INTEGER NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    PRIMARY KEY (vehicle_id, skill_id)
);

CREATE TABLE vehicle_capacities (
    vehicle_id       INTEGER NOT NULL REFERENCES vehicles(id) ON DELETE CASCADE,
    capacity_type_id INTEGER NOT NULL REFERENCES capacity_types(id) ON DELETE CASCADE,
    capacity         REAL NOT NULL,
    position         INTEGER NOT NULL,
    PRIMARY KEY (vehicle_id, capacity_type_id)
);
