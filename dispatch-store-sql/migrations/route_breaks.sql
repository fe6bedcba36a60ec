-- The driver's breaks where a route's plan takes them (the optimiser's or an edit's timing),
-- as JSON: an array of [start, end] pairs in seconds after midnight of the route's date (past
-- 86 400 on a later day), in the order taken. Routes stored before keep none ('[]').
ALTER TABLE routes ADD COLUMN breaks TEXT NOT NULL DEFAULT '[]';
