// Loading one date's board through the API: the depot (position, time zone, what the key may
// do), the plans of the date, the day's orders, the fleet and where the drivers take breaks.
//
// GET /plans lists plan summaries (no date of their own, but each route has one), so the
// summaries are paged through; a plan is read in full (GET /plans/{id}) when one of its routes
// is on the date, or when it has no routes yet (still optimising, or nothing could be placed),
// where only the full plan's date tells.

/** The depot: `{ depot, permission }` (`GET /console/depot`). */
export async function loadDepot(api) {
  const { body } = await api.get("console/depot");
  return body;
}

/** The full plans of `date` (YYYY-MM-DD), oldest first. */
export async function loadPlans(api, date) {
  const candidates = [];
  for await (const page of api.pages("v2/plans?limit=100")) {
    for (const plan of page.plans) {
      if (plan.routes.length === 0 || plan.routes.some((r) => r.date === date)) {
        candidates.push(plan.id);
      }
    }
  }
  const plans = [];
  for (const id of candidates) {
    const plan = await loadPlan(api, id);
    if (plan && (plan.date === date || plan.routes.some((r) => r.date === date))) plans.push(plan);
  }
  plans.sort((a, b) => a.id - b.id);
  return plans;
}

/** One full plan (null once deleted). */
export async function loadPlan(api, id) {
  try {
    const { body } = await api.get(`v2/plans/${id}`);
    return body.plan;
  } catch (error) {
    if (error.statusCode === 404) return null;
    throw error;
  }
}

/** The orders due on `date` (`GET /console/orders`), as a Map by id. */
export async function loadOrders(api, date) {
  const { body } = await api.get(`console/orders?date=${encodeURIComponent(date)}`);
  return new Map(body.orders.map((o) => [o.id, o]));
}

/**
 * Adds to `orders` those the plans list as unserved that are not due on the date (an
 * optimisation of listed ids leaves them with reason DELIVERY_DATE), so they show by number.
 */
export async function addUnservedOrders(api, date, plans, orders) {
  const missing = [...new Set(plans.flatMap((p) => p.unserved.map((u) => u.id)))].filter((id) => !orders.has(id));
  for (let i = 0; i < missing.length; i += 500) {
    const query = new URLSearchParams({ date, ids: missing.slice(i, i + 500).join(",") });
    const { body } = await api.get(`console/orders?${query}`);
    for (const o of body.orders) orders.set(o.id, o);
  }
  return orders;
}

/** The fleet as a Map by id (`GET /v2/vehicles`: shifts and breaks). */
export async function loadVehicles(api) {
  const { body } = await api.get("v2/vehicles");
  return new Map(body.vehicles.map((v) => [String(v.id), v]));
}

/** The latest position of each started route of `date`, as a Map by route id. */
export async function loadPositions(api, date) {
  const { body } = await api.get(`console/positions?date=${encodeURIComponent(date)}`);
  return new Map(body.positions.map((p) => [p.route_id, p]));
}

/**
 * Each route's line along the roads (`GET /console/roads`) for the plans listed: a Map route id
 * -> {stop_ids, points, roads}, and the plans' warnings (OSRM could not answer) by plan id.
 */
export async function loadRoads(api, planIds) {
  const lines = new Map();
  const warnings = new Map();
  for (const id of planIds) {
    const { body } = await api.get(`console/roads?plan=${id}`);
    for (const line of body.routes) lines.set(line.route_id, line);
    if (body.warning) warnings.set(id, body.warning);
  }
  return { lines, warnings };
}

/**
 * Where the plans listed have each route's driver take the break (`GET /console/breaks`): a
 * Map route id -> [{start_date, start_time, end_date, end_time}].
 */
export async function loadBreaks(api, planIds) {
  const breaks = new Map();
  for (const id of planIds) {
    const { body } = await api.get(`console/breaks?plan=${id}`);
    for (const route of body.routes) breaks.set(route.route_id, route.breaks);
  }
  return breaks;
}

/** Everything the board draws for `date`. */
export async function loadDay(api, date) {
  const [{ depot, permission, roads }, plans, vehicles, positions, due] = await Promise.all([
    loadDepot(api), loadPlans(api, date), loadVehicles(api), loadPositions(api, date), loadOrders(api, date),
  ]);
  const [orders, breaks] = await Promise.all([addUnservedOrders(api, date, plans, due), loadBreaks(api, plans.map((p) => p.id))]);
  return { date, depot, permission, roads, plans, vehicles, orders, positions, breaks };
}
