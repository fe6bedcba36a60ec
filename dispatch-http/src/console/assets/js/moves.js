// Moving orders between the unassigned list and routes, through the spec's route edits:
// `POST /routes/{id}/remove-orders` takes an order off its route (it becomes unassigned),
// `POST /routes/{id}/add-orders` puts it on one (appended before the end, or placed by the
// service with `reoptimize`). A move between routes is a removal then an addition: when the
// addition is refused (NOT_PLACED, PREVIOUSLY_ON_ROUTE, ...) the order stays unassigned and
// the board says why.
//
// Drag and drop (HTML5) and the "Move to…" control in the details box both end here.

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
 * Carries out moves for the board. `context` gives `api()`, `board()`, `say(text, isError)`,
 * `refusals` (a Map order id -> why its last move was refused) and `refresh(routeIds)`.
 */
export class Mover {
  constructor(context) {
    this.context = context;
    this.busy = false;
  }

  /**
   * Moves `orders` ([{id, order_number}]) from route `from` (null: unassigned) to route `to`
   * (null: unassigned). Resolves when the board shows the outcome; the time that took is kept
   * in `body[data-move-ms]`.
   */
  async move(orders, from, to, { reoptimize = false } = {}) {
    if (this.busy || from === to) return;
    const { api, board, say, refusals, refresh } = this.context;
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
    try {
      if (source) {
        const { body } = await api().post(`v2/routes/${from}/remove-orders`, {
          orders: refs, settings: { allow_dispatched: source.route.dispatched, reoptimize: false },
        });
        if (body.errors.length > 0) {
          await refresh(touched);
          say(`${names} could not be taken off ${source.route.name}: ${body.errors.map(describeFailure).join("; ")}`, true);
          return;
        }
      }
      for (const o of orders) refusals.delete(o.id);
      if (!target) {
        await refresh(touched);
        say(`${names} taken off ${source.route.name}: now unassigned.`);
        return;
      }
      const { body } = await api().post(`v2/routes/${to}/add-orders`, {
        orders: refs, settings: { allow_dispatched: target.route.dispatched, reoptimize },
      });
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
      const ms = Math.round(performance.now() - started);
      document.body.dataset.moveMs = String(ms);
      if (document.body.dataset.state === "loading") document.body.dataset.state = "ready";
    }
  }
}
