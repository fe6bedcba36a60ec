-- Revoked access-key names (`dispatch keys revoke`). Keys are derived from the installation
-- secret, the depot and the name; the generation joins the derivation, so a key created again
-- under a revoked name is a new key and the revoked one never authenticates again.
CREATE TABLE access_key_revocations (
    depot_id   INTEGER NOT NULL REFERENCES depots(id),
    name       TEXT NOT NULL,
    generation INTEGER NOT NULL,
    revoked    INTEGER NOT NULL,
    PRIMARY KEY (depot_id, name)
);
