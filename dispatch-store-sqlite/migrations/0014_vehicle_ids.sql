-- Vehicle ids are never handed out again once their vehicle is deleted, as on PostgreSQL (an
-- identity column) and in the memory store. SQLite's default rowid takes one past the largest
-- id left, so deleting the newest vehicle gave its id to the next one, and a client's
-- GET /vehicles/{old id} answered a different vehicle. Ids now come from an AUTOINCREMENT
-- allocator (as plan ids do from plan_ids), started past every id handed out so far.

CREATE TABLE vehicle_ids (
    id INTEGER PRIMARY KEY AUTOINCREMENT
);
INSERT INTO sqlite_sequence (name, seq) SELECT 'vehicle_ids', COALESCE(MAX(id), 0) FROM vehicles;
