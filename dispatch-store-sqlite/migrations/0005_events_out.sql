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
