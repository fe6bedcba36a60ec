// The details box: a stop (what was planned, what the driver reported, its orders) or an
// unassigned order, each with the keyboard path of drag and drop: "Move to…" a route (or back
// to unassigned) and a Move button. Also the driver's app hand-over (a QR code).

import { clock, el } from "./format.js";
import { addRefusal, removeRefusal } from "./rules.js";
import { describeDemand, describeWindows } from "./unassigned.js";

function closer(box, onClose) {
  const close = el("button", { type: "button", "data-action": "close-details" }, "Close");
  close.addEventListener("click", () => { box.hidden = true; onClose?.(); });
  return close;
}

/** The "Move to…" control: routes that take orders, and (for a stop) the unassigned list. */
function moveControl(board, label, from, blocked, onMove) {
  const select = el("select", { id: "move-target", "aria-label": `Move ${label} to` },
    el("option", { value: "" }, "Move to…"),
    from !== null ? el("option", { value: "unassigned" }, "Unassigned") : null,
    board.routes.filter((r) => r.route.id !== from).map((r) => {
      const refused = addRefusal(board, r);
      return el("option", { value: r.route.id, disabled: refused !== null }, refused ? `${r.route.name} (${refused})` : r.route.name);
    }));
  const reoptimize = el("input", { type: "checkbox", id: "move-reoptimize" });
  const go = el("button", { type: "button", class: "primary", "aria-label": `Move ${label}`, disabled: blocked !== null, title: blocked }, "Move");
  go.addEventListener("click", () => {
    if (!select.value) return;
    onMove(select.value === "unassigned" ? null : Number(select.value), { reoptimize: reoptimize.checked });
  });
  return el("div", { class: "move" },
    select,
    el("label", { class: "inline" }, reoptimize, "Let the service place it (reoptimize)"),
    go,
    blocked ? el("p", { class: "reasons" }, `Move: ${blocked}.`) : null);
}

/** Shows one stop. `onMove(to, options)` moves its orders. */
export function showStop(box, board, s, onMove, onClose) {
  const { r, stop } = s;
  const facts = [
    ["Route", `${r.route.name} (${r.status})`],
    ["Stop", `${s.n} of ${r.stops.length}`],
    ["Orders", s.numbers || "—"],
    ["Customer", s.orders.map((o) => o.customer?.name ?? o.contact_name).filter(Boolean).join(", ") || "—"],
    ["Address", [stop.address, stop.postcode].filter(Boolean).join(", ") || "—"],
    ["Window", s.orders[0] ? describeWindows(s.orders[0]) : "—"],
    ["Arrival", `${clock(s.arrival)} (${stop.arrival_date})`],
    ["Service", `${clock(s.start)}–${clock(s.departure)}${s.start > s.arrival ? ` after ${Math.round(s.start - s.arrival)} min waiting` : ""}`],
    ["Demand", s.orders.map((o) => (o.demand ? describeDemand(o) : "")).filter(Boolean).join("; ") || "—"],
    ["Status", s.status === "failed" && s.reason ? `failed: ${s.reason}` : s.status],
  ];
  if (s.late) facts.push(["Warning", "planned outside its time window"]);
  if (s.liveStart !== null) facts.push(["Now expected", `${clock(s.liveStart)}${s.liveLate ? " (late)" : ""}`]);
  if (stop.actual_arrival_time) facts.push(["Arrived", board.zone.show(stop.actual_arrival_time, board.date)]);
  if (stop.actual_completed_ts) facts.push(["Completed", board.zone.show(stop.actual_completed_ts, board.date)]);
  if (stop.driver_notes) facts.push(["Driver's notes", stop.driver_notes]);
  if (stop.phone) facts.push(["Phone", stop.phone]);
  if (stop.delivery_notes) facts.push(["Notes", stop.delivery_notes]);
  const label = s.numbers || `stop ${s.n}`;
  box.replaceChildren(
    el("h3", {}, `${r.route.name} · stop ${s.n}`),
    el("dl", {}, facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])),
    moveControl(board, label, r.route.id, removeRefusal(board, s), onMove),
    closer(box, onClose),
  );
  box.dataset.stopId = stop.id;
  delete box.dataset.orderId;
  box.hidden = false;
}

/** Shows one unassigned order with why it is unassigned. */
export function showOrder(box, board, order, why, onMove, onClose) {
  const facts = [
    ["Order", order.order_number],
    ["Status", order.status],
    ["Customer", order.customer?.name ?? order.customer?.account ?? order.contact_name ?? "—"],
    ["Address", [order.address, order.postcode].filter(Boolean).join(", ") || "—"],
    ["Due", order.delivery_date ?? "—"],
    ["Window", describeWindows(order)],
    ["Service", `${Math.round(order.service_seconds / 60)} min`],
    ["Demand", describeDemand(order)],
    ["Skills", order.skills.join(", ") || "—"],
    ["Why unassigned", why],
  ];
  box.replaceChildren(
    el("h3", {}, `Order ${order.order_number}`),
    el("dl", {}, facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])),
    moveControl(board, order.order_number, null, board.readOnly ? "this access key may only read" : null, onMove),
    closer(box, onClose),
  );
  box.dataset.orderId = order.id;
  delete box.dataset.stopId;
  box.hidden = false;
}

/**
 * Shows a new driver credential's app link and its QR code (`driver_credential` as
 * `POST /v2/vehicles/{id}/driver-credentials` answers it) in the details box, for the driver's
 * phone to scan. Shown this once: the service keeps only the credential's digest.
 */
export function showHandOver(box, vehicleName, credential) {
  const svg = new DOMParser().parseFromString(credential.app_link_qr_svg, "image/svg+xml").documentElement;
  const link = el("input", { type: "text", readonly: true, id: "driver-app-link", value: credential.app_link });
  box.replaceChildren(
    el("h3", {}, `Driver's app for ${vehicleName}`),
    el("p", {}, "Scan this code with the driver's phone camera. It is shown only now; revoke the credential if the phone is lost."),
    el("div", { class: "qr" }, document.importNode(svg, true)),
    el("label", { for: "driver-app-link" }, "Or send the driver this link"),
    link,
    closer(box),
  );
  delete box.dataset.stopId;
  delete box.dataset.orderId;
  box.hidden = false;
}
