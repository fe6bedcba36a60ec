// The plans of one date, read through the v2 API.
//
// GET /plans lists plan summaries (no date of their own, but each route has one), so the
// summaries are paged through; a plan is read in full (GET /plans/{id}) when one of its routes
// is on the date, or when it has no routes yet (still optimising, or nothing could be placed),
// where only the full plan's date tells.

/**
 * @returns {Promise<{depot: object|null, plans: object[]}>} the depot and the full plans of
 * `date` (YYYY-MM-DD), oldest first.
 */
export async function loadDay(api, date) {
  // The depot's position is not part of the v2 depot: the console's own endpoint has it.
  const { body: depot } = await api.get("console/depot");
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
    const { body } = await api.get(`v2/plans/${id}`);
    const plan = body.plan;
    if (plan.date === date || plan.routes.some((r) => r.date === date)) plans.push(plan);
  }
  plans.sort((a, b) => a.id - b.id);
  return { depot: depot.depot, plans };
}

/** Counts over a day, for the status line. */
export function dayCounts(plans) {
  const routes = plans.flatMap((p) => p.routes);
  return {
    plans: plans.length,
    routes: routes.length,
    stops: routes.reduce((n, r) => n + r.stops.length, 0),
    unserved: plans.reduce((n, p) => n + p.unserved.length, 0),
  };
}
