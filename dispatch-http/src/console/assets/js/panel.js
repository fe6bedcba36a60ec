// The left-hand panel: each plan with its optimisation (state, travel times, warnings), its
// route cards (status, facts, progress, what the dispatch dropped) and their buttons. A button
// the service would refuse is disabled and the reason is written beside it.

import { count, duration, el, km } from "./format.js";
import { lockRefusal, planDispatchRefusal, reverseRefusal, routeDispatchRefusal } from "./rules.js";

/**
 * Renders the board's plans into `panel`. `act(action, id, name)` runs a button's action
 * ("dispatch-plan", "dispatch-route", "reverse-route", "lock-route", "unlock-route",
 * "driver-app"); `decorate(li, r)` lets the caller make route cards drop targets.
 */
export function renderPanel(panel, board, act, decorate = () => {}) {
  panel.replaceChildren();
  if (board.plans.length === 0) {
    panel.append(el("p", { class: "empty" }, "No plans on this date."));
    return;
  }
  for (const plan of board.plans) panel.append(planCard(board, plan, act, decorate));
}

/** Redraws the cards of `routes` only (after a move; their plan cards stay). */
export function updateRouteCards(panel, board, routes, act, decorate = () => {}) {
  for (const r of routes) {
    panel.querySelector(`li.route[data-route-id="${r.route.id}"]`)?.replaceWith(routeItem(board, r, act, decorate));
  }
}

/** A button running `act(action, id, name)`, disabled with `refusal` shown when not null. */
function button(act, { label, name, action, id, refusal, primary = false, pressed, aria }) {
  const b = el("button", {
    type: "button", class: primary ? "primary" : null, "data-action": action, "data-id": id,
    "aria-label": aria ?? `${label} ${name}`, disabled: refusal !== null, title: refusal,
    "aria-pressed": pressed === undefined ? null : String(pressed),
  }, label);
  b.addEventListener("click", () => act(action, id, name));
  return b;
}

/** The reasons of a card's disabled buttons, written out (and linked to the buttons). */
function reasons(buttons, id) {
  const lines = buttons.filter((b) => b.disabled && b.title).map((b) => `${b.textContent}: ${b.title}.`);
  if (lines.length === 0) return null;
  for (const b of buttons) if (b.disabled) b.setAttribute("aria-describedby", id);
  return el("p", { class: "reasons", id }, lines.join(" "));
}

function planCard(board, plan, act, decorate) {
  const job = plan.optimisation;
  const refusal = planDispatchRefusal(board, plan);
  const dispatchPlan = plan.routes.length > 0
    ? button(act, { label: "Dispatch plan", name: `plan ${plan.id}`, action: "dispatch-plan", id: plan.id, refusal, primary: true, aria: `Dispatch plan ${plan.id}` })
    : null;
  const head = el("h2", {},
    `Plan ${plan.id}`,
    plan.dispatched ? el("span", { class: "badge dispatched" }, "dispatched") : null,
    job?.in_progress ? el("span", { class: "badge" }, `optimising (${job.state ?? "running"})…`) : null,
    dispatchPlan,
  );
  const card = el("article", { class: "plan", "data-plan-id": plan.id, "aria-label": `Plan ${plan.id}` }, head);
  if (dispatchPlan) {
    const why = reasons([dispatchPlan], `plan-${plan.id}-reasons`);
    if (why && plan.routes.some((r) => !r.dispatched)) card.append(why);
  }
  // A degraded plan (straight-line travel times because OSRM was down) is announced, not hidden.
  for (const warning of job?.warnings ?? []) {
    card.append(el("p", { class: "warning", role: "alert" }, `Warning: ${warning}`));
  }
  if (job?.state === "failed" || job?.state === "cancelled") {
    card.append(el("p", { class: "warning", role: "alert" }, `Optimisation ${job.state}: ${job.error ?? "no reason given"}`));
  }
  if (job?.travel_times) card.append(el("p", { class: "travel" }, `Travel times: ${job.travel_times}`));
  const roads = board.roadWarnings?.get(plan.id);
  if (roads) card.append(el("p", { class: "warning", role: "alert" }, `Map: ${roads}`));
  if (plan.routes.length === 0 && plan.unserved.length === 0) {
    card.append(el("p", { class: "empty" }, job?.in_progress ? "Optimising: no result yet." : "No routes."));
  }
  const list = el("ul", { class: "routes" });
  for (const r of board.routes.filter((x) => x.plan === plan)) list.append(routeItem(board, r, act, decorate));
  card.append(list);
  return card;
}

