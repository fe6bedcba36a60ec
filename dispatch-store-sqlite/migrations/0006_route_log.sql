-- What a route remembers beyond its stops: every order ever on it (PREVIOUSLY_ON_ROUTE) and
-- the audit log of edits to dispatched routes. Audit rows carry no foreign key to routes: the
-- record of what was changed on a dispatched route outlives the route's plan.

CREATE TABLE route_orders_seen (
    depot_id INTEGER NOT NULL REFERENCES depots(id),
    route_id INTEGER NOT NULL REFERENCES routes(id) ON DELETE CASCADE,
    order_id INTEGER NOT NULL,
    PRIMARY KEY (route_id, order_id)
);

-- `order_ids`: JSON array of order ids.
CREATE TABLE route_audit_log (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    depot_id  INTEGER NOT NULL REFERENCES depots(id),
    route_id  INTEGER NOT NULL,
    action    TEXT NOT NULL,
    order_ids TEXT NOT NULL,
    created   INTEGER NOT NULL
);
CREATE INDEX route_audit_log_by_route ON route_audit_log (route_id, id);
