-- Events out: webhook delivery records on the outbox, and customer notification tasks.

-- A delivery's outcome: NULL while pending, then DELIVERED, ERROR or SKIPPED (no receiver).
ALTER TABLE event_outbox ADD COLUMN outcome TEXT CHECK (outcome IN ('DELIVERED', 'ERROR', 'SKIPPED'));
ALTER TABLE event_outbox ADD COLUMN finished INTEGER;
ALTER TABLE event_outbox ADD COLUMN last_error TEXT;
-- A re-send is a new row repeating the event of the row it names.
ALTER TABLE event_outbox ADD COLUMN resend_of INTEGER REFERENCES event_outbox(id);
CREATE INDEX event_outbox_open ON event_outbox (id) WHERE outcome IS NULL;
CREATE INDEX event_outbox_open_by_depot ON event_outbox (depot_id, id) WHERE outcome IS NULL;
CREATE INDEX event_outbox_by_outcome ON event_outbox (outcome, id);

-- Customer notification tasks. `claimed` is set, in its own commit, before a task is handed to
-- its sender: a claimed task is never sent again (one interrupted by a crash ends Failed).
CREATE TABLE notification_tasks (
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
    status       TEXT NOT NULL CHECK (status IN ('Scheduled', 'Sent', 'Failed', 'Cancelled')),
    claimed      INTEGER,
    sender       TEXT,
    error        TEXT,
    created      INTEGER NOT NULL,
    updated      INTEGER NOT NULL
);
CREATE INDEX notification_tasks_list ON notification_tasks (depot_id, updated DESC, id DESC);
CREATE INDEX notification_tasks_due ON notification_tasks (scheduled, id)
    WHERE status = 'Scheduled' AND claimed IS NULL;
CREATE INDEX notification_tasks_claimed ON notification_tasks (claimed)
    WHERE status = 'Scheduled' AND claimed IS NOT NULL;
CREATE INDEX notification_tasks_by_order ON notification_tasks (depot_id, order_id, template_id)
    WHERE status = 'Scheduled';

-- A depot's automatic notifications (seed: settings.notifications).
CREATE TABLE depot_notification_settings (
    depot_id                   INTEGER PRIMARY KEY REFERENCES depots(id),
    planned_start_template_id  INTEGER,
    on_delivery_template_id    INTEGER,
    on_delivery_window_minutes INTEGER
);
