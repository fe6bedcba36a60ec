// Which actions the service would refuse, and why: the board disables those buttons and says
// why instead of letting a click fail. The rules are the service's own (docs/api.md).

export const READ_ONLY = "this access key may only read";

/** Why the plan cannot be dispatched now (null: it can). */
export function planDispatchRefusal(board, plan) {
  if (board.readOnly) return READ_ONLY;
  if (plan.optimisation?.in_progress) return "the plan is still optimising";
  if (plan.routes.length === 0) return "the plan has no routes";
  if (plan.routes.every((r) => r.dispatched)) return "every route is dispatched";
  if (plan.routes.some((r) => !r.dispatched && !r.vehicle)) return "a route has no vehicle";
  return null;
}

/** Why a route cannot be dispatched now. */
export function routeDispatchRefusal(board, r) {
  if (board.readOnly) return READ_ONLY;
  if (r.route.dispatched) return "already dispatched";
  if (!r.route.vehicle) return "the route has no vehicle";
  if (r.plan.optimisation?.in_progress) return "the plan is still optimising";
  return null;
}

/** Why a route cannot be reversed now. */
export function reverseRefusal(board, r) {
  if (board.readOnly) return READ_ONLY;
  if (r.status === "completed") return "the driver completed the route";
  if (r.stops.length < 2) return "fewer than two stops";
  if (r.plan.optimisation?.in_progress) return "the plan is still optimising";
  return null;
}

/** Why a route's lock cannot be changed now. */
export function lockRefusal(board, r) {
  if (board.readOnly) return READ_ONLY;
  if (r.plan.optimisation?.in_progress) return "the plan is still optimising";
  return null;
}

/** Why orders cannot be added to a route now. */
export function addRefusal(board, r) {
  if (board.readOnly) return READ_ONLY;
  if (r.status === "completed") return "the driver completed the route";
  if (r.plan.optimisation?.in_progress) return "the plan is still optimising";
  return null;
}

/** Why a stop's orders cannot be taken off its route now. */
export function removeRefusal(board, s) {
  if (board.readOnly) return READ_ONLY;
  if (s.status !== "planned") return `the stop is ${s.status}`;
  if (s.r.plan.optimisation?.in_progress) return "the plan is still optimising";
  return null;
}

/** Why an optimisation cannot be started. */
export function optimiseRefusal(board) {
  if (!board) return "show a day first";
  if (board.readOnly) return READ_ONLY;
  if (board.plans.some((p) => p.optimisation?.in_progress)) return "an optimisation of this day is running";
  return null;
}
