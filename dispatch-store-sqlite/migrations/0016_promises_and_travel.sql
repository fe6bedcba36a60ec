-- A stop's planned wait: seconds between arriving and starting service (a time window not open
-- yet). Customer promises count to the service start (arrival plus wait), never to an early
-- arrival. Stops planned before this column existed started service on arrival.
ALTER TABLE stops ADD COLUMN wait INTEGER NOT NULL DEFAULT 0;

-- The travel times an optimisation run planned on (`osrm`, `great-circle`,
-- `great-circle (OSRM unreachable)`); null until its run built the problem.
ALTER TABLE optimisations ADD COLUMN travel TEXT;

-- A visit's re-estimated service start beside its estimated arrival (`eta_ts`): what the
-- customer is promised once the driver reports positions.
ALTER TABLE driver_visits ADD COLUMN start_eta_ts INTEGER;
