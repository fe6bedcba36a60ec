-- An order is on one active route at most: one row per order with a stop on a route that is
-- dispatched and not completed by its driver. The route repository keeps the rows in step
-- whenever a route's stops are written or it is dispatched or completed, and the primary key
-- refuses a second active route for an order, whatever code path tries.
CREATE TABLE active_route_orders (
    order_id INTEGER PRIMARY KEY REFERENCES orders(id),
    route_id INTEGER NOT NULL REFERENCES routes(id) ON DELETE CASCADE,
    depot_id INTEGER NOT NULL REFERENCES depots(id)
);
CREATE INDEX active_route_orders_by_route ON active_route_orders (route_id);

-- Routes active today: where an older program let an order onto two of them, the oldest
-- route keeps it.
INSERT INTO active_route_orders (order_id, route_id, depot_id)
    SELECT so.order_id, MIN(r.id), MIN(r.depot_id)
    FROM stop_orders so
    JOIN stops s ON s.id = so.stop_id
    JOIN routes r ON r.id = s.route_id
    WHERE r.dispatched = 1 AND r.completed_ts IS NULL
    GROUP BY so.order_id;
