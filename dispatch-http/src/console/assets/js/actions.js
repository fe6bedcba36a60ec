// The board's route and plan buttons: dispatch (a route, or every route of a plan), reverse,
// lock and unlock, and the driver's app hand-over. Each calls the v2 API and reads the day
// again; a dispatch's `dropped_orders` (orders left off because they changed since the plan
// was made) are kept to show on their routes.

import { showHandOver } from "./details.js";

const ACTIONS = {
  "dispatch-plan": {
    call: (api, id) => api.post(`v2/plans/${id}/dispatch`),
    confirm: (n) => `Dispatch every route of ${n} to its driver? Dispatch cannot be undone.`,
    done: (n) => `${n} dispatched.`,
  },
  "dispatch-route": {
    call: (api, id) => api.post(`v2/routes/${id}/dispatch`),
    confirm: (n) => `Dispatch ${n} to its driver? Dispatch cannot be undone.`,
    done: (n) => `${n} dispatched.`,
  },
  "reverse-route": {
    call: (api, id) => api.post(`v2/routes/${id}/reverse`),
    done: (n) => `${n} reversed: its stops are now visited in the opposite order.`,
  },
  "lock-route": {
    call: (api, id) => api.put(`v2/routes/${id}`, { is_locked: true }),
    done: (n) => `${n} locked.`,
  },
  "unlock-route": {
    call: (api, id) => api.put(`v2/routes/${id}`, { is_locked: false }),
    done: (n) => `${n} unlocked.`,
  },
};

/**
 * Runs a button's action on `id` (a plan, route or vehicle) named `name`. `ctx` gives
 * `api()`, `say`, `fail`, `reload()`, `dropped` (an array to add dropped orders to) and
 * `details` (the details box).
 */
export async function act(action, id, name, ctx) {
  if (action === "driver-app") return handOver(ctx, id, name);
  const what = ACTIONS[action];
  if (what.confirm && !window.confirm(what.confirm(name))) return;
  for (const b of document.querySelectorAll("button[data-action]")) b.disabled = true;
  document.body.dataset.state = "loading";
  ctx.say(`${name}: working…`);
  let answer;
  try {
    ({ body: answer } = await what.call(ctx.api(), id));
  } catch (error) {
    ctx.fail(error);
    await ctx.reload();
    return;
  }
  const dropped = answer?.dropped_orders ?? [];
  ctx.dropped.push(...dropped);
  await ctx.reload();
  if (document.body.dataset.state !== "ready") return;
  if (dropped.length > 0) {
    const list = dropped.map((d) => `${d.order_number} (${d.reason_description ?? d.reason})`).join("; ");
    ctx.say(`${what.done(name)} Left off: ${list}.`, true);
  } else {
    ctx.say(what.done(name));
  }
}

/** Makes a driver credential for the van and shows its app link as a QR code. */
async function handOver(ctx, vehicleId, name) {
  ctx.say(`${name}: making a driver credential…`);
  try {
    const { body } = await ctx.api().post(`v2/vehicles/${vehicleId}/driver-credentials`);
    showHandOver(ctx.details, name, body.driver_credential);
    ctx.say(`${name}: a new driver credential; scan its code with the driver's phone.`);
  } catch (error) {
    ctx.fail(error);
  }
}
