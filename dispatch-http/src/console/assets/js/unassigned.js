// The unassigned list: the day's orders no route serves (left out by the optimiser, added
// since, or taken off a route), by order number, with the optimiser's reason, the window, the
// demand and the skills; a filter by reason and a search by order number, customer or address
// over all the day's orders (those on routes are listed with their route and stop).

import { el } from "./format.js";

/** How many unassigned orders are listed before "Show all". */
const LIST_LIMIT = 200;

const describeWindows = (o) => (o.time_windows.length ? o.time_windows.map((w) => `${w.from}–${w.to}`).join(", ") : "any time");
const describeDemand = (o) => (o.demand.length ? o.demand.map((d) => `${d.amount} ${d.type}`).join(", ") : "no demand");

/** What a search matches in an order: its number, customer and address. */
function haystack(o) {
  return [o.order_number, o.customer?.name, o.customer?.account, o.contact_name, o.address, o.postcode]
    .filter(Boolean).join(" ").toLowerCase();
}

/** Why an order is unassigned, in a sentence. */
export function whyUnassigned(u, refusals) {
  const refused = refusals.get(u.order.id);
  if (refused) return refused;
  if (u.reason) return `${u.reason}: ${u.description ?? ""}`.trim();
  return "not in a plan yet";
}

export class Unassigned {
  /**
   * @param {HTMLElement} element the section; `on.order(order)` runs when an order is chosen,
   * `on.stop(s)` when a search result on a route is.
   */
  constructor(element, on) {
    this.element = element;
    this.on = on;
    this.query = "";
    this.filter = "all";
    this.search = el("input", { type: "search", id: "order-search", "aria-label": "Search orders by number, customer or address", placeholder: "Search order, customer, address" });
    this.reasonFilter = el("select", { id: "reason-filter", "aria-label": "Filter unassigned orders by reason" });
    this.heading = el("h2", { id: "unassigned-heading" }, "Unassigned");
    this.list = el("ul", { class: "unassigned-list", "aria-labelledby": "unassigned-heading" });
    this.matches = el("div", { class: "matches" });
    this.search.addEventListener("input", () => { this.query = this.search.value.trim().toLowerCase(); this.draw(); });
    this.reasonFilter.addEventListener("change", () => { this.filter = this.reasonFilter.value; this.draw(); });
    element.replaceChildren(this.heading,
      el("div", { class: "unassigned-tools" }, this.search, this.reasonFilter),
      this.list, this.matches);
    this.board = null;
    this.refusals = new Map();
    this.all = false;
  }

  /** Shows a board's unassigned orders; `decorate(li, order)` makes an item draggable. */
  show(board, refusals, decorate = () => {}) {
    if (board?.date !== this.board?.date) this.all = false;
    this.board = board;
    this.refusals = refusals;
    this.decorate = decorate;
    const reasons = new Set((board?.unassigned ?? []).map((u) => (refusals.has(u.order.id) ? "REFUSED" : u.reason ?? "NEW")));
    const options = [["all", "All reasons"], ...[...reasons].sort().map((r) => [r, r === "NEW" ? "Not planned yet" : r === "REFUSED" ? "Refused moves" : r])];
    if (!options.some(([v]) => v === this.filter)) this.filter = "all";
    this.reasonFilter.replaceChildren(...options.map(([v, t]) => el("option", { value: v, selected: v === this.filter }, t)));
    this.draw();
  }

  draw() {
    const board = this.board;
    const all = board?.unassigned ?? [];
    const shown = all.filter((u) => {
      const kind = this.refusals.has(u.order.id) ? "REFUSED" : u.reason ?? "NEW";
      return (this.filter === "all" || kind === this.filter) && (!this.query || haystack(u.order).includes(this.query));
    });
    this.heading.textContent = shown.length === all.length ? `Unassigned (${all.length})` : `Unassigned (${shown.length} of ${all.length})`;
    // A long list is cut (the search and the filter narrow it): a thousand items cost a redraw
    // more than the rest of the board.
    const cut = this.all ? shown : shown.slice(0, LIST_LIMIT);
    this.list.replaceChildren(...cut.map((u) => this.item(u)));
    if (cut.length < shown.length) {
      const more = el("button", { type: "button", class: "link" }, `Show all ${shown.length}`);
      more.addEventListener("click", () => { this.all = true; this.draw(); });
      this.list.append(el("li", { class: "empty" }, `${LIST_LIMIT} of ${shown.length} shown. `, more));
    }
    if (shown.length === 0) this.list.append(el("li", { class: "empty" }, all.length ? "No unassigned order matches." : "Every order of the day is on a route."));
    this.matches.replaceChildren();
    if (this.query && board) {
      const found = board.routes.flatMap((r) => r.stops.filter((s) => s.orders.some((o) => haystack(o).includes(this.query))));
      if (found.length) {
        this.matches.append(el("h3", {}, `On routes (${found.length})`), el("ul", {}, found.slice(0, 50).map((s) => {
          const b = el("button", { type: "button", class: "link" }, `${s.numbers} — ${s.r.route.name}, stop ${s.n} (${s.status})`);
          b.addEventListener("click", () => this.on.stop(s));
          return el("li", {}, b);
        })));
      }
    }
  }

  item(u) {
    const o = u.order;
    const pick = el("button", { type: "button", class: "order-number", "aria-label": `Order ${o.order_number}` }, o.order_number);
    pick.addEventListener("click", () => this.on.order(o));
    const who = o.customer?.name ?? o.contact_name ?? o.customer?.account;
    const li = el("li", { class: "unassigned-order", "data-order-id": o.id },
      el("div", { class: "order-line" }, pick, who ? el("span", { class: "customer" }, who) : null),
      el("div", { class: "order-facts" }, [o.address ?? "no address", o.postcode].filter(Boolean).join(", ")),
      el("div", { class: "order-facts" }, `Window ${describeWindows(o)} · ${describeDemand(o)}${o.skills.length ? ` · skills ${o.skills.join(", ")}` : ""}`),
      el("div", { class: "order-reason" }, whyUnassigned(u, this.refusals)),
      Number.isFinite(o.lat) ? null : el("div", { class: "order-facts" }, "No coordinates: not on the map"),
    );
    this.decorate(li, o);
    return li;
  }
}

export { describeDemand, describeWindows };