function routeItem(board, r, act, decorate) {
  const { route } = r;
  const swatch = el("span", { class: "swatch" });
  swatch.style.background = r.colour;
  const van = route.vehicle?.name;
  const vehicle = van && van !== route.name ? ` · ${van}` : "";
  const done = r.stops.filter((s) => s.status !== "planned" && s.status !== "arrived").length;
  const buttons = [
    button(act, { label: "Dispatch", name: route.name, action: "dispatch-route", id: route.id, refusal: routeDispatchRefusal(board, r), primary: true }),
    button(act, { label: "Reverse", name: route.name, action: "reverse-route", id: route.id, refusal: reverseRefusal(board, r) }),
    button(act, {
      label: route.is_locked ? "Unlock" : "Lock", name: route.name, action: route.is_locked ? "unlock-route" : "lock-route",
      id: route.id, refusal: lockRefusal(board, r), pressed: route.is_locked,
    }),
  ];
  if (route.vehicle && !board.readOnly) {
    buttons.push(button(act, { label: "Driver's app", name: route.vehicle.name, aria: `Driver's app for ${route.vehicle.name}`, action: "driver-app", id: route.vehicle.vehicle_id, refusal: null }));
  }
  const li = el("li", { class: "route", "data-route-id": route.id, "aria-label": `Route ${route.name}` },
    el("div", { class: "route-head" },
      swatch,
      `${route.name}${vehicle}`,
      el("span", { class: `badge ${r.status.replace(" ", "-")}` }, r.status),
      r.runningLate ? el("span", { class: "badge late" }, "running late") : null,
      r.late ? el("span", { class: "badge late", title: "a stop is planned outside its time window" }, "outside a window") : null,
      route.is_locked ? el("span", { class: "badge" }, "locked") : null,
    ),
    el("div", { class: "route-facts" },
      `${count(route.stops.length, "stop")} · ${km(route.planned_distance)} · ${route.start_time}–${route.end_time} · ${duration(route.total_time)} (driving ${duration(route.travel_time)})`,
    ),
    route.dispatched ? el("div", { class: "route-progress" }, progress(board, r, done)) : null,
    el("div", { class: "route-actions" }, buttons),
    reasons(buttons, `route-${route.id}-reasons`),
    dropped(board, route.id),
  );
  decorate(li, r);
  return li;
}

function progress(board, r, done) {
  const failed = r.stops.filter((s) => s.status === "failed").length;
  const parts = [`${done} of ${r.stops.length} stops done`];
  if (failed) parts.push(`${failed} failed`);
  if (r.route.started_ts) parts.push(`started ${board.zone.show(r.route.started_ts, board.date)}`);
  if (r.route.completed_ts) parts.push(`completed ${board.zone.show(r.route.completed_ts, board.date)}`);
  if (r.position) parts.push(`last position ${board.zone.show(r.position.time, board.date)}`);
  return parts.join(" · ");
}

/** Orders a dispatch of this route left off, and why (from the dispatch's answer). */
function dropped(board, routeId) {
  const list = (board.dropped ?? []).filter((d) => d.route_id === routeId);
  if (list.length === 0) return null;
  return el("div", { class: "dropped" },
    el("h3", {}, `Dropped at dispatch (${list.length})`),
    el("ul", {}, list.map((d) => el("li", {}, `${d.order_number}: ${d.reason_description ?? d.reason}`))));
}
