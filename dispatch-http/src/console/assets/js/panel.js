// The left-hand panel: each plan with its route summaries, dispatch and reverse buttons, and
// the orders left unplaced; and the stop details shown when a stop marker is clicked.

import { count, duration, el, km } from "./format.js";

/**
 * Renders `plans` into `panel`. `colours` maps a route id to its colour; `act(action, id,
 * name)` runs a button's action ("dispatch-plan", "dispatch-route", "reverse-route").
 */
export function renderPanel(panel, plans, colours, act) {
  panel.replaceChildren();
  if (plans.length === 0) {
    panel.append(el("p", { class: "empty" }, "No plans on this date."));
    return;
  }
  for (const plan of plans) panel.append(planCard(plan, colours, act));
}

/** A button running `act(action, id, name)`; `name` is what a confirmation names. */
function button(act, label, action, id, name, enabled, primary = false) {
  const b = el("button", { type: "button", class: primary ? "primary" : null, "data-action": action, "data-id": id, disabled: !enabled }, label);
  b.addEventListener("click", () => act(action, id, name));
  return b;
}

function planCard(plan, colours, act) {
  const optimising = plan.optimisation?.in_progress === true;
  const undispatched = plan.routes.some((r) => !r.dispatched);
  const head = el("h2", {},
    `Plan ${plan.id}`,
    plan.dispatched ? el("span", { class: "badge dispatched" }, "dispatched") : null,
    optimising ? el("span", { class: "badge" }, "optimising…") : null,
    plan.routes.length > 0
      ? button(act, "Dispatch plan", "dispatch-plan", plan.id, `plan ${plan.id}`, undispatched && !optimising, true)
      : null,
  );
  const card = el("article", { class: "plan", "data-plan-id": plan.id }, head);
  // A degraded plan (straight-line travel times because OSRM was down) is announced, not hidden.
  for (const warning of plan.optimisation?.warnings ?? []) {
    card.append(el("p", { class: "warning", role: "alert" }, `Warning: ${warning}`));
  }
  const travel = plan.optimisation?.travel_times;
  if (travel) card.append(el("p", { class: "travel" }, `Travel times: ${travel}`));
  if (plan.routes.length === 0 && plan.unserved.length === 0) {
    card.append(el("p", { class: "empty" }, optimising ? "Optimising: no result yet." : "No routes."));
  }
  const list = el("ul", { class: "routes" });
  for (const route of plan.routes) list.append(routeItem(route, colours.get(route.id), act));
  card.append(list);
  if (plan.unserved.length > 0) card.append(unservedList(plan.unserved));
  return card;
}

function routeItem(route, colour, act) {
  const swatch = el("span", { class: "swatch" });
  swatch.style.background = colour;
  const van = route.vehicle?.name;
  const vehicle = van && van !== route.name ? ` · ${van}` : "";
  return el("li", { class: "route", "data-route-id": route.id },
    el("div", { class: "route-head" },
      swatch,
      `${route.name}${vehicle}`,
      el("span", { class: route.dispatched ? "badge dispatched" : "badge" }, route.dispatched ? "dispatched" : "not dispatched"),
    ),
    el("div", { class: "route-facts" },
      `${count(route.stops.length, "stop")} · ${km(route.planned_distance)} · ${route.start_time}–${route.end_time} · ${duration(route.total_time)} (driving ${duration(route.travel_time)})`,
    ),
    el("div", { class: "route-actions" },
      button(act, "Dispatch", "dispatch-route", route.id, route.name, !route.dispatched, true),
      button(act, "Reverse", "reverse-route", route.id, route.name, route.stops.length >= 2),
      route.vehicle
        ? button(act, `Driver's app for ${route.vehicle.name}`, "driver-app", route.vehicle.vehicle_id, route.vehicle.name, true)
        : null,
    ),
  );
}

function unservedList(unserved) {
  return el("section", { class: "unserved" },
    el("h3", {}, `Not placed (${unserved.length})`),
    el("ul", {}, unserved.map((u) => el("li", { "data-order-id": u.id },
      `Order ${u.id}: ${u.address ?? u.postcode ?? "no address"}`,
      u.reason ? ` — ${u.reason_description ?? u.reason}` : "",
      Number.isFinite(u.lat) ? "" : " (no coordinates: not on the map)",
    ))),
  );
}

/**
 * Shows a new driver credential's app link and its QR code (`driver_credential` as
 * `POST /v2/vehicles/{id}/driver-credentials` answers it) in the details box, for the driver's
 * phone to scan. Shown this once: the service keeps only the credential's digest.
 */
export function showHandOver(box, vehicleName, credential) {
  const svg = new DOMParser().parseFromString(credential.app_link_qr_svg, "image/svg+xml").documentElement;
  const close = el("button", { type: "button", "data-action": "close-details" }, "Close");
  close.addEventListener("click", () => { box.hidden = true; });
  const link = el("input", { type: "text", readonly: true, id: "driver-app-link", value: credential.app_link });
  box.replaceChildren(
    el("h3", {}, `Driver's app for ${vehicleName}`),
    el("p", {}, "Scan this code with the driver's phone camera. It is shown only now; revoke the credential if the phone is lost."),
    el("div", { class: "qr" }, document.importNode(svg, true)),
    el("label", { for: "driver-app-link" }, "Or send the driver this link"),
    link,
    close,
  );
  delete box.dataset.stopId;
  box.hidden = false;
}

/** Shows one stop in the details box. */
export function showStop(box, route, stop, number) {
  const facts = [
    ["Route", route.name],
    ["Stop", `${number} of ${route.stops.length}`],
    ["Address", [stop.address, stop.postcode].filter(Boolean).join(", ") || "—"],
    ["Arrival", `${stop.estimated_arrival_time} (${stop.arrival_date})`],
    ["Departure", stop.estimated_departure_time],
    ["Orders", (stop.orders ?? []).map((o) => o.order_number).join(", ") || "—"],
    ["Phone", stop.phone ?? "—"],
    ["Notes", stop.delivery_notes ?? "—"],
    ["Completed", stop.actual_completed_ts ?? "not yet"],
  ];
  const close = el("button", { type: "button", "data-action": "close-details" }, "Close");
  close.addEventListener("click", () => { box.hidden = true; });
  box.replaceChildren(
    el("h3", {}, `${route.name} · stop ${number}`),
    el("dl", {}, facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])),
    close,
  );
  box.dataset.stopId = stop.id;
  box.hidden = false;
}
