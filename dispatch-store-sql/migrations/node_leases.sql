-- Several nodes on one database: SQLite's migration 12, PostgreSQL's 4. Which node runs each
-- optimisation job, the best solution a job was handed back with at a graceful stop, and named
-- leases (one depot's webhook deliveries go out from one node at a time).
CREATE TABLE optimisation_leases (
    optimisation_id TEXT PRIMARY KEY REFERENCES optimisations(id) ON DELETE CASCADE,
    holder          TEXT,
    checkpoint      TEXT,
    spent_ms        BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE work_leases (
    name        TEXT PRIMARY KEY,
    holder      TEXT NOT NULL,
    token       BIGINT NOT NULL,
    lease_until BIGINT NOT NULL
);
