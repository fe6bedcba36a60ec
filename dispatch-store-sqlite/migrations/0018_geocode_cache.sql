-- Answers of the outside geocoder (`serve --geocoder-url`), kept so that one address is asked
-- once: per organisation, by the normalised question (address, postcode and country, trimmed,
-- lower case, inner whitespace collapsed). `lat` and `lng` are null when the geocoder found
-- nothing; `asked` (milliseconds) dates the answer, so a "nothing found" can be asked again
-- later. Failures to ask (timeouts, refusals, server errors) are never kept.
CREATE TABLE geocode_cache (
    organisation_id INTEGER NOT NULL REFERENCES organisations(id),
    query           TEXT NOT NULL,
    lat             REAL,
    lng             REAL,
    asked           INTEGER NOT NULL,
    PRIMARY KEY (organisation_id, query)
);
