-- A stop's planned wait: seconds between arriving and starting service (a time window not open
-- yet). Customer promises count to the service start (arrival plus wait), never to an early
-- arrival. Stops planned before this column existed started service on arrival.
ALTER TABLE stops ADD COLUMN wait INTEGER NOT NULL DEFAULT 0;

-- The travel times an optimisation run planned on (`osrm`, `great-circle`,
-- `great-circle (OSRM unreachable)`); null until its run built the problem.
ALTER TABLE optimisations ADD COLUMN travel TEXT;

-- A visit's re-estimated service start beside its estimated arrival (`eta_ts`): what the
-- customer is promised once the driver reports positions.
ALTER TABLE driver_visits ADD COLUMN start_eta_ts INTEGER;

-- Notification tasks handled by the embedded default sender, which delivers nothing, end
-- `Recorded` instead of `Sent`. SQLite cannot change a CHECK constraint in place: the table is
-- rebuilt with the same columns, rows and indexes (nothing references it).
CREATE TABLE notification_tasks_new (
    id           INTEGER PRIMARY KEY,
    depot_id     INTEGER NOT NULL REFERENCES depots(id),
    template_id  INTEGER NOT NULL,
    channel      TEXT NOT NULL CHECK (channel IN ('SMS', 'EMAIL')),
    order_id     INTEGER,
    order_number TEXT,
    visit_id     INTEGER,
    scheduled    INTEGER NOT NULL,
    sent         INTEGER,
    recipient    TEXT NOT NULL,
    subject      TEXT,
    message      TEXT NOT NULL,
    status       TEXT NOT NULL
        CHECK (status IN ('Scheduled', 'Sent', 'Recorded', 'Failed', 'Cancelled')),
    claimed      INTEGER,
    sender       TEXT,
    error        TEXT,
    created      INTEGER NOT NULL,
    updated      INTEGER NOT NULL,
    holder       TEXT,
    attempts     INTEGER NOT NULL DEFAULT 0,
    lease_until  INTEGER
);
INSERT INTO notification_tasks_new (id, depot_id, template_id, channel, order_id, order_number,
    visit_id, scheduled, sent, recipient, subject, message, status, claimed, sender, error,
    created, updated, holder, attempts, lease_until)
SELECT id, depot_id, template_id, channel, order_id, order_number, visit_id, scheduled, sent,
    recipient, subject, message, status, claimed, sender, error, created, updated, holder,
    attempts, lease_until
FROM notification_tasks;
DROP TABLE notification_tasks;
ALTER TABLE notification_tasks_new RENAME TO notification_tasks;
CREATE INDEX notification_tasks_list ON notification_tasks (depot_id, updated DESC, id DESC);
CREATE INDEX notification_tasks_by_order ON notification_tasks (depot_id, order_id, template_id)
    WHERE status = 'Scheduled';
CREATE INDEX notification_tasks_pending ON notification_tasks (scheduled, id)
    WHERE status = 'Scheduled';
