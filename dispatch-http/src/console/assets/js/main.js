// The board's entry point: the form (access key and date), loading and drawing a day, the
// buttons, moves, the optimisation dialog and the live updates.
//
// The access key lives only in this tab's sessionStorage and in the x-access-key header of
// the page's own API calls: never in a URL, a cookie or the page. The date is kept in the
// URL's fragment (#date=YYYY-MM-DD), so a reload shows the same day.
//
// body[data-state] says where the page is: idle, loading, ready or error.

import { Api, ApiError } from "./api.js";
import { act } from "./actions.js";
import { addUnservedOrders, loadBreaks, loadDay, loadOrders, loadPlan, loadPositions, loadRoads } from "./day.js";
import { showOrder, showStop } from "./details.js";
import { count, minuteMs, now, syncClock, today, Zone } from "./format.js";
import { DayMap } from "./map.js";
import { buildBoard, dayCounts, replaceRoutes } from "./model.js";
import { dragSource, dropTarget, Mover } from "./moves.js";
import { Optimiser } from "./optimise.js";
import { renderPanel, updateRouteCards } from "./panel.js";
import { addRefusal, removeRefusal } from "./rules.js";
import { Timeline } from "./timeline.js";
import { Unassigned, whyUnassigned } from "./unassigned.js";

const KEY_ITEM = "dispatch.console.access-key";
/** Seconds between live updates of a shown day (plans, stops, ETAs and positions). */
const POLL_SECONDS = 10;

const $ = (id) => document.getElementById(id);
const form = $("day-form");
const keyInput = $("key");
const dateInput = $("date");
const message = $("message");
const details = $("details");
const optimiseButton = $("optimise");

const map = new DayMap($("map"), { url: document.body.dataset.tileUrl, attribution: document.body.dataset.tileAttribution });
const timeline = new Timeline($("timeline"));

/** What is shown: the loaded day, its model, the chosen stop, and what moves and dispatches said. */
const state = { api: null, day: null, board: null, selected: null, refusals: new Map(), dropped: [], busy: false, roadWarnings: new Map() };

function say(text, isError = false) {
  message.textContent = text;
  message.classList.toggle("error", isError);
}

const storedKey = () => sessionStorage.getItem(KEY_ITEM);
function reflectKey() {
  keyInput.placeholder = storedKey() ? "key kept for this tab" : "x-access-key";
}
function dateFromFragment() {
  const match = location.hash.match(/date=(\d{4}-\d{2}-\d{2})/);
  return match ? match[1] : null;
}

function fail(error) {
  document.body.dataset.state = "error";
  if (error instanceof ApiError && error.statusCode === 401) {
    // A key the service refuses is of no further use: ask for another.
    sessionStorage.removeItem(KEY_ITEM);
    reflectKey();
    say(`The access key was refused: ${error.message}. Enter a valid key.`, true);
  } else {
    say(error instanceof ApiError ? error.message : `Something went wrong: ${error.message}`, true);
  }
}

const handlers = {
  stop: (s) => select(s),
  order: (o) => chooseOrder(o),
  route: (r) => { map.highlight(r.route.id); timeline.highlight(r.route.id); },
  hover: (r) => { map.highlight(r?.route.id ?? null); timeline.highlight(r?.route.id ?? null); },
};

const mover = new Mover({
  api: () => state.api, board: () => state.board, say, fail, refusals: state.refusals,
  refresh: (routeIds) => refreshRoutes(routeIds), preview: (routes) => redrawRoutes(routes),
});

const unassigned = new Unassigned($("unassigned"), handlers);

const optimiser = new Optimiser($("optimise-dialog"), {
  api: () => state.api, board: () => state.board, say, fail, reload: () => reload(),
});

