-- As SQLite's 0017: a stop's planned wait (service starts at arrival plus wait) and the travel
-- times an optimisation run planned on.
ALTER TABLE stops ADD COLUMN wait BIGINT NOT NULL DEFAULT 0;
ALTER TABLE optimisations ADD COLUMN travel TEXT;
ALTER TABLE driver_visits ADD COLUMN start_eta_ts BIGINT;
-- Tasks of the embedded default sender (which delivers nothing) end Recorded, not Sent.
ALTER TABLE notification_tasks DROP CONSTRAINT notification_tasks_status_check,
    ADD CONSTRAINT notification_tasks_status_check
    CHECK (status IN ('Scheduled', 'Sent', 'Recorded', 'Failed', 'Cancelled'));
