-- Line-item and access-key ids are never handed out again once their row is deleted, as on
-- PostgreSQL (identity columns) and in the memory store; vehicle ids got the same in 0014.
-- SQLite's default rowid takes one past the largest id left, so removing an order's newest
-- line item gave its id to the next line item created (a client holding it found another
-- product), and revoking the newest access key gave its id to the next key created, whose
-- caller then shared the revoked key's idempotency records (kept per key id) and could be
-- replayed its responses. Ids now come from AUTOINCREMENT allocators, started past every id
-- handed out so far.

CREATE TABLE line_item_ids (
    id INTEGER PRIMARY KEY AUTOINCREMENT
);
INSERT INTO sqlite_sequence (name, seq)
    SELECT 'line_item_ids', COALESCE(MAX(id), 0) FROM order_line_items;

CREATE TABLE access_key_ids (
    id INTEGER PRIMARY KEY AUTOINCREMENT
);
INSERT INTO sqlite_sequence (name, seq)
    SELECT 'access_key_ids', COALESCE(MAX(id), 0) FROM access_keys;