/** Selects a stop: the details box, its marker on the map and its block on the timeline. */
function select(s) {
  state.selected = { stop: s.stop.id, orders: s.orders.map((o) => o.id) };
  showStop(details, state.board, s, (to, options) => mover.move(s.orders, s.r.route.id, to, options), clearSelection);
  map.select(s.stop.id);
  timeline.select(s.stop.id);
  handlers.hover(s.r);
}

function chooseOrder(order) {
  const u = state.board.unassigned.find((x) => x.order.id === order.id);
  state.selected = { order: order.id };
  showOrder(details, state.board, order, u ? whyUnassigned(u, state.refusals) : "—", (to, options) => mover.move([order], null, to, options), clearSelection);
  map.select(null);
  timeline.select(null);
}

function clearSelection() {
  state.selected = null;
  map.select(null);
  timeline.select(null);
}

/** Drag and drop: stops and unassigned orders are dragged onto routes or the unassigned list. */
function laneTarget(node, r) {
  dropTarget(node, (p) => (p.from === r.route.id ? "already on this route" : addRefusal(state.board, r)),
    (p) => mover.move(p.orders, p.from, r.route.id, { reoptimize: $("drop-reoptimize").checked }));
}
function stopSource(block, s) {
  if (removeRefusal(state.board, s) === null) dragSource(block, { orders: s.orders, from: s.r.route.id });
}
function orderSource(li, order) {
  if (!state.board.readOnly) dragSource(li, { orders: [order], from: null });
}

/** Draws the board from `state.day`; the time it took is kept in body[data-render-ms]. */
function render() {
  const started = performance.now();
  const board = buildBoard(state.day, new Zone(state.day.depot?.timezone));
  board.dropped = state.dropped;
  board.roadWarnings = state.roadWarnings;
  state.board = board;
  renderPanel($("panel"), board, (action, id, name) => act(action, id, name, actions), laneTarget);
  timeline.show(board, handlers, laneTarget, stopSource);
  map.resize();
  map.show(board, handlers);
  unassigned.show(board, state.refusals, orderSource);
  const refusal = optimiser.refusal();
  optimiseButton.disabled = refusal !== null;
  $("optimise-why").textContent = refusal ? `Optimise: ${refusal}.` : "";
  $("zone").textContent = `Times in ${board.zone.name}`;
  reselect();
  document.body.dataset.renderMs = String(Math.round(performance.now() - started));
}

/** After a redraw, the chosen stop (found again by its orders: edits change stop ids) stays chosen. */
function reselect() {
  const chosen = state.selected;
  if (!chosen) return;
  if (chosen.order) {
    const u = state.board.unassigned.find((x) => x.order.id === chosen.order);
    if (u) chooseOrder(u.order);
    else { const s = findStop(chosen.order); if (s) select(s); }
    return;
  }
  const s = state.board.routes.flatMap((r) => r.stops).find((x) => x.stop.id === chosen.stop) ?? findStop(chosen.orders[0]);
  if (s) select(s);
  else { details.hidden = true; state.selected = null; }
}
const findStop = (orderId) => state.board.routes.flatMap((r) => r.stops).find((x) => x.orders.some((o) => o.id === orderId));

async function showDay(date) {
  const key = storedKey();
  if (!key) {
    say("Enter an access key.", true);
    document.body.dataset.state = "error";
    return;
  }
  const started = performance.now();
  document.body.dataset.state = "loading";
  say(`Loading ${date}…`);
  details.hidden = true;
  if (state.day?.date !== date) { state.selected = null; state.refusals.clear(); state.dropped.length = 0; }
  try {
    state.api = new Api(key, say);
    state.day = await loadDay(state.api, date);
    render();
    const c = dayCounts(state.board);
    const depot = state.day.depot;
    if (c.plans === 0) {
      say(`No plans on ${date} in depot ${depot?.name ?? ""}.${c.unassigned ? ` ${count(c.unassigned, "order")} unassigned.` : ""}`, true);
    } else {
      say(`${depot?.name ?? "Depot"}, ${date}: ${count(c.plans, "plan")}, ${count(c.routes, "route")}, ${count(c.stops, "stop")}, ${c.unassigned} unassigned.`);
    }
    document.body.dataset.state = "ready";
    document.body.dataset.loadMs = String(Math.round(performance.now() - started));
    schedulePoll();
    followRoads(state.day.plans.map((p) => p.id));
  } catch (error) {
    fail(error);
  }
}

