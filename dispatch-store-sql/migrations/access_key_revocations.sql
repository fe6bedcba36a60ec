-- Revoked access-key names (`dispatch keys revoke`): SQLite's migration 11, PostgreSQL's 2.
-- Keys are derived from the installation secret, the depot and the name; the generation joins
-- the derivation, so a key created again under a revoked name is a new key and the revoked one
-- never authenticates again.
CREATE TABLE access_key_revocations (
    depot_id   BIGINT NOT NULL REFERENCES depots(id),
    name       TEXT NOT NULL,
    generation BIGINT NOT NULL,
    revoked    BIGINT NOT NULL,
    PRIMARY KEY (depot_id, name)
);
