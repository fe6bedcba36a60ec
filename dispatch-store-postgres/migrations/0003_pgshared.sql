-- Rate-limit windows shared by every API node (dispatch_core::ports::rate_limit): one row per
-- caller and tier with the times (ms) of the requests let through within the longest window,
-- oldest first. A row idle for longer than any window holds nothing and is dropped.
CREATE TABLE rate_limit_windows (
    caller_kind TEXT NOT NULL,
    caller_id BIGINT NOT NULL,
    tier TEXT NOT NULL,
    hits BIGINT[] NOT NULL,
    updated BIGINT NOT NULL,
    PRIMARY KEY (caller_kind, caller_id, tier)
);
CREATE INDEX rate_limit_windows_updated ON rate_limit_windows (updated);

-- Lets one request through at now_ms when each window (limits[i] requests in periods[i] ms)
-- has room, and records it; returns 0, or the ms until it would fit. One call is one
-- statement: the row lock (taken by the upsert) orders concurrent calls of one caller and
-- tier across nodes. Time never runs backwards for a row (a node whose clock is behind counts
-- at the row's latest time), as the in-process limiter does with its own clock.
CREATE FUNCTION dispatch_rate_admit(
    kind TEXT, id BIGINT, tier_name TEXT, now_ms BIGINT, limits_text TEXT, periods_text TEXT
) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    limits BIGINT[] := string_to_array(limits_text, ',')::BIGINT[];
    periods BIGINT[] := string_to_array(periods_text, ',')::BIGINT[];
    kept BIGINT[];
    previous BIGINT;
    inside BIGINT[];
    wait BIGINT := 0;
    n INT;
BEGIN
    -- Changes nothing on an existing row but locks it and returns it as it was.
    INSERT INTO rate_limit_windows AS w (caller_kind, caller_id, tier, hits, updated)
    VALUES (kind, id, tier_name, '{}', now_ms)
    ON CONFLICT (caller_kind, caller_id, tier) DO UPDATE SET updated = w.updated
    RETURNING w.hits, w.updated INTO kept, previous;
    now_ms := GREATEST(now_ms, previous);
    FOR i IN 1 .. array_length(limits, 1) LOOP
        inside := ARRAY(SELECT h FROM unnest(kept) h WHERE h > now_ms - periods[i] ORDER BY h);
        n := coalesce(array_length(inside, 1), 0);
        IF n >= limits[i] THEN
            -- The request that must leave this window before one more fits.
            wait := GREATEST(wait, inside[n - limits[i] + 1] + periods[i] - now_ms, 1);
        END IF;
    END LOOP;
    UPDATE rate_limit_windows
    SET hits = CASE WHEN wait > 0 THEN kept ELSE ARRAY(
            SELECT h FROM unnest(kept) h
            WHERE h > now_ms - (SELECT max(p) FROM unnest(periods) p) ORDER BY h
        ) || now_ms END,
        updated = now_ms
    WHERE caller_kind = kind AND caller_id = id AND tier = tier_name;
    -- When a caller's row enters a new minute, drop the rows idle beyond any window (an hour).
    IF previous / 60000 <> now_ms / 60000 THEN
        DELETE FROM rate_limit_windows WHERE updated < now_ms - 3600000;
    END IF;
    RETURN wait;
END
$$;