/** Reads the shown day again (after an optimisation or an action), keeping the message. */
async function reload() {
  if (!state.day) return;
  const text = message.textContent;
  const isError = message.classList.contains("error");
  await showDay(state.day.date);
  if (document.body.dataset.state === "ready") say(text, isError);
}

/** Reads the routes a move touched again (`GET /routes/{id}`, and their breaks) and redraws them. */
async function refreshRoutes(routeIds) {
  const routes = [];
  for (const id of routeIds) routes.push((await state.api.get(`v2/routes/${id}`)).body.route);
  const breaks = await loadBreaks(state.api, [...new Set(routes.map((r) => r.plan_id))]);
  for (const r of routes) state.board.breaks.set(r.id, breaks.get(r.id) ?? []);
  redrawRoutes(routes);
  followRoads([...new Set(routes.map((r) => r.plan_id))]);
}

/**
 * With a road network (`serve --osrm-url`), asks for the lines along the roads of these plans'
 * routes and draws them when they come; the board is not held up meanwhile (straight lines
 * until then). A plan whose lines OSRM could not give says so on its card.
 */
async function followRoads(planIds) {
  const day = state.day;
  if (day?.roads !== "osrm" || planIds.length === 0) return;
  try {
    const { lines, warnings } = await loadRoads(state.api, planIds);
    if (state.day !== day && state.day?.date !== day.date) return;
    let warned = false;
    for (const id of planIds) {
      warned ||= (state.roadWarnings.get(id) ?? null) !== (warnings.get(id) ?? null);
      if (warnings.has(id)) state.roadWarnings.set(id, warnings.get(id));
      else state.roadWarnings.delete(id);
    }
    map.setRoads(state.board, lines);
    if (warned && !mover.busy) render();
    document.body.dataset.roads = String(map.roads.size);
  } catch (error) {
    // The map keeps its straight lines; the board itself is unaffected.
    state.roadWarnings.set(planIds[0], `the lines along the roads could not be read (${error.message})`);
  }
}

/**
 * Puts new versions of some routes (API route objects) on the board and redraws only them:
 * their lanes, map layers and cards, and the unassigned list (the timeline's clock follows
 * without redrawing the other lanes).
 */
function redrawRoutes(routes) {
  const changed = replaceRoutes(state.board, routes);
  if (!timeline.update(state.board, changed)) {
    render();
    return;
  }
  map.update(state.board, changed);
  updateRouteCards($("panel"), state.board, changed, (action, id, name) => act(action, id, name, actions), laneTarget);
  unassigned.show(state.board, state.refusals, orderSource);
  reselect();
}

/**
 * Draws a live update of `state.day`: only the routes whose stops, reports, ETAs, breaks or
 * van position changed (a quiet board is not redrawn at all); the whole board when routes
 * came or went, a route changed status or its stop count, or a plan changed. The time it
 * took and how many routes it drew are kept in body[data-update-ms] and [data-update-routes].
 */
function update() {
  const started = performance.now();
  const board = buildBoard(state.day, state.board.zone);
  board.dropped = state.dropped;
  board.roadWarnings = state.roadWarnings;
  const changed = changedRoutes(state.board, board);
  if (changed === null || !timeline.update(board, changed)) {
    render();
    document.body.dataset.updateRoutes = "all";
  } else {
    state.board = board;
    map.update(board, changed);
    updateRouteCards($("panel"), board, changed, (action, id, name) => act(action, id, name, actions), laneTarget);
    unassigned.show(board, state.refusals, orderSource);
    reselect();
    document.body.dataset.updateRoutes = String(changed.length);
  }
  document.body.dataset.updateMs = String(Math.round(performance.now() - started));
}

