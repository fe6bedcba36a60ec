// Moving orders between the unassigned list and routes, through the spec's route edits:
// `POST /routes/{id}/remove-orders` takes an order off its route (it becomes unassigned),
// `POST /routes/{id}/add-orders` puts it on one (appended before the end, or placed by the
// service with `reoptimize`). A move between routes is a removal then an addition: when the
// addition is refused (NOT_PLACED, PREVIOUSLY_ON_ROUTE, ...) the order stays unassigned and
// the board says why.
//
// Drag and drop (HTML5) and the "Move to…" control in the details box both end here.
//
// A move shows at once: the board draws the order off its old route and at the end of the new
// one (marked as waiting for the service), redrawing only the two routes; the calls go out once
// that is on screen (a service on the same busy machine would otherwise slow the drawing down,
// to save a frame's worth of time); then it draws the routes as the service answered (placed
// elsewhere, re-timed, or the order back where the service left it, with the reason).

import { clock, minutesOf } from "./format.js";

const TYPE = "application/x-dispatch-orders";
let dragged = null;

/** Makes `node` draggable, carrying `payload` ({orders: [{id, order_number}], from}). */
export function dragSource(node, payload) {
  node.draggable = true;
  node.addEventListener("dragstart", (event) => {
    dragged = payload;
    event.dataTransfer.setData(TYPE, JSON.stringify(payload.orders.map((o) => o.id)));
    event.dataTransfer.setData("text/plain", payload.orders.map((o) => o.order_number).join(", "));
    event.dataTransfer.effectAllowed = "move";
    document.body.classList.add("dragging");
  });
  node.addEventListener("dragend", () => {
    dragged = null;
    document.body.classList.remove("dragging");
  });
}

/**
 * Makes `node` a drop target: `refusal(payload)` says why a drop is not possible (null when it
 * is), `drop(payload)` carries it out.
 */
