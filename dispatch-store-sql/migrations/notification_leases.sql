-- Notification sends under leases: SQLite's migration 13, PostgreSQL's 5. The node sending a
-- task, how many times a node started sending it, and until when its lease lasts. A task
-- whose node died mid-send is sent again by another node once the lease runs out.
ALTER TABLE notification_tasks ADD COLUMN holder TEXT;
ALTER TABLE notification_tasks ADD COLUMN attempts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE notification_tasks ADD COLUMN lease_until BIGINT;

-- Tasks claimed by an older program were being sent by it: leased for the two minutes after
-- which that program gave them up.
UPDATE notification_tasks SET attempts = 1, lease_until = claimed + 120000
    WHERE status = 'Scheduled' AND claimed IS NOT NULL;

-- Claims look at every Scheduled task by due time, claimed or not (an expired lease is
-- claimable); the pending set is small, so one partial index serves them.
DROP INDEX notification_tasks_due;
DROP INDEX notification_tasks_claimed;
CREATE INDEX notification_tasks_pending ON notification_tasks (scheduled, id)
    WHERE status = 'Scheduled';