/** What the whole board shows of a day beyond each route's own lane, card and map layer. */
function outline(board) {
  return JSON.stringify([
    board.plans.map((p) => ({ ...p, routes: p.routes.map((r) => r.id) })),
    board.routes.map((r) => [r.route.id, r.status, r.stops.length]),
  ]);
}

/** The routes of `next` drawn differently from `shown`, or null when the board is to be drawn afresh. */
function changedRoutes(shown, next) {
  if (outline(shown) !== outline(next)) return null;
  const drawn = (r) => JSON.stringify([r.route, r.position, r.breaks, r.stops.map((s) => s.orders)]);
  return next.routes.filter((r, i) => drawn(r) !== drawn(shown.routes[i]));
}

/** The live update: plans (stops, reports, ETAs, breaks) and positions, without reloading the page. */
let timer = null;
function schedulePoll() {
  clearTimeout(timer);
  timer = setTimeout(poll, POLL_SECONDS * 1000);
}
async function poll() {
  const day = state.day;
  if (!day || document.body.dataset.state === "loading" || document.hidden || mover.busy) return schedulePoll();
  try {
    await syncClock();
    const plans = (await Promise.all(day.plans.map((p) => loadPlan(state.api, p.id)))).filter(Boolean);
    const positions = await loadPositions(state.api, day.date);
    const orders = await addUnservedOrders(state.api, day.date, plans, await loadOrders(state.api, day.date));
    const breaks = await loadBreaks(state.api, plans.map((p) => p.id));
    if (state.day !== day || mover.busy) return schedulePoll();
    state.day = { ...day, plans, positions, orders, breaks };
    update();
    // Routes changed by someone else (stop ids change with every edit), or whose roads OSRM
    // could not give last time, are asked again.
    if (state.board.routes.some((r) => r.stops.length > 0 && !map.roadOf(r))) followRoads(plans.map((p) => p.id));
    $("updated").textContent = `Updated ${now().toLocaleTimeString("en-GB", { timeZone: state.board.zone.name })}`;
  } catch (error) {
    fail(error);
  }
  schedulePoll();
}

const actions = { api: () => state.api, board: () => state.board, say, fail, reload, dropped: state.dropped, details };

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const typed = keyInput.value.trim();
  if (typed) sessionStorage.setItem(KEY_ITEM, typed);
  // The key does not stay in the page once it is kept.
  keyInput.value = "";
  reflectKey();
  const date = dateInput.value;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    say("Pick a date.", true);
    return;
  }
  history.replaceState(null, "", `#date=${date}`);
  showDay(date);
});

$("forget").addEventListener("click", () => {
  sessionStorage.removeItem(KEY_ITEM);
  reflectKey();
  clearTimeout(timer);
  // What the key showed goes too: the page is left as for someone without it.
  state.day = null;
  state.board = null;
  $("panel").replaceChildren();
  details.hidden = true;
  map.show(null, handlers);
  timeline.show(null, handlers);
  unassigned.show(null, new Map());
  document.body.dataset.state = "idle";
  say("The access key is forgotten in this tab.");
});

optimiseButton.addEventListener("click", () => optimiser.open());
$("refresh").addEventListener("click", () => reload());
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !details.hidden) { details.hidden = true; clearSelection(); }
});

/** The timeline's "now" line follows the service's clock minute by minute (at most once a second). */
function tickNow() {
  timeline.tick();
  setTimeout(tickNow, Math.max(1000, minuteMs()));
}

// The service's clock (simulated under `serve --simulate`) says what "today" and "now" are.
await syncClock();
tickNow();
dateInput.value = dateFromFragment() ?? today();
reflectKey();
document.body.dataset.state = "idle";
unassigned.show(null, new Map());
if (storedKey() && dateFromFragment()) showDay(dateInput.value);
