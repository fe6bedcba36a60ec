-- Proof of delivery (issue 11): questionnaire definitions and submissions, uploaded images
-- (kept as uploaded until the background compressor stores their WebP copy), stop signatures
-- and customer tracking tokens. Proof is filed under (route, first order of the stop): route
-- edits rebuild stops under new ids. No foreign keys to routes or stops: proof of delivery
-- outlives the plan it was taken on.

-- `questions`: JSON array of {id, type, question, required, options}.
CREATE TABLE questionnaires (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    depot_id  INTEGER NOT NULL REFERENCES depots(id),
    type      TEXT NOT NULL,
    title     TEXT NOT NULL,
    questions TEXT NOT NULL,
    created   INTEGER NOT NULL,
    updated   INTEGER NOT NULL,
    UNIQUE (depot_id, title)
);

CREATE TABLE questionnaire_submissions (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    depot_id         INTEGER NOT NULL REFERENCES depots(id),
    questionnaire_id INTEGER NOT NULL REFERENCES questionnaires(id),
    type             TEXT NOT NULL,
    title            TEXT NOT NULL,
    route_id         INTEGER NOT NULL,
    stop_id          INTEGER,
    order_id         INTEGER,
    created          INTEGER NOT NULL
);
CREATE INDEX questionnaire_submissions_by_route
    ON questionnaire_submissions (depot_id, route_id, order_id);

CREATE TABLE questionnaire_answers (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    depot_id      INTEGER NOT NULL REFERENCES depots(id),
    submission_id INTEGER NOT NULL REFERENCES questionnaire_submissions(id),
    position      INTEGER NOT NULL,
    type          TEXT NOT NULL,
    question      TEXT NOT NULL,
    data          TEXT NOT NULL
);
CREATE INDEX questionnaire_answers_by_submission ON questionnaire_answers (submission_id, position);

-- `upload` is dropped once `webp` is stored; `failure` keeps the upload served as it came.
CREATE TABLE pod_images (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    depot_id      INTEGER NOT NULL REFERENCES depots(id),
    kind          TEXT NOT NULL CHECK (kind IN ('PHOTO', 'SIGNATURE', 'ANSWER')),
    route_id      INTEGER NOT NULL,
    stop_id       INTEGER,
    order_id      INTEGER,
    answer_id     INTEGER REFERENCES questionnaire_answers(id),
    lossless      INTEGER NOT NULL,
    original_type TEXT NOT NULL,
    width         INTEGER NOT NULL,
    height        INTEGER NOT NULL,
    size          INTEGER NOT NULL,
    upload        BLOB,
    webp          BLOB,
    failure       TEXT,
    created       INTEGER NOT NULL,
    compressed    INTEGER
);
CREATE INDEX pod_images_pending ON pod_images (id) WHERE webp IS NULL AND failure IS NULL;
CREATE INDEX pod_images_by_visit ON pod_images (depot_id, route_id, order_id, kind);
CREATE INDEX pod_images_by_answer ON pod_images (answer_id);

CREATE TABLE stop_signatures (
    depot_id  INTEGER NOT NULL REFERENCES depots(id),
    route_id  INTEGER NOT NULL,
    order_id  INTEGER NOT NULL,
    stop_id   INTEGER NOT NULL,
    image_id  INTEGER NOT NULL REFERENCES pod_images(id),
    signed_by TEXT NOT NULL,
    lat       REAL,
    lng       REAL,
    created   INTEGER NOT NULL,
    PRIMARY KEY (depot_id, route_id, order_id)
);

CREATE TABLE tracking_tokens (
    token    TEXT PRIMARY KEY,
    depot_id INTEGER NOT NULL REFERENCES depots(id),
    order_id INTEGER NOT NULL,
    created  INTEGER NOT NULL,
    UNIQUE (depot_id, order_id)
);