export function dropTarget(node, refusal, drop) {
  const accepts = (event) => dragged && event.dataTransfer.types.includes(TYPE) && refusal(dragged) === null;
  node.addEventListener("dragover", (event) => {
    if (!accepts(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    node.classList.add("drop-ok");
  });
  node.addEventListener("dragleave", () => node.classList.remove("drop-ok"));
  node.addEventListener("drop", (event) => {
    node.classList.remove("drop-ok");
    if (!accepts(event)) return;
    event.preventDefault();
    const payload = dragged;
    dragged = null;
    document.body.classList.remove("dragging");
    drop(payload);
  });
}

/** A failed edit entry in a sentence: "NOT_PLACED (TIME_WINDOW): ...". */
export function describeFailure(error) {
  const reason = error.reason ?? error.details?.reason;
  const detail = error.reason_description ?? error.details?.reason_description;
  return `${error.name}${reason ? ` (${reason})` : ""}: ${detail ?? error.description ?? ""}`.trim();
}

/**
 * The two routes as a move of `orders` from route `from` to route `to` (either null:
 * unassigned) would leave them before the service answers: the orders off the first, and
 * appended to the second as one stop that waits for the service. API route objects.
 */
export function optimistic(board, orders, from, to) {
  const ids = new Set(orders.map((o) => o.id));
  const out = [];
  const source = from === null ? null : board.byRoute.get(from)?.route;
  if (source) {
    const stops = source.stops
      .map((s) => ({ ...s, orders: (s.orders ?? []).filter((o) => !ids.has(o.id)) }))
      .filter((s) => s.orders.length > 0);
    out.push({ ...source, stops });
  }
  const target = to === null ? null : board.byRoute.get(to)?.route;
  if (target) {
    const known = orders.map((o) => board.orders.get(o.id) ?? o);
    const last = target.stops[target.stops.length - 1];
    const arrive = minutesOf(last?.estimated_departure_time ?? target.start_time) ?? 0;
    const service = known.reduce((n, o) => n + (o.service_seconds ?? 0), 0) / 60;
    const time = (m) => clock(m % 1440);
    out.push({
      ...target,
      stops: [...target.stops, {
        id: -known[0].id, pending: true, lat: known[0].lat ?? null, lng: known[0].lng ?? null,
        address: known[0].address ?? null, arrival_date: last?.departure_date ?? target.date, departure_date: last?.departure_date ?? target.date,
        estimated_arrival_time: time(arrive), estimated_departure_time: time(arrive + Math.max(1, service)),
        orders: known.map((o) => ({ id: o.id, order_number: o.order_number, type: o.type })),
      }],
    });
  }
  return out;
}

/** After the next frame is drawn. */
const painted = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

/**
 * Carries out moves for the board. `context` gives `api()`, `board()`, `say(text, isError)`,
 * `refusals` (a Map order id -> why its last move was refused), `preview(routes)` (draws API
 * route objects at once) and `refresh(routeIds)` (reads routes again and draws them).
 */
export class Mover {
  constructor(context) {
    this.context = context;
    this.busy = false;
  }

  /**
   * Moves `orders` ([{id, order_number}]) from route `from` (null: unassigned) to route `to`
   * (null: unassigned). Resolves when the board shows the service's outcome. The time until
   * the move was drawn is kept in `body[data-move-ms]`, until the service's answer was drawn
   * in `body[data-move-settled-ms]`.
   */
  async move(orders, from, to, { reoptimize = false } = {}) {
    if (this.busy || from === to) return;
    const { api, board, say, refusals, refresh, preview } = this.context;
    const b = board();
    const source = from === null ? null : b.byRoute.get(from);
    const target = to === null ? null : b.byRoute.get(to);
    const names = orders.map((o) => o.order_number).join(", ");
    if (target?.route.dispatched && !window.confirm(`${target.route.name} is dispatched: add ${names} to it and tell its driver?`)) return;
    if (source?.route.dispatched && !window.confirm(`${source.route.name} is dispatched: take ${names} off it and tell its driver?`)) return;
    this.busy = true;
    const started = performance.now();
    document.body.dataset.state = "loading";
    const touched = [from, to].filter((id) => id !== null);
    const refs = orders.map((o) => ({ id: o.id }));
    const add = () => api().post(`v2/routes/${to}/add-orders`, {
      orders: refs, settings: { allow_dispatched: target.route.dispatched, reoptimize },
    });
    say(`Moving ${names}…`);
    preview(optimistic(b, orders, from, to));
    await painted();
    document.body.dataset.moveMs = String(Math.round(performance.now() - started));
    const first = source
      ? api().post(`v2/routes/${from}/remove-orders`, {
        orders: refs, settings: { allow_dispatched: source.route.dispatched, reoptimize: false },
      })
      : add();
    first.catch(() => {});
    try {
      if (source) {
        const { body } = await first;
        if (body.errors.length > 0) {
          await refresh(touched);
          say(`${names} could not be taken off ${source.route.name}: ${body.errors.map(describeFailure).join("; ")}. It stays where it was.`, true);
          return;
        }
      }
      for (const o of orders) refusals.delete(o.id);
      if (!target) {
        await refresh(touched);
        say(`${names} taken off ${source.route.name}: now unassigned.`);
        return;
      }
      const { body } = await (source ? add() : first);
      const failed = new Map(body.errors.map((e) => [Number(e.details?.id), e]));
      for (const o of orders) {
        const e = failed.get(o.id);
        if (e) refusals.set(o.id, `Not added to ${target.route.name}: ${describeFailure(e)}`);
      }
      await refresh(touched);
      if (body.errors.length > 0) {
        const left = orders.filter((o) => failed.has(o.id)).map((o) => o.order_number).join(", ");
        say(`${left} not added to ${target.route.name}: ${body.errors.map(describeFailure).join("; ")}. It stays unassigned.`, true);
      } else {
        say(`${names} ${source ? `moved from ${source.route.name} to` : "added to"} ${target.route.name}.`);
      }
    } catch (error) {
      await refresh(touched).catch(() => {});
      this.context.fail(error);
    } finally {
      this.busy = false;
      document.body.dataset.moveSettledMs = String(Math.round(performance.now() - started));
      if (document.body.dataset.state === "loading") document.body.dataset.state = "ready";
    }
  }
}
