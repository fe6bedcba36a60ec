-- As SQLite's 0018: the outside geocoder's answers per organisation and normalised question
-- (null coordinates: nothing found), dated so that a "nothing found" can be asked again.
CREATE TABLE geocode_cache (
    organisation_id BIGINT NOT NULL REFERENCES organisations(id),
    query           TEXT NOT NULL,
    lat             DOUBLE PRECISION,
    lng             DOUBLE PRECISION,
    asked           BIGINT NOT NULL,
    PRIMARY KEY (organisation_id, query)
);
