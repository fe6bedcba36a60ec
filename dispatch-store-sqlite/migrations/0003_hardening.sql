-- Idempotency-key records (dispatch_core::ports::idempotency). Earlier versions created this
-- table outside the migrations, hence IF NOT EXISTS. It is part of the schema so that a store
-- transaction can record an idempotent response together with the request's effect.
CREATE TABLE IF NOT EXISTS idempotency_keys (
    access_key_id INTEGER NOT NULL,
    endpoint      TEXT    NOT NULL,
    key           TEXT    NOT NULL,
    body_digest   TEXT    NOT NULL,
    received_at   INTEGER NOT NULL,
    token         TEXT    NOT NULL,
    status        INTEGER,
    content_type  TEXT,
    body          BLOB,
    PRIMARY KEY (access_key_id, endpoint, key)
);
CREATE INDEX IF NOT EXISTS idempotency_keys_received_at ON idempotency_keys (received_at);
