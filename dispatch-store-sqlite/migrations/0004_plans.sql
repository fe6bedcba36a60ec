-- Plans, their solutions, the durable optimisation queue, routes and stops.
-- Plan and solution ids come from one sequence (plan_ids) so that "a plan id or the id of its
-- active solution" (POST /plans/{id}/dispatch) can never name two things.

CREATE TABLE plan_ids (
    id INTEGER PRIMARY KEY AUTOINCREMENT
);

CREATE TABLE plans (
    id                 INTEGER PRIMARY KEY,
    depot_id           INTEGER NOT NULL REFERENCES depots(id),
    date               TEXT NOT NULL,
    dispatched         INTEGER NOT NULL DEFAULT 0,
    active_solution_id INTEGER,
    created            INTEGER NOT NULL,
    updated            INTEGER NOT NULL
);
CREATE INDEX plans_by_depot_updated ON plans (depot_id, updated DESC, id DESC);

-- `unserved`: JSON array of {order_id, reason, description}; read and written whole.
CREATE TABLE plan_solutions (
    id              INTEGER PRIMARY KEY,
    depot_id        INTEGER NOT NULL REFERENCES depots(id),
    plan_id         INTEGER NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
    optimisation_id TEXT NOT NULL,
    unserved        TEXT NOT NULL,
    created         INTEGER NOT NULL
);
CREATE INDEX plan_solutions_by_plan ON plan_solutions (plan_id);

-- The queue: workers claim the oldest queued job and hold it under a lease they renew; a
-- running job whose lease ran out lost its worker and is re-queued or failed.
CREATE TABLE optimisations (
    id              TEXT PRIMARY KEY,
    depot_id        INTEGER NOT NULL REFERENCES depots(id),
    organisation_id INTEGER NOT NULL,
    plan_id         INTEGER NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
    date            TEXT NOT NULL,
    state           TEXT NOT NULL,
    queue           TEXT NOT NULL,
    spec            TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    solution_id     INTEGER,
    error           TEXT,
    lease_until     INTEGER,
    seq             INTEGER NOT NULL,
    created         INTEGER NOT NULL,
    updated         INTEGER NOT NULL
);
CREATE INDEX optimisations_queued ON optimisations (state, seq);
CREATE INDEX optimisations_by_depot ON optimisations (depot_id, queue, state);
CREATE INDEX optimisations_by_plan ON optimisations (plan_id, seq);

-- Times of day are seconds after midnight of the route's date; durations seconds; distances
-- metres.
-- AUTOINCREMENT: ids of deleted routes and replaced stops are never handed out again.
CREATE TABLE routes (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    depot_id          INTEGER NOT NULL REFERENCES depots(id),
    plan_id           INTEGER NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
    solution_id       INTEGER NOT NULL,
    name              TEXT NOT NULL,
    dispatched        INTEGER NOT NULL DEFAULT 0,
    is_locked         INTEGER NOT NULL DEFAULT 0,
    date              TEXT NOT NULL,
    vehicle_id        INTEGER REFERENCES vehicles(id) ON DELETE SET NULL,
    start_time        INTEGER NOT NULL,
    end_time          INTEGER NOT NULL,
    total_time        INTEGER NOT NULL,
    travel_time       INTEGER NOT NULL,
    operation_time      INTEGER NOT NULL,
    planned_distance  INTEGER NOT NULL,
    actual_distance   INTEGER,
    started_ts        INTEGER,
    completed_ts      INTEGER,
    created           INTEGER NOT NULL,
    updated           INTEGER NOT NULL
);
CREATE INDEX routes_by_depot_updated ON routes (depot_id, updated DESC, id DESC);
CREATE INDEX routes_by_plan ON routes (plan_id, id);
CREATE INDEX routes_by_vehicle ON routes (vehicle_id) WHERE vehicle_id IS NOT NULL;

CREATE TABLE stops (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    depot_id         INTEGER NOT NULL REFERENCES depots(id),
    route_id         INTEGER NOT NULL REFERENCES routes(id) ON DELETE CASCADE,
    sequence         INTEGER NOT NULL,
    side             TEXT NOT NULL CHECK (side IN ('pickup', 'delivery')),
    lat              REAL,
    lng              REAL,
    address          TEXT,
    postcode         TEXT,
    phone            TEXT,
    arrival_date     TEXT NOT NULL,
    arrival          INTEGER NOT NULL,
    departure_date   TEXT NOT NULL,
    departure        INTEGER NOT NULL,
    planned_distance INTEGER NOT NULL,
    completed_ts     INTEGER,
    created          INTEGER NOT NULL
);
CREATE INDEX stops_by_route ON stops (route_id, sequence);

CREATE TABLE stop_orders (
    stop_id  INTEGER NOT NULL REFERENCES stops(id) ON DELETE CASCADE,
    order_id INTEGER NOT NULL REFERENCES orders(id),
    position INTEGER NOT NULL,
    PRIMARY KEY (stop_id, position)
);
CREATE INDEX stop_orders_by_order ON stop_orders (order_id);

-- The VROOM-style problem (with its travel matrix) each optimisation solved, for
-- `dispatch export-problem` and GET /plans/optimise/{id}/problem; the newest few per depot are
-- kept (see OptimisationRepo::store_problem).
CREATE TABLE optimisation_problems (
    optimisation_id TEXT PRIMARY KEY REFERENCES optimisations(id) ON DELETE CASCADE,
    depot_id        INTEGER NOT NULL REFERENCES depots(id),
    plan_id         INTEGER NOT NULL,
    problem         TEXT NOT NULL,
    created         INTEGER NOT NULL,
    seq             INTEGER NOT NULL
);
CREATE INDEX optimisation_problems_by_depot ON optimisation_problems (depot_id, seq);
CREATE INDEX optimisation_problems_by_plan ON optimisation_problems (plan_id, seq);
