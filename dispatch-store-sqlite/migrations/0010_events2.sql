-- Outbox retention: finished rows are purged by age (oldest first, in small batches), and a
-- row a re-send names is kept while the re-send exists.
CREATE INDEX event_outbox_finished ON event_outbox (outcome, finished) WHERE outcome IS NOT NULL;
CREATE INDEX event_outbox_resends ON event_outbox (resend_of) WHERE resend_of IS NOT NULL;
